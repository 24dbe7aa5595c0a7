import Synchronization

/// The shared event store: tables in the shared PostgreSQL database (beside ``PostgresStore``'s),
/// on connections of its own, so that ingest never queues a runtime commit behind it.
///
/// - Its schema is versioned apart from the runtime store's (``migrations``, recorded in
///   `trellis_event_migrations`, under an advisory lock of its own), so either store's build
///   refuses only a newer schema of its own.
/// - Two connections, each behind a lock: one appends, one reads. A connection found broken is
///   dropped and the call throws ``StoreError/unavailable(_:)``; the next call connects again.
/// - ``append(_:)`` is one transaction of at most two statements, one per table, whatever the
///   batch's size: each column goes as one array parameter that `unnest` turns back into rows.
/// - Tracked events are appended to `tracked_event_staged`, a heap with no index, and moved into
///   `tracked_event` by ``merge()``: past ``mergeThreshold`` events this replica staged, and before
///   every read of events. Replicas over one database append and merge concurrently; a merge moves
///   exactly the rows it deletes, in one statement, so no event is lost or moved twice.
public final class PostgresEventStore: EventStore {
    /// `application_name` of the store's connections (`pg_stat_activity`), unless the URL names one.
    public static let applicationName = "trellis-events"

    private let settings: PostgresSettings
    let writer: PostgresConnectionSlot
    let reader: PostgresConnectionSlot
    /// Whether this process has checked (and if needed migrated) the schema, as ``PostgresStore`` does.
    private let migrated = Mutex(false)
    /// Events this store staged since its last merge: its share of staging (other replicas'
    /// are theirs to count), kept without a scan of the heap after every append.
    private let staged = Mutex(0)
    /// Events staged by this store past which an append merges after its commit.
    let mergeThreshold: Int
    /// As ``SQLiteEventStore/defaultMergeThreshold``.
    public static let defaultMergeThreshold = 200_000

    /// The server and database, without credentials.
    public var location: String { settings.location }

    /// Connects to the database at `url` (as ``PostgresStore/init(url:)`` takes it) and migrates it.
    /// - Throws: ``StoreError/unavailable(_:)`` when the server cannot be reached,
    ///   ``StoreError/failure(_:)`` for a malformed URL or a database a newer Trellis migrated.
    public init(url: String, mergeThreshold: Int = defaultMergeThreshold) throws(StoreError) {
        self.mergeThreshold = mergeThreshold
        settings = try PostgresSettings(url: url, applicationName: Self.applicationName, extra: Self.connectionBounds)
        writer = PostgresConnectionSlot(settings)
        reader = PostgresConnectionSlot(settings)
        try ensureMigrated()
    }

    /// A store for `url` that connects on first use (as ``PostgresStore/init(connectingLater:)``):
    /// every call throws ``StoreError/unavailable(_:)`` until the database is reachable, and the
    /// first that reaches it migrates first.
    /// - Throws: ``StoreError/failure(_:)`` for a malformed URL only.
    public init(connectingLater url: String, mergeThreshold: Int = defaultMergeThreshold) throws(StoreError) {
        self.mergeThreshold = mergeThreshold
        settings = try PostgresSettings(url: url, applicationName: Self.applicationName, extra: Self.connectionBounds)
        writer = PostgresConnectionSlot(settings)
        reader = PostgresConnectionSlot(settings)
    }

    /// ``PostgresStore/connectionBounds``, and more memory than PostgreSQL's default 4 MB for
    /// the hash tables of ``exposuresPerDay(_:asOf:)``, which groups a subject's users.
    static let connectionBounds: [(keyword: String, value: String)] =
        PostgresStore.connectionBounds.map { bound in
            bound.keyword == "options" ? (bound.keyword, bound.value + " -c work_mem=\(workMemory)") : bound
        }

    /// `work_mem` of the store's connections.
    static let workMemory = "64MB"

    /// The key of the advisory lock the event migrations run under: "trlevent" in ASCII.
    static let migrationLock: Int64 = 0x74_726c_6576_656e_74
    /// The key of the advisory lock merges run under: "trlmerge" in ASCII.
    static let mergeLock: Int64 = 0x74_726c_6d65_7267_65

    /// The schema, one migration per version; a migration, once shipped, never changes. The
    /// logical schema of ``SQLiteEventStore``'s; keys and user ids in the "C" collation (compared
    /// as bytes, as SQLite does, and faster than a locale's rules in the indexes).
    static let migrations: [PostgresStore.Migration] = [
        PostgresStore.Migration(
            identifier: "v1: tracked events and exposures",
            sql: """
                CREATE TABLE tracked_event (
                    id text COLLATE "C" PRIMARY KEY,
                    user_id text COLLATE "C" NOT NULL,
                    name text COLLATE "C" NOT NULL,
                    value double precision,
                    at double precision NOT NULL,
                    received_at double precision NOT NULL
                );
                CREATE INDEX tracked_event_by_user ON tracked_event (user_id, name, at) INCLUDE (value);
                CREATE INDEX tracked_event_by_receipt ON tracked_event (received_at, id);
                CREATE TABLE exposure (
                    kind text COLLATE "C" NOT NULL CHECK (kind IN ('experiment', 'rollout', 'screen')),
                    key text COLLATE "C" NOT NULL,
                    user_id text COLLATE "C" NOT NULL,
                    variant text COLLATE "C" NOT NULL,
                    first_at double precision NOT NULL,
                    platform text COLLATE "C",
                    app_version text COLLATE "C",
                    country text COLLATE "C",
                    source text NOT NULL CHECK (source IN ('client', 'server')),
                    PRIMARY KEY (kind, key, user_id, variant)
                );
                """),
        // v1 ids were unique alone, so unique per user. The export's index gains the user, its
        // order's last tie-breaker (``EventCursor``).
        PostgresStore.Migration(
            identifier: "v2: staged events, deduplicated by user and id",
            sql: """
                CREATE TABLE tracked_event_staged (
                    seq bigint GENERATED ALWAYS AS IDENTITY,
                    id text COLLATE "C" NOT NULL,
                    user_id text COLLATE "C" NOT NULL,
                    name text COLLATE "C" NOT NULL,
                    value double precision,
                    at double precision NOT NULL,
                    received_at double precision NOT NULL
                );
                ALTER TABLE tracked_event DROP CONSTRAINT tracked_event_pkey, ADD PRIMARY KEY (user_id, id);
                DROP INDEX tracked_event_by_receipt;
                CREATE INDEX tracked_event_by_receipt ON tracked_event (received_at, id, user_id);
                """),
    ]

    /// Migrates once per process, before any statement of this store.
    func ensureMigrated() throws(StoreError) {
        if migrated.withLock({ $0 }) { return }
        try writer.run { connection throws(StoreError) in
            try PostgresStore.migrate(connection, Self.migrations, ledger: "trellis_event_migrations", lock: Self.migrationLock)
        }
        migrated.withLock { $0 = true }
    }

    @discardableResult
    public func append(_ batch: EventBatch) throws(StoreError) -> AppendReport {
        let (events, exposures) = try batch.prepared()
        guard !events.isEmpty || !exposures.isEmpty else { return AppendReport() }
        try ensureMigrated()
        let report = try writer.run { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) -> AppendReport in
                var report = AppendReport()
                if !events.isEmpty {
                    report.eventsStaged = try connection.execute(
                        """
                        INSERT INTO tracked_event_staged (\(EventSQL.eventColumns))
                        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::float8[], $6::float8[])
                        """,
                        [
                            .array(events.map { Optional($0.id) }), .array(events.map { Optional($0.user) }),
                            .array(events.map { Optional($0.name) }), .array(events.map(\.value) as [Double?]), .array(events.map(\.at)),
                            .array(events.map(\.receivedAt)),
                        ]
                    ).affectedRows
                }
                if !exposures.isEmpty {
                    // ON CONFLICT DO UPDATE locks the stored row and compares with its latest
                    // committed time, so two replicas appending the same exposure keep the earlier.
                    // `xmax = 0` tells a row this statement inserted from one it updated.
                    let counts = try connection.execute(
                        """
                        WITH written AS (
                            INSERT INTO exposure AS x (\(EventSQL.exposureColumns))
                            SELECT * FROM unnest(
                                $1::text[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::text[], $7::text[], $8::text[], $9::text[])
                            ON CONFLICT (kind, key, user_id, variant) DO UPDATE
                            SET first_at = excluded.first_at, platform = excluded.platform, app_version = excluded.app_version,
                                country = excluded.country, source = excluded.source
                            WHERE excluded.first_at < x.first_at
                            RETURNING xmax = 0 AS inserted
                        )
                        SELECT count(*) FILTER (WHERE inserted) AS new, count(*) FILTER (WHERE NOT inserted) AS moved FROM written
                        """,
                        [
                            .array(exposures.map { Optional($0.subject.kind) }), .array(exposures.map { Optional($0.subject.key) }),
                            .array(exposures.map { Optional($0.user) }), .array(exposures.map { Optional($0.variant) }),
                            .array(exposures.map(\.at)), .array(exposures.map(\.dimensions.platform)),
                            .array(exposures.map(\.dimensions.appVersion)), .array(exposures.map(\.dimensions.country)),
                            .array(exposures.map { Optional($0.source.rawValue) }),
                        ]
                    ).rows.first
                    report.exposuresNew = try counts?.int("new") ?? 0
                    report.exposuresMovedEarlier = try counts?.int("moved") ?? 0
                }
                return report
            }
        }
        // After the commit: the batch is durable whatever becomes of the merge, and one that fails
        // leaves staging whole for the next (a read's, the timer's) to report.
        let due = staged.withLock { staged in
            staged += report.eventsStaged
            return staged > mergeThreshold
        }
        if due { _ = try? merge() }
        return report
    }

    @discardableResult
    public func merge() throws(StoreError) -> MergeReport {
        try ensureMigrated()
        let report = try writer.run { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) -> MergeReport in try Self.merge(connection) }
        }
        staged.withLock { $0 = 0 }
        return report
    }

    /// Moves every staged row this transaction sees into `tracked_event`, sorted by its key, the
    /// first appended of a (user, id) kept: one statement, so the rows inserted are those deleted
    /// and no others — a row another replica commits meanwhile is not seen, so neither deleted
    /// nor moved, and stays for the next merge. Under an advisory lock held to the transaction's
    /// end, so that merges run one at a time (each DELETE's snapshot is taken after the one before
    /// committed) and never wait on each other's rows or keys.
    static func merge(_ connection: PostgresConnection) throws(StoreError) -> MergeReport {
        try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(mergeLock)])
        let counts = try connection.execute(
            """
            WITH moved AS (
                DELETE FROM tracked_event_staged RETURNING seq, \(EventSQL.eventColumns)
            ), stored AS (
                INSERT INTO tracked_event (\(EventSQL.eventColumns))
                SELECT \(EventSQL.eventColumns) FROM moved ORDER BY user_id, id, seq
                ON CONFLICT DO NOTHING
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM moved) AS moved, (SELECT count(*) FROM stored) AS stored
            """
        ).rows.first
        let moved = try counts?.int("moved") ?? 0
        let stored = try counts?.int("stored") ?? 0
        return MergeReport(eventsStored: stored, eventsSkipped: moved - stored)
    }

    public func statistics(_ query: MetricQuery) throws(StoreError) -> MetricStatistics {
        try query.validate()
        try ensureMigrated()
        let statement = EventSQL.statistics(query, .postgres)
        let covariate = query.covariateLookback != nil
        let ratio = if case .ratio = query.measure { true } else { false }
        try merge()
        return try readSnapshot { connection throws(StoreError) in
            for setting in Self.statisticsPlan { try connection.execute("SET LOCAL \(setting)") }
            var rows: [VariantStatistics] = []
            var multiple = 0
            for row in try connection.execute(statement.sql, Self.values(statement)).rows {
                // No variant: the users exposed to more than one.
                guard let variant = try row.optionalText("variant") else {
                    multiple += try row.int("users")
                    continue
                }
                rows.append(
                    VariantStatistics(
                        dimension: try row.optionalText("dimension"), variant: variant, users: try row.int("users"),
                        sum: try row.double("m_sum"), sumSquares: try row.double("m_squares"),
                        denominator: ratio
                            ? Moments(sum: try row.double("d_sum"), sumSquares: try row.double("d_squares"), sumProducts: try row.double("d_products"))
                            : nil,
                        covariate: covariate
                            ? Moments(sum: try row.double("c_sum"), sumSquares: try row.double("c_squares"), sumProducts: try row.double("c_products"))
                            : nil))
            }
            return MetricStatistics(rows: EventSQL.sorted(rows), multipleExposures: multiple)
        }
    }

    /// The plan a statistics query is held to, for its transaction only: a merge join of the
    /// subject's exposures (the primary key, in user order) with the events' user index (in user
    /// order too), aggregated per user as the rows stream by — no hash table or sort of a million
    /// users. Left to its estimates, PostgreSQL hashes both sides and sorts the per-user rows,
    /// two to three times slower over 1,000,000 users and 5,000,000 events (docs/operations.md,
    /// "Events"), or — when it believes few users are exposed — probes the index once per user,
    /// six times slower.
    static let statisticsPlan = ["enable_hashjoin = off", "enable_nestloop = off", "enable_sort = off", "enable_material = off"]

    public func exposuresPerDay(_ subject: ExposureSubject, asOf: Double) throws(StoreError) -> [ExposureDay] {
        try ensureMigrated()
        let statement = EventSQL.exposuresPerDay(subject, asOf: asOf, .postgres)
        return try reader.run { connection throws(StoreError) in
            var days: [ExposureDay] = []
            for row in try connection.execute(statement.sql, Self.values(statement)).rows {
                days.append(ExposureDay(day: try row.int("day"), variant: try row.text("variant"), users: try row.int("users")))
            }
            return days
        }
    }

    @discardableResult
    public func pruneEvents(before cutoff: Double) throws(StoreError) -> Int {
        try ensureMigrated()
        let pruned = try writer.run { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) -> Int in
                _ = try Self.merge(connection)
                return try connection.execute("DELETE FROM tracked_event WHERE at < $1", [.double(cutoff)]).affectedRows
            }
        }
        staged.withLock { $0 = 0 }
        return pruned
    }

    public func events(after cursor: EventCursor?, limit: Int) throws(StoreError) -> [TrackedEvent] {
        try ensureMigrated()
        let statement = EventSQL.events(after: cursor, limit: limit, .postgres)
        try merge()
        return try reader.run { connection throws(StoreError) in
            var events: [TrackedEvent] = []
            for row in try connection.execute(statement.sql, Self.values(statement)).rows {
                events.append(
                    TrackedEvent(
                        id: try row.text("id"), user: try row.text("user_id"), name: try row.text("name"), value: try row.optionalDouble("value"),
                        at: try row.double("at"), receivedAt: try row.double("received_at")))
            }
            return events
        }
    }

    public func exposures(of subject: ExposureSubject, after cursor: ExposureCursor?, limit: Int) throws(StoreError) -> [Exposure] {
        try ensureMigrated()
        let statement = EventSQL.exposures(of: subject, after: cursor, limit: limit, .postgres)
        return try reader.run { connection throws(StoreError) in
            var exposures: [Exposure] = []
            for row in try connection.execute(statement.sql, Self.values(statement)).rows {
                guard let source = ExposureSource(rawValue: try row.text("source")) else {
                    throw StoreError.failure("an exposure of \(subject) has an unknown source")
                }
                exposures.append(
                    Exposure(
                        subject: subject, user: try row.text("user_id"), variant: try row.text("variant"), at: try row.double("first_at"),
                        dimensions: ExposureDimensions(
                            platform: try row.optionalText("platform"), appVersion: try row.optionalText("app_version"),
                            country: try row.optionalText("country")),
                        source: source))
            }
            return exposures
        }
    }

    private static func values(_ statement: EventSQL) -> [PostgresValue] {
        statement.parameters.map { parameter in
            switch parameter {
            case .text(let value): .text(value)
            case .double(let value): .double(value)
            case .int(let value): .int(value)
            }
        }
    }

    /// `body` in one REPEATABLE READ, read-only transaction on the reading connection: every query
    /// in it sees the same snapshot.
    private func readSnapshot<T: Sendable>(_ body: (PostgresConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try reader.run { connection throws(StoreError) in
            try connection.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { () throws(StoreError) in try body(connection) }
        }
    }
}

extension PostgresValue {
    static func array(_ values: [Double?]) -> PostgresValue { .array(values.map { .double($0) }, element: float8OID) }
}
