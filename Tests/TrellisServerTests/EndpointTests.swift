import CoreMetrics
import Foundation
import Prometheus
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
@testable import TrellisServer

/// The HTTP surface, called in-process; `LiveServerTests` repeats the essentials over a socket.
@Suite struct EndpointTests {
    let config: TemporaryConfig
    let app: InProcessApp

    init() throws {
        config = try TemporaryConfig()
        app = try InProcessApp(config)
    }

    @Test func screenIsServedWithEnvelopeETagAndCachePolicy() throws {
        let response = app.request("/v1/screens/home")
        #expect(response.status == .ok)
        #expect(response.route == "/v1/screens/{id}")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "private, no-cache")
        #expect(response.headers["Vary"] == "Accept-Encoding, Accept, X-User-Id, X-Platform, X-App-Version, X-OS-Version, X-Schema-Version, X-Country, Accept-Language, X-Trellis-Context")
        let etag = try #require(response.headers["ETag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 15)
        let json = try #require(response.json)
        #expect(json["id"]?.stringValue == "home")
        #expect(json["revision"]?.numberValue == 1)
        #expect(json["schemaVersion"]?.numberValue == 1)
        #expect(json["root"]?["subviews"]?.arrayValue?.first?["values"]?["text"]?.stringValue == "Welcome")
        #expect(!response.text.contains("\n"))
    }

    @Test func prettyIsIndentedHasItsOwnETagAndTheSameContent() throws {
        let compact = app.request("/v1/screens/home")
        let pretty = app.request("/v1/screens/home?pretty=1")
        #expect(pretty.text.contains("\n  \"id\": \"home\""))
        #expect(pretty.headers["ETag"] != compact.headers["ETag"])
        #expect(pretty.json == compact.json)
        #expect(app.request("/v1/screens/home?pretty=0").body == compact.body)
    }

    /// `ETAG` in each template stands for the current entity tag.
    @Test(arguments: ["ETAG", "W/ETAG", "\"other\", ETAG", " ETAG ,\"x\"", "*"])
    func ifNoneMatchGives304(template: String) throws {
        let etag = try #require(app.request("/v1/screens/home").headers["ETag"])
        let header = template.replacingOccurrences(of: "ETAG", with: etag)
        let response = app.request("/v1/screens/home", headers: ["If-None-Match": header])
        #expect(response.status == .notModified)
        #expect(response.body.isEmpty)
        #expect(response.headers["ETag"] == etag)
        #expect(response.headers["Cache-Control"] == "private, no-cache")
    }

    @Test func staleETagGetsTheBody() {
        let response = app.request("/v1/screens/home", headers: ["If-None-Match": "\"0000000000000000\""])
        #expect(response.status == .ok)
        #expect(!response.body.isEmpty)
    }

    @Test func unknownScreenIsA404ProblemListingTheScreens() throws {
        let response = app.request("/v1/screens/nope")
        #expect(response.status == .notFound)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        let problem = try #require(response.json)
        #expect(problem["status"]?.numberValue == 404)
        #expect(problem["title"]?.stringValue == "Not Found")
        #expect(problem["detail"]?.stringValue == "no screen \"nope\"; screens: home")
        #expect(problem["instance"]?.stringValue == "/v1/screens/nope")
        #expect(problem["requestId"]?.stringValue == "test-1")
    }

    @Test(arguments: [
        ("/v1/screens/home?prety=1", "unknown query parameter \"prety\"; known: appVersion, country, direction, fontScale, format, grant, height, locale, osVersion, platform, pretty, revision, safeBottom, safeTop, scale, schemaVersion, user, web, width, attr.NAME, param.NAME"),
        ("/v1/screens/home?pretty=yes", "query parameter \"pretty\" must be 1, true, 0 or false, not \"yes\""),
        ("/v1/screens/home?pretty=1&pretty=0", "query parameter \"pretty\" is given more than once"),
        ("/healthz?x=1", "unknown query parameter \"x\"; this endpoint takes no query parameters"),
    ])
    func badQueryParametersAreRefusedWithTheReason(target: String, detail: String) throws {
        let response = app.request(target)
        #expect(response.status == .badRequest)
        #expect(try #require(response.json)["detail"]?.stringValue == detail)
    }

    @Test func otherMethodsGet405WithAllow() throws {
        let response = app.request("/v1/screens/home", method: .post)
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["Allow"] == "GET, HEAD")
        #expect(response.route == "/v1/screens/{id}")
    }

    @Test func headIsServedByGetRoutes() {
        #expect(app.request("/v1/screens/home", method: .head).status == .ok)
    }

    @Test(arguments: ["/v1/screens/home/", "/v1//screens/home", "/v2/screens/home", "/v1/screens/home/layoutx", "nohash"])
    func pathsWithoutARouteAre404(target: String) {
        let response = app.request(target)
        #expect(response.status == .notFound)
        #expect(response.route == nil)
    }

    @Test func screenListNamesIdsRevisionsAndETags() throws {
        let list = try #require(app.request("/v1/screens").json?["screens"]?.arrayValue)
        #expect(list.count == 1)
        #expect(list[0]["id"]?.stringValue == "home")
        #expect(list[0]["revision"]?.numberValue == 1)
        #expect(list[0]["schemaVersion"]?.numberValue == 1)
        #expect(list[0]["title"]?.stringValue == "Test home")
    }

    @Test func healthAndReadiness() throws {
        #expect(app.request("/healthz").text == #"{"status":"ok"}"#)
        let ready = app.request("/readyz")
        #expect(ready.status == .ok)
        #expect(ready.text == #"{"status":"ready","generation":1,"screens":1,"store":{"kind":"sqlite","reachable":true,"sequence":0,"stalenessSeconds":0,"startedFrom":"store"}}"#)
        app.state.beginDraining()
        let draining = app.request("/readyz")
        #expect(draining.status == .serviceUnavailable)
        #expect(draining.json?["status"]?.stringValue == "draining")
        #expect(app.request("/healthz").status == .ok)
    }

    @Test func metricsAreInPrometheusTextFormat() {
        CoreMetrics.Counter(label: "probe_total", dimensions: [("k", "v")], factory: app.state.metricsFactory).increment()
        let response = app.request("/metrics")
        #expect(response.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(response.text.contains("probe_total{k=\"v\"} 1"))
    }

    @Test func indexListsTheEndpoints() throws {
        let index = try #require(app.request("/").json)
        #expect(index["endpoints"]?["screen"]?.stringValue?.hasPrefix("GET /v1/screens/{id}?user=") == true)
    }

    @Test func aPublishedSnapshotIsSeenByTheNextRequest() throws {
        try config.write(screen: "home", TemporaryConfig.screen(id: "home", text: "Changed"))
        app.state.published.publish(try loadSnapshot(config, previous: app.state.published.snapshot))
        let json = try #require(app.request("/v1/screens/home").json)
        #expect(json["revision"]?.numberValue == 2)
        #expect(json["root"]?["subviews"]?.arrayValue?.first?["values"]?["text"]?.stringValue == "Changed")
    }

    @Test func maxAgeSettingChangesCacheControl() throws {
        var configuration = ServerConfiguration()
        configuration.screenMaxAgeSeconds = 30
        let app = try InProcessApp(config, configuration: configuration)
        #expect(app.request("/v1/screens/home").headers["Cache-Control"] == "private, max-age=30")
    }
}
