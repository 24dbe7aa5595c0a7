import TrellisAnswers
import TrellisHTTP
import TrellisJSON
import TrellisRendering
import TrellisRoutes
import TrellisRuntime
import TrellisScreens
import TrellisTargeting

/// The in-app route table: the list, and where a URL leads this user.
extension Endpoints {
    func registerRouteTable(in router: inout EndpointRouter) {
        router.add(.get, "/v1/routes") { request, _, _ throws(Problem) in try routeList(request) }
        router.add(.get, "/v1/routes/resolve") { request, _, _ throws(Problem) in try resolveRoute(request) }
    }

    /// `GET /v1/routes` — the route table in force, for clients that prefetch and for people.
    func routeList(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        let pretty = try QueryParameters(request.query, allowed: ["pretty"]).flag("pretty")
        let routes = try Self.routeTable(state.published.snapshot)
        return Self.cached(pretty ? routes.list.pretty : routes.list.compact, request, cacheControl: "no-cache")
    }

    /// What `include=` can add to a resolved route: the screen it opens, or its layout.
    enum RouteInclusion: String {
        case screen, layout
    }

    /// `GET /v1/routes/resolve?url=…[&include=screen|layout]` — where an in-app URL leads this user:
    /// the route, the screen (or native handler, or external page), its typed parameters, how it is
    /// presented, and every redirect taken on the way (guards, rules). With `include`, the screen
    /// answer (or its layout) comes in the same answer, from the answer cache, under `content`.
    func resolveRoute(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        let query = try Self.resolveQuery(request)
        guard let url = query["url"], !url.isEmpty else {
            throw Problem(
                .badRequest,
                "query parameter \"url\" is required: the in-app URL to resolve, such as url=app://product/42 (percent-encode any & inside it as %26)")
        }
        let include = try Self.inclusion(query)
        let context = try state.contextReader.context(
            of: request, queryItems: query.contextItems, now: state.clock())
        let snapshot = state.published.snapshot
        let resolution = try Self.resolve(url, in: try Self.routeTable(snapshot), for: context, snapshot)
        let pretty = try query.flag("pretty")
        guard let include, case .screen(let id) = resolution.target else {
            // Without include nothing is cached: the answer is small. Asked for, when the URL opens
            // no screen (a native handler, an external page), the content is null.
            let body = Self.composed(resolution.jsonValue, content: include.map { _ in Self.null }, pretty: pretty, compressionLevel: Gzip.Policy.singleUseLevel)
            return Self.cached(body, request, cacheControl: state.screenCacheControl, vary: state.screenVary)
        }
        let resolving = try ScreenRequest(
            query: query, context: context, snapshot: snapshot, id: id, state: state,
            screenParameters: Dictionary(resolution.parameters.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }),
            replyingTo: request.headers)
        recordExposures(resolving)
        let viewport = include == .layout ? try LayoutViewport.required(by: query, platform: context.platform) : nil
        let format = AnswerFormat.route(resolution: JSONWriter.encode(resolution.jsonValue), layout: include == .layout)
        let body = try resolving.cached(format: format, pretty: pretty, viewport: viewport) { () throws(Problem) in
            let inner = resolving.composedIntoAnother
            let content =
                if let viewport { try layoutAnswer(inner, viewport: viewport, pretty: pretty) } else { try screenAnswer(inner, pretty: pretty) }
            return Self.composed(resolution.jsonValue, content: content, pretty: pretty)
        }
        return Self.cached(body, request, cacheControl: state.screenCacheControl, vary: state.screenVary, language: resolving.language)
    }

    /// The parameters of a resolve request beside the user context's; made once, not per request.
    private static let resolveQueryNames = LayoutViewport.parameterNames.union(["url", "include", "pretty"])

    /// The query of a resolve request. A `&` left unencoded in the URL splits it into a parameter of
    /// its own, which is the likeliest way to get an unknown one here: say so.
    private static func resolveQuery(_ request: HTTPRequest) throws(Problem) -> QueryParameters {
        do {
            return try QueryParameters(request.query, allowed: resolveQueryNames, takesContext: true)
        } catch {
            guard request.query["url"] != nil, error.status == .badRequest, error.detail.hasPrefix("unknown") else { throw error }
            throw Problem(.badRequest, error.detail + ". If it belongs to the url, percent-encode the url's & as %26 (curl: --data-urlencode with -G)")
        }
    }

    private static func inclusion(_ query: QueryParameters) throws(Problem) -> RouteInclusion? {
        let include = try query["include"].map { text throws(Problem) in
            guard let include = RouteInclusion(rawValue: text) else {
                throw Problem(.badRequest, "query parameter \"include\" must be screen or layout, not \"\(text)\"")
            }
            return include
        }
        if include != .layout, let name = query.items.first(where: { LayoutViewport.isParameter($0.name) })?.name {
            throw Problem(.badRequest, "query parameter \"\(name)\" describes a layout viewport: use it with include=layout")
        }
        return include
    }

    static func routeTable(_ snapshot: Snapshot) throws(Problem) -> RouteTableEntry {
        guard let routes = snapshot.routes else {
            throw Problem(.notFound, "this server has no route table: add routes.json to the configuration directory (docs/routes.md) or publish one (PUT /admin/routes)")
        }
        return routes
    }

    /// The route resolution for this user, or the problem a client can act on.
    static func resolve(
        _ url: String, in routes: RouteTableEntry, for context: UserContext, _ snapshot: Snapshot
    ) throws(Problem) -> RouteResolution {
        switch routes.table.resolve(url, context: context, evaluator: snapshot.evaluator) {
        case .success(let resolution): return resolution
        case .failure(let failure): throw Problem(failure)
        }
    }

    private static let null = EncodedBody(bytes: Array("null".utf8))

    /// The resolution with `content` (an answer) spliced in, when there is one. The compact form is
    /// joined byte for byte, so the cached answer is never decoded again; the pretty one (for
    /// people) is re-indented whole.
    /// - Parameter compressionLevel: 9 for an answer the answer cache keeps; lower for one made per request.
    static func composed(_ resolution: JSONValue, content: EncodedBody?, pretty: Bool, compressionLevel: Int = Gzip.Policy.compressedOnceLevel) -> EncodedBody {
        guard let content else {
            return EncodedBody(bytes: JSONWriter.encode(resolution, style: pretty ? .pretty : .compact), compressionLevel: compressionLevel)
        }
        if pretty, let members = resolution.objectValue, let parsed = try? JSONParser.parse(content.bytes) {
            let whole = JSONValue.object(members.map { ($0.key, $0.value) } + [("content", parsed)])
            return EncodedBody(bytes: JSONWriter.encode(whole, style: .pretty), compressionLevel: compressionLevel)
        }
        var bytes = JSONWriter.encode(resolution)
        bytes.removeLast()  // the closing brace
        bytes += Array(#","content":"#.utf8) + content.bytes + [UInt8(ascii: "}")]
        return EncodedBody(bytes: bytes, compressionLevel: compressionLevel)
    }
}

extension Problem {
    /// A URL that does not resolve: 400 when it (or a parameter of it) is malformed, 404 when no
    /// route matches (naming the closest patterns), 508 when the redirects go round.
    init(_ failure: RouteFailure) {
        switch failure {
        case .unparsable:
            self.init(.badRequest, failure.description)
        case .noMatch(_, let closest, _):
            self.init(.notFound, failure.description, extensions: [("closest", .array(closest.map(JSONValue.string)))])
        case .badParameter(_, _, let name, _, _):
            self.init(.badRequest, failure.description, extensions: [("parameter", .string(name))])
        case .tooManyRedirects(let chain), .loop(let chain):
            self.init(.loopDetected, failure.description, extensions: [("chain", .array(chain.map(JSONValue.string)))])
        }
    }
}
