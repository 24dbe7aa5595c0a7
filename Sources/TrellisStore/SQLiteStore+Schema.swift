import GRDB

extension SQLiteStore {
    /// The schema, one migration per version; a migration, once shipped, never changes.
    ///
    /// - `change_sequence`: one row, the sequence of the newest committed change; every commit bumps
    ///   it first and stamps the rows it writes with the new value (`sequence` columns, indexed
    ///   where ``changes(after:)`` looks).
    /// - `screen_mirror`: only in a replica's mirror (``mirror(_:)``), which holds a screen's served
    ///   revisions but not all of them: the latest revision number and config fingerprint the
    ///   shared store reported.
    /// - `lease`, `webhook_cursor`, `webhook_delivery` (v3): who delivers webhooks, how far each
    ///   got, and the recent attempts — operational rows that take no change sequence.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: documents, screen revisions and heads, audit") { db in
            try db.execute(
                sql: """
                    CREATE TABLE document (
                        kind TEXT NOT NULL,
                        key TEXT NOT NULL,
                        body BLOB NOT NULL,
                        revision INTEGER NOT NULL CHECK (revision >= 1),
                        updated_at REAL NOT NULL,
                        updated_by TEXT NOT NULL,
                        PRIMARY KEY (kind, key)
                    ) STRICT;
                    CREATE TABLE screen_revision (
                        screen TEXT NOT NULL,
                        number INTEGER NOT NULL CHECK (number >= 1),
                        document BLOB NOT NULL,
                        fingerprint TEXT NOT NULL,
                        origin TEXT NOT NULL CHECK (origin IN ('config', 'publish', 'rollback')),
                        copied_from INTEGER,
                        created_at REAL NOT NULL,
                        created_by TEXT NOT NULL,
                        PRIMARY KEY (screen, number)
                    ) STRICT;
                    CREATE TABLE screen_head (
                        screen TEXT PRIMARY KEY NOT NULL,
                        current INTEGER NOT NULL,
                        staged INTEGER,
                        staged_basis_points INTEGER CHECK (staged_basis_points BETWEEN 0 AND 10000),
                        version INTEGER NOT NULL CHECK (version >= 1),
                        updated_at REAL NOT NULL,
                        updated_by TEXT NOT NULL,
                        CHECK ((staged IS NULL) = (staged_basis_points IS NULL))
                    ) STRICT;
                    CREATE TABLE audit (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        at REAL NOT NULL,
                        actor TEXT NOT NULL,
                        action TEXT NOT NULL,
                        resource TEXT NOT NULL,
                        before TEXT,
                        after TEXT
                    ) STRICT;
                    CREATE INDEX audit_by_resource ON audit (resource, id);
                    """)
        }
        migrator.registerMigration("v2: the change sequence") { db in
            // Rows written before the sequence existed count as one change, sequence 1, so that
            // `changes(after: 0)` returns everything; an empty store starts at 0.
            try db.execute(
                sql: """
                    CREATE TABLE change_sequence (
                        only_row INTEGER PRIMARY KEY NOT NULL CHECK (only_row = 1),
                        value INTEGER NOT NULL CHECK (value >= 0)
                    ) STRICT;
                    INSERT INTO change_sequence (only_row, value) VALUES (1, (
                        SELECT EXISTS (SELECT 1 FROM document) OR EXISTS (SELECT 1 FROM screen_revision)
                            OR EXISTS (SELECT 1 FROM screen_head) OR EXISTS (SELECT 1 FROM audit)));
                    ALTER TABLE document ADD COLUMN sequence INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE screen_revision ADD COLUMN sequence INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE screen_head ADD COLUMN sequence INTEGER NOT NULL DEFAULT 0;
                    UPDATE document SET sequence = 1;
                    UPDATE screen_revision SET sequence = 1;
                    UPDATE screen_head SET sequence = 1;
                    CREATE INDEX document_by_sequence ON document (sequence);
                    CREATE INDEX screen_head_by_sequence ON screen_head (sequence);
                    CREATE TABLE screen_mirror (
                        screen TEXT PRIMARY KEY NOT NULL,
                        latest_revision INTEGER NOT NULL,
                        latest_config_fingerprint TEXT
                    ) STRICT;
                    """)
        }
        migrator.registerMigration("v3: leases, webhook cursors and the delivery log") { db in
            try db.execute(sql: SQLiteStore.operationsSchema)
        }
        return migrator
    }()

    /// Leases, webhook cursors and the delivery log (``RuntimeStore/claimLease(_:holder:now:expiresAt:)``
    /// and what follows it): operational rows, written without a change sequence.
    static let operationsSchema = """
        CREATE TABLE lease (
            name TEXT PRIMARY KEY NOT NULL,
            holder TEXT NOT NULL,
            expires_at REAL NOT NULL
        ) STRICT;
        CREATE TABLE webhook_cursor (
            webhook TEXT PRIMARY KEY NOT NULL,
            delivered_through INTEGER NOT NULL CHECK (delivered_through >= 0),
            failed_attempts INTEGER NOT NULL CHECK (failed_attempts >= 0),
            first_failure_at REAL,
            next_attempt_at REAL
        ) STRICT;
        CREATE TABLE webhook_delivery (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            webhook TEXT NOT NULL,
            audit_id INTEGER NOT NULL,
            event TEXT NOT NULL,
            at REAL NOT NULL,
            attempt INTEGER NOT NULL CHECK (attempt >= 1),
            outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'failed', 'abandoned')),
            status INTEGER,
            error TEXT,
            duration REAL NOT NULL
        ) STRICT;
        CREATE INDEX webhook_delivery_by_webhook ON webhook_delivery (webhook, id);
        """
}
