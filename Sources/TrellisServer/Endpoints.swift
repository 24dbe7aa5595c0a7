import Prometheus
import TrellisHTTP
import TrellisJSON
import TrellisScreens
import TrellisStore
import TrellisTargeting

/// The HTTP surface: one method per endpoint, wired into a route table once.
struct Endpoints: Sendable {
    let state: ServerState
    /// The runtime store and its queues; nil for a server without one (tests of the read path).
    let control: ControlPlane?

    /// `GET /` — what this server offers, for people exploring with curl.
    static let index: [UInt8] = JSONWriter.encode(
        .object([
            ("name", .string("trellis")),
            (
                "endpoints",
                .object([
                    ("screens", .string("GET /v1/screens")),
                    ("screen", .string("GET /v1/screens/{id}?user=&platform=&appVersion=&schemaVersion=&attr.NAME=&pretty=1")),
                    ("layout", .string("GET /v1/screens/{id}/layout?width=390&height=844&scale=3&fontScale=1&safeTop=47&safeBottom=34&direction=ltr&web=0&user=…")),
                    ("routes", .string("GET /v1/routes")),
                    ("route", .string("GET /v1/routes/resolve?url=app://product/42&user=…&include=screen|layout")),
                    ("preview", .string("GET /preview/{id}?width=390&height=844&… (HTML), GET /preview/{id}/preview.svg?… (SVG), GET /preview?url=app://… (follows a link)")),
                    ("fonts", .string("GET /fonts/{file} (the font files the previews draw text in)")),
                    ("health", .string("GET /healthz")),
                    ("readiness", .string("GET /readyz")),
                    ("metrics", .string("GET /metrics")),
                    ("admin", .string("/admin/rollouts, /admin/experiments, /admin/screens, /admin/routes, /admin/audit, /admin/explain (bearer token; docs/operations.md)")),
                ])
            ),
        ]), style: .pretty)

    func router() -> Router {
        var router = Router()
        router.add(.get, "/") { request, _, _ throws(Problem) in
            _ = try QueryParameters(request.query, allowed: [])
            return Self.json(Self.index, cacheControl: "no-cache")
        }
        router.add(.get, "/healthz") { request, _, _ throws(Problem) in
            _ = try QueryParameters(request.query, allowed: [])
            return Self.json(Array(#"{"status":"ok"}"#.utf8), cacheControl: "no-store")
        }
        router.add(.get, "/readyz") { request, _, _ throws(Problem) in try readiness(request) }
        router.add(.get, "/metrics") { request, _, _ throws(Problem) in try metrics(request) }
        router.add(.get, "/v1/screens") { request, _, _ throws(Problem) in try screenList(request) }
        router.add(.get, "/v1/screens/{id}", replying: { request, parameters, context throws(Problem) in
            try screen(request, context, id: parameters["id"] ?? "")
        })
        router.add(.get, "/v1/screens/{id}/layout") { request, parameters, _ throws(Problem) in
            try layout(request, id: parameters["id"] ?? "")
        }
        router.add(.get, "/v1/routes") { request, _, _ throws(Problem) in try routeList(request) }
        router.add(.get, "/v1/routes/resolve") { request, _, _ throws(Problem) in try resolveRoute(request) }
        router.add(.get, "/preview") { request, _, _ throws(Problem) in try previewLink(request) }
        router.add(.get, "/preview/{id}") { request, parameters, _ throws(Problem) in
            try preview(request, id: parameters["id"] ?? "", svg: false)
        }
        router.add(.get, "/preview/{id}/preview.svg") { request, parameters, _ throws(Problem) in
            try preview(request, id: parameters["id"] ?? "", svg: true)
        }
        router.add(.get, "/fonts/{file}") { request, parameters, _ throws(Problem) in
            try fontFile(request, name: parameters["file"] ?? "")
        }
        return router
    }

    /// `GET /v1/screens/{id}` — the screen resolved for the user the query describes: rules,
    /// rollouts and experiments decided, components the client's schema version cannot render
    /// replaced. Answers are cached per outcome; 304 when the client has this one already.
    func screen(_ request: HTTPRequest, _ context: HTTPRequestContext, id: String) throws(Problem) -> HTTPReply {
        var resolving = try ScreenRequest(request, id: id, state: state, parameters: Self.screenQueryNames)
        let format = try ClientFormat.negotiate(request, query: resolving.query)
        let pretty = try resolving.query.flag("pretty")
        if let revision = resolving.query["revision"] {
            guard format == .trellis else { throw Problem(.badRequest, "revision=N is answered in Trellis's format only") }
            return try earlierRevision(resolving, request, context, revision: revision)
        }
        guard format == .trellis else {
            resolving = resolving.limited(toSchemaVersion: format.schemaVersionLimit)
            let body = try clientAnswer(resolving, format: format, pretty: pretty)
            return .response(Self.cached(body, request, cacheControl: state.screenCacheControl, contentType: format.contentType, vary: state.screenVary))
        }
        if let name = resolving.query.items.first(where: { LayoutViewport.parameterNames.contains($0.name) })?.name {
            throw Problem(.badRequest, "query parameter \"\(name)\" describes a viewport: it sizes format=drivenui answers, or use /v1/screens/\(id)/layout")
        }
        let body = try screenAnswer(resolving, pretty: pretty)
        return .response(Self.cached(body, request, cacheControl: state.screenCacheControl, vary: state.screenVary))
    }

    /// The query parameters `GET /v1/screens/{id}` takes besides the user context; made once, not per request.
    static let screenQueryNames = LayoutViewport.parameterNames.union(["pretty", "revision", "format"])

    /// A third-party client's body, with the envelope's facts in headers. DrivenUI cannot say
    /// "fill" or a percentage, so with a viewport (`width`, `height`) those sizes are computed by
    /// the layout core; without one they are left out.
    func clientAnswer(_ resolving: ScreenRequest, format: ClientFormat, pretty: Bool) throws(Problem) -> EncodedBody {
        let hasViewport = resolving.query.items.contains { LayoutViewport.parameterNames.contains($0.name) }
        let viewport = hasViewport && format == .drivenui ? try LayoutViewport.parse(resolving.query, platform: resolving.context.platform) : nil
        if viewport != nil { try Self.requireFonts(resolving.snapshot) }
        if hasViewport && format != .drivenui {
            throw Problem(.badRequest, "the viewport parameters size format=drivenui answers only")
        }
        let revision = resolving.entry.revision
        let fonts = resolving.snapshot.fonts
        return try resolving.cached(format: .client(format), pretty: pretty, viewport: viewport) { () throws(Problem) in
            let resolved = try resolving.resolve()
            let style: JSONWriter.Style = pretty ? .pretty : .compact
            switch format {
            case .drivenui:
                let frames = viewport.map { ScreenLayout(viewport: $0, fonts: fonts).layOut(resolved) }
                return EncodedBody(
                    bytes: JSONWriter.encode(DrivenUIFormat.body(resolved, frames: frames), style: style),
                    headers: DrivenUIFormat.headers(resolved, revision: revision))
            case .matrioska:
                return EncodedBody(
                    bytes: JSONWriter.encode(MatrioskaFormat.document(resolved), style: style),
                    headers: MatrioskaFormat.headers(resolved, revision: revision))
            case .trellis:
                return EncodedBody(bytes: JSONWriter.encode(resolved.jsonValue(revision: revision), style: style))
            }
        }
    }

    /// The screen answer for one resolved request, from the answer cache.
    func screenAnswer(_ resolving: ScreenRequest, pretty: Bool) throws(Problem) -> EncodedBody {
        try resolving.answer(format: .screen, pretty: pretty) { resolved in
            JSONWriter.encode(resolved.jsonValue(revision: resolving.entry.revision), style: pretty ? .pretty : .compact)
        }
    }

    /// `GET /v1/screens/{id}?revision=N` — any stored revision resolved for this user, for previews
    /// and comparisons. Read from the store on its read queue; never cached by the answer cache.
    func earlierRevision(
        _ resolving: ScreenRequest, _ request: HTTPRequest, _ context: HTTPRequestContext, revision text: String
    ) throws(Problem) -> HTTPReply {
        guard let number = Int(text), number >= 1, String(number) == text else {
            throw Problem(.badRequest, "query parameter \"revision\" must be a revision number (1, 2, …), not \"\(text)\"")
        }
        guard let control else { throw Problem(.notFound, "this server keeps no revision history") }
        let id = resolving.id
        let pretty = try resolving.query.flag("pretty")
        let cacheControl = state.screenCacheControl
        let vary = state.screenVary
        return .deferred(on: control.readQueue, for: request, context) { () throws(Problem) in
            let stored: ScreenRevision?
            do { stored = try control.store.revision(screen: id, number: number) } catch {
                throw Problem(.serviceUnavailable, "cannot read revision \(number): \(error)")
            }
            guard let stored else { throw Problem(.notFound, "screen \(id) has no revision \(number)") }
            let source = "screens/\(id) revision \(number)"
            let screen: Screen
            switch control.builder.loader.checkScreen(
                stored.document, source: source, id: id, targeting: resolving.snapshot.targeting,
                templates: control.currentBaseline.templates) {
            case .success(let checked): screen = checked
            case .failure(let error):
                throw Problem.invalid("revision \(number) no longer fits the targeting in force", error.diagnostics, source: source, status: .conflict)
            }
            let earlier = resolving.with(ScreenEntry(screen: screen, revision: number, resolver: resolving.snapshot.resolver))
            let body = EncodedBody(bytes: JSONWriter.encode(try earlier.resolve().jsonValue(revision: number), style: pretty ? .pretty : .compact))
            return Self.cached(body, request, cacheControl: cacheControl, vary: vary)
        }
    }

    /// `GET /v1/screens` — the id, revision, schema version and title of every screen.
    func screenList(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        let pretty = try QueryParameters(request.query, allowed: ["pretty"]).flag("pretty")
        let list = state.store.snapshot.screenList
        return Self.cached(pretty ? list.pretty : list.compact, request, cacheControl: "no-cache")
    }

    /// `GET /readyz` — 200 while serving a loaded snapshot, 503 once draining for shutdown.
    func readiness(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        _ = try QueryParameters(request.query, allowed: [])
        let snapshot = state.store.snapshot
        let draining = state.isDraining
        let body = JSONWriter.encode(
            .object([
                ("status", .string(draining ? "draining" : "ready")), ("generation", .number(snapshot.generation)),
                ("screens", .number(snapshot.screens.count)),
            ]))
        var response = Self.json(body, cacheControl: "no-store")
        if draining { response.status = .serviceUnavailable }
        return response
    }

    /// `GET /metrics` — Prometheus text exposition format 0.0.4.
    func metrics(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        _ = try QueryParameters(request.query, allowed: [])
        return HTTPResponse(
            headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store"],
            body: state.metrics.emitToBuffer())
    }

    static func json(_ body: [UInt8], cacheControl: String) -> HTTPResponse {
        HTTPResponse(headers: ["Content-Type": "application/json", "Cache-Control": cacheControl], body: body)
    }

    /// A cacheable answer: 304 when `If-None-Match` names the current ETag, else the bytes with
    /// their precomputed gzip form.
    static func cached(
        _ body: EncodedBody, _ request: HTTPRequest, cacheControl: String, contentType: String = "application/json",
        vary: String = "Accept-Encoding"
    ) -> HTTPResponse {
        var headers: HTTPHeaders = ["ETag": body.etag, "Cache-Control": cacheControl, "Vary": vary]
        for header in body.headers { headers.add(name: header.name, value: header.value) }
        if request.headers.ifNoneMatchMatches(body.etag) {
            return HTTPResponse(status: .notModified, headers: headers)
        }
        headers.add(name: "Content-Type", value: contentType)
        // The gzip form is made on its first use: not for a client that takes identity only.
        return HTTPResponse(headers: headers, body: body.bytes, gzipBody: request.headers.acceptsGzip ? body.gzip : nil)
    }
}

/// The part every per-user screen answer shares (the screen, its layout, its previews): the user
/// context from the query, the snapshot, the outcomes, the screen's parameters, and the answer cache.
struct ScreenRequest: Sendable {
    let query: QueryParameters
    let context: UserContext
    let snapshot: Snapshot
    let entry: ScreenEntry
    let id: String
    /// The client's schema version capped at the screen's (and at its format's, ``limited(toSchemaVersion:)``).
    private(set) var schemaVersion: Int
    let outcomes: Outcomes
    /// Values for the screen's `$param`s: `param.NAME` from the query, or the route's parameters.
    let screenParameters: [String: JSONValue]
    let state: ServerState

    /// Query parameters with this prefix give the screen's parameters (`?param.id=42`).
    static let parameterPrefix = "param."

    /// Reads the context (and checks that `parameters` are the only others given), finds the
    /// screen and decides its outcomes for this user.
    /// - Parameter reader: how the context is read; the server's unless a caller trusts more (explain).
    init(
        _ request: HTTPRequest, id: String, state: ServerState, parameters: Set<String>, reader: ContextReader? = nil
    ) throws(Problem) {
        let query = try QueryParameters(
            request.query, allowed: UserContext.parameterNames, alsoAllowed: parameters, allowedPrefixes: ["attr.", Self.parameterPrefix])
        let context = try (reader ?? state.contextReader).context(
            of: request, queryItems: query.items.filter { UserContext.isParameter($0.name) }, now: state.clock())
        var given: [String: JSONValue] = [:]
        for item in query.items where item.name.hasPrefix(Self.parameterPrefix) {
            given[String(item.name.dropFirst(Self.parameterPrefix.count))] = .string(item.value)
        }
        try self.init(query: query, context: context, snapshot: state.store.snapshot, id: id, state: state, screenParameters: given)
    }

    /// The screen `id` for a user already known (a route resolved for them, with its parameters).
    init(
        query: QueryParameters, context: UserContext, snapshot: Snapshot, id: String, state: ServerState,
        screenParameters: [String: JSONValue]
    ) throws(Problem) {
        guard let entry = snapshot.entry(id, for: context) else {
            let known = snapshot.screens.keys.sorted().joined(separator: ", ")
            throw Problem(.notFound, "no screen \"\(id)\"; screens: \(known.isEmpty ? "none" : known)")
        }
        self.init(query: query, context: context, snapshot: snapshot, entry: entry, state: state, screenParameters: screenParameters)
    }

    private init(
        query: QueryParameters, context: UserContext, snapshot: Snapshot, entry: ScreenEntry, state: ServerState,
        screenParameters: [String: JSONValue]
    ) {
        self.query = query
        self.context = context
        self.snapshot = snapshot
        self.entry = entry
        self.id = entry.screen.id
        self.state = state
        self.screenParameters = screenParameters
        // A client without a schema version is a person exploring: show the screen as written.
        schemaVersion = min(context.schemaVersion ?? entry.screen.schemaVersion, entry.screen.schemaVersion)
        outcomes = snapshot.resolver.outcomes(of: entry.decisions, for: context, evaluator: snapshot.evaluator)
    }

    /// The same request for a client that renders at most `limit` (nil: no limit).
    func limited(toSchemaVersion limit: Int?) -> ScreenRequest {
        guard let limit, limit < schemaVersion else { return self }
        var copy = self
        copy.schemaVersion = limit
        return copy
    }

    /// The same request for another revision of the screen.
    func with(_ entry: ScreenEntry) -> ScreenRequest {
        ScreenRequest(query: query, context: context, snapshot: snapshot, entry: entry, state: state, screenParameters: screenParameters)
    }

    /// The screen resolved for this user, parameters substituted, without the answer cache.
    func resolve() throws(Problem) -> ResolvedScreen {
        let resolved = snapshot.resolver.resolve(
            entry.screen, decisions: entry.decisions, outcomes: outcomes, clientSchemaVersion: schemaVersion)
        guard !entry.parameterNames.isEmpty else { return resolved }
        do {
            return try resolved.substituting(screenParameters)
        } catch {
            throw Problem(
                .badRequest,
                "screen \(id): \(error); give its parameters as ?\(Self.parameterPrefix)NAME=value, or open it through a route (GET /v1/routes/resolve?url=…)")
        }
    }

    /// The values of the parameters this screen uses, canonically: part of the answer's cache key.
    var parameterKey: String {
        guard !entry.parameterNames.isEmpty else { return "" }
        return entry.parameterNames.map { name in name + "=" + (screenParameters[name].map { JSONWriter.string($0) } ?? "-") }
            .joined(separator: "&")
    }

    /// The cached answer in `format` (without a viewport) for this outcome, or `encode`'s, stored.
    func answer(format: AnswerFormat, pretty: Bool = false, encode: (ResolvedScreen) -> [UInt8]) throws(Problem) -> EncodedBody {
        try cached(format: format, pretty: pretty) { () throws(Problem) in EncodedBody(bytes: encode(try resolve())) }
    }

    /// ``resolve()`` through the snapshot's cache of resolved screens: many viewports of one
    /// outcome (a layout or preview miss each) resolve the screen once.
    func resolvedForViewports() throws(Problem) -> ResolvedScreen {
        let key = AnswerKey(
            screen: id, revision: entry.revision, schemaVersion: schemaVersion, outcomes: outcomes, pretty: false,
            parameters: parameterKey)
        return try snapshot.resolvedScreens.answer(for: key) { () throws(Problem) in try resolve() }.body
    }

    /// The layout plan of this outcome for `viewport`'s kind (all of it but its size), through the
    /// snapshot's cache of plans: a client sweeping sizes plans each outcome once.
    func layoutPlan(for viewport: LayoutViewport) throws(Problem) -> LayoutPlan {
        let key = AnswerKey(
            screen: id, revision: entry.revision, schemaVersion: schemaVersion, outcomes: outcomes, pretty: false,
            format: .layout, viewport: LayoutPlan.kind(of: viewport), parameters: parameterKey)
        return try snapshot.layoutPlans.answer(for: key) { () throws(Problem) in
            ScreenLayout(viewport: viewport, fonts: snapshot.fonts).plan(try resolvedForViewports(), revision: entry.revision)
        }.body
    }

    /// The cached answer in `format` for this outcome (and viewport), or `make`'s, stored.
    func cached(
        format: AnswerFormat, pretty: Bool = false, viewport: LayoutViewport? = nil, linkQuery: String = "",
        make: () throws(Problem) -> EncodedBody
    ) throws(Problem) -> EncodedBody {
        let key = AnswerKey(
            screen: id, revision: entry.revision, schemaVersion: schemaVersion, outcomes: outcomes, pretty: pretty,
            format: format, viewport: viewport, parameters: parameterKey, linkQuery: linkQuery)
        let (body, hit) = try snapshot.answers.answer(for: key, make: make)
        state.recordAnswer(hit: hit)
        return body
    }
}
