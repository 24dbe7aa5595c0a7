#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TrellisTesting
@testable import TrellisHTTP

/// `HTTPReply.stream` over real sockets: events fanned out by the loops, resumed from the
/// channel's history, heartbeats, the stream limit, a slow reader dropped without holding up the
/// others, and a clean end on drain.
@Suite struct EventStreamTests {
    /// Opens a stream of the channel on `GET /stream`, resuming after the position in `Last-Event-ID`.
    struct StreamResponder: HTTPResponder {
        let channel: HTTPEventChannel

        func respond(to request: HTTPRequest, context: HTTPRequestContext) -> HTTPReply {
            let after = request.headers["Last-Event-ID"].flatMap { UInt64($0) }
            let head = HTTPResponse(headers: ["Content-Type": "text/event-stream"], body: Array(": hello\n\n".utf8))
            switch channel.open(head, rendition: request.query.items.isEmpty ? 0 : 1, resumingAfter: after, client: request.headers["X-Client"] ?? "one") {
            case .success(let reply): return reply
            case .failure(.full): return .response(HTTPResponse(status: .serviceUnavailable, body: Array("full".utf8)))
            case .failure(.clientAtLimit): return .response(HTTPResponse(status: .tooManyRequests, body: Array("client".utf8)))
            }
        }
    }

    static func channel(
        maxStreams: Int = 100, maxPendingBytes: Int = 1 << 20, history: Int = 8, heartbeat: Duration = .seconds(60)
    ) -> HTTPEventChannel {
        HTTPEventChannel(
            limits: .init(maxStreams: maxStreams, maxPendingBytes: maxPendingBytes, history: history, heartbeat: heartbeat),
            position: 0, resets: [Array("event: reset\ndata: r\n\n".utf8), Array("event: reset\ndata: other\n\n".utf8)])
    }

    static func event(_ n: UInt64, bytes: Int = 0) -> HTTPEventChannel.Event {
        let padding = String(repeating: "x", count: bytes)
        return HTTPEventChannel.Event(
            position: n, renditions: [Array("id: \(n)\ndata: \(n)\(padding)\n\n".utf8), n % 2 == 0 ? Array("data: even \(n)\n\n".utf8) : []],
            resets: [Array("id: \(n)\nevent: reset\ndata: r\n\n".utf8), Array("data: other reset\n\n".utf8)])
    }

    /// A client that saw the prelude: its stream has joined the loop.
    static func connected(_ server: HTTPServer, target: String = "/stream", headers: [String: String] = [:]) throws -> EventStreamClient {
        let client = try EventStreamClient(port: server.port, target: target, headers: headers)
        #expect(client.next()?.comment == "hello")
        return client
    }

    @Test func eventsReachEveryStreamOnEveryLoopInOrderAndRenditions() throws {
        let channel = Self.channel()
        let server = try startServer(responder: StreamResponder(channel: channel)) { $0.eventLoopCount = 2 }
        defer { stop(server) }
        let clients = try (0..<4).map { _ in try Self.connected(server) }
        let other = try Self.connected(server, target: "/stream?ofrep")
        #expect(clients[0].header("Transfer-Encoding") == "chunked")
        #expect(clients[0].header("Content-Length") == nil)
        #expect(channel.openStreams == 5)
        for n in 1...3 { channel.publish(Self.event(UInt64(n))) }
        for client in clients { #expect(client.events(quietFor: 0.3).map(\.data) == ["1", "2", "3"]) }
        #expect(other.events(quietFor: 0.3).map(\.data) == ["even 2"])
        channel.publish(Self.event(2))  // not after the latest: ignored
        #expect(clients[0].events(quietFor: 0.2).isEmpty)
    }

    @Test func resumingGetsExactlyTheMissedEventsOrOneReset() throws {
        let channel = Self.channel(history: 3)
        let server = try startServer(responder: StreamResponder(channel: channel)) { $0.eventLoopCount = 1 }
        defer { stop(server) }
        for n in 1...5 { channel.publish(Self.event(UInt64(n))) }
        // Held: 3, 4, 5 (so resuming after 2 misses nothing that is gone).
        let resumed = try Self.connected(server, headers: ["Last-Event-ID": "2"])
        #expect(resumed.events(quietFor: 0.3).map(\.data) == ["3", "4", "5"])
        let upToDate = try Self.connected(server, headers: ["Last-Event-ID": "5"])
        #expect(upToDate.events(quietFor: 0.2).isEmpty)
        let tooOld = try Self.connected(server, headers: ["Last-Event-ID": "1"])
        #expect(tooOld.events(quietFor: 0.3).map(\.event) == ["reset"])
        let unknown = try Self.connected(server, headers: ["Last-Event-ID": "99"])
        #expect(unknown.events(quietFor: 0.3).map(\.event) == ["reset"])
        // The stream goes on from where it was put.
        channel.publish(Self.event(6))
        #expect(resumed.events(quietFor: 0.3).map(\.data) == ["6"])
        #expect(tooOld.events(quietFor: 0.3).map(\.data) == ["6"])
    }

    @Test func heartbeatsComeOnTheLoopsTimer() throws {
        let channel = Self.channel(heartbeat: .milliseconds(200))
        let server = try startServer(responder: StreamResponder(channel: channel)) { $0.eventLoopCount = 1 }
        defer { stop(server) }
        let client = try Self.connected(server)
        let started = EventStreamClient.now()
        let beat = client.next(timeout: 2)
        #expect(beat?.comment == "" && beat?.event == nil && beat?.data == nil)
        #expect(EventStreamClient.now() - started < 1)
    }

    @Test func theLimitRefusesOneStreamMoreAndAClosedStreamFreesItsPlace() throws {
        let channel = Self.channel(maxStreams: 2)
        let server = try startServer(responder: StreamResponder(channel: channel)) { $0.eventLoopCount = 2 }
        defer { stop(server) }
        var first: EventStreamClient? = try Self.connected(server)
        _ = first
        let second = try Self.connected(server)
        let third = try EventStreamClient(port: server.port, target: "/stream")
        #expect(third.readHead())
        #expect(third.status == 503)
        #expect(channel.openStreams == 2)
        first = nil  // the client closes
        let deadline = EventStreamClient.now() + 2
        while channel.openStreams > 1, EventStreamClient.now() < deadline { usleep(5_000) }
        #expect(channel.openStreams == 1)
        _ = try Self.connected(server)
        _ = second
    }

    /// A client that never reads fills its socket, then its bounded buffer: it is dropped with a
    /// reset, while a reader on the same loop gets every event as it is published.
    @Test func aSlowReaderIsDroppedAndHoldsUpNobody() throws {
        let channel = Self.channel(maxPendingBytes: 64 * 1024, history: 0)
        let server = try startServer(responder: StreamResponder(channel: channel)) { $0.eventLoopCount = 1 }
        defer { stop(server) }
        let slow = try EventStreamClient(port: server.port, target: "/stream", receiveBufferBytes: 4096)
        #expect(slow.readHead())
        let fast = try Self.connected(server)
        var latest = 0.0
        for n in 1...400 {
            let sent = EventStreamClient.now()
            channel.publish(Self.event(UInt64(n), bytes: 16 * 1024))
            let got = try #require(fast.next(timeout: 2))
            #expect(got.id == String(n))
            latest = max(latest, EventStreamClient.now() - sent)
        }
        #expect(latest < 0.5)
        #expect(channel.droppedStreams == 1)
        #expect(channel.openStreams == 1)
        // What the slow client finally reads: events, then the reset, then the clean end.
        var last: ServerSentEvent?
        while let event = slow.next(timeout: 2) { last = event }
        #expect(last?.event == "reset")
        #expect(slow.sawLastChunk)
    }

    @Test func drainEndsStreamsCleanly() throws {
        let channel = Self.channel()
        let server = try startServer(responder: StreamResponder(channel: channel)) { $0.eventLoopCount = 2 }
        let clients = try (0..<3).map { _ in try Self.connected(server) }
        server.shutdown()
        for client in clients {
            #expect(client.waitForEnd(timeout: 5))
            #expect(client.sawLastChunk)
        }
        server.waitUntilStopped()
        #expect(channel.openStreams == 0)
    }

    @Test func aHeadRequestGetsTheHeadAlone() throws {
        let channel = Self.channel()
        let server = try startServer(responder: StreamResponder(channel: channel)) { $0.eventLoopCount = 1 }
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("HEAD /stream HTTP/1.1\r\nHost: a\r\n\r\n")
        let response = try #require(client.readResponse(headRequest: true))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/event-stream")
        #expect(channel.openStreams == 0)
    }
}
