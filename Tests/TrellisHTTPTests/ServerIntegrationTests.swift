#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TrellisTesting
@testable import TrellisHTTP

/// The real server on 127.0.0.1:0, spoken to in raw bytes.
@Suite struct ServerIntegrationTests {
    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\nPOST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabcGET /path?x=1&y=a+b HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.text == "hello")
        #expect(client.readResponse()?.text == "abc")
        #expect(client.readResponse()?.text == "/path|x=1|y=a b")
    }

    @Test func manyPipelinedRequestsSurviveBackpressure() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        let count = 200
        client.send(String(repeating: "GET /big HTTP/1.1\r\nHost: a\r\n\r\n", count: count))
        for _ in 0..<count {
            #expect(client.readResponse()?.body == TestResponder.big)
        }
    }

    @Test func slowClientGets408WhileOthersAreServed() throws {
        let server = try startServer { $0.headTimeout = .milliseconds(800) }
        defer { stop(server) }
        let slow = try TestClient(port: server.port)
        slow.send("GET /hello HTTP/1.1\r\nHost: a\r\n")
        let fast = try TestClient(port: server.port)
        let start = Date()
        for _ in 0..<5 {
            fast.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(fast.readResponse()?.status == 200)
        }
        #expect(Date().timeIntervalSince(start) < 0.7)  // served while the slow head is pending
        let response = slow.readResponse()
        #expect(response?.status == 408)
        #expect(response?.header("Connection") == "close")
        #expect(slow.isClosedByServer())
        #expect(Date().timeIntervalSince(start) < 3)
    }

    @Test func bodyOverTheLimitIs413WithoutReadingIt() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\n")
        let response = client.readResponse()
        #expect(response?.status == 413)
        #expect(client.isClosedByServer())

        let chunked = try TestClient(port: server.port)
        let chunk = String(repeating: "x", count: 40000)
        chunked.send("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n9c40\r\n\(chunk)\r\n9c40\r\n\(chunk)\r\n0\r\n\r\n")
        #expect(chunked.readResponse()?.status == 413)
    }

    @Test func expectContinue() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("PUT /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        #expect(client.readResponse()?.status == 100)
        client.send("hello")
        #expect(client.readResponse()?.text == "hello")

        let refused = try TestClient(port: server.port)
        refused.send("PUT /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1000000\r\n\r\n")
        #expect(refused.readResponse()?.status == 413)  // and never a 100 first

        let other = try TestClient(port: server.port)
        other.send("GET /hello HTTP/1.1\r\nHost: a\r\nExpect: something\r\n\r\n")
        #expect(other.readResponse()?.status == 417)
    }

    @Test func headHasTheHeadersButNoBody() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("HEAD /big HTTP/1.1\r\nHost: a\r\n\r\nGET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        let head = client.readResponse(headRequest: true)
        #expect(head?.status == 200)
        #expect(head?.header("Content-Length") == String(TestResponder.big.count))
        #expect(head?.header("Date") != nil)
        #expect(client.readResponse()?.text == "hello")
    }

    @Test func chunkedBodyIsEchoed() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n")
        #expect(client.readResponse()?.text == "hello world")
    }

    /// A body kept by an object (``SharedBytes``), large (sent from where it lies) and small (copied
    /// into the connection's buffer), answers as the same bytes in an array do: pipelined among
    /// array bodies, gzipped on the fly, and without a body for HEAD.
    @Test func bytesAnObjectKeepsAnswerAsAnArrayDoes() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        let paths = ["/shared/big", "/big", "/shared/hello", "/shared/big", "/hello", "/shared/hello", "/shared/big"]
        client.send(paths.map { "GET \($0) HTTP/1.1\r\nHost: a\r\n\r\n" }.joined())
        for path in paths {
            let response = try #require(client.readResponse(), "\(path)")
            let expected = path.hasSuffix("big") ? TestResponder.big : Array("hello".utf8)
            #expect(response.body == expected, "\(path)")
            #expect(response.header("Content-Length") == String(expected.count), "\(path)")
        }
        client.send("GET /shared/big HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip\r\n\r\n")
        let gzipped = try #require(client.readResponse())
        #expect(gzipped.header("Content-Encoding") == "gzip")
        #expect(try Gzip.decompress(gzipped.body) == TestResponder.big)
        client.send("HEAD /shared/big HTTP/1.1\r\nHost: a\r\n\r\n")
        let head = try #require(client.readResponse(headRequest: true))
        #expect(head.body.isEmpty)
        #expect(head.header("Content-Length") == String(TestResponder.big.count))
        client.send("GET /shared/hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.text == "hello", "the connection goes on after HEAD")
    }

    /// The same body read back from a response: a copy of the object's bytes.
    @Test func aSharedBodyReadsAsItsBytes() {
        let response = HTTPResponse(sharing: HeldBytes.big)
        #expect(response.body == TestResponder.big)
        var changed = response
        changed.body = Array("x".utf8)
        #expect(changed.body == Array("x".utf8))
        #expect(response.body == TestResponder.big)
    }

    @Test func gzipIsNegotiatedAndDecodesToTheSameBytes() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /big HTTP/1.1\r\nHost: a\r\nAccept-Encoding: deflate, gzip;q=0.8\r\n\r\n")
        let gz = try #require(client.readResponse())
        #expect(gz.header("Content-Encoding") == "gzip")
        #expect(gz.header("Vary") == "Accept-Encoding")
        #expect(gz.body.count < TestResponder.big.count)
        #expect(try Gzip.decompress(gz.body) == TestResponder.big)

        client.send("GET /big HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip;q=0\r\n\r\n")
        let plain = try #require(client.readResponse())
        #expect(plain.header("Content-Encoding") == nil)
        #expect(plain.header("Vary") == "Accept-Encoding")
        #expect(plain.body == TestResponder.big)

        client.send("GET /pre HTTP/1.1\r\nHost: a\r\nAccept-Encoding: *\r\n\r\n")
        let pre = try #require(client.readResponse())
        #expect(pre.header("Content-Encoding") == "gzip")
        #expect(try Gzip.decompress(pre.body) == Array("PRECOMPUTED".utf8))

        client.send("GET /echo HTTP/1.1\r\nHost: a\r\nAccept-Encoding: identity;q=0\r\n\r\n")
        // An empty body needs no coding; a non-compressible one with identity refused is 406.
        #expect(client.readResponse()?.status == 200)
        client.send("POST /echo HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip;q=0, identity;q=0\r\nContent-Length: 2\r\n\r\nhi")
        #expect(client.readResponse()?.status == 406)
    }

    @Test func connectionLimitClosesNewcomersWhenNoneIsIdleAndKeepsTheOthers() throws {
        let server = try startServer { $0.maxConnections = 2 }
        defer { stop(server) }
        let a = try TestClient(port: server.port), b = try TestClient(port: server.port)
        for c in [a, b] { c.send("GET /hello HTTP/1.1\r\nHost: a\r\n") }  // in the middle of a head: busy
        usleep(100_000)
        let c = try TestClient(port: server.port, timeout: 2)
        c.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(c.readResponse() == nil)
        for c in [a, b] {
            c.send("\r\n")
            #expect(c.readResponse()?.status == 200)
        }
    }

    @Test func gracefulShutdownFinishesTheRequestInFlight() throws {
        let server = try startServer { $0.lingerTimeout = .milliseconds(200) }
        let client = try TestClient(port: server.port)
        let idle = try TestClient(port: server.port)
        idle.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(idle.readResponse()?.status == 200)
        client.send("GET /sleep?ms=400 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(TestResponder.sleepStarted.wait(timeout: .now() + 5) == .success)
        let port = server.port
        server.shutdown()  // returns at once; the responder is still sleeping
        let response = client.readResponse()
        #expect(response?.text == "slept 400")
        #expect(response?.header("Connection") == "close")
        #expect(client.isClosedByServer())
        #expect(idle.isClosedByServer())
        server.waitUntilStopped()
        #expect(throws: (any Error).self) { _ = try TestClient(port: port) }
    }

    /// Skipped, and said so, only where the host itself has no IPv6 loopback; where it has one,
    /// a server that cannot listen on it fails.
    @Test(.enabled(if: hostHasIPv6Loopback(), "this host has no IPv6 loopback")) func ipv6Loopback() throws {
        let server = try startServer(host: "::1")
        defer { stop(server) }
        let client = try TestClient(port: server.port, host: "::1")
        client.send("GET /hello HTTP/1.1\r\nHost: [::1]\r\n\r\n")
        #expect(client.readResponse()?.text == "hello")
    }

    @Test func wildcardListensOnBothFamilies() throws {
        let server = try startServer(host: "*")
        defer { stop(server) }
        let v4 = try TestClient(port: server.port)
        v4.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(v4.readResponse()?.status == 200)
        if hostHasIPv6Loopback() {
            let v6 = try TestClient(port: server.port, host: "::1")
            v6.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(v6.readResponse()?.status == 200)
        }
    }
}

/// Whether this host can bind a socket to ::1 at all (containers without IPv6 cannot).
func hostHasIPv6Loopback() -> Bool {
    let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_addr = in6addr_loopback
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
    } == 0
}
