import Foundation
import Testing
import TrellisRuntime
import TrellisTesting
@testable import TrellisServer

/// Only the revision served to everybody is public: a staged, an abandoned, an earlier (rolled
/// back from) revision is ops' to preview with a token that may read, on every endpoint that
/// takes `revision=N`.
@Suite(.serialized) struct UnreleasedRevisionTests {
    @Test func everyRevisionNotServedToEverybodyNeedsAReadToken() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("One")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try ControlPlaneLiveTests.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        let token = ControlPlaneLiveTests.token
        func write(_ method: String, _ path: String, _ body: String? = nil) throws {
            let answer = try client.exchange(method, path, token: token, body: body)
            #expect(answer.status < 300, "\(method) \(path): \(answer.text)")
        }
        try write("PUT", "/admin/screens/home", AdminFlowTests.screen("Two"))  // 2, served
        try write("PUT", "/admin/screens/home?stage=50", AdminFlowTests.screen("Three"))  // 3, staged
        // The preview endpoints take revision=N through the same gate (PreviewEndpointTests).
        let paths = ["/v1/screens/home?user=u1", "/v1/screens/home?user=u2&pretty=1"]
        for path in paths {
            // The staged revision: served to half the users, not to be picked by number.
            #expect(try client.exchange("GET", path + "&revision=3", token: nil).status == 401, "\(path)")
        }
        try write("POST", "/admin/screens/home/abandon")  // 3 abandoned
        try write("POST", "/admin/screens/home/rollback", #"{"revision": 1}"#)  // 4 = 1, served
        for path in paths {
            for earlier in [1, 2, 3] {
                #expect(try client.exchange("GET", path + "&revision=\(earlier)", token: nil).status == 401, "\(path) revision \(earlier)")
                let read = try client.exchange("GET", path + "&revision=\(earlier)", token: token)
                #expect(read.status == 200, "\(path) revision \(earlier): \(read.text.prefix(300))")
            }
            let served = try client.exchange("GET", path + "&revision=4", token: nil)
            #expect(served.status == 200, "\(path): the served one is public: \(served.text.prefix(300))")
        }
    }

    /// What cannot send a token (a preview frame) carries a grant for one revision instead: good
    /// for that revision of that screen only, until it ends, and only as signed.
    @Test func aPreviewGrantOpensOneRevisionAndNothingElse() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("One")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try ControlPlaneLiveTests.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        let token = ControlPlaneLiveTests.token
        #expect(try client.exchange("PUT", "/admin/screens/home", token: token, body: AdminFlowTests.screen("Two")).status == 200)
        #expect(try client.exchange("POST", "/admin/screens/home/revisions/1/preview-grant", token: nil).status == 401)
        let granted = try client.exchange("POST", "/admin/screens/home/revisions/1/preview-grant", token: token)
        let grant = try #require(granted.json["grant"]?.string)
        let encoded = grant.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? grant
        #expect(try client.exchange("GET", "/v1/screens/home?user=u1&revision=1&grant=\(encoded)", token: nil).status == 200)
        #expect(try client.exchange("GET", "/v1/screens/home?user=u1&revision=2&grant=\(encoded)", token: nil).status == 200)  // served: public anyway
        #expect(try client.exchange("POST", "/admin/screens/home/revisions/9/preview-grant", token: token).status == 200)
        let forged = String(grant.dropLast(2)) + (grant.hasSuffix("AA") ? "BB" : "AA")
        #expect(try client.exchange("GET", "/v1/screens/home?user=u1&revision=1&grant=\(forged)", token: nil).status == 401)
        #expect(try client.exchange("PUT", "/admin/screens/home", token: token, body: AdminFlowTests.screen("Three")).status == 200)
        #expect(try client.exchange("GET", "/v1/screens/home?user=u1&revision=2&grant=\(encoded)", token: nil).status == 401, "a grant for 1 is not one for 2")
    }
}
