#if canImport(Glibc)
import Glibc
#endif
import MetricsTestKit
import Testing
import TrellisTesting
@testable import TrellisHTTP

/// With every slot of `maxConnections` taken, a newcomer takes the place of an idle connection —
/// silent past its grace, else kept alive between requests, oldest first — and is refused only
/// when every connection is in the middle of a request. Real sockets on 127.0.0.1.
@Suite struct ConnectionReclaimTests {
    static let get = "GET /hello HTTP/1.1\r\nHost: a\r\n\r\n"

    /// A connection that made one request and now waits for the next.
    static func keptAlive(_ server: HTTPServer) throws -> TestClient {
        let client = try TestClient(port: server.port)
        client.send(get)
        #expect(client.readResponse()?.status == 200)
        return client
    }

    /// A connection in the middle of a head.
    static func busy(_ server: HTTPServer) throws -> TestClient {
        let client = try TestClient(port: server.port)
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\n")
        return client
    }

    /// A newcomer's request and its answer (nil when it was refused, waiting at most a second);
    /// the connection is kept open, so it goes on holding its slot.
    static func newcomer(_ server: HTTPServer) throws -> (client: TestClient, response: WireResponse?) {
        let client = try TestClient(port: server.port, timeout: 1)
        client.send(get)
        return (client, client.readResponse())
    }

    /// Still open: nothing to read, not even an EOF.
    static func isOpen(_ client: TestClient) -> Bool { isQuiet(client, seconds: 0.05) }

    static func reclaimed(_ metrics: TestMetrics, _ state: String) -> Int64 {
        (try? metrics.expectCounter("http_connections_reclaimed_total", [("state", state)]).totalValue) ?? 0
    }

    /// Waits until the server counts `count` open connections (its own gauge, not a sleep).
    static func accepted(_ metrics: TestMetrics, _ count: Int) -> Bool {
        eventually { (try? metrics.expectMeter("http_open_connections").lastValue) == Double(count) }
    }

    /// An HTTP/2 connection with no stream open is idle as a kept-alive one is: it makes room for a
    /// newcomer; one with a stream open (a deferred reply being worked on) does not.
    @Test func idleHTTP2ConnectionsMakeRoomAndBusyOnesStay() throws {
        let metrics = TestMetrics()
        let server = try startServer(metrics: metrics) { $0.maxConnections = 2 }
        defer { stop(server) }
        var client = HTTP2TestClient()
        var preface = HTTP2Bounds.clientPreface
        HTTP2FrameWriter.appendSettings([], ack: false, to: &preface)
        let idle = try RawSocket(port: server.port)
        idle.send(preface)
        _ = idle.readFrame()  // the server's SETTINGS: it speaks HTTP/2 now
        let busy = try RawSocket(port: server.port)
        var request = preface
        HTTP2FrameWriter.appendFieldBlock(client.block("/slow-deferred?ms=1500"), stream: 1, endStream: true, maxFrameSize: 16384, to: &request)
        busy.send(request)
        _ = busy.readFrame()
        #expect(Self.accepted(metrics, 2))
        let newcomer = try Self.newcomer(server)
        #expect(newcomer.response?.status == 200)
        #expect(Self.reclaimed(metrics, "keepalive") == 1)
        #expect(try busy.readAnswers(streams: [1])[1] == Array("slept 1500 deferred".utf8))
    }

    /// Within their grace (a minute: no machine is that slow), silent connections are kept and
    /// kept-alive ones make room.
    @Test func withinTheirGraceSilentConnectionsStayAndKeptAliveOnesMakeRoom() throws {
        let metrics = TestMetrics()
        let server = try startServer(metrics: metrics) {
            $0.maxConnections = 16
            $0.silentConnectionGrace = .seconds(60)
        }
        defer { stop(server) }
        #expect(server.connectionLimit == 16)
        let idle = try (0..<8).map { _ in try Self.keptAlive(server) }
        let silent = try (0..<8).map { _ in try TestClient(port: server.port) }
        #expect(Self.accepted(metrics, 16))

        let newcomers = try (0..<3).map { _ in try Self.newcomer(server) }
        #expect(newcomers.allSatisfy { $0.response?.status == 200 })
        #expect(idle.count { !Self.isOpen($0) } == 3)
        #expect(silent.allSatisfy(Self.isOpen))
        #expect(Self.reclaimed(metrics, "keepalive") == 3)
        #expect(Self.reclaimed(metrics, "silent") == 0)
    }

    /// Past their grace (none), silent connections go first, before kept-alive ones.
    @Test func pastTheirGraceSilentConnectionsGoFirst() throws {
        let metrics = TestMetrics()
        let server = try startServer(metrics: metrics) {
            $0.maxConnections = 16
            $0.silentConnectionGrace = .zero
        }
        defer { stop(server) }
        let idle = try (0..<8).map { _ in try Self.keptAlive(server) }
        let silent = try (0..<8).map { _ in try TestClient(port: server.port) }
        #expect(Self.accepted(metrics, 16))

        let newcomers = try (0..<2).map { _ in try Self.newcomer(server) }
        #expect(newcomers.allSatisfy { $0.response?.status == 200 })
        #expect(silent.count { !Self.isOpen($0) } == 2)
        #expect(idle.allSatisfy(Self.isOpen))
        #expect(Self.reclaimed(metrics, "silent") == 2)
        #expect(Self.reclaimed(metrics, "keepalive") == 0)
        #expect(try metrics.expectMeter("http_open_connections").lastValue == 16)
    }

    @Test func busyConnectionsAreNeverReclaimedAndTheOldestIdleGoesFirst() throws {
        let metrics = TestMetrics()
        let server = try startServer(metrics: metrics) {
            $0.eventLoopCount = 1  // one loop: "oldest" is the whole server's
            $0.maxConnections = 16
            $0.silentConnectionGrace = .zero
        }
        defer { stop(server) }
        let older = try Self.keptAlive(server)
        let newer = try Self.keptAlive(server)
        let busy = try (0..<14).map { _ in try Self.busy(server) }
        #expect(Self.accepted(metrics, 16))
        usleep(100_000)  // every partial head read: the server has no gauge of heads begun

        let first = try TestClient(port: server.port, timeout: 1)
        first.send(Self.get)
        #expect(first.readResponse()?.status == 200, "answered within a second")
        #expect(older.readResponse() == nil, "closed silently, without a response")
        #expect(Self.isOpen(newer))
        #expect(busy.allSatisfy(Self.isOpen))

        // Every slot in the middle of a request: the newcomer is refused and nobody else disturbed.
        newer.send("GET /hello HTTP/1.1\r\n")
        first.send("GET /hello HTTP/1.1\r\nHost: a\r\n")
        usleep(100_000)
        #expect(try Self.newcomer(server).response == nil)
        #expect(try metrics.expectCounter("http_connections_refused_total").totalValue == 1)
        newer.send("Host: a\r\n\r\n")
        #expect(newer.readResponse()?.status == 200)
        for client in busy + [first] {
            client.send("\r\n")
            #expect(client.readResponse()?.status == 200)
        }
        #expect(Self.reclaimed(metrics, "keepalive") == 1)
        #expect(Self.reclaimed(metrics, "silent") == 0)
    }

    @Test func theOnlyIdleConnectionIsFoundOnWhicheverLoopHoldsIt() throws {
        let metrics = TestMetrics()
        let server = try startServer(metrics: metrics) {
            $0.eventLoopCount = 2
            $0.maxConnections = 8
        }
        defer { stop(server) }
        let busy = try (0..<7).map { _ in try Self.busy(server) }
        var idle = try Self.keptAlive(server)
        #expect(Self.accepted(metrics, 8))
        usleep(100_000)  // every partial head read: the server has no gauge of heads begun
        // Each newcomer takes the place of the one before it, wherever the two were accepted:
        // the loop that accepts it hands it on when the idle connection is on the other loop.
        for round in 0..<8 {
            let (client, response) = try Self.newcomer(server)
            #expect(response?.status == 200, "round \(round)")
            #expect(idle.readResponse() == nil)
            idle = client
        }
        #expect(Self.reclaimed(metrics, "keepalive") == 8)
        #expect(busy.allSatisfy(Self.isOpen))
    }
}
