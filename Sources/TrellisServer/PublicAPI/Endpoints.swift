import TrellisAnswers
import TrellisHTTP
import TrellisRuntime

/// The public HTTP surface: one method per endpoint, each feature registering its own in
/// ``register(in:)`` (the admin API registers its in ``AdminEndpoints``).
struct Endpoints: Sendable {
    let state: ServerState
    /// The runtime store and its queues; nil for a server without one (tests of the read path).
    let control: ControlPlane?
    /// The ops console's files, served here when the admin API is (nil: no console on this port).
    var console: ConsoleAssets? = nil
    /// Who may read a screen revision that is not served to everybody (a token with the read
    /// role); nil: nobody.
    var readers: AdminAccess? = nil
    /// Apps' events and the exposures the server records; nil for a server without a runtime store.
    var tracking: Tracking? = nil

    /// Every public endpoint, by feature.
    func register(in router: inout EndpointRouter) {
        registerService(in: &router)
        registerScreens(in: &router)
        registerLayout(in: &router)
        registerPreviews(in: &router)
        registerFonts(in: &router)
        registerRouteTable(in: &router)
        registerOpenFeature(in: &router)
        registerChanges(in: &router)
        registerEvents(in: &router)
        if let console { Self.registerConsole(console, in: &router) }
    }

    static func json(_ body: [UInt8], cacheControl: String) -> HTTPResponse {
        HTTPResponse(headers: ["Content-Type": "application/json", "Cache-Control": cacheControl], body: body)
    }

    /// A cacheable answer: 304 when `If-None-Match` names the current ETag, else the bytes with
    /// their precomputed gzip form and their fields, encoded once and kept with the body
    /// (``AnswerHead``).
    /// - Parameter language: the locale the answer's strings are written in (`Content-Language`);
    ///   nil for an answer without strings.
    static func cached(
        _ body: EncodedBody, _ request: HTTPRequest, cacheControl: String, contentType: String = "application/json",
        vary: String = "Accept-Encoding", language: String? = nil
    ) -> HTTPResponse {
        if request.headers.ifNoneMatchMatches(body.etag) {
            return HTTPResponse(status: .notModified, headers: AnswerHead.fields(of: body, cacheControl: cacheControl, vary: vary, language: language))
        }
        func made() -> AnswerHead { AnswerHead(body, cacheControl: cacheControl, contentType: contentType, vary: vary, language: language) }
        let kept = body.kept(made)
        let fields = kept.isMade(cacheControl: cacheControl, contentType: contentType, vary: vary, language: language) ? kept.fields : made().fields
        // The gzip form is made on its first use: not for a client that takes identity only.
        return HTTPResponse(encodedFields: fields, sharing: body.shared, gzipBody: request.headers.acceptsGzip ? body.gzip : nil)
    }
}

/// The fields a cached answer is sent with — its ETag, `Cache-Control`, `Vary`, `Content-Language`,
/// its own (a client format's), `Content-Type` — encoded once and kept with the body: the same for
/// every request that gets it, unless an endpoint sends the body with other settings.
final class AnswerHead: Sendable {
    let cacheControl: String
    let contentType: String
    let vary: String
    let language: String?
    let fields: EncodedFields

    init(_ body: EncodedBody, cacheControl: String, contentType: String, vary: String, language: String?) {
        self.cacheControl = cacheControl
        self.contentType = contentType
        self.vary = vary
        self.language = language
        var fields = Self.fields(of: body, cacheControl: cacheControl, vary: vary, language: language)
        fields.add(name: "Content-Type", value: contentType)
        self.fields = EncodedFields(fields)
    }

    /// Whether this head was made with these settings.
    func isMade(cacheControl: String, contentType: String, vary: String, language: String?) -> Bool {
        self.cacheControl == cacheControl && self.contentType == contentType && self.vary == vary && self.language == language
    }

    /// The fields a 304 sends too (all but `Content-Type`).
    static func fields(of body: EncodedBody, cacheControl: String, vary: String, language: String?) -> HTTPHeaders {
        var headers: HTTPHeaders = ["ETag": body.etag, "Cache-Control": cacheControl, "Vary": vary]
        if let language { headers.add(name: "Content-Language", value: language) }
        for header in body.headers { headers.add(name: header.name, value: header.value) }
        return headers
    }
}

