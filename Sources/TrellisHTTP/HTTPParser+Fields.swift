/// What the parser must understand of the header fields to frame the message and decide the
/// connection's fate: `Host`, `Content-Length`, `Transfer-Encoding`, `Connection` and `Expect`.
/// Every other field is only carried.
struct FieldSemantics {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    var hostCount = 0
    var contentLengthCount = 0
    var contentLength = 0
    var contentLengthTooLarge = false
    var transferEncodingSeen = false
    var codingCount = 0
    var chunkedCount = 0
    var lastCodingIsChunked = false
    var connectionClose = false
    var connectionKeepAlive = false
    var expectContinue = false
    var expectOther = false

    /// Records one field; returns an error when the field alone already condemns the request.
    mutating func observe(name: Bytes, value: Bytes, limits: HTTPParserLimits) -> HTTPParserError? {
        switch name.count {
        case 4 where HTTPBytes.equalsLowercase(name, "host"):
            hostCount += 1
            guard Self.isValidHost(value) else { return .bad("invalid Host") }
        case 14 where HTTPBytes.equalsLowercase(name, "content-length"):
            // RFC 9112 §6.3 ¶5: a list or a duplicate is refused, even when the values agree.
            contentLengthCount += 1
            guard contentLengthCount == 1 else { return .bad("duplicate Content-Length") }
            guard !value.isEmpty, value.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                return .bad("invalid Content-Length")
            }
            if value.count > 18 { contentLengthTooLarge = true; return nil }
            contentLength = value.reduce(0) { $0 * 10 + Int($1 - 48) }
            contentLengthTooLarge = contentLength > limits.maxBodyBytes
        case 17 where HTTPBytes.equalsLowercase(name, "transfer-encoding"):
            transferEncodingSeen = true
            Self.forEachListElement(value) { coding in
                codingCount += 1
                lastCodingIsChunked = HTTPBytes.equalsLowercase(coding, "chunked")
                if lastCodingIsChunked { chunkedCount += 1 }
            }
        case 10 where HTTPBytes.equalsLowercase(name, "connection"):
            Self.forEachListElement(value) { option in
                if HTTPBytes.equalsLowercase(option, "close") { connectionClose = true }
                if HTTPBytes.equalsLowercase(option, "keep-alive") { connectionKeepAlive = true }
            }
        case 6 where HTTPBytes.equalsLowercase(name, "expect"):
            Self.forEachListElement(value) { expectation in
                if HTTPBytes.equalsLowercase(expectation, "100-continue") { expectContinue = true } else { expectOther = true }
            }
        default:
            break
        }
        return nil
    }

    /// Decides framing, persistence and expectations once every field is known.
    func head(line: HTTPParser.RequestLine, headers: HTTPHeaders) -> Result<HTTPRequestHead, HTTPParserError> {
        let http11 = line.version.minor >= 1
        // RFC 9112 §3.2: an HTTP/1.1 request carries exactly one Host.
        if http11 ? hostCount != 1 : hostCount > 1 { return .failure(.bad("Host must appear exactly once")) }
        var framing = HTTPBodyFraming.none
        if transferEncodingSeen {
            // RFC 9112 §6.1, §6.3: TE with CL, TE in HTTP/1.0, or chunked not last are all faulty framing.
            if contentLengthCount > 0 { return .failure(.bad("both Transfer-Encoding and Content-Length")) }
            if !http11 { return .failure(.bad("Transfer-Encoding in HTTP/1.0")) }
            if codingCount == 0 || !lastCodingIsChunked || chunkedCount > 1 {
                return .failure(.bad("final transfer coding is not chunked"))
            }
            if codingCount > 1 {
                return .failure(HTTPParserError(status: .notImplemented, reason: "unsupported transfer coding"))
            }
            framing = .chunked
        } else if contentLengthCount > 0 {
            if contentLengthTooLarge {
                return .failure(HTTPParserError(status: .contentTooLarge, reason: "Content-Length over the limit"))
            }
            if contentLength > 0 { framing = .length(contentLength) }
        }
        // RFC 9110 §10.1.1: unknown expectations may be refused with 417.
        if expectOther { return .failure(HTTPParserError(status: .expectationFailed, reason: "unsupported expectation")) }
        return .success(HTTPRequestHead(
            method: line.method, target: line.target.raw, path: line.target.path, query: line.target.query,
            version: line.version, headers: headers, framing: framing,
            keepAlive: http11 ? !connectionClose : (connectionKeepAlive && !connectionClose),
            expectsContinue: expectContinue && http11 && framing != .none))
    }

    /// Calls `body` with each non-empty, trimmed element of a comma-separated list (RFC 9110 §5.6.1).
    static func forEachListElement(_ value: Bytes, _ body: (Bytes) -> Void) {
        _ = containsListElement(value) { body($0); return false }
    }

    /// Whether a non-empty, trimmed element of a comma-separated list satisfies `test`; stops at
    /// the first that does.
    static func containsListElement(_ value: Bytes, where test: (Bytes) -> Bool) -> Bool {
        var start = 0
        for i in 0...value.count where i == value.count || value[i] == UInt8(ascii: ",") {
            let element = HTTPParser.trimmed(Bytes(rebasing: value[start..<i]))
            if !element.isEmpty && test(element) { return true }
            start = i + 1
        }
        return false
    }

    /// `Host = uri-host [ ":" port ]` (RFC 9110 §7.2): reg-name, IPv4 or IP-literal characters only.
    static func isValidHost(_ value: Bytes) -> Bool {
        value.allSatisfy { b in
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "-._~:[]%!$&'()*+;=".utf8.contains(b)
            }
        }
    }
}
