import Foundation
import Logging
import Prometheus
import Synchronization
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisLayout
import TrellisScreens
import TrellisTargeting
import TrellisTesting
import TrellisText
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
            fonts: loaded.fonts, answers: AnswerCache(capacity: 16)))
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

    /// Viewports of three kinds, each odd in its own way.
    static let awkwardViewports = [
        LayoutViewport(width: 390, height: 844, scale: 3, safeTop: 47, safeBottom: 34),
        LayoutViewport(width: 333.37, height: 700.5, scale: 2, fontScale: 1.35, direction: .rtl, platform: .android),
        LayoutViewport(width: 1, height: 1, scale: 1, fontScale: 0.5, mode: .web),
    ]

    /// Every shipped screen resolved for three users (parameters filled in with a quote in them).
    static func forEachShippedScreen(_ body: (String, ResolvedScreen, Snapshot) throws -> Void) throws {
        guard case .success(let snapshot) = ConfigLoader(directory: RepositoryConfig.url).load(previous: nil) else {
            Issue.record("the shipped Config/ does not load")
            return
        }
        for (id, entry) in snapshot.screens {
            for user in ["u1", "u2", "u3"] {
                let context = UserContext(userID: user, platform: "ios", appVersion: SemanticVersion("5.3"))
                let outcomes = snapshot.resolver.outcomes(of: entry.decisions, for: context, evaluator: snapshot.evaluator)
                var resolved = snapshot.resolver.resolve(
                    entry.screen, decisions: entry.decisions, outcomes: outcomes, clientSchemaVersion: entry.screen.schemaVersion)
                if !entry.parameterNames.isEmpty {
                    resolved = try resolved.substituting(Dictionary(uniqueKeysWithValues: entry.parameterNames.map { ($0, JSONValue.string("p\"1")) }))
                }
                try body("\(id), \(user)", resolved, snapshot)
            }
        }
    }

    /// A miss writes the layout answer straight from the laid-out nodes; the bytes are those of the
    /// `JSONValue` the pretty form is made from, for every shipped screen and awkward viewports.
    @Test func theDirectlyWrittenAnswerIsTheEncodedJSONValue() throws {
        try Self.forEachShippedScreen { name, resolved, snapshot in
            for viewport in Self.awkwardViewports {
                let frames = ScreenLayout(viewport: viewport, fonts: snapshot.fonts).layOut(resolved)
                let layout = ScreenLayout(viewport: viewport, fonts: snapshot.fonts, keepsLines: false)
                let plan = layout.plan(resolved, revision: 7)
                let answer = layout.answer(plan)
                #expect(answer == JSONWriter.encode(frames.jsonValue(revision: 7)), "\(name), \(viewport)")
                // Written into memory of the plan's bound, and kept in no more than an eighth over its size.
                #expect(answer.count <= plan.answerCapacity && answer.capacity - answer.count <= answer.count / 8 + 32, "\(name)")
            }
        }
    }

    /// A plan leaves the viewport's size out: laid out at any size, it gives what a plan made at
    /// that size gives, for every shipped screen and viewport kind, previews included. Each layout
    /// after the first reuses the plan's nodes as the last one left them, sizes back and forth.
    @Test func aPlanLaysOutEverySizeAsAPlanMadeAtThatSize() throws {
        let sizes: [(Float, Float)] = [(1, 1), (320, 568), (375.5, 667), (414, 896), (1024, 1366), (375.5, 667), (320, 568), (320, 812)]
        try Self.forEachShippedScreen { name, resolved, snapshot in
            for kind in Self.awkwardViewports {
                let plan = ScreenLayout(viewport: kind, fonts: snapshot.fonts).plan(resolved, revision: 1)
                for (width, height) in sizes {
                    var viewport = kind
                    viewport.width = width
                    viewport.height = height
                    let layout = ScreenLayout(viewport: viewport, fonts: snapshot.fonts)
                    let reused = layout.layOut(plan), fresh = layout.layOut(resolved)
                    #expect(JSONWriter.encode(reused.jsonValue(revision: 1)) == JSONWriter.encode(fresh.jsonValue(revision: 1)), "\(name), \(viewport)")
                    #expect(PreviewSVG.render(reused, fontFaces: "") == PreviewSVG.render(fresh, fontFaces: ""), "\(name), \(viewport)")
                    let compact = ScreenLayout(viewport: viewport, fonts: snapshot.fonts, keepsLines: false)
                    #expect(compact.answer(plan) == compact.answer(compact.plan(resolved, revision: 1)), "\(name), \(viewport)")
                }
            }
        }
    }

    /// Layouts of one plan on several threads at once: each takes the plan's nodes or, while
    /// another holds them, makes its own; every answer is the one a plan of its own gives.
    @Test func concurrentLayoutsOfOnePlanGiveFreshAnswers() throws {
        try Self.forEachShippedScreen { name, resolved, snapshot in
            guard name.hasPrefix("home") else { return }
            let kind = Self.awkwardViewports[0]
            let plan = ScreenLayout(viewport: kind, fonts: snapshot.fonts, keepsLines: false).plan(resolved, revision: 1)
            let widths = (0..<24).map { 320 + Float($0) * 3.25 }
            let expected = widths.map { width in
                var viewport = kind
                viewport.width = width
                let layout = ScreenLayout(viewport: viewport, fonts: snapshot.fonts, keepsLines: false)
                return layout.answer(layout.plan(resolved, revision: 1))
            }
            let mismatches = Mutex(0)
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for round in 0..<6 {
                    for index in widths.indices.shuffled() where (index + round + thread) % 2 == 0 {
                        var viewport = kind
                        viewport.width = widths[index]
                        let answer = ScreenLayout(viewport: viewport, fonts: snapshot.fonts, keepsLines: false).answer(plan)
                        if answer != expected[index] { mismatches.withLock { $0 += 1 } }
                    }
                }
            }
            #expect(mismatches.withLock { $0 } == 0, "\(name)")
        }
    }

    /// A plan keeps its nodes unless a style has a percentage that may resolve against a height
    /// (a relayout is proven to equal a fresh layout only without): the shipped home screen has none.
    @Test func aPlanKeepsItsNodesUnlessAPercentageMayResolveAgainstAHeight() throws {
        try Self.forEachShippedScreen { name, resolved, snapshot in
            let plan = ScreenLayout(viewport: Self.awkwardViewports[0], fonts: snapshot.fonts).plan(resolved, revision: 1)
            func anyHeightPercentage(_ planned: PlannedComponent) -> Bool {
                planned.style.resolvesPercentagesAgainstHeight || planned.children.contains(where: anyHeightPercentage)
            }
            #expect(plan.keepsNodes == !(plan.root.map(anyHeightPercentage) ?? false), "\(name)")
            if name.hasPrefix("home") { #expect(plan.keepsNodes, "\(name)") }
        }
        var style = Style()
        #expect(!style.resolvesPercentagesAgainstHeight)
        style.width = .percent(50)
        #expect(!style.resolvesPercentagesAgainstHeight)
        for change in [{ (s: inout Style) in s.minHeight = .percent(50) }, { $0.flexBasis = .percent(10) }, { $0.position.top = .percent(5) }] {
            var changed = Style()
            change(&changed)
            #expect(changed.resolvesPercentagesAgainstHeight)
        }
    }

    /// The shelf lends each tree to one taker and keeps as many trees as it has places: two event
    /// loops laying one plan out at once each get a tree back, where one place made every other
    /// layout build new nodes and lay them out from nothing.
    @Test func aNodeTreeShelfLendsEachTreeToOneTaker() {
        let shelf = NodeTreeShelf(places: 2)
        #expect(shelf.take() == nil)
        let trees = (0..<3).map { _ in NodeTree(screen: LayoutNode(), root: nil) }
        trees.forEach(shelf.put)
        let first = shelf.take(), second = shelf.take()
        #expect(first === trees[0] && second === trees[1], "the third tree found no place")
        #expect(shelf.take() == nil)
        shelf.put(trees[2])
        #expect(shelf.take() === trees[2])
        #expect(NodeTreeShelf(places: 0).places == 1, "a plan always has a place for its last tree")
    }

    /// A layout that runs while another holds the plan's tree, as on a second event loop, makes a
    /// tree of its own, and the plan keeps both: the next two layouts at once make no new nodes.
    @Test func aPlanKeepsATreeForEachLayoutThatRanAtOnce() throws {
        try Self.forEachShippedScreen { name, resolved, snapshot in
            guard name == "home" else { return }
            var viewport = Self.awkwardViewports[0]
            let plan = ScreenLayout(viewport: viewport, fonts: snapshot.fonts).plan(resolved, revision: 1, concurrentLayouts: 2)
            func answer(width: Float) {
                viewport.width = width
                _ = ScreenLayout(viewport: viewport, fonts: snapshot.fonts, keepsLines: false).answer(plan)
            }
            answer(width: 320)
            let held = try #require(plan.nodeTrees.take(), "the first layout keeps its tree")
            answer(width: 330)  // while `held` is out: a new tree
            plan.nodeTrees.put(held)
            let first = plan.nodeTrees.take(), second = plan.nodeTrees.take()
            #expect(first != nil && second != nil && first !== second)
            #expect(first === held || second === held)
        }
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
