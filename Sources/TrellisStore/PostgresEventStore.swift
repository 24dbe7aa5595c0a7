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
public final class PostgresEventStore: EventStore {
    /// `application_name` of the store's connections (`pg_stat_activity`), unless the URL names one.
    public static let applicationName = "trellis-events"

    private let settings: PostgresSettings
    let writer: PostgresConnectionSlot
    let reader: PostgresConnectionSlot
    /// Whether this process has checked (and if needed migrated) the schema, as ``PostgresStore`` does.
    private let migrated = Mutex(false)

    /// The server and database, without credentials.
    public var location: String { settings.location }

    /// Connects to the database at `url` (as ``PostgresStore/init(url:)`` takes it) and migrates it.
    /// - Throws: ``StoreError/unavailable(_:)`` when the server cannot be reached,
    ///   ``StoreError/failure(_:)`` for a malformed URL or a database a newer Trellis migrated.
    public init(url: String) throws(StoreError) {
        settings = try PostgresSettings(url: url, applicationName: Self.applicationName, extra: Self.connectionBounds)
        writer = PostgresConnectionSlot(settings)
        reader = PostgresConnectionSlot(settings)
        try ensureMigrated()
    }

    /// A store for `url` that connects on first use (as ``PostgresStore/init(connectingLater:)``):
    /// every call throws ``StoreError/unavailable(_:)`` until the database is reachable, and the
    /// first that reaches it migrates first.
    /// - Throws: ``StoreError/failure(_:)`` for a malformed URL only.
    public init(connectingLater url: String) throws(StoreError) {
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
        return try writer.run { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) -> AppendReport in
                var report = AppendReport()
                if !events.isEmpty {
                    report.eventsWritten = try connection.execute(
                        """
                        INSERT INTO tracked_event (\(EventSQL.eventColumns))
                        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::float8[], $6::float8[])
                        ON CONFLICT (id) DO NOTHING
                        """,
                        [
                            .array(events.map { Optional($0.id) }), .array(events.map { Optional($0.user) }),
                            .array(events.map { Optional($0.name) }), .array(events.map(\.value) as [Double?]), .array(events.map(\.at)),
                            .array(events.map(\.receivedAt)),
                        ]
                    ).affectedRows
                }
                report.eventsSkipped = batch.events.count - report.eventsWritten
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
    }

    public func statistics(_ query: MetricQuery) throws(StoreError) -> MetricStatistics {
        try statistics([query])[0]
    }

    public func statistics(_ queries: [MetricQuery]) throws(StoreError) -> [MetricStatistics] {
        try EventSQL.validate(queries)
        try ensureMigrated()
        let statement = EventSQL.statistics(queries, .postgres)
        return try readSnapshot { connection throws(StoreError) in
            for setting in Self.statisticsPlan { try connection.execute("SET LOCAL \(setting)") }
            var rows = [[VariantStatistics]](repeating: [], count: queries.count)
            var multiple = 0
            for row in try connection.execute(statement.sql, Self.values(statement)).rows {
                // No variant: the users exposed to more than one.
                guard let variant = try row.optionalText("variant") else {
                    multiple += try row.int("users")
                    continue
                }
                for (index, query) in queries.enumerated() {
                    let p = EventSQL.columnPrefix(index)
                    let ratio = if case .ratio = query.measure { true } else { false }
                    rows[index].append(
                        VariantStatistics(
                            dimension: try row.optionalText("dimension"), variant: variant, users: try row.int("users"),
                            sum: try row.double(p + "m_sum"), sumSquares: try row.double(p + "m_squares"),
                            denominator: ratio
                                ? Moments(sum: try row.double(p + "d_sum"), sumSquares: try row.double(p + "d_squares"), sumProducts: try row.double(p + "d_products"))
                                : nil,
                            covariate: query.covariateLookback != nil
                                ? Moments(sum: try row.double(p + "c_sum"), sumSquares: try row.double(p + "c_squares"), sumProducts: try row.double(p + "c_products"))
                                : nil))
                }
            }
            return rows.map { MetricStatistics(rows: EventSQL.sorted($0), multipleExposures: multiple) }
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
        return try writer.run { connection throws(StoreError) in
            try connection.execute("DELETE FROM tracked_event WHERE at < $1", [.double(cutoff)]).affectedRows
        }
    }

    public func events(after cursor: EventCursor?, limit: Int) throws(StoreError) -> [TrackedEvent] {
        try ensureMigrated()
        let statement = EventSQL.events(after: cursor, limit: limit, .postgres)
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
