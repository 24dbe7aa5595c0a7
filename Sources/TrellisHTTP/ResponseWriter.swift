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
        let encoded = coding != .notAcceptable ? response.encodedFields : nil
        let others = coding != .notAcceptable ? response.otherHeaders : HTTPHeaders()
        let most = statusLineBytes(status) + (encoded?.bytes.count ?? 0) + fieldBytes(others) + date.count
            + requestID.utf8.count + headBytesBesides
        out.appendWriting(atMost: most) { head in
            appendStatusLine(status, to: &head)
            var fields = encoded?.facts ?? FieldFacts()
            if let encoded { head.put(encoded.bytes) }
            fields.add(appendFields(others, to: &head))
            if fields.closes { keepAlive = false }
            if bodyAllowed {
                head.put(literal: "Content-Length: ")
                head.put(decimal: body.count)
                head.put(literal: "\r\n")
            }
            head.put(date)
            if !fields.hasRequestID { appendField("X-Request-Id", requestID, to: &head) }
            if case .gzip = coding { head.put(literal: "Content-Encoding: gzip\r\n") }
            if coding.variesOnAcceptEncoding && !fields.variesOnAcceptEncoding { head.put(literal: "Vary: Accept-Encoding\r\n") }
            if !keepAlive {
                head.put(literal: "Connection: close\r\n")
            } else if facts.isHTTP10 {
                head.put(literal: "Connection: keep-alive\r\n")
            }
            head.put(literal: "\r\n")
        }
        return (Outcome(status: status.code, bodyBytes: sent, keepAlive: keepAlive), body)
    }

    /// More than a head writes besides its status line, fields, `Date` and request id: the
    /// framing and coding fields the writer adds (`Content-Length` with 20 digits, `X-Request-Id: `,
    /// `Content-Encoding`, `Vary`, `Connection`, the blank line) come to under 160.
    private static let headBytesBesides = 160

    /// The head of a stream (``HTTPReply/stream(_:)``): the responder's fields (framing ones
    /// dropped, as always), then `Transfer-Encoding: chunked` for HTTP/1.1, or `Connection: close`
    /// for HTTP/1.0, whose body ends when the connection does. No gzip: each event must reach
    /// the client when it is written, not when a compressor flushes.
    static func writeStreamHead(
        _ head: HTTPResponse, chunked: Bool, requestID: String, date: [UInt8], into out: inout [UInt8]
    ) -> Outcome {
        let encoded = head.encodedFields
        let most = statusLineBytes(head.status) + (encoded?.bytes.count ?? 0) + fieldBytes(head.otherHeaders) + date.count
            + requestID.utf8.count + headBytesBesides
        out.appendWriting(atMost: most) { out in
            appendStatusLine(head.status, to: &out)
            if let encoded { out.put(encoded.bytes) }
            let facts = (encoded?.facts ?? FieldFacts()).adding(appendFields(head.otherHeaders, to: &out))
            out.put(literal: chunked ? "Transfer-Encoding: chunked\r\n" : "Connection: close\r\n")
            out.put(date)
            if !facts.hasRequestID { appendField("X-Request-Id", requestID, to: &out) }
            out.put(literal: "\r\n")
        }
        return Outcome(status: head.status.code, bodyBytes: 0, keepAlive: false)
    }

    /// An error the server answers itself (parse errors, timeouts): a short text body, then close.
    static func writeError(_ status: HTTPStatus, requestID: String, date: [UInt8], into out: inout [UInt8]) -> Outcome {
        let body = Array("\(status.code) \(status.reasonPhrase)\n".utf8)
        out.appendWriting(atMost: statusLineBytes(status) + date.count + requestID.utf8.count + body.count + headBytesBesides) { out in
            appendStatusLine(status, to: &out)
            out.put(literal: "Content-Type: text/plain; charset=utf-8\r\nContent-Length: ")
            out.put(decimal: body.count)
            out.put(literal: "\r\n")
            out.put(date)
            appendField("X-Request-Id", requestID, to: &out)
            out.put(literal: "Connection: close\r\n\r\n")
            out.put(body)
        }
        return Outcome(status: status.code, bodyBytes: body.count, keepAlive: false)
    }

    /// `HTTP/1.1 SP status-code SP reason-phrase CRLF` (RFC 9112 §4). We always speak 1.1.
    static func appendStatusLine(_ status: HTTPStatus, to out: inout ByteCursor) {
        if status == .ok { return out.put(okLine) }  // most answers: one copy
        out.put(literal: "HTTP/1.1 ")
        out.put(decimal: status.code)
        out.put(HTTPBytes.sp)
        for b in status.reasonPhrase.utf8 where HTTPBytes.isFieldByte(b) { out.put(b) }
        out.put(literal: "\r\n")
    }

    /// At most what ``appendStatusLine(_:to:)`` writes.
    private static func statusLineBytes(_ status: HTTPStatus) -> Int { 32 + status.reasonPhrase.utf8.count }

    static func appendField(_ name: String, _ value: String, to out: inout ByteCursor) {
        out.put(utf8: name)
        out.put(literal: ": ")
        out.put(utf8: value)
        out.put(literal: "\r\n")
    }

    /// At most what ``appendFields(_:to:)`` writes of `headers`.
    static func fieldBytes(_ headers: HTTPHeaders) -> Int {
        headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }

    /// `n` in decimal, for the writers of dates that write into arrays.
    static func appendDecimal(_ n: Int, to out: inout [UInt8]) {
        out.appendWriting(atMost: 20) { $0.put(decimal: n) }
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
    static func appendFields(_ headers: HTTPHeaders, to out: inout ByteCursor) -> FieldFacts {
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
