import Foundation
import GRDB
import Testing
import TrellisStore

/// A store in a fresh temporary directory, removed with the value.
final class TemporaryStore {
    let directory: URL
    let store: SQLiteStore
    var path: String { directory.appendingPathComponent(SQLiteStore.fileName).path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteStore(path: directory.appendingPathComponent(SQLiteStore.fileName).path)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

func revision(_ screen: String, _ number: Int, _ text: String, origin: RevisionOrigin = .publish) -> ScreenRevision {
    ScreenRevision(
        screen: screen, number: number, document: Array(text.utf8), fingerprint: "fp-\(text)", origin: origin,
        createdAt: 1_800_000_000 + Double(number), createdBy: "ops")
}

func audit(_ resource: String, _ action: String = "rollout.update") -> AuditDraft {
    AuditDraft(at: 1_800_000_000, actor: "ops", action: action, resource: resource, before: Array("{}".utf8), after: nil)
}

@Suite struct SQLiteStoreTests {
    @Test func aNewStoreIsEmptyAndInWALMode() throws {
        let t = try TemporaryStore()
        #expect(try t.store.load() == StoredState())
        let mode = try DatabaseQueue(path: t.path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }

    @Test func aChangeIsReadBackWholeAfterReopening() throws {
        let t = try TemporaryStore()
        let document = StoredDocument(
            kind: "rollout", key: "new-cards", body: Array(#"{"percentage":25}"#.utf8), revision: 1, updatedAt: 1_800_000_000,
            updatedBy: "ops-bot")
        let head = ScreenHead(screen: "home", current: 1, version: 1, updatedAt: 1_800_000_000, updatedBy: "config")
        try t.store.commit(
            StoreChange(
                documents: [document], revisions: [revision("home", 1, "a", origin: .config)], heads: [head],
                audit: [audit("rollouts/new-cards")]))

        let reopened = try SQLiteStore(path: t.path)
        let state = try reopened.load()
        #expect(state.documents == [document])
        #expect(state.screens.count == 1)
        #expect(state.screens[0].head == head)
        #expect(state.screens[0].current == revision("home", 1, "a", origin: .config))
        #expect(state.screens[0].latestRevision == 1)
        #expect(state.screens[0].latestConfigFingerprint == "fp-a")
        let entries = try reopened.audit(AuditQuery())
        #expect(entries.map(\.draft) == [audit("rollouts/new-cards")])
    }

    @Test func aStaleRevisionRefusesTheWholeChange() throws {
        let t = try TemporaryStore()
        var document = StoredDocument(
            kind: "rollout", key: "k", body: Array("1".utf8), revision: 1, updatedAt: 0, updatedBy: "a")
        try t.store.commit(StoreChange(documents: [document]))
        // A second "first write" of the same key conflicts.
        #expect(throws: StoreError.self) { try t.store.commit(StoreChange(documents: [document], audit: [audit("rollouts/k")])) }
        document.revision = 3  // replaces 2, but the store is at 1
        document.body = Array("3".utf8)
        let other = StoredDocument(kind: "rollout", key: "other", body: Array("x".utf8), revision: 1, updatedAt: 0, updatedBy: "a")
        do {
            try t.store.commit(StoreChange(documents: [other, document], audit: [audit("rollouts/k")]))
            Issue.record("expected a conflict")
        } catch {
            #expect(error == .conflict("rollout k is no longer at revision 2"))
        }
        // Nothing of the refused change was written: not `other`, not the audit entry.
        let state = try t.store.load()
        #expect(state.documents.map(\.key) == ["k"])
        #expect(state.documents[0].body == Array("1".utf8))
        #expect(try t.store.audit(AuditQuery()).isEmpty)
    }

    @Test func aHeadMustNameExistingRevisionsAndRevisionsAreImmutable() throws {
        let t = try TemporaryStore()
        let head = ScreenHead(screen: "home", current: 2, version: 1, updatedAt: 0, updatedBy: "a")
        #expect(throws: StoreError.self) { try t.store.commit(StoreChange(revisions: [revision("home", 1, "a")], heads: [head])) }
        try t.store.commit(StoreChange(revisions: [revision("home", 1, "a"), revision("home", 2, "b")], heads: [head]))
        #expect(throws: StoreError.self) { try t.store.commit(StoreChange(revisions: [revision("home", 2, "other")])) }
        #expect(try t.store.revision(screen: "home", number: 2)?.document == Array("b".utf8))
        #expect(try t.store.revision(screen: "home", number: 3) == nil)
    }

    @Test func headsAreComparedAndSetByVersion() throws {
        let t = try TemporaryStore()
        var head = ScreenHead(screen: "home", current: 1, version: 1, updatedAt: 0, updatedBy: "a")
        try t.store.commit(StoreChange(revisions: [revision("home", 1, "a"), revision("home", 2, "b")], heads: [head]))
        head.version = 2
        head.staged = 2
        head.stagedBasisPoints = 2_500
        try t.store.commit(StoreChange(heads: [head]))
        #expect(throws: StoreError.self) { try t.store.commit(StoreChange(heads: [head])) }  // version 2 again
        let screen = try #require(try t.store.load().screens.first)
        #expect(screen.staged?.number == 2)
        #expect(screen.head.stagedBasisPoints == 2_500)
        #expect(screen.latestRevision == 2)
    }

    @Test func revisionListingsCarrySizesAndOriginsButNoDocuments() throws {
        let t = try TemporaryStore()
        var copy = revision("home", 3, "a", origin: .rollback)
        copy.copiedFrom = 1
        try t.store.commit(StoreChange(revisions: [revision("home", 1, "a", origin: .config), revision("home", 2, "bb"), copy]))
        let list = try t.store.revisions(screen: "home")
        #expect(list.map(\.number) == [1, 2, 3])
        #expect(list.map(\.origin) == [.config, .publish, .rollback])
        #expect(list.map(\.bytes) == [1, 2, 1])
        #expect(list[2].copiedFrom == 1)
        #expect(try t.store.revisions(screen: "nope").isEmpty)
    }

    @Test func auditReadsTheNewestOrOnFromACursorAndFiltersByResource() throws {
        let t = try TemporaryStore()
        let resources = ["rollouts/a", "screens/home", "rollouts/ab", "screens/homework", "rollouts/a"]
        for resource in resources { try t.store.commit(StoreChange(audit: [audit(resource)])) }
        #expect(try t.store.audit(AuditQuery(limit: 2)).map(\.id) == [4, 5])
        #expect(try t.store.audit(AuditQuery(limit: 2, after: 1)).map(\.id) == [2, 3])
        #expect(try t.store.audit(AuditQuery(limit: 10, after: 5)).isEmpty)
        #expect(try t.store.audit(AuditQuery(resource: "rollouts/a")).map(\.id) == [1, 5])
        #expect(try t.store.audit(AuditQuery(resource: "screens")).map(\.id) == [2, 4])
        #expect(try t.store.audit(AuditQuery(resource: "screens/home")).map(\.id) == [2])
    }

    @Test func anOnlineBackupIsAWholeReadableCopy() throws {
        let t = try TemporaryStore()
        try t.store.commit(StoreChange(revisions: [revision("home", 1, "a")], audit: [audit("screens/home")]))
        let copy = t.directory.appendingPathComponent("backup.sqlite").path
        try t.store.backup(to: copy)
        let restored = try SQLiteStore(path: copy)
        #expect(try restored.revision(screen: "home", number: 1)?.document == Array("a".utf8))
        #expect(try restored.audit(AuditQuery()).count == 1)
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
}
