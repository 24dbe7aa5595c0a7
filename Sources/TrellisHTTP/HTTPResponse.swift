/// A response as a responder returns it. The server adds `Date`, `Content-Length`, `Connection`
/// and, when it chooses the gzip form, `Content-Encoding` and `Vary`; a responder sets the rest.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    /// Every header field: the encoded ones (``encodedFields``) and the others. Setting them makes
    /// the response a plain one again, every field in ``headers``.
    public var headers: HTTPHeaders {
        get { encodedFields.map { HTTPHeaders(Array($0.headers) + Array(otherHeaders)) } ?? otherHeaders }
        set {
            otherHeaders = newValue
            encodedFields = nil
        }
    }
    /// Fields checked and encoded once (a cached answer's), sent before ``otherHeaders``.
    public private(set) var encodedFields: EncodedFields?
    /// The fields besides the encoded ones: what the writer checks and sends after them.
    private(set) var otherHeaders: HTTPHeaders
    /// The identity-coded body. Arrays are copy-on-write, so precomputed bytes are shared, not
    /// copied. A body given as ``SharedBytes`` reads here as a copy of them; the server sends them
    /// from where they lie.
    public var body: [UInt8] {
        get {
            switch content {
            case .bytes(let bytes): bytes
            case .shared(let shared): Array(shared.object.bytes)
            }
        }
        set { content = .bytes(newValue) }
    }
    /// The same body, gzip-compressed ahead of time, or nil. When present and the client accepts
    /// gzip, the server sends these bytes and never compresses the body again.
    public var gzipBody: [UInt8]?
    /// Whether the server may gzip `body` on the fly when `gzipBody` is nil and the client accepts
    /// gzip. Off for bodies that are already compressed (images) or tiny.
    public var compressible: Bool
    /// The route pattern that produced this response (e.g. `/v1/screens/{id}`), used as the metrics
    /// label and in the access log, so that label cardinality stays bounded. Nil means unmatched.
    public var route: String?
    /// What the server sends as the identity body.
    var content: Content

    /// A body as the server holds it: an array, or bytes an object keeps.
    enum Content: Sendable {
        case bytes([UInt8])
        /// Unchecked: ``SharedBytes`` promises bytes that never change once the object is made.
        case shared(UncheckedShared)

        var count: Int {
            switch self {
            case .bytes(let bytes): bytes.count
            case .shared(let shared): shared.object.bytes.count
            }
        }

        /// Calls `body` with the bytes, valid for the call.
        func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            switch self {
            case .bytes(let bytes): bytes.withUnsafeBytes(body)
            case .shared(let shared): withExtendedLifetime(shared.object) { body(shared.object.bytes) }
            }
        }
    }

    public init(
        status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        gzipBody: [UInt8]? = nil, compressible: Bool = true, route: String? = nil
    ) {
        self.status = status
        otherHeaders = headers
        content = .bytes(body)
        self.gzipBody = gzipBody
        self.compressible = compressible
        self.route = route
    }

    /// A response whose body is bytes `shared` keeps: sent from where they lie, never copied
    /// into an array of their own.
    public init(
        status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), sharing shared: any SharedBytes,
        gzipBody: [UInt8]? = nil, compressible: Bool = true, route: String? = nil
    ) {
        self.init(status: status, headers: headers, gzipBody: gzipBody, compressible: compressible, route: route)
        // The object's bytes never change (``SharedBytes``), so sending it to another thread is safe.
        content = .shared(UncheckedShared(object: shared))
    }

    /// A response with fields encoded once and bytes `shared` keeps: what a cached answer is.
    public init(encodedFields: EncodedFields, sharing shared: any SharedBytes, gzipBody: [UInt8]? = nil) {
        // Each member set once: initializers calling initializers copied the whole response.
        status = .ok
        otherHeaders = HTTPHeaders()
        self.encodedFields = encodedFields
        content = .shared(UncheckedShared(object: shared))
        self.gzipBody = gzipBody
        compressible = true
        route = nil
    }

    /// Whether a field says the body is encoded already (`Content-Encoding`): the server leaves it so.
    var hasContentEncoding: Bool {
        (encodedFields?.facts.hasContentEncoding ?? false) || otherHeaders.contains("Content-Encoding")
    }

    /// Whether the body's type is one worth compressing (``ContentCoding/isTextual(_:)``).
    var isTextual: Bool {
        (encodedFields?.facts.isTextual ?? false) || ContentCoding.isTextual(otherHeaders["Content-Type"])
    }

    struct UncheckedShared: @unchecked Sendable {
        let object: any SharedBytes
    }
}

/// Bytes an object keeps for as long as it lives, where they lie: a cached answer whose bytes are
/// in the answer's own allocation, so that serving it reads one object, not an object and then
/// an array — at thousands of answers, one line from memory less a request.
///
/// A conforming object is shared by every thread that sends it: its bytes must not change once it
/// is made. (Not `Sendable`, so that a `ManagedBuffer`, which is not, may hold them in its tail.)
public protocol SharedBytes: AnyObject {
    /// The bytes; the memory stays valid, unchanged, while the object lives.
    var bytes: UnsafeRawBufferPointer { get }
}
