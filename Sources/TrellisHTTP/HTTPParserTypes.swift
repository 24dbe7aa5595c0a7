/// The limits the request parser enforces while it reads. `HTTPServer.Configuration` owns the
/// values and their documentation; the parser only applies them.
struct HTTPParserLimits: Sendable, Equatable {
    /// Longest request line (method, target and version, without CRLF), in bytes → 414.
    var maxRequestLineBytes = 8192
    /// Largest head (request line + header lines + CRLFs), in bytes → 431. Also bounds trailers.
    var maxHeaderBytes = 32768
    /// Most header field lines in a head (and trailer lines in a chunked body) → 431.
    var maxHeaderCount = 100
    /// Largest body, after de-chunking, in bytes → 413.
    var maxBodyBytes = 1 << 20
    /// Longest chunk-size line (size and chunk extensions), in bytes → 400.
    var maxChunkLineBytes = 4096
}

/// How the body of a request is delimited (RFC 9112 §6.3).
enum HTTPBodyFraming: Sendable, Equatable {
    case none
    case length(Int)
    case chunked
}

/// A parsed request head: everything before the body, with the framing already decided.
struct HTTPRequestHead: Sendable {
    var method: HTTPMethod
    var target: String
    var path: String
    var query: HTTPQuery
    var version: HTTPVersion
    var headers: HTTPHeaders
    var framing: HTTPBodyFraming
    /// Whether the connection may stay open after the response (RFC 9112 §9.3).
    var keepAlive: Bool
    /// The client sent `Expect: 100-continue` on an HTTP/1.1 request with a body (RFC 9110 §10.1.1).
    var expectsContinue: Bool
}

/// Why a request was refused: the status to answer with and a short reason for the log.
/// Every parser error closes the connection after the response.
struct HTTPParserError: Error, Sendable, Equatable {
    var status: HTTPStatus
    var reason: String

    static func bad(_ reason: String) -> Self { Self(status: .badRequest, reason: reason) }
}

/// One step of the parser.
enum HTTPParserEvent: Sendable {
    /// The input ends inside a message; call again with the same unconsumed bytes plus more.
    case needMoreData
    /// A complete head. Body events follow (if any), then `.end`.
    case head(HTTPRequestHead)
    /// A piece of the body, de-chunked.
    case body([UInt8])
    /// The message is complete; the parser is ready for the next request on the connection.
    case end
    /// The input is not acceptable HTTP/1.1; answer with `error.status` and close.
    case error(HTTPParserError)
}

/// Byte classes of RFC 9110 §5.6.2 (token) and §5.5 (field values).
enum HTTPBytes {
    static let cr: UInt8 = 13, lf: UInt8 = 10, sp: UInt8 = 32, htab: UInt8 = 9
    static let colon: UInt8 = 58, percent: UInt8 = 37, plus: UInt8 = 43, question: UInt8 = 63

    /// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
    /// / DIGIT / ALPHA (RFC 9110 §5.6.2), as a bit per ASCII byte: a shift and a mask, where a table
    /// would cost a lazy global's check and a bounds check on every byte of every head.
    static let tokenBitsLow: UInt64 = 0x03ff_6cfa_0000_0000, tokenBitsHigh: UInt64 = 0x57ff_ffff_c7ff_fffe

    @inline(__always) static func isToken(_ b: UInt8) -> Bool {
        b < 64 ? (tokenBitsLow >> UInt64(b)) & 1 == 1 : b < 128 && (tokenBitsHigh >> UInt64(b - 64)) & 1 == 1
    }
    @inline(__always) static func isWhitespace(_ b: UInt8) -> Bool { b == sp || b == htab }
    /// VCHAR (visible ASCII), the only bytes allowed in a request-target besides nothing.
    @inline(__always) static func isVisible(_ b: UInt8) -> Bool { b > 0x20 && b < 0x7F }
    /// field-vchar / SP / HTAB (obs-text included, RFC 9110 §5.5): no CTLs, no DEL.
    @inline(__always) static func isFieldByte(_ b: UInt8) -> Bool {
        (b >= 0x20 && b != 0x7F) || b == htab
    }

    /// Whether every byte is a field byte (``isFieldByte(_:)``), eight at a time: a word with no
    /// byte below 0x20 and none equal to 0x7F needs no closer look (a tab does).
    static func areFieldBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highBits: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let delFree = word ^ (ones &* 0x7F)
                let suspicious = ((word &- ones &* 0x20) & ~word | (delFree &- ones) & ~delFree) & highBits
                if suspicious != 0 {
                    for b in bytes[index..<index + 8] where !isFieldByte(b) { return false }
                }
                index += 8
            }
        }
        for b in bytes[index...] where !isFieldByte(b) { return false }
        return true
    }

    /// The index of the first byte from `start` (before `end`) that is not plain: in a request
    /// line, plain is SP or VCHAR (0x20–0x7E); in a field line, a field byte (``isFieldByte(_:)``)
    /// other than HTAB. CR and LF are never plain. `end` if every byte before it is.
    static func skipPlain(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, inRequestLine: Bool) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101, highBits: UInt64 = 0x8080_8080_8080_8080
        // A request line also stops at bytes of 0x80 and above.
        let stopHigh = inRequestLine ? highBits : 0
        var index = start
        if let base = bytes.baseAddress {
            while index + 8 <= end {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let delFree = word ^ (ones &* 0x7F)
                // A high bit per byte below 0x20, equal to 0x7F, or (in a request line) 0x80 and above.
                let stops = ((word &- ones &* 0x20) & ~word | (delFree &- ones) & ~delFree | word & stopHigh) & highBits
                if stops != 0 { return index + (stops.trailingZeroBitCount >> 3) }
                index += 8
            }
        }
        while index < end {
            let b = bytes[index]
            guard b >= 0x20, b != 0x7F, !inRequestLine || b < 0x80 else { return index }
            index += 1
        }
        return end
    }

    static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(b - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// A string's UTF-8 bytes without copying them when it is stored contiguously (native strings are).
    @inline(__always) static func withBytes<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = string
        return copy.withUTF8(body)
    }

    /// ASCII case-insensitive comparison of bytes with a lowercase literal.
    static func equalsLowercase(_ bytes: UnsafeBufferPointer<UInt8>, _ lower: StaticString) -> Bool {
        guard bytes.count == lower.utf8CodeUnitCount else { return false }
        let l = lower.utf8Start
        var i = 0
        for b in bytes {
            let folded = (b >= 65 && b <= 90) ? b | 0x20 : b
            if folded != l[i] { return false }
            i += 1
        }
        return true
    }
}
