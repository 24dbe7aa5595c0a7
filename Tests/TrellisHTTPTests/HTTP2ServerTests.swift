#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MetricsTestKit
import Testing
import TrellisTesting
@testable import TrellisHTTP

/// The real server on 127.0.0.1:0 spoken to by curl with HTTP/2 prior knowledge (h2c, RFC 9113
/// §3.3): the same responder, answers and refusals as over HTTP/1.1, many requests on one connection.
@Suite struct HTTP2ServerTests {
    /// Runs curl with `arguments` and returns its exit status and standard output.
    static func curl(_ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "10"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static let curlAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")

    @Test(.enabled(if: curlAvailable)) func curlWithPriorKnowledgeIsAnsweredOverHTTP2() throws {
        let server = try startServer()
        defer { stop(server) }
        let result = try Self.curl(["--http2-prior-knowledge", "-w", "\n%{http_version} %{response_code}", "http://127.0.0.1:\(server.port)/hello"])
        #expect(result.status == 0)
        #expect(result.output == "hello\n2 200")
    }

    /// Four requests at once on one socket — immediate, large, deferred, with a body — each
    /// answered on its own stream. (curl 7.88 sends only the first of several URLs over a
    /// prior-knowledge connection, to nginx as well, so the frames are written here.)
    @Test func requestsOnOneConnectionAreAnsweredOnTheirStreams() throws {
        let server = try startServer()
        defer { stop(server) }
        var client = HTTP2TestClient()
        var bytes = HTTP2Bounds.clientPreface
        HTTP2FrameWriter.appendSettings([], ack: false, to: &bytes)
        for (stream, path) in [(UInt32(1), "/hello"), (3, "/big"), (5, "/deferred/hello")] {
            HTTP2FrameWriter.appendFieldBlock(client.block(path), stream: stream, endStream: true, maxFrameSize: 16384, to: &bytes)
        }
        HTTP2FrameWriter.appendFieldBlock(client.block("/echo", method: "POST"), stream: 7, endStream: false, maxFrameSize: 16384, to: &bytes)
        HTTP2FrameWriter.appendData(Array("abc".utf8), stream: 7, endStream: true, to: &bytes)
        let socket = try RawSocket(port: server.port)
        socket.send(bytes)
        let answers = try socket.readAnswers(streams: [1, 3, 5, 7])
        #expect(answers[1] == Array("hello".utf8))
        #expect(answers[3] == TestResponder.big)
        #expect(answers[5] == Array("hello".utf8))
        #expect(answers[7] == Array("abc".utf8))
    }

    @Test(.enabled(if: curlAvailable)) func requestBodyReachesTheResponder() throws {
        let server = try startServer()
        defer { stop(server) }
        let body = String(repeating: "0123456789", count: 5000)  // past the first stream window
        let result = try Self.curl(["--http2-prior-knowledge", "--data-binary", body, "-H", "Content-Type: text/plain",
                                    "http://127.0.0.1:\(server.port)/echo"])
        #expect(result.output == body)
    }

    @Test(.enabled(if: curlAvailable)) func gzipHeadAndBodiesLargerThanAFrameAsOnHTTP11() throws {
        let server = try startServer()
        defer { stop(server) }
        let base = "http://127.0.0.1:\(server.port)"
        for path in ["/big", "/shared/big"] {
            let big = try Self.curl(["--http2-prior-knowledge", "\(base)\(path)"])
            #expect(big.output == String(decoding: TestResponder.big, as: UTF8.self))
        }
        let gzipped = try Self.curl(["--http2-prior-knowledge", "--compressed", "-D", "-", "-o", "/dev/null", "\(base)/big"])
        #expect(gzipped.output.contains("content-encoding: gzip"))
        #expect(gzipped.output.hasPrefix("HTTP/2 200"))
        let head = try Self.curl(["--http2-prior-knowledge", "-I", "\(base)/hello"])
        #expect(head.output.contains("content-length: 5"))
    }

    @Test(.enabled(if: curlAvailable)) func http2OffLeavesThePrefaceToHTTP11() throws {
        let server = try startServer { $0.http2 = false }
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send(HTTP2Bounds.clientPreface)
        #expect(client.readResponse()?.status == 505)
        let plain = try Self.curl(["-w", " %{http_version}", "http://127.0.0.1:\(server.port)/hello"])
        #expect(plain.output == "hello 1.1")
    }

    @Test(.enabled(if: curlAvailable)) func tlsClientsGetHTTP2ThroughALPN() throws {
        let files = try TLSFiles()
        defer { files.remove() }
        let server = try startTLSServer(files)
        defer { stop(server) }
        let tlsPort = try #require(server.tlsPort)
        let secure = ["--cacert", files.certificate, "--resolve", "localhost:\(tlsPort):127.0.0.1"]
        let hello = try Self.curl(secure + ["-w", " %{http_version}", "https://localhost:\(tlsPort)/hello"])
        #expect(hello.output == "hello 2")
        let body = String(repeating: "x", count: 60_000)  // under the tests' 64 KiB body limit, past a stream window
        let echo = try Self.curl(secure + ["--data-binary", body, "https://localhost:\(tlsPort)/deferred/echo"])
        #expect(echo.output == body)
        #expect(try TLSTestClient(port: tlsPort, alpn: ["h2", "http/1.1"]).alpn == "h2")
    }

    @Test(.enabled(if: curlAvailable)) func http2OffOffersOnlyHTTP11ThroughALPN() throws {
        let files = try TLSFiles()
        defer { files.remove() }
        let server = try startTLSServer(files) { $0.http2 = false }
        defer { stop(server) }
        let tlsPort = try #require(server.tlsPort)
        #expect(throws: TLSError.self) { try TLSTestClient(port: tlsPort, alpn: ["h2"]) }
        let hello = try Self.curl(["--cacert", files.certificate, "--resolve", "localhost:\(tlsPort):127.0.0.1", "-w", " %{http_version}",
                                   "https://localhost:\(tlsPort)/hello"])
        #expect(hello.output == "hello 1.1")
    }

    /// A connection with no stream open is closed after `keepAliveTimeout`, with GOAWAY first.
    @Test func idleConnectionGetsGoAwayThenIsClosed() throws {
        let server = try startServer { $0.keepAliveTimeout = .milliseconds(300) }
        defer { stop(server) }
        let socket = try RawSocket(port: server.port)
        var bytes = HTTP2Bounds.clientPreface
        HTTP2FrameWriter.appendSettings([], ack: false, to: &bytes)
        socket.send(bytes)
        var frames: [HTTP2Frame] = []
        while let frame = socket.readFrame() { frames.append(frame) }  // until the server closes
        #expect(frames.last == HTTP2Frame(stream: 0, .goAway(lastStream: 0, code: .noError, debug: [])))
    }

    /// A graceful shutdown sends GOAWAY naming the stream in progress, then answers it.
    @Test func shutdownAnswersTheStreamsItsGoAwayNames() throws {
        let server = try startServer()
        var client = HTTP2TestClient()
        var bytes = HTTP2Bounds.clientPreface
        HTTP2FrameWriter.appendSettings([], ack: false, to: &bytes)
        HTTP2FrameWriter.appendFieldBlock(client.block("/slow-deferred?ms=400"), stream: 1, endStream: true, maxFrameSize: 16384, to: &bytes)
        let socket = try RawSocket(port: server.port)
        socket.send(bytes)
        usleep(100_000)
        server.shutdown()
        var goAway: HTTP2Frame?
        var body: [UInt8] = []
        while let frame = socket.readFrame() {
            if case .goAway = frame.payload { goAway = frame }
            if case .data(let bytes, _, _) = frame.payload { body += bytes }
        }
        server.waitUntilStopped()
        #expect(goAway == HTTP2Frame(stream: 0, .goAway(lastStream: 1, code: .noError, debug: [])))
        #expect(body == Array("slept 400 deferred".utf8))
    }

    /// Twenty streams of events on one connection: each gets its head, its first bytes and every
    /// event; one the client resets leaves the channel; a drain ends the rest before its GOAWAY.
    @Test func streamsOfEventsShareOneConnection() throws {
        let channel = EventStreamTests.channel()
        let server = try startServer(responder: EventStreamTests.StreamResponder(channel: channel))
        var client = HTTP2TestClient()
        var bytes = HTTP2Bounds.clientPreface
        HTTP2FrameWriter.appendSettings([], ack: false, to: &bytes)
        let ids = (0..<20).map { UInt32(2 * $0 + 1) }
        for id in ids {
            HTTP2FrameWriter.appendFieldBlock(
                client.block("/stream", [HPACKField("x-client", "c\(id)")]), stream: id, endStream: true, maxFrameSize: 16384, to: &bytes)
        }
        let socket = try RawSocket(port: server.port)
        socket.send(bytes)
        var received: [UInt32: String] = [:]
        func read(until done: ([UInt32: String]) -> Bool) -> [HTTP2Frame] {
            var frames: [HTTP2Frame] = []
            while !done(received), let frame = socket.readFrame() {
                frames.append(frame)
                if case .data(let data, _, _) = frame.payload { received[frame.stream, default: ""] += String(decoding: data, as: UTF8.self) }
            }
            return frames
        }
        _ = read { r in ids.allSatisfy { r[$0] == ": hello\n\n" } }
        #expect(channel.openStreams == 20)
        for n in 1...2 { channel.publish(EventStreamTests.event(UInt64(n))) }
        let events = ": hello\n\nid: 1\ndata: 1\n\nid: 2\ndata: 2\n\n"
        _ = read { r in ids.allSatisfy { r[$0] == events } }
        #expect(ids.allSatisfy { received[$0] == events })
        var reset: [UInt8] = []
        HTTP2FrameWriter.appendRstStream(.cancel, stream: 1, to: &reset)
        socket.send(reset)
        let deadline = Date().addingTimeInterval(5)
        while channel.openStreams != 19 && Date() < deadline { usleep(10_000) }
        #expect(channel.openStreams == 19)
        server.shutdown()
        var ended: Set<UInt32> = []
        var goAwayAfterEnds = false
        while let frame = socket.readFrame() {
            if case .data(_, true, _) = frame.payload { ended.insert(frame.stream) }
            if case .goAway = frame.payload { goAwayAfterEnds = ended.count == 19 }
        }
        server.waitUntilStopped()
        #expect(ended == Set(ids.dropFirst()))
        #expect(goAwayAfterEnds)
        #expect(channel.openStreams == 0)
    }

    /// What reaches a limit is counted in the metrics: by the limit, and as the error sent.
    @Test func limitsReachedAreCounted() throws {
        let metrics = TestMetrics()
        let server = try startServer(metrics: metrics) { $0.http2MaxConcurrentStreams = 2 }
        defer { stop(server) }
        var client = HTTP2TestClient()
        var bytes = HTTP2Bounds.clientPreface
        HTTP2FrameWriter.appendSettings([], ack: false, to: &bytes)
        // 40,000 octets decoded (past the header list limit), 35,000 sent: Huffman codes 'v' in 7 bits.
        let big = [HPACKField("x-big", String(repeating: "v", count: 40_000), indexing: .withoutIndexing)]
        HTTP2FrameWriter.appendFieldBlock(client.block("/hello", big), stream: 1, endStream: true, maxFrameSize: 16384, to: &bytes)
        for id: UInt32 in [3, 5, 7] {  // left open: past the limit of two
            HTTP2FrameWriter.appendFieldBlock(client.block("/echo", method: "POST"), stream: id, endStream: false, maxFrameSize: 16384, to: &bytes)
        }
        let socket = try RawSocket(port: server.port)
        socket.send(bytes)
        var status: String?
        var reset: (UInt32, HTTP2ErrorCode)?
        var decoder = HPACKDecoder()
        while status == nil || reset == nil, let frame = socket.readFrame() {
            if case .rstStream(let code) = frame.payload { reset = (frame.stream, code) }
            if case .headers(let fragment, _, _, _) = frame.payload, frame.stream == 1 { status = try decoder.decode(fragment).first?.value }
        }
        #expect(status == "431")
        #expect(reset?.0 == 7 && reset?.1 == .refusedStream)
        // Stream 1 counts until its 431 is written, after all four were read: 5 and 7 are refused.
        #expect(try metrics.expectCounter("http2_limit_refusals_total", [("limit", "header_list")]).totalValue == 1)
        #expect(try metrics.expectCounter("http2_limit_refusals_total", [("limit", "concurrent_streams")]).totalValue == 2)
        #expect(try metrics.expectCounter("http2_errors_total", [("scope", "stream"), ("code", "REFUSED_STREAM")]).totalValue == 2)
        var flood: [UInt8] = []
        HTTP2FrameWriter.append(HTTP2Frame(stream: 9, .headers(fragment: [0x82], endStream: true, endHeaders: false, priority: nil)), to: &flood)
        for _ in 0..<40 { HTTP2FrameWriter.append(HTTP2Frame(stream: 9, .continuation(fragment: [], endHeaders: false)), to: &flood) }
        socket.send(flood)
        while let frame = socket.readFrame() { if case .goAway = frame.payload { break } }
        #expect(try metrics.expectCounter("http2_limit_refusals_total", [("limit", "continuation_frames")]).totalValue == 1)
        #expect(try metrics.expectCounter("http2_errors_total", [("scope", "connection"), ("code", "ENHANCE_YOUR_CALM")]).totalValue == 1)
    }

    /// A client that leaves its window shut while an answer waits is closed after `sendTimeout`,
    /// and counted.
    @Test func clientThatNeverOpensItsWindowIsClosed() throws {
        let metrics = TestMetrics()
        let server = try startServer(metrics: metrics) { $0.sendTimeout = .milliseconds(300) }
        defer { stop(server) }
        var client = HTTP2TestClient()
        var bytes = HTTP2Bounds.clientPreface
        HTTP2FrameWriter.appendSettings([HTTP2Setting(HTTP2Setting.initialWindowSize, 0)], ack: false, to: &bytes)
        HTTP2FrameWriter.appendFieldBlock(client.block("/big"), stream: 1, endStream: true, maxFrameSize: 16384, to: &bytes)
        let socket = try RawSocket(port: server.port)
        socket.send(bytes)
        let started = Date()
        var data = 0
        while let frame = socket.readFrame() {  // until the server closes
            if case .data(let bytes, _, _) = frame.payload { data += bytes.count }
        }
        #expect(data == 0)
        #expect(Date().timeIntervalSince(started) < 4)
        #expect(try metrics.expectCounter("http2_limit_refusals_total", [("limit", "window_stall")]).totalValue == 1)
    }

    /// A preface whose first read is cut short still opens HTTP/2.
    @Test func prefaceArrivingInPiecesStillOpensHTTP2() throws {
        let server = try startServer()
        defer { stop(server) }
        var client = HTTP2TestClient()
        var bytes = HTTP2Bounds.clientPreface
        HTTP2FrameWriter.appendSettings([], ack: false, to: &bytes)
        HTTP2FrameWriter.appendFieldBlock(client.block("/hello"), stream: 1, endStream: true, maxFrameSize: 16384, to: &bytes)
        let socket = try RawSocket(port: server.port)
        socket.send(Array(bytes[..<5]))
        usleep(50_000)
        socket.send(Array(bytes[5...]))
        #expect(try socket.readAnswers(streams: [1])[1] == Array("hello".utf8))
    }

    /// HTTP/2 and HTTP/1.1 clients on one port at once, and the server drains cleanly after both.
    @Test(.enabled(if: curlAvailable)) func bothVersionsShareThePort() throws {
        let server = try startServer()
        defer { stop(server) }
        let client = try TestClient(port: server.port)
        client.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        let h2 = try Self.curl(["--http2-prior-knowledge", "http://127.0.0.1:\(server.port)/hello"])
        #expect(h2.output == "hello")
        #expect(client.readResponse()?.text == "hello")
    }
}

/// A blocking TCP socket to the server that reads HTTP/2 frames.
final class RawSocket {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next frame, waiting for it; nil on EOF, timeout or a frame the parser refuses.
    func readFrame() -> HTTP2Frame? {
        let parser = HTTP2FrameParser(maxFrameSize: HTTP2Bounds.maxMaxFrameSize)
        while true {
            let (event, consumed) = buffer.withUnsafeBufferPointer { parser.next($0) }
            switch event {
            case .frame(let frame):
                buffer.removeFirst(consumed)
                return frame
            case .error: return nil
            case .needMoreData:
                var chunk = [UInt8](repeating: 0, count: 65536)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return nil }
                buffer += chunk[0..<n]
            }
        }
    }

    /// The body of each of `streams` once each has ended (their heads decoded, and checked to be 200).
    func readAnswers(streams: Set<UInt32>) throws -> [UInt32: [UInt8]] {
        var decoder = HPACKDecoder()
        var bodies: [UInt32: [UInt8]] = [:]
        var open = streams
        while !open.isEmpty, let frame = readFrame() {
            switch frame.payload {
            case .headers(let fragment, let end, _, _):
                let fields = try decoder.decode(fragment)
                #expect(fields.first == HPACKField(":status", "200"))
                if end { open.remove(frame.stream) }
            case .data(let bytes, let end, _):
                bodies[frame.stream, default: []] += bytes
                if end { open.remove(frame.stream) }
            default:
                continue
            }
        }
        #expect(open.isEmpty, "streams never ended: \(open)")
        return bodies
    }
}
