import Foundation
import Logging
import Prometheus
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTesting
import TrellisText
@testable import TrellisAnswers
@testable import TrellisRendering
@testable import TrellisServer

/// `GET /v1/screens/{id}/layout`: parameters, errors, and the answer cache.
@Suite struct LayoutEndpointTests {
    let config: TemporaryConfig

    init() throws {
        config = try TemporaryConfig.withFonts(roots: [
            "feed": #"{"type": "VStack", "id": "root", "properties": {"spacing": 8, "padding": 16}, "subviews": ["#
                + #"{"type": "Experiment", "experiment": "hero", "variants": {"small": {"type": "Text", "id": "hi", "values": {"text": "hi"}}, "#
                + #""big": {"type": "Text", "id": "hello", "properties": {"font": "largeTitle"}, "values": {"text": "Hello there, this is the big variant"}}}},"#
                + #"{"type": "Text", "values": {"text": "\#(String(repeating: "lorem ipsum ", count: 30))"}}]}"#
        ])
        try config.write(targeting: #"{"experiments": {"hero": {"variants": {"small": 50, "big": 50}, "defaultVariant": "small"}}}"#)
    }

    static let viewport = "width=390&height=844&scale=3&safeTop=47&safeBottom=34"

    @Test(arguments: [
        ("height=844", "width"),
        ("width=0&height=844", "width"),
        ("width=-5&height=844", "width"),
        ("width=20000&height=844", "width"),
        ("width=wide&height=844", "width"),
        ("width=390", "height"),
        ("width=390&height=nan", "height"),
        ("width=390&height=844&scale=5", "scale"),
        ("width=390&height=844&scale=0.5", "scale"),
        ("width=390&height=844&fontScale=0.2", "fontScale"),
        ("width=390&height=844&fontScale=9", "fontScale"),
        ("width=390&height=844&safeTop=-1", "safeTop"),
        ("width=390&height=844&safeBottom=-3", "safeBottom"),
        ("width=390&height=844&safeTop=500&safeBottom=400", "safeTop"),
        ("width=390&height=844&direction=up", "direction"),
        ("width=390&height=844&web=maybe", "web"),
        ("width=390&height=844&appVersion=five", "appVersion"),
    ])
    func aBadParameterIsA400NamingIt(query: String, parameter: String) throws {
        let app = try InProcessApp(config)
        for path in ["/v1/screens/feed/layout", "/preview/feed", "/preview/feed/preview.svg"] {
            let response = app.request("\(path)?\(query)")
            #expect(response.status == .badRequest, "\(path)?\(query)")
            #expect(response.headers["Content-Type"] == "application/problem+json")
            let errors = try #require(response.json?["errors"]?.arrayValue, "\(response.text)")
            #expect(errors.first?["parameter"]?.stringValue == parameter)
            #expect(errors.first?["message"]?.stringValue?.isEmpty == false)
            #expect(response.json?["detail"]?.stringValue?.contains(parameter) == true)
        }
    }

    @Test func unknownParametersAndScreensAreRefused() throws {
        let app = try InProcessApp(config)
        let typo = app.request("/v1/screens/feed/layout?widht=390&height=844")
        #expect(typo.status == .badRequest)
        #expect(typo.json?["detail"]?.stringValue?.contains("\"widht\"") == true)
        #expect(app.request("/v1/screens/nope/layout?\(Self.viewport)").status == .notFound)
        #expect(app.request("/preview/feed?\(Self.viewport)&pretty=1").status == .badRequest)
    }

    @Test func theSameKeyGivesTheSameBytesAndRevalidates() throws {
        let app = try InProcessApp(config)
        let first = app.request("/v1/screens/feed/layout?user=u1&\(Self.viewport)")
        #expect(first.status == .ok)
        #expect(first.headers["Content-Type"] == "application/json")
        #expect(first.gzipBody == nil, "no gzip form for a client that did not ask for one")
        let gzipped = app.request("/v1/screens/feed/layout?user=u1&\(Self.viewport)", headers: ["Accept-Encoding": "gzip"])
        #expect(try Gzip.decompress(#require(gzipped.gzipBody)) == first.body, "made when a client takes gzip")
        #expect(gzipped.headers["ETag"] == first.headers["ETag"])
        let again = app.request("/v1/screens/feed/layout?user=u1&\(Self.viewport)")
        #expect(again.body == first.body)
        #expect(app.state.published.snapshot.answers.count == 1)
        let etag = try #require(first.headers["ETag"])
        #expect(app.request("/v1/screens/feed/layout?user=u1&\(Self.viewport)", headers: ["If-None-Match": etag]).status == .notModified)
        // Another viewport, platform, mode or format is another answer.
        let variants = [
            "/v1/screens/feed/layout?user=u1&width=391&height=844", "/v1/screens/feed/layout?user=u1&\(Self.viewport)&fontScale=2",
            "/v1/screens/feed/layout?user=u1&\(Self.viewport)&platform=android", "/v1/screens/feed/layout?user=u1&\(Self.viewport)&web=1",
            "/v1/screens/feed/layout?user=u1&\(Self.viewport)&direction=rtl", "/v1/screens/feed/layout?user=u1&\(Self.viewport)&pretty=1",
            "/preview/feed?user=u1&\(Self.viewport)", "/preview/feed/preview.svg?user=u1&\(Self.viewport)", "/v1/screens/feed?user=u1",
        ]
        var etags: Set<String> = [etag]
        for target in variants {
            let response = app.request(target)
            #expect(response.status == .ok, "\(target)")
            etags.insert(response.headers["ETag"] ?? "")
        }
        #expect(etags.count == variants.count + 1)
        #expect(app.state.published.snapshot.answers.count == variants.count + 1)
    }

    @Test func aSweepOfWidthsThroughTheEndpointKeepsTheRepeatedViewportAndTheScreenAnswer() throws {
        let app = try InProcessApp(config)
        let loaded = app.state.published.snapshot
        app.state.published.publish(Snapshot(
            screens: loaded.screens, targeting: loaded.targeting, resolver: loaded.resolver, generation: loaded.generation + 1,
            fonts: loaded.fonts, caches: SnapshotCaches(answers: AnswerCache(capacity: 16))))
        let popular = "/v1/screens/feed/layout?user=u1&width=390&height=844"
        let bytes = app.request(popular).body
        #expect(app.request("/v1/screens/feed?user=u1").status == .ok)
        for n in 0..<40 {
            #expect(app.request("/v1/screens/feed/layout?user=u1&width=\(300 + n)&height=700").status == .ok)
            if n % 4 == 0 { #expect(app.request(popular).body == bytes) }
        }
        let keys = app.state.published.snapshot.answers.keys
        #expect(keys.count == 1 + 8, "the screen answer and half the cache of viewports")
        #expect(keys.contains { $0.viewport == nil })
        #expect(keys.contains { $0.viewport?.width == 390 })
        #expect(keys.contains { $0.viewport?.width == 339 }, "the newest sweep width replaced an older one")
    }

    @Test func withoutFontsEveryLayoutIs503AndSaysWhereThePacksGo() throws {
        let app = try InProcessApp(try TemporaryConfig())
        #expect(app.state.published.snapshot.fonts.isEmpty)
        #expect(app.request("/v1/screens/home?user=u1").status == .ok, "screens need no fonts")
        for target in ["/v1/screens/home/layout?\(Self.viewport)", "/preview/home?\(Self.viewport)"] {
            let response = app.request(target)
            #expect(response.status == .serviceUnavailable, "\(target)")
            #expect(response.text.contains("put the font metrics packs (*.trfm) in the configuration's fonts/ directory"))
        }
        #expect(!(try InProcessApp(config).state.published.snapshot.fonts.isEmpty))
    }

    /// Issue 10's test as a client sees it: over a real socket, after 10,000 distinct viewports
    /// through the shipped cache, a viewport asked twice is a hit the second time, and a screen
    /// answer cached before the sweep is still a hit — counted by `/metrics`, which reports the
    /// application's own registry.
    @Test func afterTenThousandViewportsARepeatedOneIsAHitAgainOnMetrics() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-data-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let app = try Application(
            configDirectory: config.url, configuration: .live(dataDirectory: data), logger: Logger(label: "test"),
            metrics: PrometheusCollectorRegistry())
        try app.start()
        defer {
            app.shutdown()
            app.waitUntilStopped()
        }
        func get(_ target: String) throws -> WireResponse {
            let client = try TestClient(port: app.port)
            client.send("GET \(target) HTTP/1.1\r\nHost: t\r\n\r\n")
            return try #require(client.readResponse(), "\(target)")
        }
        func counted() throws -> (hits: Int, misses: Int) {
            let text = try get("/metrics").text
            func value(_ name: String) -> Int {
                let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
                return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
            }
            return (value("trellis_answer_cache_hits_total"), value("trellis_answer_cache_misses_total"))
        }

        #expect(try get("/v1/screens/feed?user=u1").status == 200)
        let sweep = 10_000
        // Pipelined in batches of 100 on a connection each (a connection serves 1,000 at most):
        // one write per batch keeps a debug build quick.
        for batch in stride(from: 0, to: sweep, by: 100) {
            let client = try TestClient(port: app.port, timeout: 30)
            client.send((batch..<batch + 100).map {
                "GET /v1/screens/feed/layout?user=u1&width=\(300 + Double($0) / 100)&height=700 HTTP/1.1\r\nHost: t\r\n\r\n"
            }.joined())
            for n in batch..<batch + 100 { #expect(client.readResponse()?.status == 200, "width \(300 + Double(n) / 100)") }
        }
        let afterSweep = try counted()
        #expect(afterSweep.misses >= 1 + sweep)

        let fresh = "/v1/screens/feed/layout?user=u1&width=391&height=844"
        let first = try get(fresh)
        let second = try get(fresh)
        #expect(first.status == 200 && second.status == 200)
        #expect(second.body == first.body)
        let afterFresh = try counted()
        #expect(afterFresh.misses == afterSweep.misses + 1, "the first request of a new viewport is a miss")
        #expect(afterFresh.hits == afterSweep.hits + 1, "its second is a hit: the sweep left room for it")

        #expect(try get("/v1/screens/feed?user=u1").status == 200)
        let afterScreen = try counted()
        #expect(afterScreen.hits == afterFresh.hits + 1, "the screen answer outlived the sweep")
        #expect(afterScreen.misses == afterFresh.misses)
    }

    /// One user sweeping widths: one resolved screen, one plan, an answer per width; another
    /// font scale is another plan.
    @Test func aSweepOfSizesPlansEachOutcomeOnce() throws {
        let app = try InProcessApp(config)
        for n in 0..<30 {
            #expect(app.request("/v1/screens/feed/layout?user=u1&width=\(320 + n).5&height=844").status == .ok)
        }
        let snapshot = app.state.published.snapshot
        #expect(snapshot.layoutPlans.count == 1)
        #expect(snapshot.resolvedScreens.count == 1)
        #expect(snapshot.answers.count == 30)
        #expect(app.request("/v1/screens/feed/layout?user=u1&width=320.5&height=844&fontScale=1.5").status == .ok)
        #expect(snapshot.layoutPlans.count == 2)
    }

    @Test func usersWithTheSameOutcomeShareOneLayout() throws {
        let app = try InProcessApp(config)
        var variants: Set<String> = []
        for n in 0..<40 {
            let response = app.request("/v1/screens/feed/layout?user=user-\(n)&\(Self.viewport)")
            variants.insert(response.json?["assignments"]?["experiments"]?["hero"]?.stringValue ?? "?")
        }
        #expect(variants == ["small", "big"])
        #expect(app.state.published.snapshot.answers.count == 2)
    }

    @Test func theLayoutAnswerIsTheResolvedScreenWithFrames() throws {
        let app = try InProcessApp(config)
        let screen = try #require(app.request("/v1/screens/feed?user=u1").json)
        let answer = try LayoutAnswer(app.request("/v1/screens/feed/layout?user=u1&\(Self.viewport)"))
        #expect(answer.json["assignments"]?["experiments"]?["hero"]?.stringValue == screen["assignments"]?["experiments"]?["hero"]?.stringValue)
        #expect(answer.json["viewport"]?["safeTop"]?.numberValue == 47)
        #expect(answer.frame("root") == ReadFrame(0, 47, 390, 844 - 47 - 34))
        let body = try #require(answer.components["$.root.subviews[1]"])
        #expect(body.frame.x >= 16 && body.frame.x + body.frame.width <= 390 - 16 && body.frame.width > 300)
        #expect(body.component["values"]?["text"]?.stringValue?.hasPrefix("lorem") == true)
    }

    @Test func withoutFontsLayoutsAreUnavailable() throws {
        let app = try InProcessApp(try TemporaryConfig())
        let response = app.request("/v1/screens/home/layout?\(Self.viewport)")
        #expect(response.status == .serviceUnavailable)
        #expect(response.json?["detail"]?.stringValue?.contains("fonts/") == true)
    }
}
