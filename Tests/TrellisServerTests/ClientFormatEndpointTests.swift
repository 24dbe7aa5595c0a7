import Foundation
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
@testable import TrellisServer

/// One authored screen, three wire formats, chosen by `?format=` or `Accept`, through the same
/// resolution and the same answer cache (keyed by format), with ETag, 304 and gzip as ever.
@Suite struct ClientFormatEndpointTests {
    let config: TemporaryConfig
    let app: InProcessApp

    init() throws {
        config = try TemporaryConfig.copyOfRepository()
        app = try InProcessApp(config)
    }

    @Test func drivenUIGetsTheRootComponentItselfWithTheEnvelopeInHeaders() throws {
        let response = app.request("/v1/screens/home?user=u1&format=drivenui")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == "application/vnd.drivenui+json")
        #expect(response.headers["X-Trellis-Screen"] == "home")
        #expect(response.headers["X-Trellis-Revision"] == "1")
        #expect(response.headers["X-Trellis-Assignments"]?.contains("home-hero") == true)
        let body = try #require(response.json)
        #expect(body["type"]?.stringValue != nil)
        #expect(body["root"] == nil && body["assignments"] == nil)
        #expect(!response.text.contains("\"#"))  // DrivenUI draws "#RRGGBB" black
        let etag = try #require(response.headers["ETag"])
        #expect(app.request("/v1/screens/home?user=u1&format=drivenui", headers: ["If-None-Match": etag]).status == .notModified)
        #expect(app.request("/v1/screens/home?user=u1").headers["ETag"] != etag)
        #expect(response.gzipBody == nil, "gzip only for a client that takes it")
        #expect(app.request("/v1/screens/home?user=u1&format=drivenui", headers: ["Accept-Encoding": "gzip"]).gzipBody != nil)
    }

    @Test func drivenUISizesComeFromTheLayoutWhenTheViewportIsGiven() throws {
        let without = app.request("/v1/screens/home?user=u1&format=drivenui").text
        let with = app.request("/v1/screens/home?user=u1&format=drivenui&width=390&height=844").text
        #expect(!without.contains("\"fill\"") && !with.contains("\"fill\""))
        // "fill" widths (the product cards' pictures, the live banner) become the computed points.
        #expect(with.components(separatedBy: "\"width\":").count > without.components(separatedBy: "\"width\":").count)
        #expect(app.request("/v1/screens/home?user=u1&format=matrioska&width=390&height=844").status == .badRequest)
        #expect(app.request("/v1/screens/home?user=u1&width=390&height=844").status == .badRequest)
    }

    @Test func acceptChoosesTheFormat() throws {
        let matrioska = app.request("/v1/screens/profile?user=u1", headers: ["Accept": "application/vnd.matrioska+json"])
        #expect(matrioska.headers["Content-Type"] == "application/vnd.matrioska+json")
        #expect(matrioska.json?["structure"]?["type"]?.stringValue != nil)
        let preferred = app.request(
            "/v1/screens/home?user=u1", headers: ["Accept": "application/vnd.matrioska+json;q=0.5, application/vnd.drivenui+json"])
        #expect(preferred.headers["Content-Type"] == "application/vnd.drivenui+json")
        #expect(app.request("/v1/screens/home", headers: ["Accept": "application/json"]).json?["root"] != nil)
        #expect(app.request("/v1/screens/home", headers: ["Accept": "*/*"]).json?["root"] != nil)
        let refused = app.request("/v1/screens/home", headers: ["Accept": "text/html, application/xml"])
        #expect(refused.status == .notAcceptable)
        #expect(refused.text.contains("application/vnd.drivenui+json"))
        // ?format= wins over Accept; an unknown one is a 400 naming the formats.
        #expect(app.request("/v1/screens/home?format=trellis", headers: ["Accept": "text/html"]).status == .ok)
        #expect(app.request("/v1/screens/home?format=xml").status == .badRequest)
        #expect(app.request("/v1/screens/home").headers["Vary"]?.contains("Accept,") == true)
    }

    @Test func aRootThatResolvesToNothingIsAnEmptyStack() throws {
        let config = try TemporaryConfig(screens: [
            "gate": #"{"id": "gate", "schemaVersion": 1, "root": {"type": "Rule", "rule": {"attribute": "tier", "op": "equals", "value": "gold"}, "child": {"type": "Text", "values": {"text": "Gold"}}}}"#
        ])
        let app = try InProcessApp(config)
        #expect(app.request("/v1/screens/gate?format=drivenui").json.map { JSONWriter.string($0) } == #"{"type":"VStack","subviews":[]}"#)
        #expect(app.request("/v1/screens/gate?format=drivenui&attr.tier=gold").json?["type"]?.stringValue == "Text")
        #expect(app.request("/v1/screens/gate?format=matrioska").json?["structure"]?["type"]?.stringValue == "stack")
    }
}
