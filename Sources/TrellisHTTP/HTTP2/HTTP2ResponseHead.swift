/// A response as HTTP/2 sends it (RFC 9113 §8.3.2): `:status`, then the fields HTTP/1.1's
/// `ResponseWriter` would write — the same content coding, the same bodiless statuses and `HEAD`,
/// `content-length`, `date`, `x-request-id`, `vary` — with lowercase names and without the
/// connection-specific fields HTTP/2 forbids (§8.2.2). Framing is HTTP/2's own, so there is no
/// `Connection` and no chunking.
struct HTTP2ResponseHead: Sendable {
    var fields: [HPACKField]
    /// What goes out as DATA: nothing for `HEAD`, 204 and 304.
    var body: HTTPResponse.Content
    /// For the access log and metrics.
    var outcome: ResponseWriter.Outcome

    /// The head and body of an ordinary response.
    /// - Parameter date: the `date` field's value (IMF-fixdate).
    init(_ response: HTTPResponse, request: RequestFacts, requestID: String, date: String, options: ResponseWriter.Options) {
        var status = Self.sendable(response.status)
        let coding = ContentCoding.choose(for: response, accept: request.acceptEncoding, options: options)
        if coding == .notAcceptable { status = .notAcceptable }
        var body: HTTPResponse.Content
        switch coding {
        case .identity: body = response.content
        case .gzip:
            body = .bytes(response.gzipBody ?? response.content.withBytes { Gzip.compress($0, level: options.gzipLevel) })
        case .notAcceptable: body = .bytes([])
        }
        let bodyAllowed = status.code != 204 && status.code != 304
        fields = [HPACKField(":status", String(status.code))]
        let given = coding == .notAcceptable ? ResponseWriter.FieldFacts() : Self.append(response.headers, to: &fields)
        if bodyAllowed { fields.append(HPACKField("content-length", String(body.count))) }
        fields.append(HPACKField("date", date))
        if !given.hasRequestID { fields.append(HPACKField("x-request-id", requestID)) }
        if case .gzip = coding { fields.append(HPACKField("content-encoding", "gzip")) }
        if coding.variesOnAcceptEncoding && !given.variesOnAcceptEncoding { fields.append(HPACKField("vary", "accept-encoding")) }
        if !bodyAllowed || request.isHead { body = .bytes([]) }
        self.body = body
        outcome = ResponseWriter.Outcome(status: status.code, bodyBytes: body.count, keepAlive: true)
    }

    /// The head of a stream of events (``HTTPReply/stream(_:)``): no `content-length` and no gzip,
    /// so each event reaches the client when it is written; the head's body is the stream's first bytes.
    init(streamHead head: HTTPResponse, requestID: String, date: String) {
        let status = Self.sendable(head.status)
        fields = [HPACKField(":status", String(status.code))]
        let given = Self.append(head.headers, to: &fields)
        fields.append(HPACKField("date", date))
        if !given.hasRequestID { fields.append(HPACKField("x-request-id", requestID)) }
        body = head.content
        outcome = ResponseWriter.Outcome(status: status.code, bodyBytes: 0, keepAlive: true)
    }

    /// A final status (RFC 9113 §8.1: informational ones are not answers); else 500.
    private static func sendable(_ status: HTTPStatus) -> HTTPStatus {
        status.code < 200 || status.code > 999 ? .internalServerError : status
    }

    /// Appends a responder's fields that may go out, lowercased: not the ones the server owns
    /// (`content-length`, `date`), not the connection-specific ones, not one whose name is no
    /// token or whose value holds a control character. Returns what the head needs of them.
    static func append(_ headers: HTTPHeaders, to fields: inout [HPACKField]) -> ResponseWriter.FieldFacts {
        var facts = ResponseWriter.FieldFacts()
        for field in headers {
            let name = lowercased(field.name)
            switch name {
            case "content-length", "date", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
                continue
            case "x-request-id": facts.hasRequestID = true
            case "vary":
                let value = field.value.lowercased()
                facts.variesOnAcceptEncoding = facts.variesOnAcceptEncoding || value.contains("accept-encoding") || value.contains("*")
            default: break
            }
            guard isValid(name, field.value) else { continue }
            fields.append(HPACKField(name, field.value))
        }
        return facts
    }

    private static func lowercased(_ name: String) -> String {
        name.utf8.contains { $0 >= 65 && $0 <= 90 } ? name.lowercased() : name
    }

    private static func isValid(_ name: String, _ value: String) -> Bool {
        HTTPBytes.withBytes(name) { name in
            HTTPBytes.withBytes(value) { value in
                !name.isEmpty && name.allSatisfy(HTTPBytes.isToken) && HTTPBytes.areFieldBytes(value)
            }
        }
    }
}
