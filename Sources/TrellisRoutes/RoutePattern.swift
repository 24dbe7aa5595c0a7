import TrellisJSON

/// One segment of a route pattern.
public enum PatternSegment: Sendable, Equatable, CustomStringConvertible {
    /// Text the URL's segment must equal (case-sensitively, after percent-decoding).
    case literal(String)
    /// `:name` (type ``ParameterType/string``: any one non-empty segment) or `:name(TYPE)`.
    case parameter(name: String, type: ParameterType)
    /// `*name`, the last segment: zero or more remaining segments.
    case wildcard(name: String)

    public var description: String {
        switch self {
        case .literal(let text): text
        case .parameter(let name, .string): ":" + name
        case .parameter(let name, let type): ":\(name)(\(type))"
        case .wildcard(let name): "*" + name
        }
    }

    /// How specific the segment is: static 3 > typed 2 > untyped 1 > wildcard 0.
    var rank: Int {
        switch self {
        case .literal: 3
        case .parameter(_, .string): 1
        case .parameter: 2
        case .wildcard: 0
        }
    }

    /// Whether a URL segment (decoded) fits this one; a wildcard fits anything.
    func accepts(_ segment: String) -> Bool {
        switch self {
        case .literal(let text): text == segment
        case .parameter(_, let type): type.accepts(segment)
        case .wildcard: true
        }
    }
}

/// A route's URL pattern, such as `app://product/:id(int)` or `app://help/*path`.
///
/// Grammar: `scheme://segment/segment…`, at least one segment, no query and no fragment (query
/// parameters are declared in `query`). A segment is
/// - static text of URL-unreserved characters (`A-Z a-z 0-9 - . _ ~`), matched case-sensitively;
/// - `:name`, any one non-empty segment, a string;
/// - `:name(TYPE)` with a ``ParameterType`` spelling other than `string` (`int`, `number`, `uuid`,
///   `bool`, `a|b|c`);
/// - `*name`, only last: zero or more remaining segments, their text joined by `/`.
///
/// Names are identifiers (1–64 of `a-z A-Z 0-9 _ - .`); `url` is reserved for `{url}`. The scheme
/// is matched case-insensitively.
///
/// ## Precedence
/// A URL may match several patterns; the most specific wins. Patterns are compared segment by
/// segment from the first: static text beats a typed parameter, which beats an untyped one, which
/// beats a wildcard; the first segment where they differ decides. Where one pattern has ended and
/// the other continues with a wildcard, the one that ended wins (`app://help` beats
/// `app://help/*path` for `app://help`). Two patterns of one scheme that are equal at every
/// position and can both match some URL (`app://p/:a(int)` and `app://p/:b(number)` both match
/// `app://p/1`) are refused when the table is decoded, so the winner is never a matter of file order.
public struct RoutePattern: Sendable, Equatable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String
    /// The scheme in lower case.
    public let scheme: String
    public let segments: [PatternSegment]

    public var description: String { text }

    /// Parses a pattern.
    /// - Throws: the first mistake, naming the offending segment or offset.
    init(parsing text: String) throws(RouteSyntaxError) {
        let bytes = Array(text.utf8)
        let schemeEnd: Int
        let rawSegments: [String]
        do throws(AppURLError.Problem) {
            guard bytes.count <= RouteLimits.maximumURLBytes else { throw .init("longer than \(RouteLimits.maximumURLBytes) bytes") }
            schemeEnd = try AppURL.schemeEnd(bytes)
            if let i = bytes.firstIndex(where: { $0 == 0x3F || $0 == 0x23 }) {
                throw .init("a pattern has no \(bytes[i] == 0x3F ? "query (declare query parameters in \"query\")" : "fragment")", at: i)
            }
            if let i = bytes.firstIndex(where: { $0 <= 0x20 || $0 == 0x7F || $0 == 0x25 }) {
                throw .init(bytes[i] == 0x25 ? "percent escapes are not allowed in a pattern" : "space or control character", at: i)
            }
            let path = bytes[(schemeEnd + 3)...]
            guard !path.isEmpty else { throw .init("a pattern needs at least one segment after \"://\"") }
            rawSegments = try AppURL.segments(path, trailingSlashAllowed: false)
        } catch {
            throw RouteSyntaxError(error.reason + (error.offset.map { " at offset \($0)" } ?? ""))
        }
        var segments: [PatternSegment] = []
        for (i, raw) in rawSegments.enumerated() {
            let segment = try Self.segment(raw)
            if case .wildcard = segment, i != rawSegments.count - 1 {
                throw RouteSyntaxError("wildcard \"\(raw)\" must be the last segment")
            }
            segments.append(segment)
        }
        self.text = text
        self.scheme = String(decoding: bytes[..<schemeEnd], as: UTF8.self).lowercased()
        self.segments = segments
    }

    private static func segment(_ raw: String) throws(RouteSyntaxError) -> PatternSegment {
        switch raw.utf8.first {
        case UInt8(ascii: ":"):
            let body = raw.dropFirst()
            guard let open = body.firstIndex(of: "(") else { return .parameter(name: try name(String(body), in: raw), type: .string) }
            guard body.last == ")" else { throw RouteSyntaxError("segment \"\(raw)\" must end with \")\"") }
            let name = try name(String(body[..<open]), in: raw)
            let spelling = String(body[body.index(after: open)..<body.index(before: body.endIndex)])
            let type: ParameterType
            do throws(RouteSyntaxError) {
                type = try ParameterType.parse(spelling: spelling)
            } catch {
                throw RouteSyntaxError("segment \"\(raw)\": \(error.reason)")
            }
            guard type != .string else { throw RouteSyntaxError("segment \"\(raw)\": a path parameter without a type is a string; write \":\(name)\"") }
            return .parameter(name: name, type: type)
        case UInt8(ascii: "*"):
            return .wildcard(name: try name(String(raw.dropFirst()), in: raw))
        default:
            guard raw.utf8.allSatisfy(PercentEncoding.isUnreserved) else {
                throw RouteSyntaxError("static segment \"\(raw)\" may use only A-Z a-z 0-9 - . _ ~")
            }
            return .literal(raw)
        }
    }

    private static func name(_ name: String, in raw: String) throws(RouteSyntaxError) -> String {
        guard RouteParameter.isName(name) else {
            throw RouteSyntaxError("segment \"\(raw)\": \(RouteParameter.nameRule(name))")
        }
        return name
    }

    /// Whether `url` matches: same scheme, and each segment fits (``PatternSegment/accepts(_:)``).
    /// Allocates nothing.
    func matches(_ url: AppURL) -> Bool {
        guard url.scheme == scheme else { return false }
        for (i, segment) in segments.enumerated() {
            if case .wildcard = segment { return true }
            guard i < url.segments.count, segment.accepts(url.segments[i]) else { return false }
        }
        return url.segments.count == segments.count
    }

    /// Whether this pattern wins over `other` for a URL both match (see Precedence above).
    func outranks(_ other: RoutePattern) -> Bool { Self.order(self, other) > 0 }

    /// 1 when `a` is more specific, -1 when `b` is, 0 when they compare equal at every position.
    private static func order(_ a: RoutePattern, _ b: RoutePattern) -> Int {
        for i in 0..<max(a.segments.count, b.segments.count) {
            // A pattern that has ended beats one that goes on; for a URL both match, the other goes
            // on with a wildcard (otherwise their lengths differ and no URL matches both).
            guard i < a.segments.count else { return 1 }
            guard i < b.segments.count else { return -1 }
            let (x, y) = (a.segments[i], b.segments[i])
            if x.rank != y.rank { return x.rank > y.rank ? 1 : -1 }
            if x.rank == 0 { return 0 }
        }
        return 0
    }

    /// A URL both patterns match with equal precedence, or nil when there is none (so the
    /// precedence rule always picks one of them).
    func ambiguousURL(with other: RoutePattern) -> String? {
        guard scheme == other.scheme, segments.count == other.segments.count else { return nil }
        var parts: [String] = []
        for (x, y) in zip(segments, other.segments) {
            guard x.rank == y.rank else { return nil }
            switch (x, y) {
            case (.literal(let s), .literal(let t)):
                guard s == t else { return nil }
                parts.append(s)
            case (.parameter(_, let s), .parameter(_, let t)):
                guard let value = s.commonValue(with: t) else { return nil }
                parts.append(PercentEncoding.encode(value))
            default: break  // two wildcards, last: the empty rest
            }
        }
        return scheme + "://" + parts.joined(separator: "/")
    }

    /// The pattern with a sample value in each parameter (``ParameterType/sample(for:)``;
    /// `choose` may pick another), for checks without real URLs.
    func sampleURL(_ choose: (String) -> String? = { _ in nil }) -> String {
        let parts = segments.map { segment in
            switch segment {
            case .literal(let text): text
            case .parameter(let name, let type): PercentEncoding.encode(choose(name) ?? ParameterType.sample(for: type))
            case .wildcard(let name): PercentEncoding.encode(choose(name) ?? ParameterType.sample(for: .wildcard), keepingSlash: true)
            }
        }
        return scheme + "://" + parts.joined(separator: "/")
    }
}
