/// Reading and writing rows; each write checks the revision it replaces (compare-and-set), with
/// the checks and the messages of ``SQLiteStore``'s.
///
/// The writes run after `commit` has taken the change-sequence row's lock, so no other commit runs
/// between a check and its write: an `INSERT … ON CONFLICT DO NOTHING` that inserted nothing means
/// the row was already there, exactly as SQLiteStore's check before its insert.
extension PostgresStore {
    static let documentColumns = "kind, key, body, revision, updated_at, updated_by"
    static let revisionColumns = "screen, number, document, fingerprint, origin, copied_from, created_at, created_by"
    static let headColumns = "screen, current, staged, staged_basis_points, version, updated_at, updated_by"
    static let auditColumns = "id, at, actor, action, resource, before, after"

    static func write(_ document: StoredDocument, sequence: Int64, _ connection: PostgresConnection) throws(StoreError) {
        if document.revision == 1 {
            let inserted = try connection.execute(
                """
                INSERT INTO document (\(documentColumns), sequence) VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (kind, key) DO NOTHING
                """,
                [
                    .text(document.kind), .text(document.key), .bytes(document.body), .int(document.revision),
                    .double(document.updatedAt), .text(document.updatedBy), .int(sequence),
                ])
            guard inserted.affectedRows == 1 else {
                throw StoreError.conflict("\(document.kind) \(document.key) already has a runtime value")
            }
        } else {
            let updated = try connection.execute(
                """
                UPDATE document SET body = $1, revision = $2, updated_at = $3, updated_by = $4, sequence = $5
                WHERE kind = $6 AND key = $7 AND revision = $8
                """,
                [
                    .bytes(document.body), .int(document.revision), .double(document.updatedAt), .text(document.updatedBy),
                    .int(sequence), .text(document.kind), .text(document.key), .int(document.revision - 1),
                ])
            guard updated.affectedRows == 1 else {
                throw StoreError.conflict("\(document.kind) \(document.key) is no longer at revision \(document.revision - 1)")
            }
        }
    }

    static func write(_ head: DocumentHead, sequence: Int64, _ connection: PostgresConnection) throws(StoreError) {
        let values: [PostgresValue] = [
            .text(head.key.name), .int(head.current), .int(head.staged), .int(head.stagedBasisPoints), .int(head.version),
            .double(head.updatedAt), .text(head.updatedBy), .int(sequence),
        ]
        if head.version == 1 {
            let inserted = try connection.execute(
                """
                INSERT INTO screen_head (\(headColumns), sequence) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                ON CONFLICT (screen) DO NOTHING
                """, values)
            guard inserted.affectedRows == 1 else { throw notReplaced(head) }
        } else {
            let updated = try connection.execute(
                """
                UPDATE screen_head
                SET current = $2, staged = $3, staged_basis_points = $4, version = $5, updated_at = $6, updated_by = $7, sequence = $8
                WHERE screen = $1 AND version = $9
                """, values + [.int(head.version - 1)])
            guard updated.affectedRows == 1 else { throw notReplaced(head) }
        }
        for number in [head.current, head.staged].compactMap({ $0 }) {
            let found = try connection.execute(
                "SELECT 1 AS found FROM screen_revision WHERE screen = $1 AND number = $2", [.text(head.key.name), .int(number)])
            guard found.count == 1 else { throw missingRevision(head.key.name, number) }
        }
    }

    /// Why `revision` was not inserted.
    static func alreadyThere(_ revision: DocumentRevision) -> StoreError {
        .conflict("screen \(revision.key.name) already has revision \(revision.number)")
    }

    /// Why `head` was not written: its screen has a head already, or not the version it replaces.
    static func notReplaced(_ head: DocumentHead) -> StoreError {
        guard head.version > 1 else { return .conflict("screen \(head.key.name) already exists") }
        return .conflict("screen \(head.key.name) changed since version \(head.version - 1)")
    }

    static func missingRevision(_ screen: String, _ number: Int) -> StoreError {
        .conflict("screen \(screen) has no revision \(number)")
    }

    static func latestSequence(_ connection: PostgresConnection) throws(StoreError) -> Int64 {
        guard let row = try connection.execute("SELECT value FROM change_sequence").rows.first else {
            throw StoreError.failure("\(connection.location) has no change_sequence row")
        }
        return try row.int64("value")
    }

    /// The documents and screens written after `sequence` (every one for nil), with the latest
    /// sequence, read in the caller's transaction: four queries, whatever the number of screens.
    ///
    /// Text is ordered `COLLATE "C"` (by code point), as SQLite orders it, so both stores list
    /// the same rows in the same order.
    static func rows(after sequence: Int64?, _ connection: PostgresConnection) throws(StoreError) -> StoredChanges {
        let parameters: [PostgresValue] = sequence.map { [.int($0)] } ?? []
        let latest = try latestSequence(connection)
        let documents = try connection.execute(
            """
            SELECT \(documentColumns) FROM document \(sequence == nil ? "" : "WHERE sequence > $1")
            ORDER BY kind COLLATE "C", key COLLATE "C"
            """, parameters
        ).rows.map(document)
        let changedHeads = sequence == nil ? "" : "WHERE h.sequence > $1"
        let heads = try connection.execute(
            """
            SELECT h.screen, h.current, h.staged, h.staged_basis_points, h.version, h.updated_at, h.updated_by,
                (SELECT max(r.number) FROM screen_revision r WHERE r.screen = h.screen) AS latest_revision,
                (SELECT r.fingerprint FROM screen_revision r WHERE r.screen = h.screen AND r.origin = 'config'
                    ORDER BY r.number DESC LIMIT 1) AS latest_config_fingerprint
            FROM screen_head h \(changedHeads)
            ORDER BY h.screen COLLATE "C"
            """, parameters
        ).rows
        var served: [String: [Int: DocumentRevision]] = [:]
        for row in try connection.execute(
            """
            SELECT r.screen, r.number, r.document, r.fingerprint, r.origin, r.copied_from, r.created_at, r.created_by
            FROM screen_head h JOIN screen_revision r ON r.screen = h.screen AND (r.number = h.current OR r.number = h.staged)
            \(changedHeads)
            """, parameters
        ).rows {
            let revision = try revision(row)
            served[revision.key.name, default: [:]][revision.number] = revision
        }
        let screens = try heads.map { row throws(StoreError) -> RevisionedDocument in
            let head = try head(row)
            func revision(_ number: Int) throws(StoreError) -> DocumentRevision {
                guard let revision = served[head.key.name]?[number] else {
                    throw StoreError.failure("screen \(head.key.name) names revision \(number), which is missing")
                }
                return revision
            }
            return RevisionedDocument(
                head: head, current: try revision(head.current), staged: try head.staged.map(revision),
                latestRevision: try row.optionalInt("latest_revision") ?? head.current,
                latestConfigFingerprint: try row.optionalText("latest_config_fingerprint"))
        }
        return StoredChanges(sequence: latest, documents: documents, revisioned: screens)
    }

    static func document(_ row: PostgresRow) throws(StoreError) -> StoredDocument {
        StoredDocument(
            kind: try row.text("kind"), key: try row.text("key"), body: try row.bytes("body"), revision: try row.int("revision"),
            updatedAt: try row.double("updated_at"), updatedBy: try row.text("updated_by"))
    }

    static func head(_ row: PostgresRow) throws(StoreError) -> DocumentHead {
        DocumentHead(
            key: RevisionedKey(name: try row.text("screen")), current: try row.int("current"), staged: try row.optionalInt("staged"),
            stagedBasisPoints: try row.optionalInt("staged_basis_points"), version: try row.int("version"),
            updatedAt: try row.double("updated_at"), updatedBy: try row.text("updated_by"))
    }

    static func revision(_ row: PostgresRow) throws(StoreError) -> DocumentRevision {
        DocumentRevision(
            key: RevisionedKey(name: try row.text("screen")), number: try row.int("number"), document: try row.bytes("document"),
            fingerprint: try row.text("fingerprint"), origin: RevisionOrigin(rawValue: try row.text("origin")) ?? .publish,
            copiedFrom: try row.optionalInt("copied_from"), createdAt: try row.double("created_at"),
            createdBy: try row.text("created_by"))
    }

    static func summary(_ row: PostgresRow) throws(StoreError) -> DocumentRevisionSummary {
        DocumentRevisionSummary(
            number: try row.int("number"), fingerprint: try row.text("fingerprint"),
            origin: RevisionOrigin(rawValue: try row.text("origin")) ?? .publish, copiedFrom: try row.optionalInt("copied_from"),
            createdAt: try row.double("created_at"), createdBy: try row.text("created_by"), bytes: try row.int("bytes"))
    }

    static func auditEntry(_ row: PostgresRow) throws(StoreError) -> AuditEntry {
        AuditEntry(
            id: try row.int64("id"),
            draft: AuditDraft(
                at: try row.double("at"), actor: try row.text("actor"), action: try row.text("action"),
                resource: try row.text("resource"), before: try row.optionalText("before").map { Array($0.utf8) },
                after: try row.optionalText("after").map { Array($0.utf8) }))
    }
}
