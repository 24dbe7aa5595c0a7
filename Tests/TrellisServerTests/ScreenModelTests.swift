import Foundation
import Synchronization
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisScreens
import TrellisStore
@testable import TrellisAnswers
@testable import TrellisServer

/// A served screen keeps its document, its encoding plan and what checking needs, not its model
/// (CheckedScreen): what needs the model decodes it again, and must get the very screen the
/// check decoded.
@Suite struct ScreenModelTests {
    static let bundled = RepositoryConfig.url

    @Test func aModelDecodesAgainToTheScreenTheCheckDecoded() throws {
        let loader = ConfigLoader(directory: Self.bundled)
        let snapshot = try loader.load(previous: nil).get()
        #expect(snapshot.screens["home"]?.checked.templateNames.isEmpty == false, "a screen made of templates is among them")
        for (id, entry) in snapshot.screens {
            let checked = try loader.checkScreen(
                entry.checked.document.bytes, source: id, id: id, targeting: snapshot.targeting, templates: snapshot.templates
            ).get()
            let decoded = try snapshot.screen(of: entry)
            #expect(JSONWriter.encode(decoded.jsonValue(revision: 0)) == JSONWriter.encode(checked.jsonValue(revision: 0)), "\(id)")
            #expect(entry.checked.links == checked.links.map(\.target), "\(id): the links kept are the model's")
            #expect(entry.checked.parameters == checked.parameters, "\(id)")
            #expect(ScreenEntry.contentFingerprint(of: decoded) == entry.contentFingerprint)
        }
        // Decoded once per revision: the second time is the snapshot's cache.
        let decodedOnce = snapshot.caches.models.allEntries.count
        #expect(decodedOnce == snapshot.screens.count)
        for (_, entry) in snapshot.screens { _ = try snapshot.screen(of: entry) }
        #expect(snapshot.caches.models.allEntries.count == decodedOnce)
    }

    /// A served screen's document is held once: the runtime state's revision shares the checked
    /// screen's copy, whether the revision was just imported or read back from the store — as it
    /// is until the screen is prepared, and deflated after, for both.
    @Test func aServedDocumentIsHeldOnceAndDeflatedWhenPrepared() throws {
        let loader = ConfigLoader(directory: Self.bundled)
        let baseline = try loader.loadBaseline().get()
        let imported = try ControlPlane.plan(baseline, loader: loader, stored: StoredState(), now: 1_800_000_000).snapshot
        // Read back from a store, each revision holds its own copy until a snapshot shares it.
        let stored = Self.storedState(of: imported) { $0.current.document = $0.current.document }
        let restarted = try ControlPlane.plan(baseline, loader: loader, stored: stored, now: 1_800_000_000).snapshot
        for snapshot in [imported, restarted] {
            #expect(snapshot.screens.count == baseline.screens.count)
            for (id, entry) in snapshot.screens {
                let revision = try #require(snapshot.runtime.screens[id]?.current)
                #expect(revision.heldDocument.isShared(with: entry.checked.document), "\(id): the runtime shares the served copy")
                #expect(!stored.revisioned.contains { $0.current.heldDocument.isShared(with: entry.checked.document) })
                #expect(!entry.checked.isPrepared && !entry.checked.document.isDeflated, "\(id): the check leaves the deflating to after it")
            }
        }
        for snapshot in [imported, restarted] {
            for (id, entry) in snapshot.screens {
                entry.checked.prepare(resolver: snapshot.resolver)
                let revision = try #require(snapshot.runtime.screens[id]?.current)
                #expect(entry.checked.isPrepared && entry.checked.document.isDeflated, "\(id)")
                #expect(revision.heldDocument.isDeflated, "\(id): deflated for the runtime's revision too")
                #expect(revision.document == baseline.screens[id]?.bytes, "\(id)")
                // The screen format's words preset: a tenth to a sixth fewer bytes held than
                // deflated alone (the shipped screens; a smaller document gains more).
                let alone = DocumentBytes(revision.document)
                alone.deflate()
                #expect(
                    entry.checked.document.heldCount * 20 <= alone.heldCount * 19,
                    "\(id): \(entry.checked.document.heldCount) bytes held, \(alone.heldCount) deflated alone")
            }
        }
    }

    /// A start reads the store first: a file whose bytes are its current revision's holds that
    /// revision's document (one copy, compared once) and, when it uses no template, takes that
    /// revision's fingerprint instead of encoding its model for it.
    @Test func aStartTakesTheStoredFingerprintOfAFileWithTheSameBytes() throws {
        let loader = ConfigLoader(directory: Self.bundled)
        let baseline = try loader.loadBaseline().get()
        let imported = try ControlPlane.plan(baseline, loader: loader, stored: StoredState(), now: 1_800_000_000).snapshot
        // Marked, to tell a fingerprint taken from the store from one computed again.
        let stored = Self.storedState(of: imported) { screen in
            screen.current.fingerprint = "stored-" + screen.current.fingerprint
            if screen.head.key == .screen("profile") { screen.current.document += Array(" ".utf8) }
        }
        let restarted = try loader.loadBaseline(stored: stored).get()
        #expect(restarted.screens.values.contains { !$0.checked.templateNames.isEmpty }, "a screen made of templates is among them")
        #expect(restarted.screens.values.contains { $0.fingerprint.hasPrefix("stored-") }, "and one that takes the stored fingerprint")
        for (id, file) in restarted.screens {
            let computed = try #require(baseline.screens[id]).fingerprint
            let takesStored = file.checked.templateNames.isEmpty && id != "profile"
            #expect(file.fingerprint == (takesStored ? "stored-" + computed : computed), "\(id)")
            let revision = try #require(stored.revisioned.first { $0.head.key.name == id }?.current)
            #expect(file.checked.document.isShared(with: revision.heldDocument) == (id != "profile"), "\(id)")
        }
    }

    /// The rows a store would give back for the screens `snapshot`'s runtime state holds, each changed by `change`.
    static func storedState(of snapshot: Snapshot, _ change: (inout RevisionedDocument) -> Void) -> StoredState {
        StoredState(revisioned: snapshot.runtime.screens.values.map { screen in
            var row = screen
            change(&row)
            return row
        })
    }

    @Test func preparingMakesThePlanForTheScreensOwnVersionAndOlderClientsDecodeForTheirs() throws {
        // A server prepares the snapshot it starts with, and counts what is left to prepare.
        let app = try InProcessApp(directory: Self.bundled)
        app.state.preparation.wait()
        let snapshot = app.state.published.snapshot
        #expect(app.request("/metrics").text.contains("\ntrellis_screens_unprepared 0"))
        for (id, entry) in snapshot.screens {
            #expect(entry.checked.isPrepared, "\(id)")
            // The entry holds the plan of its own version itself: the one its checked screen keeps.
            let kept = entry.planOfItsVersion.load()
            let held = try #require(kept, "\(id): prepared, the entry holds its plan")
            #expect(held === entry.checked.plans.plan(for: entry.schemaVersion) { nil }, "\(id)")
            #expect(entry.encodingPlan(for: entry.schemaVersion, in: snapshot) === held, "\(id)")
            #expect(held.plan != nil, "\(id)")
        }
        #expect(snapshot.caches.models.allEntries.isEmpty, "preparing decodes the models outside the snapshot's cache")
        let home = try #require(snapshot.screens["home"])
        #expect(home.schemaVersion > 1)
        #expect(home.encodingPlan(for: 1, in: snapshot).plan != nil)
        #expect(snapshot.caches.models.allEntries.count == 1, "a version-1 client's plan needed home's model")
    }

    @Test func aMissBeforeItsScreenIsPreparedMakesThePlanItself() throws {
        let snapshot = try ConfigLoader(directory: Self.bundled).load(previous: nil).get()
        let home = try #require(snapshot.screens["home"])
        #expect(!home.checked.isPrepared)
        let before = home.planOfItsVersion.load()
        #expect(before == nil)
        let made = home.encodingPlan(for: home.schemaVersion, in: snapshot)
        #expect(made.plan != nil)
        #expect(home.checked.plans.isMade(for: home.schemaVersion))
        let after = home.planOfItsVersion.load()
        #expect(after === made, "kept in the entry by the miss that made it")
        #expect(!home.checked.isPrepared, "the document is left to the preparation")
    }

    @Test func everyAnswerKindIsServedFromScreensWithoutTheirModels() throws {
        let app = try InProcessApp(directory: Self.bundled)
        let user = "user=u1&platform=ios&appVersion=5.3&param.item=42&param.order=1001"
        for target in [
            "/v1/screens/home?\(user)", "/v1/screens/home?\(user)&pretty=1", "/v1/screens/home?\(user)&format=drivenui",
            "/v1/screens/product?\(user)&format=matrioska", "/v1/screens/home/layout?\(user)&width=390&height=844",
            "/preview/home?\(user)&width=390&height=844",
        ] {
            let response = app.request(target)
            #expect(response.status == .ok, "\(target): \(String(decoding: response.body, as: UTF8.self).prefix(300))")
        }
        #expect(app.state.published.snapshot.caches.models.allEntries.count == 2, "home and product decoded again, once each")
    }
}

/// Every kind of link a served screen keeps (a URL, a template, a parameter with and without a
/// default) comes back as the model has it.
@Test func linksOfEveryKindAreKeptAsTheModelHasThem() throws {
    let source = #"""
        {"id": "links", "schemaVersion": 3, "root": {"type": "VStack", "subviews": [
          {"type": "Button", "values": {"title": "a"}, "properties": {"action": {"type": "navigate", "url": "app://product/42"}}},
          {"type": "Button", "values": {"title": "b"}, "properties": {"action": {"type": "navigate", "url": {"$format": "app://product/{item}?ref={ref}"}}}},
          {"type": "Button", "values": {"title": "c"}, "properties": {"action": {"type": "navigate", "url": {"$param": "next"}}}},
          {"type": "Button", "values": {"title": "d"}, "properties": {"action": {"type": "navigate", "url": {"$param": "back", "default": "app://home/é"}}}}
        ]}}
        """#
    let loader = ConfigLoader(directory: RepositoryConfig.url)
    let checked = try loader.checkedScreen(Array(source.utf8), source: "links", id: "links", targeting: nil, templates: TemplateLibrary()).get()
    let model = try checked.decodeModel().get()
    #expect(checked.links == model.links.map(\.target))
    #expect(checked.links.count == 4)
    #expect(checked.links.last == .parameter("back", default: "app://home/é"))
}
