#if canImport(Glibc)
import Glibc
#endif

/// How each access-log line is written (docs/http.md has an example of each).
public enum AccessLogFormat: String, Sendable, CaseIterable {
    /// Trellis's own line: time, method, path, status, then `name=value` fields.
    case text
    /// Apache's and nginx's combined format, which log tools read:
    /// `$remote_addr - - [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`.
    case combined
    /// One JSON object per line, for log shippers.
    case json

    /// Whether lines carry `Referer` and `User-Agent` (looked up only when they do).
    var needsAgent: Bool { self != .text }
}

/// One finished request, as the access log and the metrics see it. The request's fields are nil
/// when the server refused it before its head was complete (a parse error, a 408).
struct RequestRecord {
    /// A token (RFC 9110 §9.1, checked by the parser): written as it is, nothing in it to escape.
    var method: String?
    /// The request-target as sent (`/a%20b?x=1`).
    var target: String?
    /// The percent-decoded path.
    var path: String?
    var version: HTTPVersion?
    var status: Int
    var bodyBytes: Int
    var durationNanos: Int64
    /// Generated, or the client's when ``RequestIDGenerator/isSane(_:maxLength:)``: written as it
    /// is, nothing in it to escape in any format.
    var requestID: String
    /// `127.0.0.1:53122` or `[::1]:53122`.
    var remote: String
    var route: String?
    var referer: String? = nil
    var userAgent: String? = nil
}

/// The time fields of the current second, formatted once and reused by every line of that second.
struct AccessLogTime {
    private(set) var second = Int.min
    /// `2026-11-22T10:04:11+01:00` (nginx `$time_iso8601`).
    private(set) var iso8601: [UInt8] = []
    /// `22/Nov/2026:10:04:11 +0100` (nginx `$time_local`).
    private(set) var local: [UInt8] = []

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Reformats when `epochSeconds` moved on.
    /// - Parameter utcOffsetSeconds: the local time's offset from UTC; nil asks `localtime_r` (tests fix it).
    mutating func update(epochSeconds: Int, utcOffsetSeconds: Int? = nil) {
        guard epochSeconds != second else { return }
        second = epochSeconds
        var t = time_t(epochSeconds)
        var parts = tm()
        let offset: Int
        if let utcOffsetSeconds {
            offset = utcOffsetSeconds
            t += time_t(offset)
            gmtime_r(&t, &parts)
        } else {
            localtime_r(&t, &parts)
            offset = Int(parts.tm_gmtoff)
        }
        let year = Int(parts.tm_year) + 1900, month = Int(parts.tm_mon), day = Int(parts.tm_mday)
        let hour = Int(parts.tm_hour), minute = Int(parts.tm_min), sec = Int(parts.tm_sec)
        let sign = UInt8(ascii: offset < 0 ? "-" : "+")
        let offsetHours = abs(offset) / 3600, offsetMinutes = abs(offset) % 3600 / 60

        iso8601.removeAll(keepingCapacity: true)
        ResponseWriter.appendDecimal(year, to: &iso8601)
        for (separator, n) in [("-", month + 1), ("-", day), ("T", hour), (":", minute), (":", sec)] {
            iso8601.append(contentsOf: separator.utf8)
            Self.twoDigits(n, &iso8601)
        }
        iso8601.append(sign)
        Self.twoDigits(offsetHours, &iso8601)
        iso8601.append(HTTPBytes.colon)
        Self.twoDigits(offsetMinutes, &iso8601)

        local.removeAll(keepingCapacity: true)
        Self.twoDigits(day, &local)
        local.append(contentsOf: ("/" + Self.months[month] + "/").utf8)
        ResponseWriter.appendDecimal(year, to: &local)
        for n in [hour, minute, sec] {
            local.append(HTTPBytes.colon)
            Self.twoDigits(n, &local)
        }
        local.append(HTTPBytes.sp)
        local.append(sign)
        Self.twoDigits(offsetHours, &local)
        Self.twoDigits(offsetMinutes, &local)
    }

    private static func twoDigits(_ n: Int, _ out: inout [UInt8]) {
        out.append(UInt8(48 + n / 10 % 10))
        out.append(UInt8(48 + n % 10))
    }
}

/// Formats access-log lines into a byte buffer: no `String` is built per line, and nothing is
/// written here (an event loop's `AccessLogWriter` owns the buffer and its destination).
///
/// Escaping, so that a line is always one line and its fields can be told apart whatever a client
/// sends: `text` and `combined` write `"`, `\`, control bytes and bytes from 0x7F as `\xHH` (as
/// nginx does), and `text` a space too; `json` escapes as RFC 8259 asks.
enum AccessLog {
    /// Query parameters whose values are credentials: a client that sends a token in the URL must
    /// not also leave it in every log store the lines go to.
    static let credentialParameters: [[UInt8]] = ["token", "access_token", "api_key", "apikey", "key", "grant", "secret", "password", "auth"]
        .map { Array($0.utf8) }

    /// `target` with the value of each credential parameter replaced by `REDACTED`; as it is when
    /// it has none. A line is written per request: the common case reads the query once and
    /// allocates nothing.
    static func loggable(_ target: String) -> String {
        let bytes = target.utf8
        guard let question = bytes.firstIndex(of: HTTPBytes.question) else { return target }
        var start = bytes.index(after: question)
        var found = false
        while start < bytes.endIndex, !found {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            if let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")) { found = isCredential(bytes[start..<equals]) }
            start = end == bytes.endIndex ? end : bytes.index(after: end)
        }
        guard found else { return target }
        let items = target[bytes.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { item -> Substring in
            let name = item.prefix { $0 != "=" }
            guard name.count < item.count, isCredential(name.utf8) else { return item }
            return name + "=REDACTED"
        }
        return String(target[...question]) + items.joined(separator: "&")
    }

    /// Whether `name` is one of ``credentialParameters``, in any case.
    private static func isCredential(_ name: Substring.UTF8View) -> Bool {
        credentialParameters.contains { candidate in
            candidate.count == name.count && zip(candidate, name).allSatisfy { $0 == ($1 | 0x20) || $0 == $1 }
        }
    }

    static func append(_ r: RequestRecord, format: AccessLogFormat, time: AccessLogTime, to out: inout [UInt8]) {
        let target = format == .text ? nil : r.target.map(loggable)
        out.appendWriting(atMost: maxLineBytes(r, target: target, time: time)) { line in
            switch format {
            case .text: appendText(r, time, &line)
            case .combined: appendCombined(r, target, time, &line)
            case .json: appendJSON(r, target, time, &line)
            }
            line.put(HTTPBytes.lf)
        }
    }

    /// More than any format writes of `r`: each byte of a value escaped takes at most six
    /// (`\u00XX`), and the rest — names, numbers, time, punctuation — fits in 400.
    private static func maxLineBytes(_ r: RequestRecord, target: String?, time: AccessLogTime) -> Int {
        func count(_ value: String?) -> Int { value?.utf8.count ?? 0 }
        let values = count(r.method) + count(target) + count(r.path) + count(r.route) + count(r.referer) + count(r.userAgent)
            + r.requestID.utf8.count + r.remote.utf8.count
        return 6 * values + time.iso8601.count + time.local.count + 400
    }

    /// `2026-11-22T10:04:11+00:00 GET /hello 200 bytes=5 duration_ms=0.412 request-id=req-42 remote=127.0.0.1:53122 route=/hello`
    private static func appendText(_ r: RequestRecord, _ time: AccessLogTime, _ out: inout ByteCursor) {
        out.put(time.iso8601)
        out.put(HTTPBytes.sp)
        out.put(utf8: r.method ?? "-")
        out.put(HTTPBytes.sp)
        appendEscaped(r.path ?? "-", space: true, &out)
        out.put(HTTPBytes.sp)
        out.put(decimal: r.status)
        out.put(literal: " bytes=")
        out.put(decimal: r.bodyBytes)
        out.put(literal: " duration_ms=")
        appendMillis(r.durationNanos, &out)
        out.put(literal: " request-id=")
        out.put(utf8: r.requestID)
        out.put(literal: " remote=")
        out.put(utf8: r.remote)
        out.put(literal: " route=")
        appendEscaped(r.route ?? "unmatched", space: true, &out)
    }

    /// `127.0.0.1 - - [22/Nov/2026:10:04:11 +0000] "GET /hello?x=1 HTTP/1.1" 200 5 "-" "curl/8.5.0"`
    private static func appendCombined(_ r: RequestRecord, _ target: String?, _ time: AccessLogTime, _ out: inout ByteCursor) {
        appendAddress(of: r.remote, &out)
        out.put(literal: " - - [")
        out.put(time.local)
        out.put(literal: "] \"")
        if let method = r.method, let target {
            out.put(utf8: method)
            out.put(HTTPBytes.sp)
            appendEscaped(target, space: false, &out)
            if let version = r.version {
                out.put(literal: " HTTP/")
                out.put(decimal: version.major)
                out.put(UInt8(ascii: "."))
                out.put(decimal: version.minor)
            }
        } else {
            out.put(UInt8(ascii: "-"))
        }
        out.put(literal: "\" ")
        out.put(decimal: r.status)
        out.put(HTTPBytes.sp)
        out.put(decimal: r.bodyBytes)
        for field in [r.referer, r.userAgent] {
            out.put(literal: " \"")
            appendEscaped(field ?? "-", space: false, &out)
            out.put(UInt8(ascii: "\""))
        }
    }

    /// `{"time":"…","remote":"127.0.0.1:53122","method":"GET","target":"/hello?x=1","path":"/hello",`
    /// `"protocol":"HTTP/1.1","status":200,"bytes":5,"duration_ms":0.412,"request_id":"req-42",`
    /// `"route":"/hello","referer":null,"user_agent":"curl/8.5.0"}`
    private static func appendJSON(_ r: RequestRecord, _ target: String?, _ time: AccessLogTime, _ out: inout ByteCursor) {
        func string(_ name: StaticString, _ value: String?) {
            out.put(literal: name)
            appendJSONString(value, &out)
        }
        out.put(literal: #"{"time":""#)
        out.put(time.iso8601)
        string(#"","remote":"#, r.remote)
        string(#","method":"#, r.method)
        string(#","target":"#, target)
        string(#","path":"#, r.path)
        string(#","protocol":"#, r.version?.description)
        out.put(literal: #","status":"#)
        out.put(decimal: r.status)
        out.put(literal: #","bytes":"#)
        out.put(decimal: r.bodyBytes)
        out.put(literal: #","duration_ms":"#)
        appendMillis(r.durationNanos, &out)
        string(#","request_id":"#, r.requestID)
        string(#","route":"#, r.route)
        string(#","referer":"#, r.referer)
        string(#","user_agent":"#, r.userAgent)
        out.put(UInt8(ascii: "}"))
    }

    /// Milliseconds with three decimals: `0.412`.
    static func appendMillis(_ nanos: Int64, _ out: inout ByteCursor) {
        let micros = Int(max(0, nanos) / 1000)
        out.put(decimal: micros / 1000)
        out.put(UInt8(ascii: "."))
        let fraction = micros % 1000
        out.put(UInt8(48 + fraction / 100))
        out.put(UInt8(48 + fraction / 10 % 10))
        out.put(UInt8(48 + fraction % 10))
    }

    /// The address part of `127.0.0.1:53122` / `[::1]:53122`: nginx's `$remote_addr`.
    static func appendAddress(of remote: String, _ out: inout ByteCursor) {
        var remote = remote
        remote.withUTF8 { utf8 in
            guard let colon = utf8.lastIndex(of: HTTPBytes.colon) else { return out.put(utf8) }
            var host = utf8[..<colon]
            if host.first == UInt8(ascii: "["), host.last == UInt8(ascii: "]") { host = host.dropFirst().dropLast() }
            out.put(UnsafeBufferPointer(rebasing: host))
        }
    }

    /// nginx's escaping of logged values: `"`, `\`, control bytes, DEL and non-ASCII bytes as `\xHH`;
    /// with `space`, a space too (for unquoted fields).
    static func appendEscaped(_ value: String, space: Bool, _ out: inout ByteCursor) {
        HTTPBytes.withBytes(value) { bytes in
            let lowest = space ? HTTPBytes.sp + 1 : HTTPBytes.sp
            func escaped(_ b: UInt8) -> Bool { b < lowest || b >= 0x7F || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") }
            // A loop, not `contains(where:)`, which called the predicate once a byte.
            var i = 0
            while i < bytes.count, !escaped(bytes[i]) { i += 1 }
            guard i < bytes.count else { return out.put(bytes) }
            for b in bytes {
                if escaped(b) {
                    out.put(UInt8(ascii: "\\"))
                    out.put(UInt8(ascii: "x"))
                    out.put(hexDigit(b >> 4))
                    out.put(hexDigit(b & 0xF))
                } else {
                    out.put(b)
                }
            }
        }
    }

    /// A JSON string (RFC 8259 §7), or `null`.
    static func appendJSONString(_ value: String?, _ out: inout ByteCursor) {
        guard let value else { return out.put(literal: "null") }
        out.put(UInt8(ascii: "\""))
        HTTPBytes.withBytes(value) { bytes in
            func escaped(_ b: UInt8) -> Bool { b < 0x20 || b == 0x7F || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") }
            guard bytes.contains(where: escaped) else { return out.put(bytes) }
            for b in bytes {
                switch b {
                case UInt8(ascii: "\""): out.put(literal: #"\""#)
                case UInt8(ascii: "\\"): out.put(literal: #"\\"#)
                case 0x0A: out.put(literal: #"\n"#)
                case 0x0D: out.put(literal: #"\r"#)
                case 0x09: out.put(literal: #"\t"#)
                case _ where b < 0x20 || b == 0x7F:
                    out.put(literal: #"\u00"#)
                    out.put(hexDigit(b >> 4))
                    out.put(hexDigit(b & 0xF))
                default: out.put(b)
                }
            }
        }
        out.put(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ n: UInt8) -> UInt8 { n < 10 ? 48 + n : 55 + n }
}
