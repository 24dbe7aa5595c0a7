import Testing
@testable import TrellisHTTP

@Suite struct AcceptEncodingTests {
    @Test(arguments: [
        ("gzip", true, true),
        ("gzip;q=0", false, true),
        ("GZIP ; Q=0.5", true, true),
        ("x-gzip", true, true),
        ("*", true, true),
        ("*;q=0", false, false),
        ("*;q=0, identity", false, true),
        ("identity;q=0", false, false),
        ("gzip, identity;q=0", true, false),
        ("br, deflate", false, true),
        ("gzip;q=0.5, identity;q=1", false, true),
        ("gzip;q=1.0, identity;q=0.5", true, true),
        ("gzip;q=2", false, true),          // malformed weight: element ignored
        ("gzip;q=0.1234", false, true),     // more than three decimals: ignored
        ("", false, true),
    ])
    func negotiation(value: String, gzip: Bool, identity: Bool) {
        let a = AcceptEncoding.parse(value)
        #expect(a.prefersGzip == gzip, "prefersGzip for \(value)")
        #expect((a.identity > 0) == identity, "identity for \(value)")
    }

    @Test func qvalues() {
        func q(_ s: String) -> Int? { var s = s; return s.withUTF8 { AcceptEncoding.qvalue($0) } }
        #expect(q("1") == 1000)
        #expect(q("0.5") == 500)
        #expect(q("0.125") == 125)
        #expect(q("1.000") == 1000)
        #expect(q("1.001") == nil)
        #expect(q(".5") == nil)
    }

    @Test func contentCodingChoice() {
        let options = ResponseWriter.Options(gzipMinimumBytes: 256, gzipLevel: 6)
        let json = HTTPResponse(headers: ["Content-Type": "application/json"], body: Array(repeating: 65, count: 300))
        let small = HTTPResponse(headers: ["Content-Type": "application/json"], body: Array(repeating: 65, count: 10))
        let image = HTTPResponse(headers: ["Content-Type": "image/png"], body: Array(repeating: 65, count: 300))
        let gz = AcceptEncoding.parse("gzip")
        #expect(ContentCoding.choose(for: json, accept: gz, options: options) == .gzip(precomputed: false))
        #expect(ContentCoding.choose(for: small, accept: gz, options: options) == .identity(varies: true))
        #expect(ContentCoding.choose(for: image, accept: gz, options: options) == .identity(varies: false))
        #expect(ContentCoding.choose(for: small, accept: .parse("gzip, identity;q=0"), options: options) == .gzip(precomputed: false))
        #expect(ContentCoding.choose(for: image, accept: .parse("identity;q=0"), options: options) == .notAcceptable)
        #expect(ContentCoding.choose(for: json, accept: .absent, options: options) == .identity(varies: true))
    }
}

@Suite struct TextualTypeTests {
    @Test(arguments: [
        ("text/html", true), ("Text/Plain; charset=utf-8", true), ("application/json", true),
        ("application/problem+json", true), ("image/svg+xml", true), (" application/JSON ;x=1", true),
        ("application/javascript", true), ("image/png", false), ("application/octet-stream", false),
        ("application/jsonx", false), ("", false), ("text", false),
    ])
    func textual(type: String, expected: Bool) {
        #expect(ContentCoding.isTextual(type) == expected)
    }
}

@Suite struct GzipTests {
    @Test func roundTrip() throws {
        for size in [0, 1, 100, 65_536, 300_000] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 31 / 7) }
            #expect(try Gzip.decompress(Gzip.compress(bytes)) == bytes)
        }
    }

    @Test func headerIsGzip() {
        let out = Gzip.compress(Array("hello".utf8), level: 9)
        #expect(out.prefix(3) == [0x1F, 0x8B, 8])
    }

    @Test func corruptAndOversizedInputsAreRefused() {
        #expect(throws: Gzip.Error.corrupt) { try Gzip.decompress([1, 2, 3]) }
        let packed = Gzip.compress([UInt8](repeating: 0, count: 100_000))
        #expect(throws: Gzip.Error.corrupt) { try Gzip.decompress(Array(packed.dropLast(4))) }
        #expect(throws: Gzip.Error.tooLarge) { try Gzip.decompress(packed, maxBytes: 1000) }
    }
}

@Suite struct ByteClassTests {
    @Test func tokenBytesAreExactlyRFC9110Tchars() {
        let tchars = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for b in 0...255 { #expect(HTTPBytes.isToken(UInt8(b)) == tchars.contains(UInt8(b)), "byte \(b)") }
    }

    /// The word-at-a-time check agrees with the byte check for every byte at every place of a
    /// word, in the tail after the last whole word, and beside every other byte.
    @Test func fieldValuesAreCheckedAsByteByByte() {
        for length in [1, 7, 8, 9, 16, 17] {
            for position in 0..<length {
                for b in 0...255 {
                    var bytes = [UInt8](repeating: 0x61, count: length)
                    bytes[position] = UInt8(b)
                    let checked = bytes.withUnsafeBufferPointer { HTTPBytes.areFieldBytes($0) }
                    #expect(checked == HTTPBytes.isFieldByte(UInt8(b)), "byte \(b) at \(position) of \(length)")
                }
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                [UInt8(0x09), 0x1F, 0x20, 0x7E, 0x7F, 0x80, 0xFF, UInt8.random(in: 0...255, using: &generator)].randomElement(using: &generator)!
            }
            #expect(bytes.withUnsafeBufferPointer { HTTPBytes.areFieldBytes($0) } == bytes.allSatisfy(HTTPBytes.isFieldByte), "\(bytes)")
        }
    }
}

extension ByteClassTests {
    /// The head scanner's word-at-a-time skip stops where the byte-at-a-time rule says, for
    /// every byte at every place of a word and in the tail, in a request line and a field line,
    /// and never past the end it is given (where a size limit is decided).
    @Test func theScannerSkipsExactlyThePlainBytes() {
        func plain(_ b: UInt8, requestLine: Bool) -> Bool { requestLine ? b >= 0x20 && b < 0x7F : b >= 0x20 && b != 0x7F }
        func expected(_ bytes: [UInt8], _ start: Int, _ end: Int, _ requestLine: Bool) -> Int {
            (start..<end).first { !plain(bytes[$0], requestLine: requestLine) } ?? end
        }
        for requestLine in [true, false] {
            for length in [1, 7, 8, 9, 16, 17] {
                for position in 0..<length {
                    for b in 0...255 {
                        var bytes = [UInt8](repeating: 0x61, count: length)
                        bytes[position] = UInt8(b)
                        let skipped = bytes.withUnsafeBufferPointer { HTTPBytes.skipPlain($0, from: 0, to: length, inRequestLine: requestLine) }
                        #expect(skipped == expected(bytes, 0, length, requestLine), "byte \(b) at \(position) of \(length)")
                    }
                }
            }
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<2_000 {
                let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                    [UInt8(0x09), 0x0A, 0x0D, 0x1F, 0x20, 0x7E, 0x7F, 0x80, 0xFF, UInt8.random(in: 0...255, using: &generator)]
                        .randomElement(using: &generator)!
                }
                let start = Int.random(in: 0...bytes.count, using: &generator), end = Int.random(in: start...bytes.count, using: &generator)
                let skipped = bytes.withUnsafeBufferPointer { HTTPBytes.skipPlain($0, from: start, to: end, inRequestLine: requestLine) }
                #expect(skipped == expected(bytes, start, end, requestLine), "\(bytes) from \(start) to \(end)")
            }
        }
    }
}

@Suite struct ResponseWriterTests {
    static let date = Array("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n".utf8)
    static let options = ResponseWriter.Options(gzipMinimumBytes: 256, gzipLevel: 6)

    func render(_ r: HTTPResponse, head: Bool = false, keepAlive: Bool = true) -> String {
        var out = OutboundQueue()
        _ = ResponseWriter.write(r, facts: RequestFacts(isHead: head, acceptEncoding: .absent), keepAlive: keepAlive,
                                 requestID: "id1", date: Self.date, options: Self.options, into: &out)
        return String(decoding: out.contents, as: UTF8.self)
    }

    @Test func plainResponseIsExact() {
        let text = render(HTTPResponse(headers: ["Content-Type": "text/plain"], body: Array("hi".utf8)))
        #expect(text == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nX-Request-Id: id1\r\nVary: Accept-Encoding\r\n\r\nhi")
    }

    @Test func headKeepsContentLengthButNoBody() {
        let text = render(HTTPResponse(body: Array("hello".utf8)), head: true)
        #expect(text.hasSuffix("Content-Length: 5\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nX-Request-Id: id1\r\n\r\n"))
    }

    @Test func noContentAndNotModifiedHaveNoLengthAndNoBody() {
        #expect(!render(HTTPResponse(status: .noContent, body: [1, 2])).contains("Content-Length"))
        let notModified = render(HTTPResponse(status: .notModified, body: [1, 2]))
        #expect(!notModified.contains("Content-Length"))
        #expect(notModified.hasSuffix("\r\n\r\n"))
    }

    @Test func closingResponsesSayConnectionClose() {
        #expect(render(HTTPResponse(), keepAlive: false).contains("Connection: close\r\n"))
        #expect(render(HTTPResponse(headers: ["Connection": "close"])).contains("Connection: close\r\n"))
    }

    @Test func serverOwnedAndInvalidFieldsAreDropped() {
        let text = render(HTTPResponse(
            headers: ["Content-Length": "99", "X-Evil": "a\r\nInjected: 1", "Bad Name": "x", "Date": "yesterday", "X-Ok": "ok"],
            body: Array("x".utf8)))
        #expect(!text.contains("Content-Length: 99"))
        #expect(!text.contains("Injected"))
        #expect(!text.contains("Bad Name"))
        #expect(!text.contains("yesterday"))
        #expect(text.contains("X-Ok: ok\r\n"))
        #expect(text.contains("Content-Length: 1\r\n"))
    }

    @Test func aResponderVaryListIsReadAsAList() {
        func varyLines(_ vary: String) -> Int {
            let response = HTTPResponse(headers: ["Content-Type": "application/json", "Vary": vary], body: Array(repeating: 65, count: 300))
            return render(response).split(separator: "\r\n").filter { $0.lowercased().hasPrefix("vary:") }.count
        }
        #expect(varyLines("Accept, ACCEPT-ENCODING") == 1)
        #expect(varyLines("*") == 1)
        #expect(varyLines("Accept") == 2)  // ours is added: the body is compressible
        #expect(varyLines("X-Accept-Encoding-Hint") == 2)  // an element, not a substring
    }

    @Test func aLargeBodyIsReferencedAndSentInOrder() {
        let body = (0..<5000).map { UInt8(truncatingIfNeeded: $0) }
        let text = render(HTTPResponse(headers: ["Content-Type": "image/png"], body: body))
        #expect(text.hasSuffix(String(decoding: body, as: UTF8.self)))
        #expect(text.contains("Content-Length: 5000\r\n"))
    }

    @Test func informationalStatusFromAResponderBecomes500() {
        #expect(render(HTTPResponse(status: .continue)).hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"))
    }

    @Test func dateHeaderFormat() {
        var cache = HTTPDateCache()
        cache.update(epochSeconds: 784_111_777)
        #expect(String(decoding: cache.line, as: UTF8.self) == "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n")
    }
}

@Suite struct ConfigurationTests {
    @Test func defaultsAreValid() throws {
        try HTTPServer.Configuration().validate()
    }

    @Test func everyProblemIsReported() {
        var c = HTTPServer.Configuration()
        c.host = "not a host"
        c.port = 70000
        c.maxHeaderCount = 0
        c.headTimeout = .zero
        do {
            try c.validate()
            Issue.record("expected an error")
        } catch {
            #expect(error.problems.count == 4)
        }
    }

    @Test func hostForms() {
        for host in ["127.0.0.1", "::1", "[::1]", "0.0.0.0", "*", "::", "localhost"] {
            #expect(ListenAddress.parse(host) != nil, "\(host)")
        }
        #expect(ListenAddress.parse("*")?.count == 2)
        #expect(ListenAddress.parse("example.com") == nil)
    }

    @Test func requestIDs() {
        var g = RequestIDGenerator(loop: 1)
        #expect(g.next() != g.next())
        // Written digit by digit; each equals the counter in base 36, across every change of length.
        var h = RequestIDGenerator(loop: 37)
        for counter in 1...50_000 {
            let id = h.next()
            if id != RequestIDGenerator.processPrefix + "-11-" + String(counter, radix: 36) {
                Issue.record("request \(counter): \(id)")
                break
            }
        }
        #expect(RequestIDGenerator.isSane("abc-123_x.y:z", maxLength: 128))
        #expect(!RequestIDGenerator.isSane("", maxLength: 128))
        #expect(!RequestIDGenerator.isSane("a b", maxLength: 128))
        #expect(!RequestIDGenerator.isSane(String(repeating: "a", count: 129), maxLength: 128))
    }
}
