import GRDB

extension SQLiteStore {
    /// The schema, one migration per version; a migration, once shipped, never changes.
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
        return migrator
    }()
}
