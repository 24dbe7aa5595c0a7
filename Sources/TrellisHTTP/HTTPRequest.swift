/// The decoded query string of a request target: `name=value` pairs in order, each
/// percent-decoded, `+` read as a space (application/x-www-form-urlencoded).
public struct HTTPQuery: Sendable, Sequence {
    public typealias Item = (name: String, value: String)
    public var items: [Item]
    public init(_ items: [Item] = []) { self.items = items }

    /// The first value for `name`, or nil when absent.
    public subscript(name: String) -> String? { items.first { $0.name == name }?.value }
    public func makeIterator() -> IndexingIterator<[Item]> { items.makeIterator() }
}

/// One complete request: head and body, as the parser produced it.
///
/// A class, immutable: a request is handed from the connection to the responder, its endpoint and
/// the closures they make, and each copy of a struct of seven members retained and released every
/// one of them (docs/benchmarks.md, "Where a cached answer's instructions go").
public final class HTTPRequest: Sendable {
    public let method: HTTPMethod
    /// The request-target exactly as received (RFC 9112 §3.2), e.g. `/v1/screens/home?user=u%201`.
    public let target: String
    /// The path of the target, percent-decoded (`/v1/screens/home`).
    public let path: String
    /// The query of the target, decoded.
    public let query: HTTPQuery
    public let version: HTTPVersion
    public let headers: HTTPHeaders
    /// The body, de-chunked; empty when the request had none.
    public let body: [UInt8]

    public init(
        method: HTTPMethod, target: String, path: String, query: HTTPQuery = HTTPQuery(),
        version: HTTPVersion = .http1_1, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
    }
}
