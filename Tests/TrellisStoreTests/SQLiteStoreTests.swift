import Foundation
import GRDB
import Testing

@testable import TrellisStore

/// What only the SQLite store does: its file, its journal mode, its migrations. What every store
/// does is in StoreContractTests.
@Suite struct SQLiteStoreTests {
    @Test func aNewStoreIsInWALMode() throws {
        let t = try TemporaryStore()
        let mode = try DatabaseQueue(path: t.path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }

    /// Token hashes and webhook secrets live here: the file and its journal are the owner's alone,
    /// also when an earlier version made the file readable by others.
    @Test func theFilesAreReadableByTheirOwnerOnly() throws {
        let t = try TemporaryStore()
        try t.store.commit(StoreChange(documents: [StoredDocument(kind: "k", key: "a", body: Array("1".utf8), revision: 1, updatedAt: 0, updatedBy: "x")]))
        func mode(_ path: String) throws -> Int { (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1 }
        #expect(try mode(t.path) == 0o600)
        #expect(try mode(t.path + "-wal") == 0o600)
        _ = chmod(t.path, 0o644)
        _ = try SQLiteStore(path: t.path)
        #expect(try mode(t.path) == 0o600)
    }

    @Test func aFileFromANewerSchemaIsRefused() throws {
        let t = try TemporaryStore()
        try DatabaseQueue(path: t.path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
        }
        #expect(throws: StoreError.self) { try SQLiteStore(path: t.path) }
    }

    @Test func aDirectoryThatCannotHoldTheFileIsAPreciseError() {
        do {
            _ = try SQLiteStore(path: "/proc/trellis-cannot-be-here/trellis.sqlite")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix("cannot open /proc/trellis-cannot-be-here/trellis.sqlite"))
        }
    }

    /// A new store file in a directory of its own, migrated only to v1 (before the change sequence).
    static func fileAtVersionOne() throws -> (directory: URL, path: String, queue: DatabaseQueue) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(SQLiteStore.fileName).path
        let queue = try DatabaseQueue(path: path)
        try SQLiteStore.migrator.migrate(queue, upTo: "v1: documents, screen revisions and heads, audit")
        return (directory, path, queue)
    }

    /// A file written before the change sequence existed: its rows count as change 1, so reading
    /// the changes after 0 returns them all, and commits go on from 2.
    @Test func aFileFromBeforeTheSequenceMigratesToSequenceOne() throws {
        let (directory, path, old) = try Self.fileAtVersionOne()
        defer { try? FileManager.default.removeItem(at: directory) }
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO document (kind, key, body, revision, updated_at, updated_by) VALUES ('rollout', 'a', x'31', 1, 0, 'ops');
                    INSERT INTO screen_revision (screen, number, document, fingerprint, origin, created_at, created_by)
                        VALUES ('home', 1, x'61', 'fp-a', 'config', 0, 'ops');
                    INSERT INTO screen_head (screen, current, version, updated_at, updated_by) VALUES ('home', 1, 1, 0, 'ops');
                    """)
        }
        try old.close()

        let store = try SQLiteStore(path: path)
        let state = try store.load()
        #expect(state.sequence == 1)
        #expect(try store.changes(after: 0) == StoredChanges(sequence: 1, documents: state.documents, revisioned: state.revisioned))
        #expect(state.documents.map(\.key) == ["a"])
        #expect(state.revisioned.map(\.head.key.name) == ["home"])
        #expect(try store.commit(StoreChange(audit: [audit("x")])) == 2)
    }

    @Test func anEmptyFileFromBeforeTheSequenceStartsAtZero() throws {
        let (directory, path, old) = try Self.fileAtVersionOne()
        defer { try? FileManager.default.removeItem(at: directory) }
        try old.close()
        #expect(try SQLiteStore(path: path).latestSequence() == 0)
    }
}
