/// A response as a responder returns it. The server adds `Date`, `Content-Length`, `Connection`
/// and, when it chooses the gzip form, `Content-Encoding` and `Vary`; a responder sets the rest.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    /// The identity-coded body. Arrays are copy-on-write, so precomputed bytes are shared, not copied.
    public var body: [UInt8]
    /// The same body, gzip-compressed ahead of time, or nil. When present and the client accepts
    /// gzip, the server sends these bytes and never compresses the body again.
    public var gzipBody: [UInt8]?
    /// Whether the server may gzip `body` on the fly when `gzipBody` is nil and the client accepts
    /// gzip. Off for bodies that are already compressed (images) or tiny.
    public var compressible: Bool
    /// The route pattern that produced this response (e.g. `/v1/screens/{id}`), used as the metrics
    /// label and in the access log, so that label cardinality stays bounded. Nil means unmatched.
    public var route: String?

    public init(
        status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        gzipBody: [UInt8]? = nil, compressible: Bool = true, route: String? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.gzipBody = gzipBody
        self.compressible = compressible
        self.route = route
    }
}
