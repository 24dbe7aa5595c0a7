import TrellisJSON

/// A URL the app opens, such as `app://product/42?ref=home#reviews`, split into the parts routes
/// match: `scheme://segment/segment…?query#fragment`.
///
/// There is no authority: the first thing after `://` is the first path segment (`app://product/42`
/// has the segments `product` and `42`). Parsing is strict, and each refusal names its byte offset:
/// - the scheme is `[A-Za-z][A-Za-z0-9+.-]*` (RFC 3986 §3.1), compared in lower case;
/// - spaces and control characters are refused anywhere, raw or percent-encoded;
/// - segments are percent-decoded (RFC 3986 §2.1) and must be UTF-8; an empty segment is refused,
///   except that one trailing `/` is ignored;
/// - the query is split on `&`, then on the first `=`; names and values are percent-decoded, `+`
///   stays `+`; a name given twice is refused (which value would win is nobody's guess);
/// - the fragment is kept as written and plays no part in matching;
/// - the whole URL is at most ``RouteLimits/maximumURLBytes``, with at most
///   ``RouteLimits/maximumSegments`` segments and ``RouteLimits/maximumQueryParameters`` parameters.
public struct AppURL: Sendable, Equatable, CustomStringConvertible {
    /// One `name=value` of the query, decoded.
    public struct QueryItem: Sendable, Equatable {
        public let name: String
        public let value: String
    }

    /// The URL as given.
    public let text: String
    /// The scheme in lower case.
    public let scheme: String
    /// The path segments, decoded.
    public let segments: [String]
    /// The query parameters in the order written.
    public let query: [QueryItem]
    /// The fragment as written (not decoded), without `#`; nil when there is no `#`.
    public let fragment: String?

    public var description: String { text }

    /// Parses `text`.
    /// - Throws: the first problem, with its byte offset: *app://product//42: empty path segment at offset 14*.
    public init(parsing text: String) throws(AppURLError) {
        do throws(AppURLError.Problem) {
            try self.init(checked: text)
        } catch {
            throw AppURLError(url: text, problem: error)
        }
    }

    private init(checked text: String) throws(AppURLError.Problem) {
        let bytes = Array(text.utf8)
        guard bytes.count <= RouteLimits.maximumURLBytes else {
            throw .init("longer than \(RouteLimits.maximumURLBytes) bytes (\(bytes.count))")
        }
        if let i = bytes.firstIndex(where: { $0 <= 0x20 || $0 == 0x7F }) {
            throw .init(bytes[i] == 0x20 ? "space" : "control character", at: i)
        }
        let schemeEnd = try Self.schemeEnd(bytes)
        let pathStart = schemeEnd + 3
        let fragmentStart = bytes[pathStart...].firstIndex(of: 0x23) ?? bytes.endIndex
        let queryStart = bytes[pathStart..<fragmentStart].firstIndex(of: 0x3F) ?? fragmentStart
        self.text = text
        self.scheme = String(decoding: bytes[..<schemeEnd], as: UTF8.self).lowercased()
        self.segments = try Self.segments(bytes[pathStart..<queryStart], trailingSlashAllowed: true)
        self.query = queryStart < fragmentStart ? try Self.query(bytes[(queryStart + 1)..<fragmentStart]) : []
        self.fragment = fragmentStart < bytes.endIndex ? String(decoding: bytes[(fragmentStart + 1)...], as: UTF8.self) : nil
    }

    /// Where the scheme ends: the offset of the `:` of `://` (RFC 3986 §3.1 scheme syntax).
    static func schemeEnd(_ bytes: [UInt8]) throws(AppURLError.Problem) -> Int {
        guard let first = bytes.first else { throw .init("empty URL") }
        guard isLetter(first) else { throw .init("a scheme starts with a letter", at: 0) }
        var i = 1
        while i < bytes.count, isLetter(bytes[i]) || (0x30...0x39).contains(bytes[i]) || bytes[i] == 0x2B || bytes[i] == 0x2D || bytes[i] == 0x2E {
            i += 1
        }
        guard bytes[i...].starts(with: [0x3A, 0x2F, 0x2F]) else { throw .init("expected \"://\" after the scheme", at: i) }
        return i
    }

    /// The decoded segments of `path` (which excludes `://`); with `trailingSlashAllowed`, one
    /// trailing `/` is ignored.
    static func segments(_ path: ArraySlice<UInt8>, trailingSlashAllowed: Bool) throws(AppURLError.Problem) -> [String] {
        var path = path
        if trailingSlashAllowed, path.count > 1, path.last == 0x2F { path = path.dropLast() }
        guard !path.isEmpty else { return [] }
        var segments: [String] = []
        var start = path.startIndex
        while true {
            let end = path[start...].firstIndex(of: 0x2F) ?? path.endIndex
            guard end > start else { throw .init("empty path segment", at: start) }
            guard segments.count < RouteLimits.maximumSegments else {
                throw .init("more than \(RouteLimits.maximumSegments) path segments", at: start)
            }
            segments.append(try PercentEncoding.decode(path[start..<end]))
            guard end < path.endIndex else { return segments }
            start = end + 1
        }
    }

    private static func query(_ bytes: ArraySlice<UInt8>) throws(AppURLError.Problem) -> [QueryItem] {
        guard !bytes.isEmpty else { return [] }
        var items: [QueryItem] = []
        var start = bytes.startIndex
        while true {
            let end = bytes[start...].firstIndex(of: 0x26) ?? bytes.endIndex
            guard end > start else { throw .init("empty query parameter", at: start) }
            guard items.count < RouteLimits.maximumQueryParameters else {
                throw .init("more than \(RouteLimits.maximumQueryParameters) query parameters", at: start)
            }
            let equals = bytes[start..<end].firstIndex(of: 0x3D) ?? end
            guard equals > start else { throw .init("empty query parameter name", at: start) }
            let name = try PercentEncoding.decode(bytes[start..<equals])
            let value = equals < end ? try PercentEncoding.decode(bytes[(equals + 1)..<end]) : ""
            if items.contains(where: { $0.name == name }) { throw .init("query parameter \"\(name)\" given twice", at: start) }
            items.append(QueryItem(name: name, value: value))
            guard end < bytes.endIndex else { return items }
            start = end + 1
        }
    }

    private static func isLetter(_ c: UInt8) -> Bool { (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) }

    /// The value of the query parameter `name`, or nil.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

/// Why a text is not an ``AppURL``.
public struct AppURLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text that was given.
    public let url: String
    /// The byte offset (from 0) of the problem in ``url``, when it is at one place.
    public let offset: Int?
    /// What is wrong, such as `empty path segment`.
    public let reason: String

    init(url: String, problem: Problem) {
        self.url = url
        self.offset = problem.offset
        self.reason = problem.reason
    }

    /// *app://product//42: empty path segment at offset 14*; a URL over the length limit is cut short.
    public var description: String {
        let shown = url.utf8.count > 100 ? String(decoding: url.utf8.prefix(80), as: UTF8.self) + "…" : url
        return "\(shown): \(reason)" + (offset.map { " at offset \($0)" } ?? "")
    }

    /// A problem before the URL it is in is known, as the parser finds it.
    struct Problem: Error {
        var reason: String
        var offset: Int?
        init(_ reason: String, at offset: Int? = nil) {
            self.reason = reason
            self.offset = offset
        }
    }
}
