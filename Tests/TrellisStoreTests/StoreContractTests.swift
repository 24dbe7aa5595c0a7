import Foundation
import Testing
import TrellisStore

/// What every ``RuntimeStore`` promises, checked against each store: SQLite in a temporary file,
/// PostgreSQL in a database of its own in the suite's cluster.
@Suite(.postgresCluster) struct StoreContractTests {
    @Test(arguments: StoreKind.allCases) func aNewStoreIsEmptyAtSequenceZero(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        #expect(try t.store.load() == StoredState())
        #expect(try t.store.latestSequence() == 0)
        #expect(try t.store.changes(after: 0) == StoredChanges(sequence: 0))
        // An empty change writes nothing and does not count.
        #expect(try t.store.commit(StoreChange()) == 0)
        #expect(try t.store.latestSequence() == 0)
    }

    @Test(arguments: StoreKind.allCases) func aChangeIsReadBackWholeAfterReopening(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        let document = StoredDocument(
            kind: "rollout", key: "new-cards", body: Array(#"{"percentage":25}"#.utf8), revision: 1, updatedAt: 1_800_000_000,
            updatedBy: "ops-bot")
        let head = DocumentHead(key: .screen("home"), current: 1, version: 1, updatedAt: 1_800_000_000, updatedBy: "config")
        try t.store.commit(
            StoreChange(
                documents: [document], revisions: [revision("home", 1, "a", origin: .config)], heads: [head],
                audit: [audit("rollouts/new-cards")]))

        let reopened = try t.reopened()
        let state = try reopened.load()
        #expect(state.documents == [document])
        #expect(state.revisioned.count == 1)
        #expect(state.revisioned[0].head == head)
        #expect(state.revisioned[0].current == revision("home", 1, "a", origin: .config))
        #expect(state.revisioned[0].latestRevision == 1)
        #expect(state.revisioned[0].latestConfigFingerprint == "fp-a")
        #expect(state.sequence == 1)
        let entries = try reopened.audit(AuditQuery())
        #expect(entries.map(\.draft) == [audit("rollouts/new-cards")])
    }

    @Test(arguments: StoreKind.allCases) func aStaleRevisionRefusesTheWholeChange(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        var document = StoredDocument(
            kind: "rollout", key: "k", body: Array("1".utf8), revision: 1, updatedAt: 0, updatedBy: "a")
        try t.store.commit(StoreChange(documents: [document]))
        // A second "first write" of the same key conflicts.
        #expect(throws: StoreError.conflict("rollout k already has a runtime value")) {
            try t.store.commit(StoreChange(documents: [document], audit: [audit("rollouts/k")]))
        }
        document.revision = 3  // replaces 2, but the store is at 1
        document.body = Array("3".utf8)
        let other = StoredDocument(kind: "rollout", key: "other", body: Array("x".utf8), revision: 1, updatedAt: 0, updatedBy: "a")
        do {
            try t.store.commit(StoreChange(documents: [other, document], audit: [audit("rollouts/k")]))
            Issue.record("expected a conflict")
        } catch {
            #expect(error == .conflict("rollout k is no longer at revision 2"))
        }
        // Nothing of the refused change was written: not `other`, not the audit entry, not a sequence.
        let state = try t.store.load()
        #expect(state.documents.map(\.key) == ["k"])
        #expect(state.documents[0].body == Array("1".utf8))
        #expect(try t.store.audit(AuditQuery()).isEmpty)
        #expect(state.sequence == 1)
        #expect(try t.store.latestSequence() == 1)
    }

    @Test(arguments: StoreKind.allCases) func aHeadMustNameExistingRevisionsAndRevisionsAreImmutable(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        let head = DocumentHead(key: .screen("home"), current: 2, version: 1, updatedAt: 0, updatedBy: "a")
        #expect(throws: StoreError.conflict("screen home has no revision 2")) {
            try t.store.commit(StoreChange(revisions: [revision("home", 1, "a")], heads: [head]))
        }
        try t.store.commit(StoreChange(revisions: [revision("home", 1, "a"), revision("home", 2, "b")], heads: [head]))
        #expect(throws: StoreError.conflict("screen home already has revision 2")) {
            try t.store.commit(StoreChange(revisions: [revision("home", 2, "other")]))
        }
        #expect(throws: StoreError.conflict("screen home already exists")) { try t.store.commit(StoreChange(heads: [head])) }
        #expect(try t.store.revision(of: .screen("home"), number: 2)?.document == Array("b".utf8))
        #expect(try t.store.revision(of: .screen("home"), number: 3) == nil)
    }

    @Test(arguments: StoreKind.allCases) func headsAreComparedAndSetByVersion(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        var head = DocumentHead(key: .screen("home"), current: 1, version: 1, updatedAt: 0, updatedBy: "a")
        try t.store.commit(StoreChange(revisions: [revision("home", 1, "a"), revision("home", 2, "b")], heads: [head]))
        head.version = 2
        head.staged = 2
        head.stagedBasisPoints = 2_500
        try t.store.commit(StoreChange(heads: [head]))
        #expect(throws: StoreError.conflict("screen home changed since version 1")) {
            try t.store.commit(StoreChange(heads: [head]))  // version 2 again
        }
        let screen = try #require(try t.store.load().revisioned.first)
        #expect(screen.staged?.number == 2)
        #expect(screen.head.stagedBasisPoints == 2_500)
        #expect(screen.latestRevision == 2)
    }

    @Test(arguments: StoreKind.allCases) func revisionListingsCarrySizesAndOriginsButNoDocuments(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        var copy = revision("home", 3, "a", origin: .rollback)
        copy.copiedFrom = 1
        try t.store.commit(StoreChange(revisions: [revision("home", 1, "a", origin: .config), revision("home", 2, "bb"), copy]))
        let list = try t.store.revisions(of: .screen("home"))
        #expect(list.map(\.number) == [1, 2, 3])
        #expect(list.map(\.origin) == [.config, .publish, .rollback])
        #expect(list.map(\.bytes) == [1, 2, 1])
        #expect(list[2].copiedFrom == 1)
        #expect(try t.store.revisions(of: .screen("nope")).isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func auditReadsTheNewestOrOnFromACursorAndFiltersByResource(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        let resources = ["rollouts/a", "screens/home", "rollouts/ab", "screens/homework", "rollouts/a"]
        for resource in resources { try t.store.commit(StoreChange(audit: [audit(resource)])) }
        #expect(try t.store.audit(AuditQuery(limit: 2)).map(\.id) == [4, 5])
        #expect(try t.store.audit(AuditQuery(limit: 2, after: 1)).map(\.id) == [2, 3])
        #expect(try t.store.audit(AuditQuery(limit: 10, after: 5)).isEmpty)
        #expect(try t.store.audit(AuditQuery(resource: "rollouts/a")).map(\.id) == [1, 5])
        #expect(try t.store.audit(AuditQuery(resource: "screens")).map(\.id) == [2, 4])
        #expect(try t.store.audit(AuditQuery(resource: "screens/home")).map(\.id) == [2])
    }

    /// Bytes, text, times and NULLs come back exactly as written, and rows in the same order from
    /// both stores (by code point).
    @Test(arguments: StoreKind.allCases) func valuesRoundTripExactly(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        let documents = [
            StoredDocument(kind: "rollout", key: "B", body: (0...255).map { UInt8($0) }, revision: 1, updatedAt: 0.1 + 0.2, updatedBy: "ü"),
            StoredDocument(kind: "rollout", key: "_", body: [], revision: 1, updatedAt: -1.5e-300, updatedBy: ""),
            StoredDocument(kind: "rollout", key: "a-ключ-🙂", body: [0, 0, 0], revision: 1, updatedAt: 1.7976931348623157e308, updatedBy: "x"),
        ]
        var empty = revision("home", 1, "")
        empty.createdAt = 1_800_000_000.123456789
        let head = DocumentHead(key: .screen("home"), current: 1, version: 1, updatedAt: 0, updatedBy: "a")
        let entry = AuditDraft(at: 0.5, actor: "é", action: "a", resource: "r", before: nil, after: Array(#"{"ü":"\u0000"}"#.utf8))
        try t.store.commit(StoreChange(documents: documents, revisions: [empty], heads: [head], audit: [entry]))
        let state = try t.store.load()
        #expect(state.documents == documents)  // "B" < "_" < "a…" by code point, whatever the locale
        #expect(state.revisioned.first?.current == empty)
        #expect(state.revisioned.first?.staged == nil)
        #expect(state.revisioned.first?.head.stagedBasisPoints == nil)
        #expect(try t.store.audit(AuditQuery()).map(\.draft) == [entry])
    }

    @Test(arguments: StoreKind.allCases) func everyCommitTakesTheNextSequenceAndChangesAfterOneAreWhatWasWrittenSince(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        let a = document("a", "1")
        let home = DocumentHead(key: .screen("home"), current: 1, staged: 2, stagedBasisPoints: 100, version: 1, updatedAt: 0, updatedBy: "ops")
        #expect(try t.store.commit(StoreChange(documents: [a], audit: [audit("rollouts/a")])) == 1)
        #expect(
            try t.store.commit(StoreChange(revisions: [revision("home", 1, "x", origin: .config), revision("home", 2, "y")], heads: [home]))
                == 2)
        #expect(try t.store.commit(StoreChange(audit: [audit("screens/home")])) == 3)  // audit only: counted, no rows
        let b = document("b", "1")
        #expect(try t.store.commit(StoreChange(documents: [b])) == 4)
        #expect(try t.store.latestSequence() == 4)

        let state = try t.store.load()
        #expect(state.sequence == 4)
        let homeScreen = try #require(state.revisioned.first)
        #expect(homeScreen.staged == revision("home", 2, "y"))
        #expect(try t.store.changes(after: 0) == StoredChanges(sequence: 4, documents: [a, b], revisioned: [homeScreen]))
        #expect(try t.store.changes(after: 1) == StoredChanges(sequence: 4, documents: [b], revisioned: [homeScreen]))
        #expect(try t.store.changes(after: 2) == StoredChanges(sequence: 4, documents: [b]))
        #expect(try t.store.changes(after: 4) == StoredChanges(sequence: 4))
        #expect(try t.store.commit(StoreChange()) == 4)

        // A later write of an older row brings it back, as it is now.
        let a2 = document("a", "2", revision: 2)
        var promoted = home
        promoted.version = 2
        promoted.current = 2
        promoted.staged = nil
        promoted.stagedBasisPoints = nil
        #expect(try t.store.commit(StoreChange(documents: [a2], heads: [promoted])) == 5)
        let changes = try t.store.changes(after: 4)
        #expect(changes.sequence == 5)
        #expect(changes.documents == [a2])
        #expect(changes.revisioned.map(\.head) == [promoted])
        #expect(changes.revisioned.first?.current == revision("home", 2, "y"))
        #expect(changes.revisioned.first?.latestRevision == 2)
        #expect(changes.revisioned.first?.latestConfigFingerprint == "fp-x")
        #expect(try t.store.load().sequence == 5)
    }

    /// A change of thousands of rows (PostgresStore writes them many to a statement, SQLiteStore
    /// past its deferred-checkpoint size) is refused at the first row one-at-a-time writing would
    /// refuse, whole; and once it commits, it reads back whole, its audit entries in order.
    @Test(arguments: StoreKind.allCases) func aChangeOfThousandsOfRowsIsRefusedAtItsFirstConflictOrWrittenWhole(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        let names = (0..<2_500).map { String(format: "s%05d", $0) }
        let document = String(repeating: "x", count: 2_000)  // 5 MB in all
        func head(_ screen: String, current: Int = 1, version: Int = 1) -> DocumentHead {
            DocumentHead(key: .screen(screen), current: current, version: version, updatedAt: 0, updatedBy: "config")
        }
        try t.store.commit(StoreChange(revisions: [revision("s02100", 1, "old")], heads: [head("s02100")]))
        let revisions = names.map { revision($0, 1, document) }
        let heads = names.map { head($0) }
        let entries = names.map { audit("screens/\($0)", "screen.import") }

        #expect(throws: StoreError.conflict("screen s02100 already has revision 1")) {
            try t.store.commit(StoreChange(revisions: revisions, heads: heads, audit: entries))
        }
        let others = revisions.filter { $0.key.name != "s02100" }
        #expect(throws: StoreError.conflict("screen s02100 already exists")) {
            try t.store.commit(StoreChange(revisions: others, heads: heads, audit: entries))
        }
        // Heads are checked in the change's order: a missing revision before a stale version.
        var wrong = heads.filter { $0.key.name != "s02100" }
        wrong[1_500].current = 2
        wrong.append(head("s02100", version: 5))
        #expect(throws: StoreError.conflict("screen s01500 has no revision 2")) {
            try t.store.commit(StoreChange(revisions: others, heads: wrong, audit: entries))
        }
        // The same revision twice in one change: the second conflicts, as it would alone.
        #expect(throws: StoreError.conflict("screen s00007 already has revision 1")) {
            try t.store.commit(StoreChange(revisions: others + [revision("s00007", 1, "again")]))
        }
        // Nothing of the refused changes was written.
        #expect(try t.store.load().revisioned.map(\.head.key.name) == ["s02100"])
        #expect(try t.store.audit(AuditQuery()).isEmpty)
        #expect(try t.store.latestSequence() == 1)

        let valid = StoreChange(revisions: others, heads: heads.filter { $0.key.name != "s02100" }, audit: entries)
        #expect(try t.store.commit(valid) == 2)
        var state = try t.reopened().load()
        #expect(state.revisioned.count == names.count)
        #expect(state.revisioned.first { $0.head.key.name == "s02499" }?.current == revision("s02499", 1, document))
        #expect(try t.store.audit(AuditQuery(limit: 3_000)).map(\.draft) == entries)

        // Two heads of one screen in one change: the second replaces the first.
        let twice = StoreChange(
            revisions: [revision("s00007", 2, "two"), revision("s00007", 3, "three")],
            heads: [head("s00007", current: 2, version: 2), head("s00007", current: 3, version: 3)])
        #expect(try t.store.commit(twice) == 3)
        state = try t.store.load()
        #expect(state.revisioned.first { $0.head.key.name == "s00007" }?.head == head("s00007", current: 3, version: 3))
    }

    /// A replica's mirror: a full copy, then the changes after it, load as the store itself does —
    /// including the latest revision and config fingerprint of screens whose other revisions the
    /// mirror never got — and so after reopening.
    @Test(arguments: StoreKind.allCases) func aMirrorLoadsWhatTheStoreLoads(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        let mirror = try TemporaryStore()
        try t.store.commit(
            StoreChange(
                documents: [document("a", "1")],
                revisions: [revision("home", 1, "h1", origin: .config), revision("home", 2, "h2")],
                heads: [DocumentHead(key: .screen("home"), current: 1, staged: 2, stagedBasisPoints: 2_500, version: 1, updatedAt: 0, updatedBy: "x")]))
        try t.store.commit(
            StoreChange(
                documents: [document("b", "1")],
                revisions: [revision("order", 1, "o1", origin: .config), revision("order", 2, "o2"), revision("order", 3, "o3")],
                heads: [DocumentHead(key: .screen("order"), current: 3, version: 1, updatedAt: 0, updatedBy: "x")]))

        try mirror.store.mirror(replacingWith: try t.store.load())
        #expect(try mirror.store.load() == (try t.store.load()))
        #expect(try mirror.store.latestSequence() == 2)

        try t.store.commit(
            StoreChange(
                documents: [document("a", "2", revision: 2)], revisions: [revision("home", 3, "h3", origin: .config)],
                heads: [DocumentHead(key: .screen("home"), current: 3, version: 2, updatedAt: 1, updatedBy: "y")]))
        let changes = try t.store.changes(after: try mirror.store.latestSequence())
        #expect(changes.documents.map(\.key) == ["a"])
        #expect(changes.revisioned.map(\.head.key.name) == ["home"])
        try mirror.store.mirror(changes)
        #expect(try mirror.store.load() == (try t.store.load()))
        #expect(try SQLiteStore(path: mirror.path).load() == (try t.store.load()))

        // Replacing it whole drops what the new state does not hold.
        try mirror.store.mirror(replacingWith: StoredState(documents: [document("c", "1")], sequence: 9))
        #expect(try mirror.store.load() == StoredState(documents: [document("c", "1")], sequence: 9))
    }

    @Test(arguments: StoreKind.allCases) func aBackupIsAnSQLiteFileHoldingTheWholeStore(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        var copy = revision("home", 3, "a", origin: .rollback)
        copy.copiedFrom = 1
        try t.store.commit(
            StoreChange(
                documents: [document("a", "1")], revisions: [revision("home", 1, "a", origin: .config), revision("home", 2, "b"), copy],
                heads: [DocumentHead(key: .screen("home"), current: 2, staged: 3, stagedBasisPoints: 10, version: 1, updatedAt: 0, updatedBy: "x")],
                audit: [audit("screens/home"), audit("rollouts/a")]))
        try t.store.commit(StoreChange(documents: [document("a", "2", revision: 2)], audit: [audit("rollouts/a")]))
        let path = t.directory.appendingPathComponent("backup.sqlite").path
        try t.store.backup(to: path)
        // Changes after the backup are not in it.
        try t.store.commit(StoreChange(documents: [document("late", "1")]))

        let restored = try SQLiteStore(path: path)
        var expected = try t.store.load()
        expected.documents.removeAll { $0.key == "late" }
        expected.sequence = 2
        #expect(try restored.load() == expected)
        #expect(try restored.audit(AuditQuery()) == (try t.store.audit(AuditQuery())))
        #expect(try restored.revisions(of: .screen("home")) == (try t.store.revisions(of: .screen("home"))))
        #expect(try restored.changes(after: 1).documents == [document("a", "2", revision: 2)])
        // The copy is a store of its own: it takes commits from where the original was.
        #expect(try restored.commit(StoreChange(audit: [audit("x")])) == 3)
        #expect(try restored.audit(AuditQuery()).last?.id == 4)
    }
}
