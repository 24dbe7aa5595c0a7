import Foundation
import Testing
import TrellisRuntime
import TrellisTesting

/// `GET /v1/changes` on the real binary: an admin kill reaches connected streams (Trellis's and
/// OpenFeature's) within 100 ms, `Last-Event-ID` resumes with exactly the missed events, the
/// stream limit answers 503 and shows in /metrics, and a stop ends streams cleanly.
@Suite(.serialized) struct ChangeStreamTests {
    static func served(extra: String = "") throws -> ServedBinary {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let binary = try ServedBinary(config: config, extra: extra)
        try binary.start()
        return binary
    }

    static func connect(_ server: ServedBinary, _ target: String = "/v1/changes", headers: [String: String] = [:]) throws -> EventStreamClient {
        let client = try EventStreamClient(port: server.port, target: target, headers: headers)
        let prelude = client.next()
        #expect(client.status == 200)
        #expect(client.header("Content-Type") == "text/event-stream")
        #expect(prelude?.comment == "trellis change stream")
        #expect(prelude?.retry == "2000")
        return client
    }

    static func data(_ event: ServerSentEvent?) -> JSONTree {
        JSONTree((try? JSONSerialization.jsonObject(with: Data((event?.data ?? "null").utf8), options: [.fragmentsAllowed])) ?? NSNull())
    }

    /// Anyone may listen: a staged revision's share is said, so the apps in it refetch, but never
    /// its number, which is not public.
    @Test func aStagedRevisionIsAnnouncedByItsShareNotItsNumber() throws {
        let server = try Self.served()
        defer { server.stop() }
        let trellis = try Self.connect(server)
        let staged = try server.request("PUT", "/admin/screens/home?stage=25", body: AdminFlowTests.screen("Staged"))
        #expect(staged.status == 200, "\(staged.text)")
        let event = try #require(trellis.next(timeout: 2))
        #expect(event.event == "screens")
        let screen = Self.data(event)["screens"]?[0]
        #expect(screen?["staged"]?["percentage"]?.number == 25)
        #expect(screen?["staged"]?["revision"] == nil, "\(event.data ?? "")")
        #expect(screen?["revision"]?.number == 1)
    }

    @Test func aKillThroughTheAdminAPIReachesConnectedStreamsWithin100ms() throws {
        let server = try Self.served()
        defer { server.stop() }
        let trellis = try Self.connect(server)
        let openFeature = try Self.connect(server, "/v1/changes?format=ofrep")
        let sent = EventStreamClient.now()
        let kill = try server.request("PUT", "/admin/rollouts/banner", body: #"{"enabled": false}"#)
        let answered = EventStreamClient.now()
        #expect(kill.status == 200)
        let event = try #require(trellis.next(timeout: 2))
        let arrived = EventStreamClient.now()
        #expect(arrived - answered < 0.1, "the event came \(Int((arrived - sent) * 1000)) ms after the write was sent")
        #expect(event.event == "targeting")
        let revision = try #require(Self.data(event)["revision"]?.string)
        #expect(event.id == String(Int(Self.data(event)["sequence"]?.number ?? -1)))
        let refetch = try #require(openFeature.next(timeout: 2))
        #expect(EventStreamClient.now() - answered < 0.1)
        #expect(refetch.event == "message")
        #expect(refetch.id == event.id)
        #expect(Self.data(refetch)["type"]?.string == "refetchEvaluation")
        #expect(Self.data(refetch)["etag"]?.string == "\"\(revision)\"")
        // The revision is the one the flags now carry.
        let flags = try server.request("POST", "/ofrep/v1/evaluate/flags", token: nil, body: #"{"context": {"targetingKey": "u1"}}"#)
        #expect(flags.json["metadata"]?["targetingRevision"]?.string == revision)
        // A screen change is a `screens` event; OpenFeature's stream says nothing of it.
        let screen = try server.request("PUT", "/admin/screens/home", body: AdminFlowTests.screen("Changed"))
        #expect(screen.status == 200 || screen.status == 201, "\(screen.text)")
        let screens = try #require(trellis.next(timeout: 2))
        #expect(screens.event == "screens")
        #expect(Self.data(screens)["screens"]?[0]?["id"]?.string == "home")
        #expect(Self.data(screens)["screens"]?[0]?["revision"]?.number == 2)
        #expect(openFeature.next(timeout: 0.3) == nil)
    }

    @Test func resumingWithLastEventIDGetsExactlyTheMissedEvents() throws {
        let server = try Self.served()
        defer { server.stop() }
        var first: EventStreamClient? = try Self.connect(server)
        #expect(try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 20}"#).status == 200)
        let seen = try #require(first?.next(timeout: 2))
        first = nil
        // Missed while disconnected: two targeting changes and a reload of targeting.json, which
        // the store records as the next revision of the targeting history (a change of its own).
        #expect(try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 30}"#).status == 200)
        #expect(try server.request("PUT", "/admin/experiments/hero", body: #"{"status": "paused"}"#).status == 200)
        try server.config.write(targeting: AdminFlowTests.targeting.replacingOccurrences(of: #""rollouts": {"#, with: #""rollouts": {"extra": {"percentage": 5}, "#))
        #expect(try server.reload().contains("reloaded"))
        let resumed = try Self.connect(server, headers: ["Last-Event-ID": try #require(seen.id)])
        let missed = resumed.events(quietFor: 0.5)
        let base = try #require(Int(seen.id ?? ""))
        #expect(missed.map(\.id) == ["\(base + 1)", "\(base + 2)", "\(base + 3)"])
        #expect(missed.map(\.event) == ["targeting", "targeting", "targeting"])
        // Up to date: nothing; from an id this server never wrote: one reset.
        let upToDate = try Self.connect(server, headers: ["Last-Event-ID": "\(base + 3)"])
        #expect(upToDate.events(quietFor: 0.3).isEmpty)
        let stranger = try Self.connect(server, headers: ["Last-Event-ID": "not-an-id"])
        let reset = stranger.events(quietFor: 0.3)
        #expect(reset.map(\.event) == ["reset"])
        #expect(reset.first?.id == "\(base + 3)")
    }

    /// A new route table is a `routes` event with its revision; nothing about screens or targeting.
    @Test func aRouteTableChangeIsARoutesEvent() throws {
        let config = try TemporaryConfig(screens: ["home": RouteAdminTests.screen(linkingTo: "app://deals/autumn")])
        try config.write(routes: RouteAdminTests.table)
        let server = try ServedBinary(config: config)
        try server.start()
        defer { server.stop() }
        let stream = try Self.connect(server)
        let extended = RouteAdminTests.table.replacingOccurrences(
            of: #"{"pattern": "app://home", "screen": "home"},"#,
            with: #"{"pattern": "app://home", "screen": "home"}, {"pattern": "app://start", "redirects": [{"to": "app://home"}]},"#)
        #expect(try server.request("PUT", "/admin/routes", body: extended).status == 200)
        let events = stream.events(quietFor: 0.5)
        #expect(events.map(\.event) == ["routes"])
        #expect(Self.data(events.first)["revision"]?.number == 2)
    }

    @Test func theStreamLimitAnswers503AndShowsInMetrics() throws {
        let server = try Self.served(extra: #""changes": {"maxStreams": 1}"#)
        defer { server.stop() }
        let held = try Self.connect(server)
        let refused = try server.request("GET", "/v1/changes", token: nil)
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "5")
        let metrics = try server.request("GET", "/metrics", token: nil).text
        #expect(metrics.contains("trellis_change_streams_open 1"))
        #expect(metrics.contains("trellis_change_streams_refused_total 1"))
        #expect(try server.request("GET", "/v1/changes?format=xml", token: nil).status == 400)
        _ = held
    }

    @Test func stoppingEndsStreamsCleanly() throws {
        let server = try Self.served()
        let streams = try (0..<3).map { _ in try Self.connect(server) }
        server.stop()
        for stream in streams {
            #expect(stream.waitForEnd(timeout: 5))
            #expect(stream.sawLastChunk)
        }
    }
}
