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
    /// sequence, read in the caller's transaction: three queries, whatever the number of screens.
    static func rows(after sequence: Int64?, _ db: Database) throws -> StoredChanges {
        let arguments: StatementArguments = sequence.map { [$0] } ?? []
        let documents = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM document \(sequence == nil ? "" : "WHERE sequence > ?") ORDER BY kind, key"),
            arguments: arguments
        ).map(Self.document)
        var screens: [RevisionedDocument] = []
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: sequence == nil ? everyScreenSQL : screensSQL(where: "WHERE h.sequence > ?")), arguments: arguments)
        while let row = try rows.next() { screens.append(try storedScreen(row)) }
        return StoredChanges(sequence: try latestSequence(db), documents: documents, revisioned: screens)
    }

    /// Every screen's head with the revisions it serves (`current_…`, `staged_…`; NULL when
    /// missing), its latest revision number, its newest config revision, and what a mirror recorded.
    private static func screensSQL(where filter: String = "") -> String {
        func served(_ name: String) -> String {
            """
            LEFT JOIN screen_revision \(name) ON \(name).screen = h.screen AND \(name).number = h.\(name)
            """
        }
        return """
            SELECT h.screen, h.current, h.staged, h.staged_basis_points, h.version, h.updated_at, h.updated_by,
                (SELECT max(number) FROM screen_revision WHERE screen = h.screen) AS latest_revision,
                config.number AS config_number, config.fingerprint AS config_fingerprint,
                mirror.latest_revision AS mirrored_latest_revision, mirror.latest_config_fingerprint AS mirrored_config_fingerprint,
                \(revisionColumns("current")), \(revisionColumns("staged"))
            FROM screen_head h
            LEFT JOIN screen_revision config ON config.screen = h.screen AND config.number =
                (SELECT max(number) FROM screen_revision WHERE screen = h.screen AND origin = 'config')
            LEFT JOIN screen_mirror mirror ON mirror.screen = h.screen
            \(served("current"))
            \(served("staged"))
            \(filter)
            ORDER BY h.screen
            """
    }

    private static let everyScreenSQL = screensSQL()

    private static func revisionColumns(_ name: String) -> String {
        ["number", "document", "fingerprint", "origin", "copied_from", "created_at", "created_by"]
            .map { "\(name).\($0) AS \(name)_\($0)" }.joined(separator: ", ")
    }

    /// A row of ``screensSQL(where:)`` as the screen it describes.
    private static func storedScreen(_ row: Row) throws -> RevisionedDocument {
        let head = Self.head(row)
        func revision(_ name: String, _ number: Int) throws -> DocumentRevision {
            guard (row["\(name)_number"] as Int?) != nil else {
                throw StoreError.failure("screen \(head.key.name) names revision \(number), which is missing")
            }
            return DocumentRevision(
                key: head.key, number: number, document: try row.withUnsafeData(named: "\(name)_document") { [UInt8]($0 ?? Data()) },
                fingerprint: row["\(name)_fingerprint"], origin: RevisionOrigin(rawValue: row["\(name)_origin"]) ?? .publish,
                copiedFrom: row["\(name)_copied_from"], createdAt: row["\(name)_created_at"], createdBy: row["\(name)_created_by"])
        }
        var latest: Int? = row["latest_revision"]
        var configFingerprint: String? = row["config_fingerprint"]
        // A mirror holds only the served revisions; what the shared store said of the others counts
        // unless a revision written here since is newer.
        if let mirroredLatest: Int = row["mirrored_latest_revision"] {
            let configNumber: Int? = row["config_number"]
            if (configNumber ?? 0) <= mirroredLatest { configFingerprint = row["mirrored_config_fingerprint"] }
            latest = max(latest ?? 0, mirroredLatest)
        }
        return RevisionedDocument(
            head: head, current: try revision("current", head.current), staged: try head.staged.map { try revision("staged", $0) },
            latestRevision: latest ?? head.current, latestConfigFingerprint: configFingerprint)
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
            try Self.mirror(documents: changes.documents, screens: changes.revisioned, sequence: changes.sequence, db)
        }
    }

    /// Replaces every document and screen of this mirror with `state` (from the shared store's
    /// ``RuntimeStore/load()``), and its sequence with `state.sequence`, in one durable transaction.
    /// The audit log is left as it is (a mirror keeps none of the shared store's).
    public func mirror(replacingWith state: StoredState) throws(StoreError) {
        try write("replace the mirror") { db in
            try db.execute(sql: "DELETE FROM document; DELETE FROM screen_head; DELETE FROM screen_revision; DELETE FROM screen_mirror")
            try Self.mirror(documents: state.documents, screens: state.revisioned, sequence: state.sequence, db)
        }
    }

    private static func mirror(documents: [StoredDocument], screens: [RevisionedDocument], sequence: Int64, _ db: Database) throws {
        for document in documents {
            try db.cachedStatement(
                sql: """
                    INSERT INTO document (kind, key, body, revision, updated_at, updated_by, sequence) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (kind, key) DO UPDATE SET body = excluded.body, revision = excluded.revision,
                        updated_at = excluded.updated_at, updated_by = excluded.updated_by, sequence = excluded.sequence
                    """
            ).execute(arguments: [
                document.kind, document.key, Data(document.body), document.revision, document.updatedAt, document.updatedBy, sequence,
            ])
        }
        for screen in screens {
            for revision in [screen.current, screen.staged].compactMap({ $0 }) {
                _ = try insertRow(revision, sequence: sequence, db)
            }
            let head = screen.head
            try db.cachedStatement(
                sql: """
                    INSERT INTO screen_head (screen, current, staged, staged_basis_points, version, updated_at, updated_by, sequence)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (screen) DO UPDATE SET current = excluded.current, staged = excluded.staged,
                        staged_basis_points = excluded.staged_basis_points, version = excluded.version,
                        updated_at = excluded.updated_at, updated_by = excluded.updated_by, sequence = excluded.sequence
                    """
            ).execute(arguments: [
                head.key.name, head.current, head.staged, head.stagedBasisPoints, head.version, head.updatedAt, head.updatedBy, sequence,
            ])
            try db.cachedStatement(
                sql: """
                    INSERT INTO screen_mirror (screen, latest_revision, latest_config_fingerprint) VALUES (?, ?, ?)
                    ON CONFLICT (screen) DO UPDATE SET latest_revision = excluded.latest_revision,
                        latest_config_fingerprint = excluded.latest_config_fingerprint
                    """
            ).execute(arguments: [head.key.name, screen.latestRevision, screen.latestConfigFingerprint])
        }
        try db.execute(sql: "UPDATE change_sequence SET value = ?", arguments: [sequence])
    }
}
