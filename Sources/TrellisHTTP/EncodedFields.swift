/// Header fields checked and encoded once, for an answer sent many times with the same fields (a
/// cached answer's `ETag`, `Cache-Control`, `Vary`, `Content-Type`): a response carrying them
/// (``HTTPResponse/encodedFields``) writes their bytes as they are. The writer's checks of a
/// responder's fields — framing fields dropped, names and values checked against response
/// splitting, `Vary` and `Connection` read — are made here, by the same code, once; made per
/// request they cost a cached answer more than the rest of its head.
public final class EncodedFields: Sendable {
    /// `Name: value\r\n` for each field that may go out, in the order given.
    let bytes: [UInt8]
    /// What the writer reads of them.
    let facts: ResponseWriter.FieldFacts
    /// The fields as given, for whoever reads a response's ``HTTPResponse/headers``.
    let headers: HTTPHeaders

    public init(_ headers: HTTPHeaders) {
        var bytes: [UInt8] = []
        facts = bytes.appendWriting(atMost: ResponseWriter.fieldBytes(headers)) { ResponseWriter.appendFields(headers, to: &$0) }
        self.bytes = bytes
        self.headers = headers
    }
}
