import Synchronization

/// The shared store: one PostgreSQL database that several Trellis replicas use at once, through libpq.
///
/// - Same logical schema as ``SQLiteStore`` (``migrations``), versioned in
///   `trellis_schema_migrations`; ``init(url:)`` migrates under an advisory lock, so replicas
///   starting together migrate once, and refuses a database a newer Trellis migrated.
/// - Every change, with its audit entries, is one transaction; it bumps the change sequence first
///   and sends the sequence on the `trellis_changes` channel (``notificationChannel``) as it
///   commits, for the other replicas' ``PostgresChangeListener``s.
/// - Two connections, each behind a lock: one for commits, one for reads (a backup opens its own).
///   A connection found broken is dropped and the call throws ``StoreError/unavailable(_:)``; the
///   next call connects again.
public final class PostgresStore: RuntimeStore {
    /// The channel each commit notifies, with its sequence (decimal) as the payload.
    public static let notificationChannel = "trellis_changes"
    /// `application_name` of the store's connections (`pg_stat_activity`), unless the URL names one.
    public static let applicationName = "trellis"

    private let settings: PostgresSettings
    let writer: PostgresConnectionSlot
    let reader: PostgresConnectionSlot
    /// Whether this process has checked (and if needed migrated) the schema: at init, or — for a
    /// store opened while the database was down — before its first statement once it is back.
    private let migrated = Mutex(false)

    /// The server and database, without credentials.
    public var location: String { settings.location }

    /// Connects to the database at `url` and migrates it.
    /// - Parameter url: `postgres://user:password@host:port/database?option=value…`, or any
    ///   connection string libpq accepts. Without `connect_timeout`, a connection attempt gives up
    ///   after 3 seconds.
    /// - Throws: ``StoreError/unavailable(_:)`` when the server cannot be reached,
    ///   ``StoreError/failure(_:)`` for a malformed URL or a database a newer Trellis migrated.
    public init(url: String) throws(StoreError) {
        settings = try PostgresSettings(url: url, applicationName: Self.applicationName, extra: Self.connectionBounds)
        writer = PostgresConnectionSlot(settings)
        reader = PostgresConnectionSlot(settings)
        try ensureMigrated()
    }

    /// A store for `url` that connects on first use, for a replica that must start while the
    /// database is down: every call throws ``StoreError/unavailable(_:)`` until it is reachable,
    /// and the first that reaches it migrates (or refuses a newer schema) before anything else.
    /// - Throws: ``StoreError/failure(_:)`` for a malformed URL only.
    public init(connectingLater url: String) throws(StoreError) {
        settings = try PostgresSettings(url: url, applicationName: Self.applicationName, extra: Self.connectionBounds)
        writer = PostgresConnectionSlot(settings)
        reader = PostgresConnectionSlot(settings)
    }

    /// How long the store's own connections may wait, so that a database that stops answering
    /// (a host gone without closing its sockets, a statement stuck behind a lock) ends a call as
    /// unavailable or failed instead of holding the control plane's write queue: TCP keepalives
    /// and a 10 s bound on unacknowledged sends notice a vanished server; on the server, no
    /// statement runs longer than 60 s (a backup's reads stream well within it) and no lock is
    /// waited for longer than 10 s (commits hold the sequence row for milliseconds), and no
    /// transaction left idle longer than 10 s: a replica cut from the database in the middle of a
    /// commit leaves its session holding the sequence row, and every other replica's writes wait
    /// behind it until the database ends that session (scripts/faults-check saw 28 s without it).
    /// And no JIT compilation: loading 10,000 screens is costly enough on paper to trigger it, and
    /// compiling took longer than the queries it compiled.
    static let connectionBounds: [(keyword: String, value: String)] = [
        ("keepalives", "1"), ("keepalives_idle", "15"), ("keepalives_interval", "5"), ("keepalives_count", "3"),
        ("tcp_user_timeout", "10000"),
        ("options", "-c statement_timeout=60000 -c lock_timeout=10000 -c idle_in_transaction_session_timeout=10000 -c jit=off"),
    ]

    /// Migrates once per process, before any statement of this store.
    func ensureMigrated() throws(StoreError) {
        if migrated.withLock({ $0 }) { return }
        try writer.run { connection throws(StoreError) in try Self.migrate(connection) }
        migrated.withLock { $0 = true }
    }

    public func load() throws(StoreError) -> StoredState {
        try ensureMigrated()
        let rows = try readSnapshot { connection throws(StoreError) in try Self.rows(after: nil, connection) }
        return StoredState(documents: rows.documents, revisioned: rows.revisioned, sequence: rows.sequence)
    }

    public func changes(after sequence: Int64) throws(StoreError) -> StoredChanges {
        try ensureMigrated()
        return try readSnapshot { connection throws(StoreError) in try Self.rows(after: sequence, connection) }
    }

    public func latestSequence() throws(StoreError) -> Int64 {
        try ensureMigrated()
        return try reader.run { connection throws(StoreError) in try Self.latestSequence(connection) }
    }

    /// The clock is `clock_timestamp()`, the time the statement read it, not the transaction's start.
    public func latestSequenceAndTime() throws(StoreError) -> (sequence: Int64, databaseTime: Double?) {
        try ensureMigrated()
        return try reader.run { connection throws(StoreError) in
            let sql = "SELECT value, extract(epoch FROM clock_timestamp())::float8 AS now FROM change_sequence"
            guard let row = try connection.execute(sql).rows.first else {
                throw StoreError.failure("\(connection.location) has no change_sequence row")
            }
            return (try row.int64("value"), try row.double("now"))
        }
    }

    /// Writes `change` in one transaction, with its audit entries and its notification.
    ///
    /// The transaction is READ COMMITTED, and its first statement bumps the one-row counter
    /// (`UPDATE change_sequence … RETURNING value`). That row's lock is held until commit, so
    /// committers pass one at a time: the next one's UPDATE waits, and reads the bumped value only
    /// once this one has committed (and become visible). Sequence order is therefore commit order,
    /// and a reader that saw sequence N has seen every change before it. `nextval()` would not
    /// give that: sequences are not transactional, so N+1 could commit and be read while N is still
    /// in flight, and a reader reading on after N+1 would never see N. (REPEATABLE READ committers
    /// would fail the second UPDATE with a serialization error instead of waiting.) The same lock
    /// serializes the compare-and-set checks, each of which then sees every earlier commit, and
    /// makes audit ids increase in commit order.
    @discardableResult
    public func commit(_ change: StoreChange) throws(StoreError) -> Int64 {
        try ensureMigrated()
        guard !change.isEmpty else { return try latestSequence() }
        return try writer.run { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) -> Int64 in
                let sequence = try connection.execute("UPDATE change_sequence SET value = value + 1 RETURNING value").rows.first?
                    .int64("value")
                guard let sequence else { throw StoreError.failure("\(connection.location) has no change_sequence row") }
                // Documents one at a time (a change writes a few); the rest many to a statement.
                for document in change.documents { try Self.write(document, sequence: sequence, connection) }
                try Self.insert(change.revisions, sequence: sequence, connection)
                try Self.write(change.heads, sequence: sequence, connection)
                try Self.insert(change.audit, connection)
                // Delivered when (and only if) the transaction commits.
                try connection.execute("SELECT pg_notify($1, $2)", [.text(Self.notificationChannel), .text(String(sequence))])
                return sequence
            }
        }
    }

    public func revision(of key: RevisionedKey, number: Int) throws(StoreError) -> DocumentRevision? {
        try ensureMigrated()
        return try reader.run { connection throws(StoreError) in
            try connection.execute(
                "SELECT \(Self.revisionColumns) FROM screen_revision WHERE screen = $1 AND number = $2", [.text(key.name), .int(number)]
            ).rows.first.map(Self.revision)
        }
    }

    public func revisions(of key: RevisionedKey) throws(StoreError) -> [DocumentRevisionSummary] {
        try ensureMigrated()
        return try reader.run { connection throws(StoreError) in
            try connection.execute(
                """
                SELECT number, fingerprint, origin, copied_from, created_at, created_by, octet_length(document) AS bytes
                FROM screen_revision WHERE screen = $1 ORDER BY number
                """, [.text(key.name)]
            ).rows.map(Self.summary)
        }
    }

    public func audit(_ query: AuditQuery) throws(StoreError) -> [AuditEntry] {
        try ensureMigrated()
        var conditions: [String] = []
        var parameters: [PostgresValue] = []
        if let after = query.after {
            parameters.append(.int(after))
            conditions.append("id > $\(parameters.count)")
        }
        if let resource = query.resource {
            parameters += [.text(resource), .text(resource + "/")]
            conditions.append("(resource = $\(parameters.count - 1) OR starts_with(resource, $\(parameters.count)))")
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        // Without a cursor, the newest entries; either way they are returned oldest first.
        let order = query.after == nil ? "DESC" : "ASC"
        parameters.append(.int(query.limit))
        let sql = "SELECT \(Self.auditColumns) FROM audit \(filter) ORDER BY id \(order) LIMIT $\(parameters.count)"
        let entries = try reader.run { connection throws(StoreError) in try connection.execute(sql, parameters).rows.map(Self.auditEntry) }
        return query.after == nil ? entries.reversed() : entries
    }

    /// Writes a consistent copy of the whole database — rows, their sequences, the audit log, the
    /// webhook cursors — into
    /// a new SQLite file at `path` in ``SQLiteStore``'s schema, so that `SQLiteStore(path:)` opens
    /// it and `sqlite3` reads it. One REPEATABLE READ transaction on its own connection, so commits
    /// and reads go on meanwhile; rows are streamed, never all in memory.
    public func backup(to path: String) throws(StoreError) {
        try ensureMigrated()
        let connection = try settings.connect()
        try connection.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { () throws(StoreError) in
            try SQLiteStore.writeCopy(to: path) { copy throws(StoreError) in
                try copy.setSequence(try Self.latestSequence(connection))
                try connection.forEachRow("SELECT \(Self.documentColumns), sequence FROM document ORDER BY kind, key") { row throws(StoreError) in
                    try copy.insert(try Self.document(row), sequence: try row.int64("sequence"))
                }
                try connection.forEachRow("SELECT \(Self.revisionColumns), sequence FROM screen_revision ORDER BY screen, number") {
                    row throws(StoreError) in
                    try copy.insert(try Self.revision(row), sequence: try row.int64("sequence"))
                }
                try connection.forEachRow("SELECT \(Self.headColumns), sequence FROM screen_head ORDER BY screen") { row throws(StoreError) in
                    try copy.insert(try Self.head(row), sequence: try row.int64("sequence"))
                }
                try connection.forEachRow("SELECT \(Self.auditColumns) FROM audit ORDER BY id") { row throws(StoreError) in
                    try copy.insert(try Self.auditEntry(row))
                }
                // Where each webhook's deliveries stand, so a store restored from the copy goes on
                // from there (the lease and the delivery log are of the moment, and stay behind).
                try connection.forEachRow("SELECT * FROM webhook_cursor ORDER BY webhook") { row throws(StoreError) in
                    try copy.insert(
                        WebhookCursor(
                            webhook: try row.text("webhook"), deliveredThrough: try row.int64("delivered_through"),
                            failedAttempts: try row.int("failed_attempts"), firstFailureAt: try row.optionalDouble("first_failure_at"),
                            nextAttemptAt: try row.optionalDouble("next_attempt_at")))
                }
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
