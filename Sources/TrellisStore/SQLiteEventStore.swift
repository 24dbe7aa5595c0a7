import Foundation
import GRDB

/// The embedded event store: its own SQLite file (``fileName`` in the data directory) through a
/// GRDB pool, opened as ``SQLiteStore`` opens its file — WAL with `synchronous=FULL` (an append
/// is in the fsynced WAL before it returns, and readers never wait for it), the owner's alone, the
/// schema versioned by GRDB's migrator.
///
/// A file of its own: ingest commits often and in bulk, and the runtime store's commits (an
/// operator's kill switch) should never queue behind it, nor its backups carry it.
public final class SQLiteEventStore: EventStore {
    /// The file name of the database in the data directory.
    public static let fileName = "events.sqlite"

    /// The page cache of each reading connection, in KiB (SQLite's default is 2,000): a
    /// statistics query walks the user index, far more than 2 MB of pages.
    static let cacheKiB = 65_536
    /// The writer's: a merge walks the user-ordered b-trees from end to end, and the sorter that
    /// puts staged rows in user order works in this memory.
    static let writerCacheKiB = 262_144

    /// Staged events past which an append merges (``merge()``) after its commit. Larger bounds
    /// write each index page for more events at once, and make the merge an append or a read
    /// waits for longer.
    public static let defaultMergeThreshold = 200_000

    private let pool: DatabasePool
    public let path: String
    let mergeThreshold: Int

    /// Opens (creating if needed, mode 0600) and migrates the event database at `path`.
    /// - Parameter busyTimeoutSeconds: how long a write waits for another connection holding the
    ///   write lock (an operator's `sqlite3` shell) before failing. The default is 5.
    /// - Parameter mergeThreshold: staged events past which an append merges
    ///   (``defaultMergeThreshold``).
    /// - Throws: ``StoreError/failure(_:)`` when the file cannot be opened or a newer Trellis wrote it.
    public init(path: String, busyTimeoutSeconds: Double = 5, mergeThreshold: Int = defaultMergeThreshold) throws(StoreError) {
        self.path = path
        self.mergeThreshold = mergeThreshold
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeoutSeconds)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA cache_size = -\(Self.cacheKiB)")
        }
        SQLiteStore.restrictToOwner(path)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // GRDB sets `synchronous = NORMAL` on the writer after prepareDatabase, when it turns
            // WAL on (see SQLiteStore): FULL again, or an acknowledged batch can be lost to power loss.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                try db.execute(sql: "PRAGMA cache_size = -\(Self.writerCacheKiB)")
            }
            if try pool.read(Self.migrator.hasBeenSuperseded) {
                throw StoreError.failure("\(path) was written by a newer version of trellis (unknown schema migrations)")
            }
            try Self.migrator.migrate(pool)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.failure("cannot open \(path): \(SQLiteStore.describe(error))")
        }
    }

    /// The schema, one migration per version; a migration, once shipped, never changes.
    ///
    /// - `tracked_event_staged` (v2): where appends write, a rowid table with no other index, so
    ///   that a commit writes only its last pages; `seq` is the order of arrival (rowids grow by
    ///   one, and a merge deletes a prefix, so the staged rows are always `min(seq)...max(seq)`).
    /// - `tracked_event` (v2): WITHOUT ROWID, the table ordered by its key `(user_id, id)` — the
    ///   deduplication — so that it and `tracked_event_by_user`, what statistics read (covering:
    ///   the value is in it, the table is never visited), are both in user order and a merge
    ///   sorted by user writes each of their pages once. `tracked_event_by_receipt` is the
    ///   export's order; receipt times grow, so it is written at its end.
    /// - `exposure`: WITHOUT ROWID, the table itself ordered by its key, so that a subject's
    ///   exposures are one range read in user order.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: tracked events and exposures") { db in
            try db.execute(
                sql: """
                    CREATE TABLE tracked_event (
                        id TEXT NOT NULL UNIQUE,
                        user_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        value REAL,
                        at REAL NOT NULL,
                        received_at REAL NOT NULL
                    ) STRICT;
                    CREATE INDEX tracked_event_by_user ON tracked_event (user_id, name, at, value);
                    CREATE INDEX tracked_event_by_receipt ON tracked_event (received_at, id);
                    CREATE TABLE exposure (
                        kind TEXT NOT NULL CHECK (kind IN ('experiment', 'rollout', 'screen')),
                        key TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        variant TEXT NOT NULL,
                        first_at REAL NOT NULL,
                        platform TEXT,
                        app_version TEXT,
                        country TEXT,
                        source TEXT NOT NULL CHECK (source IN ('client', 'server')),
                        PRIMARY KEY (kind, key, user_id, variant)
                    ) STRICT, WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2: staged events, deduplicated by user and id") { db in
            // v1 ids were unique alone, so unique per user: every row moves.
            try db.execute(
                sql: """
                    CREATE TABLE tracked_event_staged (
                        seq INTEGER PRIMARY KEY,
                        id TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        value REAL,
                        at REAL NOT NULL,
                        received_at REAL NOT NULL
                    ) STRICT;
                    CREATE TABLE tracked_event_v2 (
                        id TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        value REAL,
                        at REAL NOT NULL,
                        received_at REAL NOT NULL,
                        PRIMARY KEY (user_id, id)
                    ) STRICT, WITHOUT ROWID;
                    INSERT INTO tracked_event_v2 (id, user_id, name, value, at, received_at)
                    SELECT id, user_id, name, value, at, received_at FROM tracked_event ORDER BY user_id, id;
                    DROP TABLE tracked_event;
                    ALTER TABLE tracked_event_v2 RENAME TO tracked_event;
                    CREATE INDEX tracked_event_by_user ON tracked_event (user_id, name, at, value);
                    CREATE INDEX tracked_event_by_receipt ON tracked_event (received_at, id, user_id);
                    """)
        }
        return migrator
    }()

    /// Events inserted by one statement: a statement per event spends more on stepping and
    /// resetting it than SQLite spends inserting the row.
    static let eventsPerStatement = 100

    /// `INSERT` of `rows` events into staging.
    static func insertEvents(_ rows: Int) -> String {
        let values = Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
        return "INSERT INTO tracked_event_staged (\(EventSQL.eventColumns)) VALUES \(values)"
    }

    @discardableResult
    public func append(_ batch: EventBatch) throws(StoreError) -> AppendReport {
        let (events, exposures) = try batch.prepared()
        guard !events.isEmpty || !exposures.isEmpty else { return AppendReport() }
        let (report, staged) = try run("append events") {
            try pool.write { db in
                var report = AppendReport()
                // ``eventsPerStatement`` rows to a statement, prepared once per connection and kept
                // (GRDB's statement cache); the last, shorter slice of a batch is prepared for it.
                let full = try db.cachedStatement(sql: Self.insertEvents(Self.eventsPerStatement))
                for start in stride(from: 0, to: events.count, by: Self.eventsPerStatement) {
                    let slice = events[start..<min(start + Self.eventsPerStatement, events.count)]
                    let statement = slice.count == Self.eventsPerStatement ? full : try db.makeStatement(sql: Self.insertEvents(slice.count))
                    var values: [(any DatabaseValueConvertible)?] = []
                    values.reserveCapacity(slice.count * 6)
                    for event in slice {
                        values.append(event.id)
                        values.append(event.user)
                        values.append(event.name)
                        values.append(event.value)
                        values.append(event.at)
                        values.append(event.receivedAt)
                    }
                    statement.setUncheckedArguments(StatementArguments(values))
                    try statement.execute()
                }
                report.eventsStaged = events.count
                // Inserted, or else moved earlier when earlier: two statements rather than one
                // upsert, because an upsert's change count does not tell a new row from a moved one.
                let insertExposure = try db.cachedStatement(
                    sql: "INSERT INTO exposure (\(EventSQL.exposureColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
                let moveExposure = try db.cachedStatement(
                    sql: """
                        UPDATE exposure SET first_at = ?5, platform = ?6, app_version = ?7, country = ?8, source = ?9
                        WHERE kind = ?1 AND key = ?2 AND user_id = ?3 AND variant = ?4 AND first_at > ?5
                        """)
                for exposure in exposures {
                    let arguments: StatementArguments = [
                        exposure.subject.kind, exposure.subject.key, exposure.user, exposure.variant, exposure.at,
                        exposure.dimensions.platform, exposure.dimensions.appVersion, exposure.dimensions.country, exposure.source.rawValue,
                    ]
                    insertExposure.setUncheckedArguments(arguments)
                    try insertExposure.execute()
                    if db.changesCount == 1 {
                        report.exposuresNew += 1
                        continue
                    }
                    moveExposure.setUncheckedArguments(arguments)
                    try moveExposure.execute()
                    report.exposuresMovedEarlier += db.changesCount
                }
                return (report, try Self.stagedCount(db))
            }
        }
        // A separate transaction: the batch is durable whatever becomes of the merge, and one that
        // fails leaves staging whole for the next (a read's, the timer's) to report.
        if staged > mergeThreshold { _ = try? merge() }
        return report
    }

    /// Staged events: a merge deletes a prefix of `seq`, appends add after its end.
    static func stagedCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT max(seq) - min(seq) + 1 FROM tracked_event_staged") ?? 0
    }

    @discardableResult
    public func merge() throws(StoreError) -> MergeReport {
        try run("merge staged events") { try pool.write(Self.merge) }
    }

    /// Moves staged events up to the last now staged into `tracked_event` sorted by its key, the
    /// first appended of a (user, id) kept, and deletes exactly those from staging, in the caller's
    /// transaction. The writer is SQLite's only one, so nothing is appended meanwhile; the bound
    /// still says which rows the two statements mean.
    static func merge(_ db: Database) throws -> MergeReport {
        guard let last = try Int.fetchOne(db, sql: "SELECT max(seq) FROM tracked_event_staged") else { return MergeReport() }
        try db.execute(
            sql: """
                INSERT INTO tracked_event (\(EventSQL.eventColumns))
                SELECT \(EventSQL.eventColumns) FROM tracked_event_staged WHERE seq <= ?
                ORDER BY user_id, id, seq
                ON CONFLICT DO NOTHING
                """, arguments: [last])
        let stored = db.changesCount
        try db.execute(sql: "DELETE FROM tracked_event_staged WHERE seq <= ?", arguments: [last])
        return MergeReport(eventsStored: stored, eventsSkipped: db.changesCount - stored)
    }

    /// Merges when anything is staged, before a read of tracked events: whatever was appended
    /// before the read began is committed, so seen by this check, and merged before the read.
    private func mergeStaged() throws(StoreError) {
        let staged = try run("read staged events") {
            try pool.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM tracked_event_staged)") ?? false }
        }
        if staged { try merge() }
    }

    public func statistics(_ query: MetricQuery) throws(StoreError) -> MetricStatistics {
        try query.validate()
        let statement = EventSQL.statistics(query, .sqlite)
        let covariate = query.covariateLookback != nil
        try mergeStaged()
        return try run("compute statistics") {
            try pool.read { db in
                var rows: [VariantStatistics] = []
                var multiple = 0
                for row in try Row.fetchAll(db, sql: statement.sql, arguments: Self.arguments(statement)) {
                    // No variant: the users exposed to more than one.
                    guard let variant: String = row["variant"] else {
                        multiple += row["users"] as Int
                        continue
                    }
                    rows.append(
                        VariantStatistics(
                            dimension: row["dimension"], variant: variant, users: row["users"], sum: row["m_sum"], sumSquares: row["m_squares"],
                            denominator: row.hasColumn("d_sum")
                                ? Moments(sum: row["d_sum"], sumSquares: row["d_squares"], sumProducts: row["d_products"]) : nil,
                            covariate: covariate
                                ? Moments(sum: row["c_sum"], sumSquares: row["c_squares"], sumProducts: row["c_products"]) : nil))
                }
                return MetricStatistics(rows: EventSQL.sorted(rows), multipleExposures: multiple)
            }
        }
    }

    public func exposuresPerDay(_ subject: ExposureSubject, asOf: Double) throws(StoreError) -> [ExposureDay] {
        let statement = EventSQL.exposuresPerDay(subject, asOf: asOf, .sqlite)
        return try run("count exposures per day") {
            try pool.read { db in
                try Row.fetchAll(db, sql: statement.sql, arguments: Self.arguments(statement)).map { row in
                    ExposureDay(day: row["day"], variant: row["variant"], users: row["users"])
                }
            }
        }
    }

    @discardableResult
    public func pruneEvents(before cutoff: Double) throws(StoreError) -> Int {
        try run("prune events") {
            try pool.write { db in
                try Self.merge(db)
                try db.execute(sql: "DELETE FROM tracked_event WHERE at < ?", arguments: [cutoff])
                return db.changesCount
            }
        }
    }

    public func events(after cursor: EventCursor?, limit: Int) throws(StoreError) -> [TrackedEvent] {
        let statement = EventSQL.events(after: cursor, limit: limit, .sqlite)
        try mergeStaged()
        return try run("read events") {
            try pool.read { db in
                try Row.fetchAll(db, sql: statement.sql, arguments: Self.arguments(statement)).map { row in
                    TrackedEvent(
                        id: row["id"], user: row["user_id"], name: row["name"], value: row["value"], at: row["at"],
                        receivedAt: row["received_at"])
                }
            }
        }
    }

    public func exposures(of subject: ExposureSubject, after cursor: ExposureCursor?, limit: Int) throws(StoreError) -> [Exposure] {
        let statement = EventSQL.exposures(of: subject, after: cursor, limit: limit, .sqlite)
        return try run("read exposures") {
            try pool.read { db in
                try Row.fetchAll(db, sql: statement.sql, arguments: Self.arguments(statement)).map { row throws in
                    guard let source = ExposureSource(rawValue: row["source"]) else {
                        throw StoreError.failure("an exposure of \(subject) has an unknown source")
                    }
                    return Exposure(
                        subject: subject, user: row["user_id"], variant: row["variant"], at: row["first_at"],
                        dimensions: ExposureDimensions(platform: row["platform"], appVersion: row["app_version"], country: row["country"]),
                        source: source)
                }
            }
        }
    }

    static func arguments(_ statement: EventSQL) -> StatementArguments {
        StatementArguments(
            statement.parameters.map { parameter -> any DatabaseValueConvertible in
                switch parameter {
                case .text(let value): value
                case .double(let value): value
                case .int(let value): value
                }
            })
    }

    /// Runs `body`: a ``StoreError`` it throws as it is, any other error as
    /// ``StoreError/failure(_:)`` naming `what`.
    private func run<T>(_ what: String, _ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.failure("cannot \(what) in \(path): \(SQLiteStore.describe(error))")
        }
    }
}
