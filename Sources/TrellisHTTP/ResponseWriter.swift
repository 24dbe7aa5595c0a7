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

    /// Appends `response` to `out`.
    /// - Parameter keepAlive: whether the server intends to keep the connection; a responder's
    ///   `Connection: close` turns it off.
    static func write(
        _ response: HTTPResponse, facts: RequestFacts, keepAlive: Bool, requestID: String,
        date: [UInt8], options: Options, into out: inout [UInt8]
    ) -> Outcome {
        var status = response.status
        if status.code < 200 || status.code > 999 { status = .internalServerError }
        var keepAlive = keepAlive
        let coding = ContentCoding.choose(for: response, accept: facts.acceptEncoding, options: options)
        if coding == .notAcceptable { status = .notAcceptable }
        let body: [UInt8]
        switch coding {
        case .identity(_): body = response.body
        case .gzip(_): body = response.gzipBody ?? Gzip.compress(response.body, level: options.gzipLevel)
        case .notAcceptable: body = []
        }
        let bodyAllowed = status.code != 204 && status.code != 304
        out.reserveCapacity(out.count + 256 + body.count)
        appendStatusLine(status, to: &out)
        var sawRequestID = false, sawVary = false
        if coding != .notAcceptable {
            for field in response.headers {
                switch classify(field.name) {
                case .owned: continue
                case .connection: if containsClose(field.value) { keepAlive = false }; continue
                case .requestID: sawRequestID = true
                case .vary: sawVary = sawVary || field.value.lowercased().contains("accept-encoding")
                case .other: break
                }
                guard isValidField(field.name, field.value) else { continue }
                appendField(field.name, field.value, to: &out)
            }
        }
        if bodyAllowed {
            out.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(body.count, to: &out)
            out.append(contentsOf: "\r\n".utf8)
        }
        out.append(contentsOf: date)
        if !sawRequestID { appendField("X-Request-Id", requestID, to: &out) }
        if case .gzip = coding { out.append(contentsOf: "Content-Encoding: gzip\r\n".utf8) }
        if coding.variesOnAcceptEncoding && !sawVary { out.append(contentsOf: "Vary: Accept-Encoding\r\n".utf8) }
        if !keepAlive {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if facts.isHTTP10 {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: "\r\n".utf8)
        let sent = bodyAllowed && !facts.isHead ? body.count : 0
        if sent > 0 { out.append(contentsOf: body) }
        return Outcome(status: status.code, bodyBytes: sent, keepAlive: keepAlive)
    }

    /// An error the server answers itself (parse errors, timeouts): a short text body, then close.
    static func writeError(_ status: HTTPStatus, requestID: String, date: [UInt8], into out: inout [UInt8]) -> Outcome {
        let body = Array("\(status.code) \(status.reasonPhrase)\n".utf8)
        appendStatusLine(status, to: &out)
        out.append(contentsOf: "Content-Type: text/plain; charset=utf-8\r\nContent-Length: ".utf8)
        appendDecimal(body.count, to: &out)
        out.append(contentsOf: "\r\n".utf8)
        out.append(contentsOf: date)
        appendField("X-Request-Id", requestID, to: &out)
        out.append(contentsOf: "Connection: close\r\n\r\n".utf8)
        out.append(contentsOf: body)
        return Outcome(status: status.code, bodyBytes: body.count, keepAlive: false)
    }

    /// `HTTP/1.1 SP status-code SP reason-phrase CRLF` (RFC 9112 §4). We always speak 1.1.
    static func appendStatusLine(_ status: HTTPStatus, to out: inout [UInt8]) {
        out.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(status.code, to: &out)
        out.append(HTTPBytes.sp)
        for b in status.reasonPhrase.utf8 where HTTPBytes.isFieldByte(b) { out.append(b) }
        out.append(contentsOf: "\r\n".utf8)
    }

    static func appendField(_ name: String, _ value: String, to out: inout [UInt8]) {
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: ": ".utf8)
        out.append(contentsOf: value.utf8)
        out.append(contentsOf: "\r\n".utf8)
    }

    static func appendDecimal(_ n: Int, to out: inout [UInt8]) {
        guard n >= 10 else { out.append(UInt8(48 + max(n, 0))); return }
        appendDecimal(n / 10, to: &out)
        out.append(UInt8(48 + n % 10))
    }

    private enum FieldKind { case owned, connection, requestID, vary, other }

    private static func classify(_ name: String) -> FieldKind {
        switch name.utf8.count {
        case 4 where HTTPHeaders.equalNames(name, "Date"): return .owned
        case 4 where HTTPHeaders.equalNames(name, "Vary"): return .vary
        case 10 where HTTPHeaders.equalNames(name, "Connection"): return .connection
        case 10 where HTTPHeaders.equalNames(name, "Keep-Alive"): return .owned
        case 12 where HTTPHeaders.equalNames(name, "X-Request-Id"): return .requestID
        case 14 where HTTPHeaders.equalNames(name, "Content-Length"): return .owned
        case 17 where HTTPHeaders.equalNames(name, "Transfer-Encoding"): return .owned
        default: return .other
        }
    }

    private static func containsClose(_ value: String) -> Bool {
        value.split(separator: ",").contains { $0.trimmingASCIIWhitespace().lowercased() == "close" }
    }

    private static func isValidField(_ name: String, _ value: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(HTTPBytes.isToken) && value.utf8.allSatisfy(HTTPBytes.isFieldByte)
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
