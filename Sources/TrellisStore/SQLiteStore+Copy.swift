#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB

/// A new SQLite file in this store's schema, filled row by row from another store: how
/// ``PostgresStore/backup(to:)`` writes a copy that ``SQLiteStore`` opens and `sqlite3` reads.
extension SQLiteStore {
    /// Creates the file at `path` (replacing one already there only once the copy is whole), migrates
    /// it to this build's schema, and runs `fill` in one transaction on it.
    static func writeCopy(to path: String, _ fill: (SQLiteCopy) throws(StoreError) -> Void) throws(StoreError) {
        // Written beside the target and renamed over it, so `path` never holds half a copy.
        let partial = path + ".partial-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: partial) }
        do {
            let queue = try DatabaseQueue(path: partial)
            try migrator.migrate(queue)
            try queue.write { db in
                do throws(StoreError) { try fill(SQLiteCopy(db: db)) } catch { throw error }
            }
            try queue.close()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.failure("cannot write a copy at \(path): \(describe(error))")
        }
        guard rename(partial, path) == 0 else {
            throw StoreError.failure("cannot put the copy in place at \(path): \(String(cString: strerror(errno)))")
        }
    }
}

/// Inserts rows, as they are, into a file ``SQLiteStore/writeCopy(to:_:)`` is writing. Only valid
/// inside its `fill`.
struct SQLiteCopy {
    fileprivate let db: Database

    func insert(_ document: StoredDocument, sequence: Int64) throws(StoreError) {
        try run {
            try db.cachedStatement(
                sql: "INSERT INTO document (kind, key, body, revision, updated_at, updated_by, sequence) VALUES (?, ?, ?, ?, ?, ?, ?)"
            ).execute(arguments: [
                document.kind, document.key, Data(document.body), document.revision, document.updatedAt, document.updatedBy,
                sequence,
            ])
        }
    }

    func insert(_ revision: DocumentRevision, sequence: Int64) throws(StoreError) {
        try run {
            guard try SQLiteStore.insertRow(revision, sequence: sequence, db) else {
                throw StoreError.failure("screen \(revision.key.name) has revision \(revision.number) twice")
            }
        }
    }

    func insert(_ head: DocumentHead, sequence: Int64) throws(StoreError) {
        try run {
            try db.cachedStatement(
                sql: """
                    INSERT INTO screen_head (screen, current, staged, staged_basis_points, version, updated_at, updated_by, sequence)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                head.key.name, head.current, head.staged, head.stagedBasisPoints, head.version, head.updatedAt, head.updatedBy,
                sequence,
            ])
        }
    }

    /// An audit entry with its id (the copy's log continues the original's numbering).
    func insert(_ entry: AuditEntry) throws(StoreError) {
        let draft = entry.draft
        try run {
            try db.cachedStatement(
                sql: "INSERT INTO audit (id, at, actor, action, resource, before, after) VALUES (?, ?, ?, ?, ?, ?, ?)"
            ).execute(arguments: [
                entry.id, draft.at, draft.actor, draft.action, draft.resource,
                draft.before.map { String(decoding: $0, as: UTF8.self) }, draft.after.map { String(decoding: $0, as: UTF8.self) },
            ])
        }
    }

    func insert(_ cursor: WebhookCursor) throws(StoreError) {
        try run {
            try db.execute(
                sql: """
                    INSERT INTO webhook_cursor (webhook, delivered_through, failed_attempts, first_failure_at, next_attempt_at)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [cursor.webhook, cursor.deliveredThrough, cursor.failedAttempts, cursor.firstFailureAt, cursor.nextAttemptAt])
        }
    }

    func setSequence(_ sequence: Int64) throws(StoreError) {
        try run { try db.execute(sql: "UPDATE change_sequence SET value = ?", arguments: [sequence]) }
    }

    private func run(_ body: () throws -> Void) throws(StoreError) {
        do {
            try body()
        } catch {
            throw StoreError.failure("cannot write the copy: \(SQLiteStore.describe(error))")
        }
    }
}
