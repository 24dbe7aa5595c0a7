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
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request-target exactly as received (RFC 9112 §3.2), e.g. `/v1/screens/home?user=u%201`.
    public var target: String
    /// The path of the target, percent-decoded (`/v1/screens/home`).
    public var path: String
    /// The query of the target, decoded.
    public var query: HTTPQuery
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// The body, de-chunked; empty when the request had none.
    public var body: [UInt8]

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
