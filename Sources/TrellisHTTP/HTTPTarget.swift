/// A request-target split into its decoded path and query (RFC 9112 §3.2, RFC 3986 §2.1).
struct HTTPTarget: Sendable {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    var raw: String
    var path: String
    var query: HTTPQuery

    /// Accepts origin-form (`/p?q`), absolute-form (`http://h/p?q`, RFC 9112 §3.2.2: a server MUST
    /// accept it) and asterisk-form (`*`, OPTIONS only). Authority-form (CONNECT) is refused with 400.
    /// A fragment, a bad percent-escape, a decoded NUL or invalid UTF-8 in the path → 400.
    static func parse(_ b: Bytes, method: HTTPMethod) -> Result<HTTPTarget, HTTPParserError> {
        guard !b.isEmpty else { return .failure(.bad("empty request target")) }
        guard !b.contains(UInt8(ascii: "#")) else { return .failure(.bad("fragment in request target")) }
        let raw = String(decoding: b, as: UTF8.self)
        if b.count == 1 && b[0] == UInt8(ascii: "*") {
            guard method == .options else { return .failure(.bad("asterisk-form target without OPTIONS")) }
            return .success(HTTPTarget(raw: raw, path: "*", query: HTTPQuery()))
        }
        guard let pathStart = originStart(b) else { return .failure(.bad("invalid request target form")) }
        let afterAuthority = Bytes(rebasing: b[pathStart...])
        let q = afterAuthority.firstIndex(of: HTTPBytes.question) ?? afterAuthority.count
        let pathBytes = Bytes(rebasing: afterAuthority[..<q])
        // A target that is all path, without escapes, is one string, not two.
        let isItsPath = pathStart == 0 && q == b.count && !pathBytes.contains(HTTPBytes.percent)
        guard let path = isItsPath ? raw : decodePath(pathBytes) else { return .failure(.bad("invalid percent-encoding in path")) }
        guard q < afterAuthority.count else { return .success(HTTPTarget(raw: raw, path: path, query: HTTPQuery())) }
        guard let query = decodeQuery(Bytes(rebasing: afterAuthority[(q + 1)...])) else {
            return .failure(.bad("invalid percent-encoding in query"))
        }
        return .success(HTTPTarget(raw: raw, path: path, query: query))
    }

    /// Where the path begins: 0 for origin-form; after the authority for absolute-form.
    private static func originStart(_ b: Bytes) -> Int? {
        if b[0] == UInt8(ascii: "/") { return 0 }
        var i = 0
        while i < b.count, b[i] != UInt8(ascii: ":") { i += 1 }
        let scheme = Bytes(rebasing: b[..<i])
        guard HTTPBytes.equalsLowercase(scheme, "http") || HTTPBytes.equalsLowercase(scheme, "https"),
            b.count >= i + 3, b[i + 1] == UInt8(ascii: "/"), b[i + 2] == UInt8(ascii: "/")
        else { return nil }
        i += 3
        let authorityStart = i
        while i < b.count, b[i] != UInt8(ascii: "/"), b[i] != HTTPBytes.question { i += 1 }
        guard i > authorityStart, i < b.count, b[i] == UInt8(ascii: "/") else { return nil }
        return i
    }

    private static func decodePath(_ b: Bytes) -> String? {
        guard b.contains(HTTPBytes.percent) else { return String(decoding: b, as: UTF8.self) }
        guard let bytes = percentDecode(b, plusAsSpace: false), !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// `name=value` pairs separated by `&`, `+` as space (application/x-www-form-urlencoded).
    private static func decodeQuery(_ b: Bytes) -> HTTPQuery? {
        var items: [HTTPQuery.Item] = []
        // Room for every pair at once: growing one item at a time copied the array twice for three.
        items.reserveCapacity(b.reduce(1) { $1 == UInt8(ascii: "&") ? $0 + 1 : $0 })
        var start = 0
        for i in 0...b.count where i == b.count || b[i] == UInt8(ascii: "&") {
            defer { start = i + 1 }
            let pair = Bytes(rebasing: b[start..<i])
            if pair.isEmpty { continue }
            let eq = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.count
            guard let name = decodeComponent(Bytes(rebasing: pair[..<eq])) else { return nil }
            let value = eq < pair.count ? decodeComponent(Bytes(rebasing: pair[(eq + 1)...])) : ""
            guard let value else { return nil }
            items.append((name, value))
        }
        return HTTPQuery(items)
    }

    private static func decodeComponent(_ b: Bytes) -> String? {
        if !b.contains(HTTPBytes.percent) && !b.contains(HTTPBytes.plus) { return String(decoding: b, as: UTF8.self) }
        guard let bytes = percentDecode(b, plusAsSpace: true) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Decodes `%HH` escapes; nil when a `%` is not followed by two hex digits.
    static func percentDecode(_ b: Bytes, plusAsSpace: Bool) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            let c = b[i]
            if c == HTTPBytes.percent {
                guard i + 2 < b.count, let hi = HTTPBytes.hexValue(b[i + 1]), let lo = HTTPBytes.hexValue(b[i + 2]) else {
                    return nil
                }
                out.append(UInt8(hi << 4 | lo))
                i += 3
            } else {
                out.append(plusAsSpace && c == HTTPBytes.plus ? HTTPBytes.sp : c)
                i += 1
            }
        }
        return out
    }
}
