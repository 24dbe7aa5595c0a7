extension PostgresStore {
    /// One migration: its identifier, recorded in `trellis_schema_migrations`, and its statements.
    struct Migration: Sendable {
        var identifier: String
        var sql: String
    }

    /// The schema, one migration per version; a migration, once shipped, never changes.
    ///
    /// The same logical schema as ``SQLiteStore``'s (v1 here is its v1 and v2 together, v2 its v3):
    /// bytea for documents, double precision for times, the same CHECK constraints, and the change
    /// sequence.
    static let migrations: [Migration] = [
        Migration(
            identifier: "v1: documents, screen revisions and heads, audit, the change sequence",
            sql: """
                CREATE TABLE change_sequence (
                    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
                    value bigint NOT NULL CHECK (value >= 0)
                );
                INSERT INTO change_sequence (only_row, value) VALUES (true, 0);
                CREATE TABLE document (
                    kind text NOT NULL,
                    key text NOT NULL,
                    body bytea NOT NULL,
                    revision integer NOT NULL CHECK (revision >= 1),
                    updated_at double precision NOT NULL,
                    updated_by text NOT NULL,
                    sequence bigint NOT NULL,
                    PRIMARY KEY (kind, key)
                );
                CREATE TABLE screen_revision (
                    screen text NOT NULL,
                    number integer NOT NULL CHECK (number >= 1),
                    document bytea NOT NULL,
                    fingerprint text NOT NULL,
                    origin text NOT NULL CHECK (origin IN ('config', 'publish', 'rollback')),
                    copied_from integer,
                    created_at double precision NOT NULL,
                    created_by text NOT NULL,
                    sequence bigint NOT NULL,
                    PRIMARY KEY (screen, number)
                );
                CREATE TABLE screen_head (
                    screen text PRIMARY KEY,
                    current integer NOT NULL,
                    staged integer,
                    staged_basis_points integer CHECK (staged_basis_points BETWEEN 0 AND 10000),
                    version integer NOT NULL CHECK (version >= 1),
                    updated_at double precision NOT NULL,
                    updated_by text NOT NULL,
                    sequence bigint NOT NULL,
                    CHECK ((staged IS NULL) = (staged_basis_points IS NULL))
                );
                CREATE TABLE audit (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    at double precision NOT NULL,
                    actor text NOT NULL,
                    action text NOT NULL,
                    resource text NOT NULL,
                    before text,
                    after text
                );
                CREATE INDEX audit_by_resource ON audit (resource, id);
                CREATE INDEX document_by_sequence ON document (sequence);
                CREATE INDEX screen_head_by_sequence ON screen_head (sequence);
                """),
        Migration(
            identifier: "v2: leases, webhook cursors and the delivery log",
            sql: """
                CREATE TABLE lease (
                    name text PRIMARY KEY,
                    holder text NOT NULL,
                    expires_at double precision NOT NULL
                );
                CREATE TABLE webhook_cursor (
                    webhook text PRIMARY KEY,
                    delivered_through bigint NOT NULL CHECK (delivered_through >= 0),
                    failed_attempts integer NOT NULL CHECK (failed_attempts >= 0),
                    first_failure_at double precision,
                    next_attempt_at double precision
                );
                CREATE TABLE webhook_delivery (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    webhook text NOT NULL,
                    audit_id bigint NOT NULL,
                    event text NOT NULL,
                    at double precision NOT NULL,
                    attempt integer NOT NULL CHECK (attempt >= 1),
                    outcome text NOT NULL CHECK (outcome IN ('delivered', 'failed', 'abandoned')),
                    status integer,
                    error text,
                    duration double precision NOT NULL
                );
                CREATE INDEX webhook_delivery_by_webhook ON webhook_delivery (webhook, id);
                """),
    ]

    /// The key of the session-level advisory lock migrations run under: "trellis" in ASCII.
    static let migrationLock: Int64 = 0x74_7265_6c6c_6973

    /// Brings the database to this build's schema, or refuses one a newer build wrote.
    ///
    /// Under `pg_advisory_lock`, so that replicas starting together wait for the first one and then
    /// find nothing left to do; each migration commits with its row in `trellis_schema_migrations`.
    static func migrate(_ connection: PostgresConnection) throws(StoreError) {
        try migrate(connection, migrations, ledger: "trellis_schema_migrations", lock: migrationLock)
    }

    /// Applies those of `migrations` not yet recorded in the table `ledger`, under the advisory
    /// lock `lock`, or refuses a database whose ledger names a migration not in `migrations`. The
    /// event store (``PostgresEventStore``) keeps a ledger and a lock of its own, so that each
    /// store's build refuses only its own newer schema.
    static func migrate(_ connection: PostgresConnection, _ migrations: [Migration], ledger: String, lock: Int64) throws(StoreError) {
        try connection.execute("SELECT pg_advisory_lock($1)", [.int(lock)])
        // A lost connection releases the lock with its session.
        defer { _ = try? connection.execute("SELECT pg_advisory_unlock($1)", [.int(lock)]) }
        try connection.executeScript(
            """
            CREATE TABLE IF NOT EXISTS \(ledger) (
                identifier text PRIMARY KEY,
                applied_at timestamp with time zone NOT NULL DEFAULT now()
            )
            """)
        var applied: Set<String> = []
        for row in try connection.execute("SELECT identifier FROM \(ledger)").rows {
            applied.insert(try row.text("identifier"))
        }
        // A database migrated by a newer Trellis has migrations this one does not know: refuse it
        // rather than write rows the newer schema does not expect.
        let unknown = applied.subtracting(migrations.map(\.identifier)).sorted()
        guard unknown.isEmpty else {
            throw StoreError.failure(
                "\(connection.location) was written by a newer version of trellis (unknown schema migrations: \(unknown.joined(separator: "; ")))")
        }
        for migration in migrations where !applied.contains(migration.identifier) {
            try connection.transaction { () throws(StoreError) in
                try connection.executeScript(migration.sql)
                try connection.execute("INSERT INTO \(ledger) (identifier) VALUES ($1)", [.text(migration.identifier)])
            }
        }
    }
}
