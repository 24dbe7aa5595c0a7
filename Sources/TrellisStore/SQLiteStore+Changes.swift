import Foundation
import GRDB

/// The change sequence, reading what changed after a sequence, and a replica's mirror.
extension SQLiteStore {
    /// Bumps the counter and returns the new value: the sequence of the change being committed.
    static func nextSequence(_ db: Database) throws -> Int64 {
        guard let value = try Int64.fetchOne(db, sql: "UPDATE change_sequence SET value = value + 1 RETURNING value") else {
            throw StoreError.failure("the store has no change_sequence row")
        }
        return value
    }

    static func latestSequence(_ db: Database) throws -> Int64 {
        guard let value = try Int64.fetchOne(db, sql: "SELECT value FROM change_sequence") else {
            throw StoreError.failure("the store has no change_sequence row")
        }
        return value
    }

    /// The documents and screens written after `sequence` (every one for nil), with the latest
    /// sequence, read in the caller's transaction.
    static func rows(after sequence: Int64?, _ db: Database) throws -> StoredChanges {
        let filter = sequence == nil ? "" : "WHERE sequence > ?"
        let arguments: StatementArguments = sequence.map { [$0] } ?? []
        let documents = try Row.fetchAll(db, sql: "SELECT * FROM document \(filter) ORDER BY kind, key", arguments: arguments)
            .map(Self.document)
        let heads = try Row.fetchAll(db, sql: "SELECT * FROM screen_head \(filter) ORDER BY screen", arguments: arguments).map(Self.head)
        let screens = try heads.map { head in try Self.storedScreen(head, db) }
        return StoredChanges(sequence: try latestSequence(db), documents: documents, screens: screens)
    }

    /// Writes rows read from the shared store as they are — documents and heads replaced, revisions
    /// added if missing, no compare-and-set — and records `changes.sequence` as this file's
    /// sequence, in one durable transaction. A replica keeps what it last applied here, so that it
    /// can start serving while the shared store is down.
    ///
    /// The rows are applied as given: a caller passes changes read after this file's
    /// ``latestSequence()``, or replaces the whole mirror with ``mirror(replacingWith:)``.
    public func mirror(_ changes: StoredChanges) throws(StoreError) {
        try write("write the mirror") { db in
            try Self.mirror(documents: changes.documents, screens: changes.screens, sequence: changes.sequence, db)
        }
    }

    /// Replaces every document and screen of this mirror with `state` (from the shared store's
    /// ``RuntimeStore/load()``), and its sequence with `state.sequence`, in one durable transaction.
    /// The audit log is left as it is (a mirror keeps none of the shared store's).
    public func mirror(replacingWith state: StoredState) throws(StoreError) {
        try write("replace the mirror") { db in
            try db.execute(sql: "DELETE FROM document; DELETE FROM screen_head; DELETE FROM screen_revision; DELETE FROM screen_mirror")
            try Self.mirror(documents: state.documents, screens: state.screens, sequence: state.sequence, db)
        }
    }

    private static func mirror(documents: [StoredDocument], screens: [StoredScreen], sequence: Int64, _ db: Database) throws {
        for document in documents {
            try db.execute(
                sql: """
                    INSERT INTO document (kind, key, body, revision, updated_at, updated_by, sequence) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (kind, key) DO UPDATE SET body = excluded.body, revision = excluded.revision,
                        updated_at = excluded.updated_at, updated_by = excluded.updated_by, sequence = excluded.sequence
                    """,
                arguments: [
                    document.kind, document.key, Data(document.body), document.revision, document.updatedAt, document.updatedBy,
                    sequence,
                ])
        }
        for screen in screens {
            for revision in [screen.current, screen.staged].compactMap({ $0 }) {
                try insertRow(revision, sequence: sequence, or: "OR IGNORE", db)
            }
            let head = screen.head
            try db.execute(
                sql: """
                    INSERT INTO screen_head (screen, current, staged, staged_basis_points, version, updated_at, updated_by, sequence)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (screen) DO UPDATE SET current = excluded.current, staged = excluded.staged,
                        staged_basis_points = excluded.staged_basis_points, version = excluded.version,
                        updated_at = excluded.updated_at, updated_by = excluded.updated_by, sequence = excluded.sequence
                    """,
                arguments: [
                    head.screen, head.current, head.staged, head.stagedBasisPoints, head.version, head.updatedAt, head.updatedBy,
                    sequence,
                ])
            try db.execute(
                sql: """
                    INSERT INTO screen_mirror (screen, latest_revision, latest_config_fingerprint) VALUES (?, ?, ?)
                    ON CONFLICT (screen) DO UPDATE SET latest_revision = excluded.latest_revision,
                        latest_config_fingerprint = excluded.latest_config_fingerprint
                    """,
                arguments: [head.screen, screen.latestRevision, screen.latestConfigFingerprint])
        }
        try db.execute(sql: "UPDATE change_sequence SET value = ?", arguments: [sequence])
    }
}
