#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import MetricsTestKit
import Synchronization
import Testing
import TrellisTesting
@testable import TrellisHTTP

/// `HTTPReply.deferred` over real sockets: the work runs on its queue, the connection's loop
/// writes the response, other connections are served meanwhile, order and connection fate are
/// those of an immediate response, and a reply with no connection left is dropped.
@Suite struct DeferredReplyTests {
    @Test func workRunsOnItsQueueAndTheLoopWritesTheResponse() throws {
        let log = try TemporaryLog()
        let server = try startServer {
            $0.eventLoopCount = 1
            $0.accessLog = true
            $0.accessLogFormat = .json
            $0.accessLogPath = log.path
        }
        let client = try TestClient(port: server.port)
        client.send("GET /deferred HTTP/1.1\r\nHost: a\r\n\r\n")
        let r = try #require(client.readResponse())
        stop(server)
        #expect(r.text == "deferred")
        #expect(r.header("X-Work-On-Queue") == "true")
        let loopThread = try #require(r.header("X-Responder-Thread"))
        #expect(r.header("X-Work-Thread") != loopThread)
        // The access-log line goes into the loop's buffer like an immediate response's.
        #expect(try log.jsonLines().map { $0["route"] as? String } == ["/deferred"])
    }

    /// Ordering, not wall time: the slow reply's work waits at a gate while eighteen requests on
    /// the same loop (kept-alive and new connections, immediate and deferred) are answered.
    @Test func otherConnectionsOfTheSameLoopAreServedWhileAReplyHoldsItsQueue() throws {
        let gated = GatedResponder(gates: ["slow"])
        let server = try startServer(responder: gated) { $0.eventLoopCount = 1 }
        defer { stop(server) }
        let kept = try TestClient(port: server.port)
        let slow = try TestClient(port: server.port)
        slow.send("GET /gate?name=slow HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(gated.started("slow"), "the loop handed the slow request's work to its queue")
        for i in 0..<6 {
            let fresh = try TestClient(port: server.port)
            for (client, path) in [(kept, "/hello"), (fresh, "/hello"), (fresh, "/deferred")] {
                client.send("GET \(path) HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(client.readResponse()?.status == 200, "request \(i) \(path)")
            }
        }
        #expect(!slow.hasBytesWaiting(), "the held reply was sent before its work finished")
        gated.open("slow")
        #expect(slow.readResponse()?.text == "gate slow")
    }

    @Test func pipelinedRequestsAfterADeferredOneAreAnsweredInOrder() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /deferred HTTP/1.1\r\nHost: a\r\n\r\nGET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.text == "deferred")
        #expect(client.readResponse()?.text == "hello")

        client.send(
            "GET /slow-deferred?ms=200 HTTP/1.1\r\nHost: a\r\n\r\nGET /hello HTTP/1.1\r\nHost: a\r\n\r\n"
                + "POST /deferred/echo HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
                + "GET /path?x=1 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.text == "slept 200 deferred")
        #expect(client.readResponse()?.text == "hello")
        #expect(client.readResponse()?.text == "abc")
        #expect(client.readResponse()?.text == "/path|x=1")
    }

    @Test func manyConnectionsEachGetTheirOwnDeferredAnswersInOrder() throws {
        let server = try startServer()
        defer { stop(server) }
        let clients = try (0..<16).map { _ in try TestClient(port: server.port) }
        for (c, client) in clients.enumerated() {
            client.send((0..<10).map { "GET /deferred/path?c=\(c)&i=\($0) HTTP/1.1\r\nHost: a\r\n\r\n" }.joined())
        }
        for (c, client) in clients.enumerated() {
            for i in 0..<10 { #expect(client.readResponse()?.text == "/path|c=\(c)|i=\(i)") }
        }
    }

    @Test func noTimeoutFiresWhileAReplyIsPending() throws {
        let server = try startServer {
            $0.headTimeout = .milliseconds(150)
            $0.bodyTimeout = .milliseconds(150)
            $0.keepAliveTimeout = .milliseconds(150)
        }
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /slow-deferred?ms=600 HTTP/1.1\r\nHost: a\r\n\r\nGET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        let slow = client.readResponse()
        #expect(slow?.status == 200)
        #expect(slow?.header("Connection") == nil)
        #expect(client.readResponse()?.text == "hello")
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")  // still kept alive
        #expect(client.readResponse()?.text == "hello")
    }

    @Test func headGzipAnd304WorkAsForImmediateResponses() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("HEAD /deferred/big HTTP/1.1\r\nHost: a\r\n\r\nGET /deferred/hello HTTP/1.1\r\nHost: a\r\n\r\n")
        let head = try #require(client.readResponse(headRequest: true))
        #expect(head.header("Content-Length") == String(TestResponder.big.count))
        #expect(head.body.isEmpty)
        #expect(client.readResponse()?.text == "hello")

        client.send("GET /deferred/big HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip\r\n\r\n")
        let onTheFly = try #require(client.readResponse())
        #expect(onTheFly.header("Content-Encoding") == "gzip")
        #expect(onTheFly.header("Vary") == "Accept-Encoding")
        #expect(try Gzip.decompress(onTheFly.body) == TestResponder.big)

        client.send("GET /deferred/pre HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip\r\n\r\n")
        let precomputed = try #require(client.readResponse())
        #expect(precomputed.header("Content-Encoding") == "gzip")
        #expect(precomputed.body == TestResponder.precomputedGzip)

        client.send("GET /deferred/etag HTTP/1.1\r\nHost: a\r\nIf-None-Match: W/\"v1\"\r\n\r\nGET /deferred/etag HTTP/1.1\r\nHost: a\r\n\r\n")
        let notModified = try #require(client.readResponse())
        #expect(notModified.status == 304)
        #expect(notModified.header("Content-Length") == nil)
        #expect(notModified.header("ETag") == "\"v1\"")
        #expect(client.readResponse()?.text == "tagged")
    }

    @Test func connectionFateIsDecidedAsForImmediateResponses() throws {
        let server = try startServer { $0.maxRequestsPerConnection = 2 }
        defer { stop(server) }
        let closing = try TestClient(port: server.port)
        closing.send("GET /deferred HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\nGET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(closing.readResponse()?.header("Connection") == "close")
        #expect(closing.isClosedByServer())  // the pipelined request after `close` is not answered

        let responderCloses = try TestClient(port: server.port)
        responderCloses.send("GET /deferred/close HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(responderCloses.readResponse()?.header("Connection") == "close")
        #expect(responderCloses.isClosedByServer())

        let http10 = try TestClient(port: server.port)
        http10.send("GET /deferred HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(http10.readResponse()?.header("Connection") == "keep-alive")
        http10.send("GET /deferred HTTP/1.0\r\n\r\n")
        #expect(http10.readResponse()?.header("Connection") == "close")
        #expect(http10.isClosedByServer())

        let counted = try TestClient(port: server.port)
        counted.send("GET /deferred HTTP/1.1\r\nHost: a\r\n\r\nGET /deferred HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(counted.readResponse()?.header("Connection") == nil)
        #expect(counted.readResponse()?.header("Connection") == "close")
        #expect(counted.isClosedByServer())
    }

    @Test func accessLogAndMetricsCountTheDeferredWork() throws {
        let log = try TemporaryLog()
        let metrics = TestMetrics()
        let server = try startServer(metrics: metrics) {
            $0.accessLog = true
            $0.accessLogFormat = .json
            $0.accessLogPath = log.path
        }
        let client = try TestClient(port: server.port)
        client.send("GET /slow-deferred?ms=200 HTTP/1.1\r\nHost: a\r\nX-Request-Id: slow-1\r\n\r\n")
        #expect(client.readResponse()?.header("X-Request-Id") == "slow-1")
        stop(server)
        let lines = try log.jsonLines()
        let line = try #require(lines.first)
        #expect(lines.count == 1)
        #expect(line["method"] as? String == "GET")
        #expect(line["status"] as? Int == 200)
        #expect(line["request_id"] as? String == "slow-1")
        #expect(line["route"] as? String == "/slow-deferred")
        #expect((line["duration_ms"] as? Double ?? 0) >= 200)
        #expect(try metrics.expectCounter("http_requests_total", [("route", "/slow-deferred"), ("status", "200")]).totalValue == 1)
        let durations = try metrics.expectTimer("http_request_duration_seconds", [("route", "/slow-deferred")]).values
        #expect(durations.count == 1)
        #expect((durations.first ?? 0) >= 200_000_000)
    }

    // MARK: Drain and late replies

    @Test func drainWaitsForAPendingReplyThenCloses() throws {
        let gated = GatedResponder(gates: ["a"])
        let server = try startServer(responder: gated) { $0.lingerTimeout = .milliseconds(200) }
        let client = try TestClient(port: server.port)
        client.send("GET /gate?name=a HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(gated.started("a"))
        server.shutdown()
        #expect(isQuiet(client, seconds: 0.3))  // neither answered nor closed while the work runs
        gated.open("a")
        let response = client.readResponse()
        #expect(response?.text == "gate a")
        #expect(response?.header("Connection") == "close")
        #expect(client.isClosedByServer())
        server.waitUntilStopped()
    }

    @Test func drainTimeoutForceClosesAPendingReplyAndTheLateReplyIsDropped() throws {
        let gated = GatedResponder(gates: ["a"])
        let metrics = TestMetrics()
        let store = CapturingLogHandler.Store()
        let logger = Logger(label: "debug") { _ in
            var handler = CapturingLogHandler(store: store)
            handler.logLevel = .debug
            return handler
        }
        let server = try startServer(responder: gated, metrics: metrics, logger: logger) {
            $0.drainTimeout = .milliseconds(300)
        }
        let client = try TestClient(port: server.port)
        client.send("GET /gate?name=a HTTP/1.1\r\nHost: a\r\nX-Request-Id: late-1\r\n\r\n")
        #expect(gated.started("a"))
        let start = Date()
        server.shutdown()
        #expect(client.isClosedByServer())
        #expect(client.readResponse() == nil)  // closed without a response
        #expect(Date().timeIntervalSince(start) >= 0.25)
        server.waitUntilStopped()
        gated.open("a")  // the work finishes after its loop has stopped: dropped, no crash
        #expect(eventually { (try? metrics.expectCounter("http_deferred_replies_dropped_total").totalValue) == 1 })
        // Counted, then logged, on the work's thread: the line may follow the counter by a moment.
        func dropped() -> [Logger.Metadata.Value?] {
            store.records.withLock { $0 }.filter { $0.message.hasPrefix("deferred reply dropped") }.map(\.metadata["request-id"])
        }
        #expect(eventually { dropped() == ["late-1"] })
        #expect(dropped() == ["late-1"])
    }

    @Test func aLateReplyNeverReachesANewConnectionOnTheSameDescriptor() throws {
        let gated = GatedResponder(gates: ["a", "b"])
        let metrics = TestMetrics()
        let server = try startServer(responder: gated, metrics: metrics) { $0.eventLoopCount = 1 }
        defer { stop(server) }
        var oldFD: Int32 = -1
        do {
            let gone = try TestClient(port: server.port)
            gone.send("GET /gate?name=a HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(gated.started("a"))
            oldFD = serverSideFD(of: gone, port: server.port)
            gone.resetOnClose()
        }
        // The loop notices the reset (epoll reports it even while the connection reads nothing)
        // and closes the descriptor; a new connection then usually gets the same number.
        _ = eventually { fcntl(oldFD, F_GETFD) == -1 }
        let newcomer = try connect(port: server.port, onServerFD: oldFD)
        newcomer.send("GET /gate?name=b HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(gated.started("b"))
        gated.open("a")
        #expect(eventually { (try? metrics.expectCounter("http_deferred_replies_dropped_total").totalValue) == 1 })
        #expect(isQuiet(newcomer, seconds: 0.1))
        gated.open("b")
        #expect(newcomer.readResponse()?.text == "gate b")
        newcomer.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(newcomer.readResponse()?.text == "hello")
    }
}

/// `/gate?name=x` replies are deferred (on a concurrent queue) until the test opens gate x;
/// everything else is `TestResponder`'s.
struct GatedResponder: HTTPResponder {
    final class Gate: Sendable {
        let started = DispatchSemaphore(value: 0)
        let opened = DispatchSemaphore(value: 0)
    }

    let gates: [String: Gate]
    private let queue = DispatchQueue(label: "test.gated", attributes: .concurrent)

    init(gates names: [String]) {
        gates = Dictionary(uniqueKeysWithValues: names.map { ($0, Gate()) })
    }

    func respond(to request: HTTPRequest, context: HTTPRequestContext) -> HTTPReply {
        guard request.path == "/gate", let name = request.query["name"], let gate = gates[name] else {
            return TestResponder().respond(to: request, context: context)
        }
        return .deferred(on: queue) {
            gate.started.signal()
            gate.opened.wait()
            return HTTPResponse(body: Array("gate \(name)".utf8), route: "/gate")
        }
    }

    /// Waits until the work behind gate `name` runs.
    func started(_ name: String) -> Bool { gates[name]!.started.wait(timeout: .now() + 5) == .success }
    func open(_ name: String) { gates[name]!.opened.signal() }
}

/// True when nothing arrives on `client` (no bytes, no close) for `seconds`.
func isQuiet(_ client: TestClient, seconds: Double) -> Bool {
    var p = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, Int32(seconds * 1000)) == 0
}

/// Polls `condition` for up to two seconds.
func eventually(_ condition: () -> Bool) -> Bool {
    for _ in 0..<200 {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// The server's descriptor for `client`'s connection (the server runs in this process): the
/// socket bound to `port` whose peer is the client's local address.
func serverSideFD(of client: TestClient, port: Int) -> Int32 {
    let clientPort = Socket.localPort(client.fd)
    for fd in Int32(3)..<Int32(4096) where fd != client.fd {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        } == 0
        if ok, Socket.port(of: storage) == clientPort, Socket.localPort(fd) == port { return fd }
    }
    return -1
}

/// A new, answered client whose connection the server holds on descriptor `fd` (free now), if
/// that can be arranged: the kernel hands out the lowest free number, so every free number below
/// `fd` but one (for the client's own socket) is filled with a placeholder while it connects.
/// Other tests in this process open descriptors too, so this is retried a few times.
func connect(port: Int, onServerFD fd: Int32) throws -> TestClient {
    var client: TestClient?
    for _ in 0..<5 {
        var placeholders: [Int32] = []
        defer { placeholders.forEach { close($0) } }
        // Fill every free number up to `fd`, then free `fd` and the highest placeholder below it.
        repeat {
            let placeholder = open("/dev/null", O_RDONLY)
            if placeholder < 0 { break }
            placeholders.append(placeholder)
        } while placeholders.last! < fd
        if placeholders.last == fd {
            close(placeholders.removeLast())
            if let below = placeholders.popLast() { close(below) }
        }
        let candidate = try TestClient(port: port)
        candidate.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        _ = candidate.readResponse()  // accepted and registered by now
        client = candidate
        if serverSideFD(of: candidate, port: port) == fd { break }
    }
    return client!
}

extension TestClient {
    /// Makes `close` send a reset (SO_LINGER 0), as a client that gives up abruptly does.
    func resetOnClose() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }
}
