import Foundation
import GRDB

/// Reading and writing rows; each write checks the revision it replaces (compare-and-set).
extension SQLiteStore {
    static func write(_ document: StoredDocument, sequence: Int64, _ db: Database) throws {
        if document.revision == 1 {
            let exists = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM document WHERE kind = ? AND key = ?", arguments: [document.kind, document.key]) ?? false
            guard !exists else { throw StoreError.conflict("\(document.kind) \(document.key) already has a runtime value") }
            try db.execute(
                sql: "INSERT INTO document (kind, key, body, revision, updated_at, updated_by, sequence) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    document.kind, document.key, Data(document.body), document.revision, document.updatedAt, document.updatedBy,
                    sequence,
                ])
        } else {
            try db.execute(
                sql: """
                    UPDATE document SET body = ?, revision = ?, updated_at = ?, updated_by = ?, sequence = ?
                    WHERE kind = ? AND key = ? AND revision = ?
                    """,
                arguments: [
                    Data(document.body), document.revision, document.updatedAt, document.updatedBy, sequence, document.kind,
                    document.key, document.revision - 1,
                ])
            guard db.changesCount == 1 else {
                throw StoreError.conflict("\(document.kind) \(document.key) is no longer at revision \(document.revision - 1)")
            }
        }
    }

    static func insert(_ revision: ScreenRevision, sequence: Int64, _ db: Database) throws {
        let exists = try Bool.fetchOne(
            db, sql: "SELECT 1 FROM screen_revision WHERE screen = ? AND number = ?", arguments: [revision.screen, revision.number]
        ) ?? false
        guard !exists else { throw StoreError.conflict("screen \(revision.screen) already has revision \(revision.number)") }
        try insertRow(revision, sequence: sequence, db)
    }

    /// The revision's row, unchecked; `or` is SQLite's conflict clause (`OR IGNORE` for a mirror).
    static func insertRow(_ revision: ScreenRevision, sequence: Int64, or conflictClause: String = "", _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT \(conflictClause) INTO screen_revision
                    (screen, number, document, fingerprint, origin, copied_from, created_at, created_by, sequence)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                revision.screen, revision.number, Data(revision.document), revision.fingerprint, revision.origin.rawValue,
                revision.copiedFrom, revision.createdAt, revision.createdBy, sequence,
            ])
    }

    static func write(_ head: ScreenHead, sequence: Int64, _ db: Database) throws {
        let arguments: StatementArguments = [
            head.current, head.staged, head.stagedBasisPoints, head.version, head.updatedAt, head.updatedBy, sequence, head.screen,
        ]
        if head.version == 1 {
            let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM screen_head WHERE screen = ?", arguments: [head.screen]) ?? false
            guard !exists else { throw StoreError.conflict("screen \(head.screen) already exists") }
            try db.execute(
                sql: """
                    INSERT INTO screen_head (current, staged, staged_basis_points, version, updated_at, updated_by, sequence, screen)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: arguments)
        } else {
            try db.execute(
                sql: """
                    UPDATE screen_head
                    SET current = ?, staged = ?, staged_basis_points = ?, version = ?, updated_at = ?, updated_by = ?, sequence = ?
                    WHERE screen = ? AND version = ?
                    """, arguments: arguments + [head.version - 1])
            guard db.changesCount == 1 else {
                throw StoreError.conflict("screen \(head.screen) changed since version \(head.version - 1)")
            }
        }
        for number in [head.current, head.staged].compactMap({ $0 }) {
            let exists = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM screen_revision WHERE screen = ? AND number = ?", arguments: [head.screen, number]) ?? false
            guard exists else { throw StoreError.conflict("screen \(head.screen) has no revision \(number)") }
        }
    }

    static func insert(_ entry: AuditDraft, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO audit (at, actor, action, resource, before, after) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [
                entry.at, entry.actor, entry.action, entry.resource, entry.before.map { String(decoding: $0, as: UTF8.self) },
                entry.after.map { String(decoding: $0, as: UTF8.self) },
            ])
    }

    static func storedScreen(_ head: ScreenHead, _ db: Database) throws -> StoredScreen {
        func revision(_ number: Int) throws -> ScreenRevision {
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM screen_revision WHERE screen = ? AND number = ?", arguments: [head.screen, number])
            else { throw StoreError.failure("screen \(head.screen) names revision \(number), which is missing") }
            return Self.revision(row)
        }
        var latest = try Int.fetchOne(db, sql: "SELECT max(number) FROM screen_revision WHERE screen = ?", arguments: [head.screen])
        let config = try Row.fetchOne(
            db, sql: "SELECT number, fingerprint FROM screen_revision WHERE screen = ? AND origin = 'config' ORDER BY number DESC LIMIT 1",
            arguments: [head.screen])
        var configFingerprint: String? = config?["fingerprint"]
        // A mirror holds only the served revisions; what the shared store said of the others counts
        // unless a revision written here since is newer.
        if let mirrored = try Row.fetchOne(db, sql: "SELECT * FROM screen_mirror WHERE screen = ?", arguments: [head.screen]) {
            let mirroredLatest: Int = mirrored["latest_revision"]
            let configNumber: Int? = config?["number"]
            if (configNumber ?? 0) <= mirroredLatest { configFingerprint = mirrored["latest_config_fingerprint"] }
            latest = max(latest ?? 0, mirroredLatest)
        }
        return StoredScreen(
            head: head, current: try revision(head.current), staged: try head.staged.map(revision),
            latestRevision: latest ?? head.current, latestConfigFingerprint: configFingerprint)
    }

    static func document(_ row: Row) -> StoredDocument {
        StoredDocument(
            kind: row["kind"], key: row["key"], body: [UInt8](row["body"] as Data), revision: row["revision"],
            updatedAt: row["updated_at"], updatedBy: row["updated_by"])
    }

    static func head(_ row: Row) -> ScreenHead {
        ScreenHead(
            screen: row["screen"], current: row["current"], staged: row["staged"], stagedBasisPoints: row["staged_basis_points"],
            version: row["version"], updatedAt: row["updated_at"], updatedBy: row["updated_by"])
    }

    static func revision(_ row: Row) -> ScreenRevision {
        ScreenRevision(
            screen: row["screen"], number: row["number"], document: [UInt8](row["document"] as Data), fingerprint: row["fingerprint"],
            origin: RevisionOrigin(rawValue: row["origin"]) ?? .publish, copiedFrom: row["copied_from"],
            createdAt: row["created_at"], createdBy: row["created_by"])
    }

    static func summary(_ row: Row) -> ScreenRevisionSummary {
        ScreenRevisionSummary(
            number: row["number"], fingerprint: row["fingerprint"], origin: RevisionOrigin(rawValue: row["origin"]) ?? .publish,
            copiedFrom: row["copied_from"], createdAt: row["created_at"], createdBy: row["created_by"], bytes: row["bytes"])
    }

    static func auditEntry(_ row: Row) -> AuditEntry {
        let before: String? = row["before"]
        let after: String? = row["after"]
        return AuditEntry(
            id: row["id"],
            draft: AuditDraft(
                at: row["at"], actor: row["actor"], action: row["action"], resource: row["resource"],
                before: before.map { Array($0.utf8) }, after: after.map { Array($0.utf8) }))
    }
}
