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
                    ("preview", .string("GET /preview/{id}?width=390&height=844&… (HTML), GET /preview/{id}/preview.svg?… (SVG)")),
                    ("health", .string("GET /healthz")),
                    ("readiness", .string("GET /readyz")),
                    ("metrics", .string("GET /metrics")),
                    ("admin", .string("/admin/rollouts, /admin/experiments, /admin/screens, /admin/audit, /admin/explain (bearer token; docs/operations.md)")),
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
        router.add(.get, "/preview/{id}") { request, parameters, _ throws(Problem) in
            try preview(request, id: parameters["id"] ?? "", svg: false)
        }
        router.add(.get, "/preview/{id}/preview.svg") { request, parameters, _ throws(Problem) in
            try preview(request, id: parameters["id"] ?? "", svg: true)
        }
        return router
    }

    /// `GET /v1/screens/{id}` — the screen resolved for the user the query describes: rules,
    /// rollouts and experiments decided, components the client's schema version cannot render
    /// replaced. Answers are cached per outcome; 304 when the client has this one already.
    func screen(_ request: HTTPRequest, _ context: HTTPRequestContext, id: String) throws(Problem) -> HTTPReply {
        let resolving = try ScreenRequest(request, id: id, state: state, parameters: ["pretty", "revision"])
        let pretty = try resolving.query.flag("pretty")
        if let revision = resolving.query["revision"] { return try earlierRevision(resolving, request, context, revision: revision) }
        let body = resolving.answer(format: .screen, pretty: pretty) { resolved in
            JSONWriter.encode(resolved.jsonValue(revision: resolving.entry.revision), style: pretty ? .pretty : .compact)
        }
        return .response(Self.cached(body, request, cacheControl: state.screenCacheControl, vary: state.screenVary))
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
            switch control.builder.loader.checkScreen(stored.document, source: source, id: id, targeting: resolving.snapshot.targeting) {
            case .success(let checked): screen = checked
            case .failure(let error):
                throw Problem.invalid("revision \(number) no longer fits the targeting in force", error.diagnostics, source: source, status: .conflict)
            }
            let earlier = resolving.with(ScreenEntry(screen: screen, revision: number, resolver: resolving.snapshot.resolver))
            let body = EncodedBody(bytes: JSONWriter.encode(earlier.resolve().jsonValue(revision: number), style: pretty ? .pretty : .compact))
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
        if request.headers.ifNoneMatchMatches(body.etag) {
            return HTTPResponse(status: .notModified, headers: headers)
        }
        headers.add(name: "Content-Type", value: contentType)
        return HTTPResponse(headers: headers, body: body.bytes, gzipBody: body.gzip)
    }
}

/// The part every per-user screen answer shares (the screen, its layout, its previews): the user
/// context from the query, the snapshot, the outcomes, and the answer cache.
struct ScreenRequest: Sendable {
    let query: QueryParameters
    let context: UserContext
    let snapshot: Snapshot
    let entry: ScreenEntry
    let id: String
    /// The client's schema version capped at the screen's.
    let schemaVersion: Int
    let outcomes: Outcomes
    let state: ServerState

    /// Reads the context (and checks that `parameters` are the only others given), finds the
    /// screen and decides its outcomes for this user.
    /// - Parameter reader: how the context is read; the server's unless a caller trusts more (explain).
    init(
        _ request: HTTPRequest, id: String, state: ServerState, parameters: Set<String>, reader: ContextReader? = nil
    ) throws(Problem) {
        query = try QueryParameters(
            request.query, allowed: UserContext.parameterNames.union(parameters), allowedPrefixes: ["attr."])
        let context = try (reader ?? state.contextReader).context(
            of: request, queryItems: query.items.filter { UserContext.isParameter($0.name) }, now: state.clock())
        self.context = context
        snapshot = state.store.snapshot
        guard let entry = snapshot.entry(id, for: context) else {
            let known = snapshot.screens.keys.sorted().joined(separator: ", ")
            throw Problem(.notFound, "no screen \"\(id)\"; screens: \(known.isEmpty ? "none" : known)")
        }
        self.entry = entry
        self.id = id
        self.state = state
        // A client without a schema version is a person exploring: show the screen as written.
        schemaVersion = min(context.schemaVersion ?? entry.screen.schemaVersion, entry.screen.schemaVersion)
        outcomes = snapshot.resolver.outcomes(of: entry.decisions, for: context, evaluator: snapshot.evaluator)
    }

    private init(copying other: ScreenRequest, entry: ScreenEntry) {
        query = other.query
        context = other.context
        snapshot = other.snapshot
        id = other.id
        state = other.state
        self.entry = entry
        schemaVersion = min(context.schemaVersion ?? entry.screen.schemaVersion, entry.screen.schemaVersion)
        outcomes = snapshot.resolver.outcomes(of: entry.decisions, for: context, evaluator: snapshot.evaluator)
    }

    /// The same request for another revision of the screen.
    func with(_ entry: ScreenEntry) -> ScreenRequest { ScreenRequest(copying: self, entry: entry) }

    /// The screen resolved for this user, without the answer cache.
    func resolve() -> ResolvedScreen {
        snapshot.resolver.resolve(entry.screen, decisions: entry.decisions, outcomes: outcomes, clientSchemaVersion: schemaVersion)
    }

    /// The cached answer in `format` for this outcome (and viewport), or `encode`'s, stored.
    func answer(
        format: AnswerFormat, pretty: Bool = false, viewport: LayoutViewport? = nil, encode: (ResolvedScreen) -> [UInt8]
    ) -> EncodedBody {
        let key = AnswerKey(
            screen: id, revision: entry.revision, schemaVersion: schemaVersion, outcomes: outcomes, pretty: pretty,
            format: format, viewport: viewport)
        let (body, hit) = snapshot.answers.answer(for: key) { EncodedBody(bytes: encode(resolve())) }
        state.recordAnswer(hit: hit)
        return body
    }
}
