/// What the writer needs to know about the request a response answers.
struct RequestFacts {
    var isHead: Bool
    var acceptEncoding: AcceptEncoding
    /// An HTTP/1.0 client keeps the connection only when the response says `keep-alive`.
    var isHTTP10 = false
}

/// Serialises a response — status line, header fields and body — into one buffer, so the
/// connection sends it with one `write` (RFC 9112 §4, §6). The server owns the framing fields:
/// `Content-Length`, `Transfer-Encoding`, `Connection` and `Date` from a responder are dropped,
/// as is any field whose name is not a token or whose value holds a control character (no
/// response splitting).
enum ResponseWriter {
    struct Options {
        var gzipMinimumBytes: Int
        var gzipLevel: Int
    }

    /// What was written, for the access log and metrics.
    struct Outcome {
        var status: Int
        var bodyBytes: Int
        var keepAlive: Bool
    }

    static let continueLine: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    static let okLine: [UInt8] = Array("HTTP/1.1 200 OK\r\n".utf8)

    /// Appends `response` to `out` (a large body by reference).
    /// - Parameter keepAlive: whether the server intends to keep the connection; a responder's
    ///   `Connection: close` turns it off.
    static func write(
        _ response: HTTPResponse, facts: RequestFacts, keepAlive: Bool, requestID: String,
        date: [UInt8], options: Options, into queue: inout OutboundQueue
    ) -> Outcome {
        let (outcome, body) = writeHead(
            response, facts: facts, keepAlive: keepAlive, requestID: requestID, date: date, options: options,
            into: &queue.buffer)
        if outcome.bodyBytes > 0 { queue.append(body: body) }
        return outcome
    }

    /// Appends the status line and header fields; returns the body to send after them.
    private static func writeHead(
        _ response: HTTPResponse, facts: RequestFacts, keepAlive: Bool, requestID: String,
        date: [UInt8], options: Options, into out: inout [UInt8]
    ) -> (Outcome, body: HTTPResponse.Content) {
        var status = response.status
        if status.code < 200 || status.code > 999 { status = .internalServerError }
        var keepAlive = keepAlive
        let coding = ContentCoding.choose(for: response, accept: facts.acceptEncoding, options: options)
        if coding == .notAcceptable { status = .notAcceptable }
        let body: HTTPResponse.Content
        switch coding {
        case .identity(_): body = response.content
        case .gzip(_):
            body = .bytes(response.gzipBody ?? response.content.withBytes { Gzip.compress($0, level: options.gzipLevel) })
        case .notAcceptable: body = .bytes([])
        }
        let bodyAllowed = status.code != 204 && status.code != 304
        let sent = bodyAllowed && !facts.isHead ? body.count : 0
        out.reserveCapacity(out.count + 512 + (sent < OutboundQueue.referenceThreshold ? sent : 0))
        appendStatusLine(status, to: &out)
        var fields = FieldFacts()
        if coding != .notAcceptable {
            if let encoded = response.encodedFields {
                out.append(contentsOf: encoded.bytes)
                fields = encoded.facts
            }
            fields.add(appendFields(response.otherHeaders, to: &out))
        }
        if fields.closes { keepAlive = false }
        if bodyAllowed {
            out.append(literal: "Content-Length: ")
            appendDecimal(body.count, to: &out)
            out.append(literal: "\r\n")
        }
        out.append(contentsOf: date)
        if !fields.hasRequestID { appendField("X-Request-Id", requestID, to: &out) }
        if case .gzip = coding { out.append(literal: "Content-Encoding: gzip\r\n") }
        if coding.variesOnAcceptEncoding && !fields.variesOnAcceptEncoding { out.append(literal: "Vary: Accept-Encoding\r\n") }
        if !keepAlive {
            out.append(literal: "Connection: close\r\n")
        } else if facts.isHTTP10 {
            out.append(literal: "Connection: keep-alive\r\n")
        }
        out.append(literal: "\r\n")
        return (Outcome(status: status.code, bodyBytes: sent, keepAlive: keepAlive), body)
    }

    /// The head of a stream (``HTTPReply/stream(_:)``): the responder's fields (framing ones
    /// dropped, as always), then `Transfer-Encoding: chunked` for HTTP/1.1, or `Connection: close`
    /// for HTTP/1.0, whose body ends when the connection does. No gzip: each event must reach
    /// the client when it is written, not when a compressor flushes.
    static func writeStreamHead(
        _ head: HTTPResponse, chunked: Bool, requestID: String, date: [UInt8], into out: inout [UInt8]
    ) -> Outcome {
        appendStatusLine(head.status, to: &out)
        if let encoded = head.encodedFields { out.append(contentsOf: encoded.bytes) }
        let facts = (head.encodedFields?.facts ?? FieldFacts()).adding(appendFields(head.otherHeaders, to: &out))
        out.append(literal: chunked ? "Transfer-Encoding: chunked\r\n" : "Connection: close\r\n")
        out.append(contentsOf: date)
        if !facts.hasRequestID { appendField("X-Request-Id", requestID, to: &out) }
        out.append(literal: "\r\n")
        return Outcome(status: head.status.code, bodyBytes: 0, keepAlive: false)
    }

    /// An error the server answers itself (parse errors, timeouts): a short text body, then close.
    static func writeError(_ status: HTTPStatus, requestID: String, date: [UInt8], into out: inout [UInt8]) -> Outcome {
        let body = Array("\(status.code) \(status.reasonPhrase)\n".utf8)
        appendStatusLine(status, to: &out)
        out.append(literal: "Content-Type: text/plain; charset=utf-8\r\nContent-Length: ")
        appendDecimal(body.count, to: &out)
        out.append(literal: "\r\n")
        out.append(contentsOf: date)
        appendField("X-Request-Id", requestID, to: &out)
        out.append(literal: "Connection: close\r\n\r\n")
        out.append(contentsOf: body)
        return Outcome(status: status.code, bodyBytes: body.count, keepAlive: false)
    }

    /// `HTTP/1.1 SP status-code SP reason-phrase CRLF` (RFC 9112 §4). We always speak 1.1.
    static func appendStatusLine(_ status: HTTPStatus, to out: inout [UInt8]) {
        if status == .ok { return out.append(contentsOf: okLine) }  // most answers: one copy
        out.append(literal: "HTTP/1.1 ")
        appendDecimal(status.code, to: &out)
        out.append(HTTPBytes.sp)
        for b in status.reasonPhrase.utf8 where HTTPBytes.isFieldByte(b) { out.append(b) }
        out.append(literal: "\r\n")
    }

    static func appendField(_ name: String, _ value: String, to out: inout [UInt8]) {
        out.append(utf8: name)
        out.append(literal: ": ")
        out.append(utf8: value)
        out.append(literal: "\r\n")
    }

    static func appendDecimal(_ n: Int, to out: inout [UInt8]) {
        guard n >= 10 else { out.append(UInt8(48 + max(n, 0))); return }
        appendDecimal(n / 10, to: &out)
        out.append(UInt8(48 + n % 10))
    }

    /// What the writer reads of a responder's fields besides sending them.
    struct FieldFacts: Sendable {
        /// A `Connection` field that lists `close`.
        var closes = false
        var hasRequestID = false
        /// A `Vary` that lists `accept-encoding` or `*`.
        var variesOnAcceptEncoding = false
        var hasContentEncoding = false
        /// A `Content-Type` worth compressing (``ContentCoding/isTextual(_:)``).
        var isTextual = false

        func adding(_ other: FieldFacts) -> FieldFacts {
            var sum = self
            sum.add(other)
            return sum
        }

        mutating func add(_ other: FieldFacts) {
            closes = closes || other.closes
            hasRequestID = hasRequestID || other.hasRequestID
            variesOnAcceptEncoding = variesOnAcceptEncoding || other.variesOnAcceptEncoding
            hasContentEncoding = hasContentEncoding || other.hasContentEncoding
            isTextual = isTextual || other.isTextual
        }
    }

    /// Appends each of a responder's fields that may go out — not the framing fields the server
    /// owns, not one whose name is no token or whose value holds a control character — and says
    /// what the writer needs of them.
    static func appendFields(_ headers: HTTPHeaders, to out: inout [UInt8]) -> FieldFacts {
        var facts = FieldFacts()
        for field in headers {
            switch classify(field.name) {
            case .owned: continue
            case .connection: facts.closes = facts.closes || listContains(field.value, "close"); continue
            case .requestID: facts.hasRequestID = true
            case .vary:
                facts.variesOnAcceptEncoding =
                    facts.variesOnAcceptEncoding || listContains(field.value, "accept-encoding") || listContains(field.value, "*")
            case .contentEncoding: facts.hasContentEncoding = true
            case .contentType: facts.isTextual = facts.isTextual || ContentCoding.isTextual(field.value)
            case .other: break
            }
            guard isValidField(field.name, field.value) else { continue }
            appendField(field.name, field.value, to: &out)
        }
        return facts
    }

    private enum FieldKind { case owned, connection, requestID, vary, contentEncoding, contentType, other }

    private static func classify(_ name: String) -> FieldKind {
        switch name.utf8.count {
        case 4 where HTTPHeaders.equalNames(name, "Date"): return .owned
        case 4 where HTTPHeaders.equalNames(name, "Vary"): return .vary
        case 10 where HTTPHeaders.equalNames(name, "Connection"): return .connection
        case 10 where HTTPHeaders.equalNames(name, "Keep-Alive"): return .owned
        case 12 where HTTPHeaders.equalNames(name, "X-Request-Id"): return .requestID
        case 12 where HTTPHeaders.equalNames(name, "Content-Type"): return .contentType
        case 14 where HTTPHeaders.equalNames(name, "Content-Length"): return .owned
        case 16 where HTTPHeaders.equalNames(name, "Content-Encoding"): return .contentEncoding
        case 17 where HTTPHeaders.equalNames(name, "Transfer-Encoding"): return .owned
        default: return .other
        }
    }

    /// Whether the list field `value` (RFC 9110 §5.6.1) has the element `lower`, ignoring case, on
    /// its bytes: every cached answer carries a long `Vary`, and searching it as a String cost more
    /// than writing the rest of the head.
    private static func listContains(_ value: String, _ lower: StaticString) -> Bool {
        HTTPBytes.withBytes(value) { FieldSemantics.containsListElement($0) { HTTPBytes.equalsLowercase($0, lower) } }
    }

    /// Whether a responder's field may go out: a token name, a value without control characters
    /// (no response splitting). Checked on the strings' bytes: per-character String iteration cost more than all the rest
    /// of writing a cached answer's head.
    private static func isValidField(_ name: String, _ value: String) -> Bool {
        HTTPBytes.withBytes(name) { name in
            HTTPBytes.withBytes(value) { value in
                !name.isEmpty && name.allSatisfy(HTTPBytes.isToken) && HTTPBytes.areFieldBytes(value)
            }
        }
    }
}

extension Substring {
    func trimmingASCIIWhitespace() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}

extension Array where Element == UInt8 {
    /// Appends a literal's bytes in one copy (appending a String's `utf8` view goes byte by byte).
    @inline(__always) mutating func append(literal: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends a string's UTF-8 bytes in one copy.
    @inline(__always) mutating func append(utf8 string: String) {
        HTTPBytes.withBytes(string) { append(contentsOf: $0) }
    }
}
