import Prometheus
import TrellisHTTP
import TrellisJSON
import TrellisScreens
import TrellisTargeting

/// The HTTP surface: one method per endpoint, wired into a route table once.
struct Endpoints: Sendable {
    let state: ServerState

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
        router.add(.get, "/v1/screens/{id}") { request, parameters, _ throws(Problem) in
            try screen(request, id: parameters["id"] ?? "")
        }
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
    func screen(_ request: HTTPRequest, id: String) throws(Problem) -> HTTPResponse {
        let resolving = try ScreenRequest(request, id: id, state: state, parameters: ["pretty"])
        let pretty = try resolving.query.flag("pretty")
        let body = resolving.answer(format: .screen, pretty: pretty) { resolved in
            JSONWriter.encode(resolved.jsonValue(revision: resolving.entry.revision), style: pretty ? .pretty : .compact)
        }
        return Self.cached(body, request, cacheControl: state.screenCacheControl)
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
        _ body: EncodedBody, _ request: HTTPRequest, cacheControl: String, contentType: String = "application/json"
    ) -> HTTPResponse {
        var headers: HTTPHeaders = ["ETag": body.etag, "Cache-Control": cacheControl, "Vary": "Accept-Encoding"]
        if request.headers.ifNoneMatchMatches(body.etag) {
            return HTTPResponse(status: .notModified, headers: headers)
        }
        headers.add(name: "Content-Type", value: contentType)
        return HTTPResponse(headers: headers, body: body.bytes, gzipBody: body.gzip)
    }
}

/// The part every per-user screen answer shares (the screen, its layout, its previews): the user
/// context from the query, the snapshot, the outcomes, and the answer cache.
struct ScreenRequest {
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
    init(_ request: HTTPRequest, id: String, state: ServerState, parameters: Set<String>) throws(Problem) {
        query = try QueryParameters(
            request.query, allowed: UserContext.parameterNames.union(parameters), allowedPrefixes: ["attr."])
        var context: UserContext
        do {
            context = try UserContext.parse(query.items.filter { UserContext.isParameter($0.name) })
        } catch {
            throw Problem.invalidContext(error)
        }
        context.now = state.clock()
        self.context = context
        snapshot = state.store.snapshot
        guard let entry = snapshot.screens[id] else {
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

    /// The cached answer in `format` for this outcome (and viewport), or `encode`'s, stored.
    func answer(
        format: AnswerFormat, pretty: Bool = false, viewport: LayoutViewport? = nil, encode: (ResolvedScreen) -> [UInt8]
    ) -> EncodedBody {
        let key = AnswerKey(
            screen: id, revision: entry.revision, schemaVersion: schemaVersion, outcomes: outcomes, pretty: pretty,
            format: format, viewport: viewport)
        let (body, hit) = snapshot.answers.answer(for: key) {
            EncodedBody(bytes: encode(snapshot.resolver.resolve(
                entry.screen, decisions: entry.decisions, outcomes: outcomes, clientSchemaVersion: schemaVersion)))
        }
        state.recordAnswer(hit: hit)
        return body
    }
}
