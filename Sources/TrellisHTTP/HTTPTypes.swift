/// A request method (RFC 9110 §9). Methods are case-sensitive tokens.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    public var description: String { rawValue }
}

/// The protocol version of a request line (RFC 9112 §2.3).
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public init(major: Int, minor: Int) { self.major = major; self.minor = minor }

    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    /// HTTP/2 (RFC 9113), which has no minor version; written `HTTP/2.0` in the access log.
    public static let http2 = HTTPVersion(major: 2, minor: 0)

    public var description: String { "HTTP/\(major).\(minor)" }
}

/// A response status code with its reason phrase (RFC 9110 §15).
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    public var code: Int
    public var reasonPhrase: String
    public init(code: Int, reasonPhrase: String) { self.code = code; self.reasonPhrase = reasonPhrase }

    public static let `continue` = HTTPStatus(code: 100, reasonPhrase: "Continue")
    public static let ok = HTTPStatus(code: 200, reasonPhrase: "OK")
    public static let created = HTTPStatus(code: 201, reasonPhrase: "Created")
    public static let accepted = HTTPStatus(code: 202, reasonPhrase: "Accepted")
    public static let noContent = HTTPStatus(code: 204, reasonPhrase: "No Content")
    public static let seeOther = HTTPStatus(code: 303, reasonPhrase: "See Other")
    public static let notModified = HTTPStatus(code: 304, reasonPhrase: "Not Modified")
    public static let badRequest = HTTPStatus(code: 400, reasonPhrase: "Bad Request")
    public static let unauthorized = HTTPStatus(code: 401, reasonPhrase: "Unauthorized")
    public static let forbidden = HTTPStatus(code: 403, reasonPhrase: "Forbidden")
    public static let notFound = HTTPStatus(code: 404, reasonPhrase: "Not Found")
    public static let methodNotAllowed = HTTPStatus(code: 405, reasonPhrase: "Method Not Allowed")
    public static let notAcceptable = HTTPStatus(code: 406, reasonPhrase: "Not Acceptable")
    public static let requestTimeout = HTTPStatus(code: 408, reasonPhrase: "Request Timeout")
    public static let conflict = HTTPStatus(code: 409, reasonPhrase: "Conflict")
    public static let lengthRequired = HTTPStatus(code: 411, reasonPhrase: "Length Required")
    public static let preconditionFailed = HTTPStatus(code: 412, reasonPhrase: "Precondition Failed")
    public static let contentTooLarge = HTTPStatus(code: 413, reasonPhrase: "Content Too Large")
    public static let uriTooLong = HTTPStatus(code: 414, reasonPhrase: "URI Too Long")
    public static let unsupportedMediaType = HTTPStatus(code: 415, reasonPhrase: "Unsupported Media Type")
    public static let expectationFailed = HTTPStatus(code: 417, reasonPhrase: "Expectation Failed")
    public static let unprocessableContent = HTTPStatus(code: 422, reasonPhrase: "Unprocessable Content")
    public static let preconditionRequired = HTTPStatus(code: 428, reasonPhrase: "Precondition Required")
    public static let tooManyRequests = HTTPStatus(code: 429, reasonPhrase: "Too Many Requests")
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431, reasonPhrase: "Request Header Fields Too Large")
    public static let internalServerError = HTTPStatus(code: 500, reasonPhrase: "Internal Server Error")
    public static let notImplemented = HTTPStatus(code: 501, reasonPhrase: "Not Implemented")
    public static let serviceUnavailable = HTTPStatus(code: 503, reasonPhrase: "Service Unavailable")
    public static let httpVersionNotSupported = HTTPStatus(code: 505, reasonPhrase: "HTTP Version Not Supported")
    public static let loopDetected = HTTPStatus(code: 508, reasonPhrase: "Loop Detected")

    public var description: String { "\(code) \(reasonPhrase)" }
}
