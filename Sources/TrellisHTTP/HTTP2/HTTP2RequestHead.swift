/// A request's head as HTTP/2 carries it (RFC 9113 §8.3.1), checked and turned into what the
/// HTTP/1.1 side produces, so a responder cannot tell the two apart but by `version`.
struct HTTP2RequestHead: Sendable {
    var method: HTTPMethod
    var target: HTTPTarget
    var headers: HTTPHeaders
    /// `content-length`, which the DATA frames must add up to (§8.1.1).
    var contentLength: Int?

    func request(body: [UInt8]) -> HTTPRequest {
        HTTPRequest(method: method, target: target.raw, path: target.path, query: target.query, version: .http2,
                    headers: headers, body: body)
    }

    /// What a decoded field block makes of a request.
    enum Reading: Sendable {
        case head(HTTP2RequestHead)
        /// Malformed (§8.1.1): the stream is reset with PROTOCOL_ERROR.
        case malformed(String)
        /// Well-formed but refused with an answer: 400, 413, 431.
        case refused(HTTPStatus, String)
    }

    /// Reads the fields of a request's HEADERS: pseudo-header fields first, each once, the
    /// mandatory ones present (§8.3.1); lowercase names that are tokens, none of the connection
    /// fields HTTP/2 forbids (§8.2.2); values without control characters or surrounding
    /// whitespace (§8.2.1); `cookie` crumbs joined (§8.2.3); `host` from `:authority` when absent.
    static func read(_ fields: [HPACKField], limits: HTTP2Limits) -> Reading {
        var pseudo = PseudoFields()
        var headers: [HTTPHeaders.Field] = []
        var cookies: [String] = []
        for field in fields {
            if field.name.utf8.first == UInt8(ascii: ":") {
                guard headers.isEmpty && cookies.isEmpty else { return .malformed("pseudo-header field \(field.name) after a regular one") }
                if let problem = pseudo.add(field) { return .malformed(problem) }
                continue
            }
            if let problem = checkRegular(field) { return .malformed(problem) }
            if field.name == "cookie" { cookies.append(field.value) } else { headers.append((field.name, field.value)) }
        }
        if !cookies.isEmpty { headers.append(("cookie", cookies.joined(separator: "; "))) }
        guard headers.count <= limits.maxHeaderCount else { return .refused(.requestHeaderFieldsTooLarge, "too many header fields") }
        return head(pseudo, HTTPHeaders(headers), limits: limits)
    }

    private static func head(_ pseudo: PseudoFields, _ fields: HTTPHeaders, limits: HTTP2Limits) -> Reading {
        guard let method = pseudo.method else { return .malformed("no :method") }
        if method == "CONNECT" { return .refused(.badRequest, "CONNECT is not supported") }
        guard pseudo.scheme != nil else { return .malformed("no :scheme") }
        guard let path = pseudo.path, !path.isEmpty else { return .malformed("no :path") }
        var headers = fields
        if let authority = pseudo.authority, !headers.contains("host") { headers.add(name: "host", value: authority) }
        var contentLength: Int?
        if let value = headers["content-length"] {
            guard !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                return .malformed("invalid content-length")
            }
            contentLength = Int(value)
            if contentLength! > limits.maxBodyBytes { return .refused(.contentTooLarge, "content-length over the limit") }
        }
        let httpMethod = HTTPMethod.known(method) ?? HTTPMethod(rawValue: method)
        let target = HTTPBytes.withBytes(path) { HTTPTarget.parse($0, method: httpMethod) }
        switch target {
        case .failure(let error): return .refused(error.status, error.reason)
        case .success(let target):
            return .head(HTTP2RequestHead(method: httpMethod, target: target, headers: headers, contentLength: contentLength))
        }
    }

    /// A regular field's name and value, as §8.2 allows them; nil when fine.
    private static func checkRegular(_ field: HPACKField) -> String? {
        let nameOK = HTTPBytes.withBytes(field.name) { name in
            !name.isEmpty && name.allSatisfy { HTTPBytes.isToken($0) && !($0 >= 65 && $0 <= 90) }
        }
        guard nameOK else { return "field name \(field.name) is not a lowercase token" }
        switch field.name {
        case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
            return "connection-specific field \(field.name)"
        case "te" where field.value != "trailers":
            return "te other than trailers"
        default:
            break
        }
        let valueOK = HTTPBytes.withBytes(field.value) { value in
            HTTPBytes.areFieldBytes(value)
                && !(value.first.map(HTTPBytes.isWhitespace) ?? false) && !(value.last.map(HTTPBytes.isWhitespace) ?? false)
        }
        return valueOK ? nil : "field \(field.name) has control characters or surrounding whitespace in its value"
    }

    /// The request pseudo-header fields (§8.3.1), each at most once.
    private struct PseudoFields {
        var method: String?
        var scheme: String?
        var path: String?
        var authority: String?

        mutating func add(_ field: HPACKField) -> String? {
            switch field.name {
            case ":method": return Self.set(&method, field)
            case ":scheme": return Self.set(&scheme, field)
            case ":path": return Self.set(&path, field)
            case ":authority": return Self.set(&authority, field)
            default: return "pseudo-header field \(field.name) in a request"
            }
        }

        private static func set(_ slot: inout String?, _ field: HPACKField) -> String? {
            guard slot == nil else { return "\(field.name) more than once" }
            slot = field.value
            return nil
        }
    }
}

extension HTTPMethod {
    /// The shared instance of a common method, so a request does not allocate its method's name.
    static func known(_ name: String) -> HTTPMethod? {
        switch name {
        case "GET": .get
        case "HEAD": .head
        case "POST": .post
        case "PUT": .put
        case "DELETE": .delete
        case "PATCH": .patch
        case "OPTIONS": .options
        default: nil
        }
    }
}
