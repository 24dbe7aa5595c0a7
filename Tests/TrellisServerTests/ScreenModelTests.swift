import Foundation
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisScreens
@testable import TrellisServer

/// A served screen keeps its document and what serving needs, not its model, once its encoding
/// plan is made (CheckedScreen): what needs the model later decodes it again, and must get the
/// very screen the check decoded.
@Suite struct ScreenModelTests {
    static let bundled = RepositoryConfig.url

    @Test func aReleasedModelDecodesAgainToTheSameScreen() throws {
        let snapshot = try ConfigLoader(directory: Self.bundled).load(previous: nil).get()
        #expect(snapshot.screens["home"]?.checked.templateNames.isEmpty == false, "a screen made of templates is among them")
        for (id, entry) in snapshot.screens {
            let held = try #require(entry.checked.heldModel, "\(id): the check's model is held until its plan is made")
            entry.checked.releaseModel()
            #expect(entry.checked.heldModel == nil)
            let decoded = try snapshot.screen(of: entry)
            #expect(JSONWriter.encode(decoded.jsonValue(revision: 0)) == JSONWriter.encode(held.jsonValue(revision: 0)), "\(id)")
            #expect(ScreenEntry.contentFingerprint(of: decoded) == entry.contentFingerprint)
        }
        // Decoded once per revision: the second time is the snapshot's cache.
        let decodedOnce = snapshot.caches.models.allEntries.count
        #expect(decodedOnce == snapshot.screens.count)
        for (_, entry) in snapshot.screens { _ = try snapshot.screen(of: entry) }
        #expect(snapshot.caches.models.allEntries.count == decodedOnce)
    }

    @Test func warmingMakesEachPlanAndLetsTheModelGo() throws {
        let snapshot = try ConfigLoader(directory: Self.bundled).load(previous: nil).get()
        let warmer = PlanWarmer()
        warmer.warm(snapshot)
        warmer.waitUntilIdle()
        for (id, entry) in snapshot.screens {
            #expect(entry.checked.heldModel == nil, "\(id)")
            // Made by the warm-up: asking again makes nothing (the model would have to be decoded).
            #expect(entry.encodingPlan(for: entry.schemaVersion, in: snapshot) != nil, "\(id)")
        }
        #expect(snapshot.caches.models.allEntries.isEmpty, "no model was decoded again to make a plan")
    }

    @Test func everyAnswerKindIsServedFromScreensWithoutTheirModels() throws {
        let app = try InProcessApp(directory: Self.bundled)
        app.state.waitForEncodingPlans()
        for (_, entry) in app.state.published.snapshot.screens { #expect(entry.checked.heldModel == nil) }
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
