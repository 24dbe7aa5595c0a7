import Foundation
import GRDB
import GRDBSQLite

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
    /// The writer's: small on purpose. SQLite 3.40 swaps page numbers through the pending-byte page
    /// (page 262,145 of 4 KiB) when it splits a b-tree page, so that until the file passes 1 GiB
    /// every commit walks the writer's whole page-cache hash table to drop that page again — a walk
    /// as long as the cache is large (docs/benchmarks.md has what 256 MiB cost).
    static let writerCacheKiB = 16_384

    private let pool: DatabasePool
    public let path: String

    /// Opens (creating if needed, mode 0600) and migrates the event database at `path`.
    /// - Parameter busyTimeoutSeconds: how long a write waits for another connection holding the
    ///   write lock (an operator's `sqlite3` shell) before failing. The default is 5.
    /// - Throws: ``StoreError/failure(_:)`` when the file cannot be opened or a newer Trellis wrote it.
    public init(path: String, busyTimeoutSeconds: Double = 5) throws(StoreError) {
        self.path = path
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

    /// The journal mode and `synchronous` level of the writer's connection and of a reader's, read
    /// from the connections themselves (a test's check that appends are synced at commit).
    func durabilitySettings() throws(StoreError) -> (writer: DurabilitySettings, reader: DurabilitySettings) {
        try run("read the event store's pragmas") {
            let read = { (db: Database) throws -> DurabilitySettings in
                DurabilitySettings(
                    journalMode: try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "",
                    synchronous: try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1)
            }
            return (try pool.writeWithoutTransaction(read), try pool.read(read))
        }
    }

    /// The schema, one migration per version; a migration, once shipped, never changes.
    ///
    /// - `tracked_event`: a rowid table, so that rows are appended at its end; `id` is unique (the
    ///   deduplication), `tracked_event_by_user` is what statistics read (covering: the value is in
    ///   it, the table is never visited), `tracked_event_by_receipt` the export's order.
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
        return migrator
    }()

    /// Events inserted by one statement: a statement per event spends more on stepping and
    /// resetting it than SQLite spends inserting the row.
    static let eventsPerStatement = 100

    /// `INSERT` of `rows` events, each one that is stored already skipped.
    static func insertEvents(_ rows: Int) -> String {
        let values = Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
        return "INSERT INTO tracked_event (\(EventSQL.eventColumns)) VALUES \(values) ON CONFLICT (id) DO NOTHING"
    }

    @discardableResult
    public func append(_ batch: EventBatch) throws(StoreError) -> AppendReport {
        let (events, exposures) = try batch.prepared()
        guard !events.isEmpty || !exposures.isEmpty else { return AppendReport() }
        return try run("append events") {
            try pool.write { db in
                var report = AppendReport()
                // ``eventsPerStatement`` rows to a statement, prepared once per connection and kept
                // (GRDB's statement cache); the last, shorter slice of a batch is prepared for it.
                let full = try db.cachedStatement(sql: Self.insertEvents(Self.eventsPerStatement))
                for start in stride(from: 0, to: events.count, by: Self.eventsPerStatement) {
                    let slice = events[start..<min(start + Self.eventsPerStatement, events.count)]
                    let statement = slice.count == Self.eventsPerStatement ? full : try db.makeStatement(sql: Self.insertEvents(slice.count))
                    try Self.execute(statement, in: db) { parameters in
                        for event in slice {
                            parameters.text(event.id)
                            parameters.text(event.user)
                            parameters.text(event.name)
                            parameters.real(event.value)
                            parameters.real(event.at)
                            parameters.real(event.receivedAt)
                        }
                    }
                    report.eventsWritten += db.changesCount
                }
                report.eventsSkipped = batch.events.count - report.eventsWritten
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
                    let bind = { (parameters: inout Parameters) in
                        parameters.text(exposure.subject.kind)
                        parameters.text(exposure.subject.key)
                        parameters.text(exposure.user)
                        parameters.text(exposure.variant)
                        parameters.real(exposure.at)
                        parameters.text(exposure.dimensions.platform)
                        parameters.text(exposure.dimensions.appVersion)
                        parameters.text(exposure.dimensions.country)
                        parameters.text(exposure.source.rawValue)
                    }
                    try Self.execute(insertExposure, in: db, bind)
                    if db.changesCount == 1 {
                        report.exposuresNew += 1
                        continue
                    }
                    try Self.execute(moveExposure, in: db, bind)
                    report.exposuresMovedEarlier += db.changesCount
                }
                return report
            }
        }
    }

    /// Runs an `INSERT` or `UPDATE` whose parameters `bind` sets straight through SQLite's C API:
    /// GRDB's arguments box each value (600 to a statement of 100 events), which cost the writer
    /// more than a tenth of its time.
    private static func execute(_ statement: Statement, in db: Database, _ bind: (inout Parameters) -> Void) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        var parameters = Parameters(handle: handle)
        bind(&parameters)
        var code = parameters.code
        if code == SQLITE_OK { code = sqlite3_step(handle) }
        let failure = code == SQLITE_DONE ? nil : DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
        sqlite3_reset(handle)
        if let failure { throw failure }
    }

    /// The parameters of one statement, bound in order; the first failure is kept.
    struct Parameters {
        let handle: SQLiteStatement
        var index: Int32 = 0
        var code = SQLITE_OK

        /// SQLite copies the text (`SQLITE_TRANSIENT`): a small Swift string has no bytes of its own to point at.
        static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

        mutating func text(_ value: String?) {
            index += 1
            guard code == SQLITE_OK else { return }
            guard var value else {
                code = sqlite3_bind_null(handle, index)
                return
            }
            let index = index
            code = value.withUTF8 { bytes in
                // An empty buffer may have no address, which SQLite would bind as NULL.
                guard let start = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_text(handle, index, "", 0, nil) }
                return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(bytes.count), Self.transient)
                }
            }
        }

        mutating func real(_ value: Double?) {
            index += 1
            guard code == SQLITE_OK else { return }
            code = value.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        }
    }

    public func statistics(_ query: MetricQuery) throws(StoreError) -> MetricStatistics {
        try statistics([query])[0]
    }

    public func statistics(_ queries: [MetricQuery]) throws(StoreError) -> [MetricStatistics] {
        try EventSQL.validate(queries)
        let statement = EventSQL.statistics(queries, .sqlite)
        return try run("compute statistics") {
            try pool.read { db in
                var rows = [[VariantStatistics]](repeating: [], count: queries.count)
                var multiple = 0
                for row in try Row.fetchAll(db, sql: statement.sql, arguments: Self.arguments(statement)) {
                    // No variant: the users exposed to more than one.
                    guard let variant: String = row["variant"] else {
                        multiple += row["users"] as Int
                        continue
                    }
                    for (index, query) in queries.enumerated() {
                        let p = EventSQL.columnPrefix(index)
                        let ratio = if case .ratio = query.measure { true } else { false }
                        rows[index].append(
                            VariantStatistics(
                                dimension: row["dimension"], variant: variant, users: row["users"], sum: row[p + "m_sum"],
                                sumSquares: row[p + "m_squares"],
                                denominator: ratio
                                    ? Moments(sum: row[p + "d_sum"], sumSquares: row[p + "d_squares"], sumProducts: row[p + "d_products"]) : nil,
                                covariate: query.covariateLookback != nil
                                    ? Moments(sum: row[p + "c_sum"], sumSquares: row[p + "c_squares"], sumProducts: row[p + "c_products"]) : nil))
                    }
                }
                return rows.map { MetricStatistics(rows: EventSQL.sorted($0), multipleExposures: multiple) }
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
                try db.execute(sql: "DELETE FROM tracked_event WHERE at < ?", arguments: [cutoff])
                return db.changesCount
            }
        }
    }

    public func events(after cursor: EventCursor?, limit: Int) throws(StoreError) -> [TrackedEvent] {
        let statement = EventSQL.events(after: cursor, limit: limit, .sqlite)
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
