#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Testing
import TrellisTesting
@testable import TrellisHTTP

/// Keep-alive, connection fate and the server's own answers, over real sockets.
@Suite struct ServerBehaviourTests {
    @Test func http11KeepsAliveAndHonoursConnectionClose() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        for _ in 0..<3 {
            client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
            let r = client.readResponse()
            #expect(r?.status == 200)
            #expect(r?.header("Connection") == nil)
            #expect(r?.header("Date") != nil)
        }
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\nGET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.header("Connection") == "close")
        #expect(client.isClosedByServer())  // the pipelined request after `close` is not answered
    }

    @Test func http10ClosesUnlessAskedToKeepAlive() throws {
        let server = try startServer()
        defer { stop(server) }
        let plain = try TestClient(port: server.port)
        plain.send("GET /hello HTTP/1.0\r\n\r\n")
        #expect(plain.readResponse()?.header("Connection") == "close")
        #expect(plain.isClosedByServer())
        let kept = try TestClient(port: server.port)
        kept.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(kept.readResponse()?.header("Connection") == "keep-alive")
        kept.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(kept.readResponse()?.status == 200)
    }

    @Test func responderConnectionCloseClosesTheConnection() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /close HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.header("Connection") == "close")
        #expect(client.isClosedByServer())
    }

    @Test func idleKeepAliveConnectionIsClosedSilently() throws {
        let server = try startServer { $0.keepAliveTimeout = .milliseconds(200) }
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.status == 200)
        let start = Date()
        #expect(client.isClosedByServer())
        #expect(client.readResponse() == nil)  // no bytes: closed silently
        #expect(Date().timeIntervalSince(start) < 2)
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1\nHost: a\n\n", 400),
        ("GET /\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        ("\u{16}\u{03}\u{01}\u{02}\u{00}\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: a\r\n\r\n", 414),
        ("GET / HTTP/1.1\r\nHost: a\r\n\(String(repeating: "X-A: b\r\n", count: 101))\r\n", 431),
    ])
    func malformedRequestsGetAStatusLineAndAClose(request: String, status: Int) throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send(request)
        let response = client.readResponse()
        #expect(response?.status == status)
        #expect(response?.header("Connection") == "close")
        #expect(client.isClosedByServer())
    }

    @Test func responseFieldsAreSanitised() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /bad-headers HTTP/1.1\r\nHost: a\r\n\r\nGET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        let r = client.readResponse()
        #expect(r?.header("Injected") == nil)
        #expect(r?.header("X-Evil") == nil)
        #expect(r?.header("Content-Length") == "1")
        #expect(r?.header("X-Good") == "ok")
        #expect(client.readResponse()?.text == "hello")
    }

    @Test func requestIDIsEchoedOrGenerated() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /id HTTP/1.1\r\nHost: a\r\nX-Request-Id: abc-123\r\n\r\n")
        let echoed = client.readResponse()
        #expect(echoed?.text == "abc-123")
        #expect(echoed?.header("X-Request-Id") == "abc-123")
        client.send("GET /id HTTP/1.1\r\nHost: a\r\nX-Request-Id: bad id!\r\n\r\nGET /id HTTP/1.1\r\nHost: a\r\n\r\n")
        let a = try #require(client.readResponse()), b = try #require(client.readResponse())
        #expect(a.text != "bad id!" && !a.text.isEmpty && a.text != b.text)
        #expect(a.header("X-Request-Id") == a.text)
    }

    @Test func noContentHasNoBodyAndNoLength() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /nocontent HTTP/1.1\r\nHost: a\r\n\r\nGET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        let r = client.readResponse()
        #expect(r?.status == 204)
        #expect(r?.header("Content-Length") == nil)
        #expect(client.readResponse()?.text == "hello")
    }

    @Test func maxRequestsPerConnection() throws {
        let server = try startServer { $0.maxRequestsPerConnection = 2 }
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.header("Connection") == nil)
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.header("Connection") == "close")
        #expect(client.isClosedByServer())
    }

    @Test func bindFailureIsAClearError() throws {
        let server = try startServer()
        defer { stop(server) }
        var config = HTTPServer.Configuration()
        config.host = "127.0.0.1"
        config.port = server.port
        let second = HTTPServer(configuration: config, responder: TestResponder(), logger: .init(label: "t"))
        #expect(throws: HTTPServerError.self) { try second.start() }
        do { try second.start() } catch let error as HTTPServerError {
            #expect(error.description.contains("bind 127.0.0.1:\(server.port)"))
            #expect(error.errno == EADDRINUSE)
        }
        second.waitUntilStopped()  // never started: returns at once
    }

    @Test func invalidConfigurationIsRefusedAtStart() {
        var config = HTTPServer.Configuration()
        config.maxConnections = 0
        let server = HTTPServer(configuration: config, responder: TestResponder(), logger: .init(label: "t"))
        #expect(throws: HTTPServer.ConfigurationError.self) { try server.start() }
    }

    @Test func percentDecodedPathAndQueryReachTheResponder() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /pa%74h?name=J%C3%BCrgen+X&x=%2B HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.text == "/path|name=Jürgen X|x=+")
        client.send("GET /path?x=%G1 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.status == 400)
    }

    @Test func slowBodyGets408() throws {
        let server = try startServer { $0.bodyTimeout = .milliseconds(300) }
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nab")
        let start = Date()
        #expect(client.readResponse()?.status == 408)
        #expect(client.isClosedByServer())
        #expect(Date().timeIntervalSince(start) < 2)
    }

    @Test func clientThatNeverReadsIsDisconnectedAfterSendTimeout() throws {
        let server = try startServer { $0.sendTimeout = .milliseconds(300) }
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        var small: Int32 = 4096
        setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let count = 3000  // ~26 MB of responses: more than the socket buffers hold
        client.send(String(repeating: "GET /big HTTP/1.1\r\nHost: a\r\n\r\n", count: count))
        usleep(1_000_000)  // never read while the server is stuck on EAGAIN
        var answered = 0
        while client.readResponse() != nil { answered += 1 }
        #expect(answered < count)
    }
}
