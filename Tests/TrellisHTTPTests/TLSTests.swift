#if canImport(Glibc)
import Glibc
#endif
import CSSL
import Foundation
import Testing
import TrellisTesting
@testable import TrellisHTTP

/// TLS on the server's own sockets, against real OpenSSL, curl and Python clients.
@Suite(.serialized) struct TLSTests {
    /// The raw response with the fields that differ per request (Date, X-Request-Id) left out.
    private static func comparable(_ raw: String) -> String {
        raw.components(separatedBy: "\r\n").filter { !$0.hasPrefix("Date:") && !$0.hasPrefix("X-Request-Id:") }.joined(separator: "\r\n")
    }

    private static let pythonClient = """
        import socket, ssl, sys
        context = ssl.create_default_context(cafile=sys.argv[1])
        with socket.create_connection(("127.0.0.1", int(sys.argv[2]))) as raw:
            with context.wrap_socket(raw, server_hostname="localhost") as tls:
                tls.sendall(sys.argv[3].encode())
                data = b""
                while True:
                    chunk = tls.recv(65536)
                    if not chunk:
                        break
                    data += chunk
        sys.stdout.buffer.write(data)
        """

    @Test func curlAndPythonGetTheSameBytesAsOverPlainHTTP() throws {
        let files = try TLSFiles()
        defer { files.remove() }
        let server = try startTLSServer(files)
        defer { stop(server) }
        let tlsPort = try #require(server.tlsPort)
        #expect(tlsPort != server.port)
        for path in ["/hello", "/big", "/path?a=1&b=2", "/shared/big", "/shared/hello"] {
            let plain = try run(["curl", "-sS", "http://127.0.0.1:\(server.port)\(path)", "-w", "|%{http_code}"])
            let secure = try run([
                "curl", "-sS", "--cacert", files.certificate, "--resolve", "localhost:\(tlsPort):127.0.0.1",
                "https://localhost:\(tlsPort)\(path)", "-w", "|%{http_code}|%{http_version}",
            ])
            #expect(secure.status == 0, "\(secure.error)")
            #expect(secure.output == plain.output + "|2", "\(path)")  // curl takes h2 when ALPN offers it
        }
        let gzipped = try run([
            "curl", "-sS", "--compressed", "--cacert", files.certificate, "--resolve", "localhost:\(tlsPort):127.0.0.1",
            "https://localhost:\(tlsPort)/pre",
        ])
        #expect(gzipped.output == "PRECOMPUTED")
        for path in ["/hello", "/big"] {
            let request = "GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
            let plainClient = try TestClient(port: server.port)
            plainClient.send(request)
            var plain: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while case let n = recv(plainClient.fd, &chunk, chunk.count, 0), n > 0 { plain += chunk[..<n] }
            let python = try run(["python3", "-c", Self.pythonClient, files.certificate, String(tlsPort), request])
            #expect(python.status == 0, "\(python.error)")
            #expect(Self.comparable(python.output) == Self.comparable(String(decoding: plain, as: UTF8.self)))
            #expect(python.output.hasPrefix("HTTP/1.1 200 OK"))
        }
    }

    @Test func keepAliveAndPipeliningWorkOverTLS() throws {
        let files = try TLSFiles()
        defer { files.remove() }
        let server = try startTLSServer(files)
        defer { stop(server) }
        let client = try TLSTestClient(port: #require(server.tlsPort))
        #expect(client.protocolVersion == "TLSv1.3")
        #expect(client.alpn == "http/1.1")
        for _ in 0..<3 {
            client.send("GET /big HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(client.readResponse()?.body == TestResponder.big)
        }
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\nGET /deferred/big HTTP/1.1\r\nHost: a\r\n\r\nGET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.text == "hello")
        #expect(client.readResponse()?.body == TestResponder.big)
        #expect(client.readResponse()?.text == "hello")
        let body = String(repeating: "x", count: 40_000)
        client.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        #expect(client.readResponse()?.text == body)
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        #expect(client.readResponse()?.header("Connection") == "close")
        #expect(client.isClosedByServer())
    }

    @Test func tls12ResumesSessionsAndTLS13ResumesTickets() throws {
        let files = try TLSFiles()
        defer { files.remove() }
        let server = try startTLSServer(files)
        defer { stop(server) }
        let port = try #require(server.tlsPort)
        for maxVersion in [Int32(TLS1_2_VERSION), 0] {
            let first = try TLSTestClient(port: port, maxVersion: maxVersion)
            first.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(first.readResponse()?.status == 200)  // a TLS 1.3 ticket arrives with the first read
            let session = try #require(first.session)
            defer { SSL_SESSION_free(session) }
            let second = try TLSTestClient(port: port, maxVersion: maxVersion, resuming: session)
            #expect(second.reusedSession, "max version \(maxVersion)")
            second.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(second.readResponse()?.text == "hello")
        }
    }

    @Test func oldProtocolsWeakCiphersAndForeignALPNAreRefused() throws {
        let files = try TLSFiles()
        defer { files.remove() }
        let server = try startTLSServer(files)
        defer { stop(server) }
        let target = "127.0.0.1:\(try #require(server.tlsPort))"
        func handshake(_ options: [String]) throws -> Bool {
            // SECLEVEL=0 so that the client itself would offer what the server must refuse.
            let result = try run(["openssl", "s_client", "-connect", target, "-servername", "localhost"] + options, input: "", timeout: 10)
            return result.status == 0 && result.output.contains("Cipher is ") && !result.output.contains("Cipher is (NONE)")
        }
        #expect(try handshake(["-tls1_3"]))
        #expect(try handshake(["-tls1_2"]))
        #expect(try !handshake(["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"]))
        #expect(try !handshake(["-tls1", "-cipher", "DEFAULT@SECLEVEL=0"]))
        for weak in ["AES128-SHA", "AES256-GCM-SHA384", "ECDHE-RSA-AES128-SHA", "ECDHE-ECDSA-AES128-SHA256", "DES-CBC3-SHA", "RC4-SHA", "NULL-SHA"] {
            #expect(try !handshake(["-tls1_2", "-cipher", "\(weak)@SECLEVEL=0"]), "\(weak)")
        }
        #expect(throws: TLSError.self) { try TLSTestClient(port: server.tlsPort!, alpn: ["spdy/3.1"]) }
        #expect(try TLSTestClient(port: server.tlsPort!, alpn: ["http/1.1", "h2"]).alpn == "h2")  // the server's order
        #expect(try TLSTestClient(port: server.tlsPort!, alpn: []).alpn == "")
    }

    @Test func reloadSwapsTheCertificateForNewConnectionsOnly() throws {
        let files = try TLSFiles(hosts: ["first.test"])
        defer { files.remove() }
        let server = try startTLSServer(files)
        defer { stop(server) }
        let port = try #require(server.tlsPort)
        let before = try TLSTestClient(port: port)
        #expect(before.peerCommonName == "first.test")
        try files.write(SelfSignedCertificate(hosts: ["second.test"], keyType: .rsa))
        try server.reloadTLS()
        // The loops take the new context through their inboxes; a new handshake sees it at once after.
        var after = try TLSTestClient(port: port)
        for _ in 0..<50 where after.peerCommonName != "second.test" {
            usleep(10_000)
            after = try TLSTestClient(port: port)
        }
        #expect(after.peerCommonName == "second.test")
        // The connection opened before keeps its session.
        before.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(before.readResponse()?.text == "hello")
    }

    @Test func aBadPairOnReloadIsRefusedAndTheOldOneKeepsServing() throws {
        let files = try TLSFiles(hosts: ["kept.test"])
        defer { files.remove() }
        let server = try startTLSServer(files)
        defer { stop(server) }
        let other = try SelfSignedCertificate(hosts: ["other.test"])
        let certificateBefore = try String(contentsOfFile: files.certificate, encoding: .utf8)
        try Data(other.privateKeyPEM.utf8).write(to: URL(fileURLWithPath: files.privateKey))  // key of another certificate
        #expect(throws: TLSError.self) { try server.reloadTLS() }
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: files.certificate))
        #expect(throws: TLSError.self) { try server.reloadTLS() }
        _ = certificateBefore
        let client = try TLSTestClient(port: #require(server.tlsPort))
        #expect(client.peerCommonName == "kept.test")
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.text == "hello")
    }

    @Test func aBadPairStopsTheStartBeforeAnySocketIsBound() throws {
        let files = try TLSFiles()
        defer { files.remove() }
        try Data(SelfSignedCertificate(hosts: ["x"]).privateKeyPEM.utf8).write(to: URL(fileURLWithPath: files.privateKey))
        #expect(throws: TLSError.self) { try startTLSServer(files) }
        #expect(throws: TLSError.self) {
            try startServer { $0.tls = .init(certificatePath: "/nonexistent/cert.pem", privateKeyPath: files.privateKey, port: 0) }
        }
    }

    @Test func aStalledHandshakeIsClosedAtTheHeadTimeout() throws {
        let files = try TLSFiles()
        defer { files.remove() }
        let server = try startTLSServer(files) { $0.headTimeout = .milliseconds(300) }
        defer { stop(server) }
        let port = try #require(server.tlsPort)
        // Nothing at all; then the first half of a ClientHello's record header and never the rest.
        for prefix in [[], [0x16, 0x03, 0x01, 0x02, 0x00, 0x01]] as [[UInt8]] {
            let client = try TestClient(port: port, timeout: 5)
            client.send(prefix)
            let start = Date()
            #expect(client.isClosedByServer())
            let waited = Date().timeIntervalSince(start)
            #expect(waited > 0.2 && waited < 2, "closed after \(waited) s")
        }
    }

    @Test func garbageTruncatedAndPlainTextInputCloseWithoutACrash() throws {
        let files = try TLSFiles()
        defer { files.remove() }
        let server = try startTLSServer(files)
        defer { stop(server) }
        let port = try #require(server.tlsPort)
        var random = SystemRandomNumberGenerator()
        let noise = (0..<64).map { _ in UInt8.random(in: 0...255, using: &random) }
        let inputs: [[UInt8]] = [
            [0x16, 0x03, 0x01, 0x00, 0x40] + noise,  // a handshake record of noise
            [0x16, 0x03, 0x01, 0xFF, 0xFF, 0x01, 0x00],  // a record longer than the limit
            [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03],  // a ClientHello cut short
            [0x17, 0x03, 0x03, 0x00, 0x10] + [UInt8](repeating: 0xAB, count: 16),  // application data before a handshake
            [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28],  // a fatal alert
        ]
        for input in inputs {
            let client = try TestClient(port: port)
            client.send(input)
            shutdown(client.fd, Int32(SHUT_WR))  // and nothing more: what was cut short stays cut short
            #expect(client.isClosedByServer(), "\(input.prefix(8))")
        }
        // A broken record in the middle of an established session.
        let established = try TLSTestClient(port: port)
        established.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(established.readResponse()?.status == 200)
        established.sendRaw([0x17, 0x03, 0x03, 0x00, 0x20] + [UInt8](repeating: 0x42, count: 32))
        #expect(established.isClosedByServer())
        // A record cut off by the client closing.
        let truncated = try TLSTestClient(port: port)
        truncated.sendRaw([0x17, 0x03, 0x03, 0x01, 0x00, 0x01, 0x02])
        shutdown(truncated.tcp.fd, Int32(SHUT_WR))
        #expect(truncated.isClosedByServer())
        // Plain HTTP on the TLS port: a 400 in plain text, then close (nginx's behaviour).
        let plain = try TestClient(port: port)
        plain.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        let refused = plain.readResponse()
        #expect(refused?.status == 400)
        #expect(refused?.header("Connection") == "close")
        #expect(plain.isClosedByServer())
        // Still serving.
        let after = try TLSTestClient(port: port)
        after.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(after.readResponse()?.text == "hello")
    }

    @Test func aTLSOnlyListenerServesTLSOnItsOnePort() throws {
        let files = try TLSFiles()
        defer { files.remove() }
        let server = try startTLSServer(files, tlsOnly: true)
        defer { stop(server) }
        #expect(server.tlsPort == server.port)
        let client = try TLSTestClient(port: server.port)
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(client.readResponse()?.text == "hello")
        let plain = try TestClient(port: server.port)
        plain.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(plain.readResponse()?.status == 400)
    }

    @Test func configurationRefusesBadTLSSettings() {
        var config = HTTPServer.Configuration()
        config.port = 8080
        config.tls = .init(certificatePath: "", privateKeyPath: "k.pem", port: 8080)
        config.tls?.ticketKeyLifetime = .seconds(1)
        #expect(throws: HTTPServer.ConfigurationError.self) { try config.validate() }
        do {
            try config.validate()
        } catch {
            #expect(error.problems.count == 3)
        }
    }

    @Test func selfSignedCertificatesOfBothKeyTypesServe() throws {
        for keyType in SelfSignedCertificate.KeyType.allCases {
            let files = try TLSFiles(hosts: ["localhost"], keyType: keyType)
            defer { files.remove() }
            let server = try startTLSServer(files)
            defer { stop(server) }
            let check = try run(["openssl", "x509", "-in", files.certificate, "-noout", "-text"])
            #expect(check.output.contains("DNS:localhost"))
            #expect(check.output.contains(keyType == .ecdsa ? "prime256v1" : "2048 bit"))
            let client = try TLSTestClient(port: #require(server.tlsPort))
            client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(client.readResponse()?.text == "hello")
        }
    }
}
