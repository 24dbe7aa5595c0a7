import Foundation
import GRDB

/// Reading and writing rows; each write checks the revision it replaces (compare-and-set).
///
/// Every statement is a cached one (prepared once per connection): a change or a load touches
/// thousands of rows, and preparing each statement again cost more than running it.
/// An `INSERT … ON CONFLICT DO NOTHING` that inserted nothing means the row was already there, as
/// in ``PostgresStore``.
extension SQLiteStore {
    static func write(_ document: StoredDocument, sequence: Int64, _ db: Database) throws {
        if document.revision == 1 {
            try db.cachedStatement(
                sql: """
                    INSERT INTO document (kind, key, body, revision, updated_at, updated_by, sequence) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (kind, key) DO NOTHING
                    """
            ).execute(arguments: [
                document.kind, document.key, Data(document.body), document.revision, document.updatedAt, document.updatedBy, sequence,
            ])
            guard db.changesCount == 1 else { throw StoreError.conflict("\(document.kind) \(document.key) already has a runtime value") }
        } else {
            try db.cachedStatement(
                sql: """
                    UPDATE document SET body = ?, revision = ?, updated_at = ?, updated_by = ?, sequence = ?
                    WHERE kind = ? AND key = ? AND revision = ?
                    """
            ).execute(arguments: [
                Data(document.body), document.revision, document.updatedAt, document.updatedBy, sequence, document.kind,
                document.key, document.revision - 1,
            ])
            guard db.changesCount == 1 else {
                throw StoreError.conflict("\(document.kind) \(document.key) is no longer at revision \(document.revision - 1)")
            }
        }
    }

    static func insert(_ revision: DocumentRevision, sequence: Int64, _ db: Database) throws {
        guard try insertRow(revision, sequence: sequence, db) else {
            throw StoreError.conflict("screen \(revision.key.name) already has revision \(revision.number)")
        }
    }

    /// The revision's row, unless the screen has one of that number already.
    /// - Returns: whether it was inserted.
    static func insertRow(_ revision: DocumentRevision, sequence: Int64, _ db: Database) throws -> Bool {
        try db.cachedStatement(
            sql: """
                INSERT INTO screen_revision
                    (screen, number, document, fingerprint, origin, copied_from, created_at, created_by, sequence)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (screen, number) DO NOTHING
                """
        ).execute(arguments: [
            revision.key.name, revision.number, Data(revision.document), revision.fingerprint, revision.origin.rawValue,
            revision.copiedFrom, revision.createdAt, revision.createdBy, sequence,
        ])
        return db.changesCount == 1
    }

    static func write(_ head: DocumentHead, sequence: Int64, _ db: Database) throws {
        let arguments: StatementArguments = [
            head.current, head.staged, head.stagedBasisPoints, head.version, head.updatedAt, head.updatedBy, sequence, head.key.name,
        ]
        if head.version == 1 {
            try db.cachedStatement(
                sql: """
                    INSERT INTO screen_head (current, staged, staged_basis_points, version, updated_at, updated_by, sequence, screen)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (screen) DO NOTHING
                    """
            ).execute(arguments: arguments)
            guard db.changesCount == 1 else { throw StoreError.conflict("screen \(head.key.name) already exists") }
        } else {
            try db.cachedStatement(
                sql: """
                    UPDATE screen_head
                    SET current = ?, staged = ?, staged_basis_points = ?, version = ?, updated_at = ?, updated_by = ?, sequence = ?
                    WHERE screen = ? AND version = ?
                    """
            ).execute(arguments: arguments + [head.version - 1])
            guard db.changesCount == 1 else {
                throw StoreError.conflict("screen \(head.key.name) changed since version \(head.version - 1)")
            }
        }
        let exists = try db.cachedStatement(sql: "SELECT 1 FROM screen_revision WHERE screen = ? AND number = ?")
        for number in [head.current, head.staged].compactMap({ $0 }) {
            guard try Bool.fetchOne(exists, arguments: [head.key.name, number]) ?? false else {
                throw StoreError.conflict("screen \(head.key.name) has no revision \(number)")
            }
        }
    }

    static func insert(_ entry: AuditDraft, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO audit (at, actor, action, resource, before, after) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: [
                entry.at, entry.actor, entry.action, entry.resource, entry.before.map { String(decoding: $0, as: UTF8.self) },
                entry.after.map { String(decoding: $0, as: UTF8.self) },
            ])
    }

    static func document(_ row: Row) -> StoredDocument {
        StoredDocument(
            kind: row["kind"], key: row["key"], body: [UInt8](row["body"] as Data), revision: row["revision"],
            updatedAt: row["updated_at"], updatedBy: row["updated_by"])
    }

    static func head(_ row: Row) -> DocumentHead {
        DocumentHead(
            key: RevisionedKey(name: row["screen"]), current: row["current"], staged: row["staged"], stagedBasisPoints: row["staged_basis_points"],
            version: row["version"], updatedAt: row["updated_at"], updatedBy: row["updated_by"])
    }

    static func revision(_ row: Row) -> DocumentRevision {
        DocumentRevision(
            key: RevisionedKey(name: row["screen"]), number: row["number"], document: [UInt8](row["document"] as Data), fingerprint: row["fingerprint"],
            origin: RevisionOrigin(rawValue: row["origin"]) ?? .publish, copiedFrom: row["copied_from"],
            createdAt: row["created_at"], createdBy: row["created_by"])
    }

    static func summary(_ row: Row) -> DocumentRevisionSummary {
        DocumentRevisionSummary(
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
