import CoreMetrics
import TrellisHTTP
import TrellisJSON
import TrellisRoutes
import TrellisScreens
import TrellisStore

/// Admin routes: each handler runs only once the request's token may do what its method needs
/// (`GET`: read; anything else: write; or the role the route names) and its query has only the
/// parameters the route takes — before the path, the body or the resource is looked at, so a
/// caller without a token learns nothing, and every failed attempt counts toward the address's
/// limit. A write to a resource that needs approval is held as a change request instead (`gate`).
///
/// The router change requests are replayed through has no gate: its requests come from the
/// server itself, on the write queue, made as their author (``ChangeDesk/authorHeader``), and
/// are never held again; it is never reachable from the network.
struct AuthorizingRouter {
    typealias Handler = @Sendable (HTTPRequest, PathParameters, HTTPRequestContext, _ actor: String) throws(Problem) -> HTTPReply

    var router: EndpointRouter
    let access: AdminAccess
    /// Holds writes that need approval; nil for the replay router.
    let gate: ChangeDesk.Gate?

    /// - Parameter query: the query parameters the route takes; nil when the handler checks them.
    /// - Parameter role: the role the route needs; by default read for `GET`, write otherwise.
    mutating func add(
        _ method: HTTPMethod, _ pattern: String, query: Set<String>? = [], role: AdminRole? = nil, replying handler: @escaping Handler
    ) {
        let access = self.access
        let gate = self.gate
        let required = role ?? (method == .get ? .read : .write)
        router.add(method, pattern, replying: { request, parameters, context throws(Problem) in
            guard let gate else {
                // A change request holds writes a write token may make; nothing it approves
                // may reach what needs more (tokens, webhooks).
                guard required <= .write else {
                    throw Problem(.forbidden, "\(method) \(pattern) needs the \(required.rawValue) role; a change request cannot hold it")
                }
                if let query { _ = try QueryParameters(request.query, allowed: query) }
                return try handler(request, parameters, context, request.headers[ChangeDesk.authorHeader] ?? ChangeDesk.unknownAuthor)
            }
            let actor = try access.authorize(request, context, role: required)
            if let query { _ = try QueryParameters(request.query, allowed: query) }
            if required == .write, method != .get, let held = try gate.hold(request, context, actor) { return held }
            return try handler(request, parameters, context, actor)
        })
    }

    mutating func add(
        _ method: HTTPMethod, _ pattern: String, query: Set<String>? = [], role: AdminRole? = nil,
        _ handler: @escaping @Sendable (HTTPRequest, PathParameters, HTTPRequestContext, _ actor: String) throws(Problem) -> HTTPResponse
    ) {
        add(method, pattern, query: query, role: role, replying: { request, parameters, context, actor throws(Problem) in
            .response(try handler(request, parameters, context, actor))
        })
    }
}

/// The admin API: rollouts, experiments, screens, the audit log, explain, tokens and webhooks, behind
/// bearer tokens.
///
/// Reads answer from the snapshot in force, on the event loop; the few that need the store (old
/// revisions, the audit log) run on the control plane's read queue. Every write runs on the control
/// plane's write queue and is answered from there, after it is durable and published.
struct AdminEndpoints: Sendable {
    let state: ServerState
    let control: ControlPlane
    let access: AdminAccess
    /// Change requests: the replay router and the approval settings.
    let desk: ChangeDesk

    init(state: ServerState, control: ControlPlane, access: AdminAccess, configuration: ServerConfiguration.Admin) {
        self.state = state
        self.control = control
        self.access = access
        desk = ChangeDesk(configuration: configuration)
    }

    /// Registers every admin route in `router`, and builds the router change requests replay through.
    func register(in router: inout EndpointRouter) {
        var replay = AuthorizingRouter(router: EndpointRouter(), access: access, gate: nil)
        registerRoutes(in: &replay)
        desk.setReplayRouter(replay.router)
        var routes = AuthorizingRouter(router: router, access: access, gate: desk.gate(self))
        registerRoutes(in: &routes)
        router = routes.router
    }

    private func registerRoutes(in routes: inout AuthorizingRouter) {
        registerRollouts(in: &routes)
        registerExperiments(in: &routes)
        registerScreens(in: &routes)
        registerRouteTable(in: &routes)
        registerRules(in: &routes)
        registerTargeting(in: &routes)
        registerChanges(in: &routes)
        registerTokens(in: &routes)
        registerWebhooks(in: &routes)
        registerWhoAmI(in: &routes)
        routes.add(.get, "/admin/audit", query: nil, replying: { request, _, context, _ throws(Problem) in
            try audit(request, context)
        })
        routes.add(.get, "/admin/explain", query: nil) { request, _, context, _ throws(Problem) in try explain(request, context) }
    }

    // MARK: - Answers

    /// A resource as JSON with its ETag; never cached by anyone (it is the thing that changes).
    static func resource(_ value: JSONValue, etag: String? = nil, status: HTTPStatus = .ok, pretty: Bool = true) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]
        if let etag { headers.add(name: "ETag", value: etag) }
        return HTTPResponse(status: status, headers: headers, body: JSONWriter.encode(value, style: pretty ? .pretty : .compact))
    }

    /// A strong ETag of a resource's JSON form.
    static func etag(of value: JSONValue) -> String {
        "\"" + EncodedBody.fingerprint(JSONWriter.encode(value)) + "\""
    }

    // MARK: - Writes

    /// What a write plans from the snapshot in force: the change to store, and the answer to give
    /// once it is published (from the new snapshot).
    struct Plan {
        var change: StoreChange
        /// The values of the change's targeting documents, by ``PlannedSettings/id(kind:key:)``, as
        /// planned (not decoded again).
        var planned: [String: PlannedSettings] = [:]
        /// Screens the change adds, already decoded and checked, by fingerprint (not decoded again).
        var checked: [String: CheckedScreen] = [:]
        /// The same for a route table the change adds.
        var checkedRoutes: [String: RouteTable] = [:]
        /// The status a change that does not validate gets: 422, or 409 for a retirement that
        /// screens, routes or rules still need.
        var invalidStatus: HTTPStatus = .unprocessableContent
        var answer: @Sendable (Snapshot) -> HTTPResponse
    }

    /// Plans, commits and publishes a change on the write queue, and answers from there. `plan`
    /// runs on the write queue with the snapshot in force, so concurrent writers see each other's
    /// changes and `If-Match` compares with what is really there.
    func write(
        _ request: HTTPRequest, _ context: HTTPRequestContext, _ actor: String,
        _ plan: @escaping @Sendable (Snapshot, _ actor: String) throws(Problem) -> Plan
    ) -> HTTPReply {
        let control = self.control
        return .deferred(on: control.writeQueue, for: request, context) { () throws(Problem) in
            let current = control.state.published.snapshot
            let planned: Plan
            do throws(Problem) {
                planned = try plan(current, actor)
            } catch {
                control.refused.increment()
                throw error
            }
            return try publish(planned, over: current)
        }
    }

    /// Commits and publishes what a write planned over `current`, and answers from the snapshot it
    /// leads to. Call on the write queue only.
    func publish(_ planned: Plan, over current: Snapshot) throws(Problem) -> HTTPResponse {
        switch control.publish(
            planned.change, over: current, planned: planned.planned, checked: planned.checked, checkedRoutes: planned.checkedRoutes) {
        case .success(let published): return planned.answer(published)
        case .failure(.invalid(let error)):
            control.refused.increment()
            throw Problem.refusedChange(error, status: planned.invalidStatus)
        case .failure(.checkedOnly):
            return ChangeDesk.checkedAnswer
        case .failure(.store(.conflict(let detail))):
            throw Problem(.conflict, "another change got there first (\(detail)); read the resource again and retry")
        case .failure(.store(.failure(let detail))):
            throw Problem(.serviceUnavailable, "the change was not stored: \(detail); nothing changed", headers: ["Retry-After": "1"])
        case .failure(.store(.unavailable(let detail))):
            // A connection lost while committing may have committed: the client must read before
            // it retries (If-Match keeps a blind retry from applying twice).
            throw Problem(
                .serviceUnavailable,
                "the runtime store is unreachable (\(detail)); the change was not acknowledged — public endpoints keep serving the last state; read the resource again before retrying",
                headers: ["Retry-After": "5"])
        }
    }

    /// Refuses a write whose `If-Match` names another version of the resource (or, when the server
    /// requires it, a write without one). `etag` is the resource's current tag, nil if it does not exist.
    func checkPrecondition(_ request: HTTPRequest, etag: String?) throws(Problem) {
        switch request.headers.ifMatchMatches(etag) {
        case true?: return
        case false?:
            throw Problem(
                .preconditionFailed,
                "If-Match does not name the current version (\(etag ?? "none")); it changed since you read it. Nothing changed; read it again and retry")
        case nil:
            if access.requireIfMatch {
                throw Problem(.preconditionRequired, "this server requires If-Match on writes: send the ETag of your last GET")
            }
        }
    }

    /// The request body as a JSON object, every key from `allowed`; 415 for a non-JSON media type,
    /// 400 for malformed JSON, 422 for unknown keys (all of them, with line and column).
    static func payload(
        _ request: HTTPRequest, allowed: Set<String>,
        _ decode: (JSONObjectReader, DiagnosticsCollector) -> Void
    ) throws(Problem) {
        let document = try jsonBody(request)
        let collector = DiagnosticsCollector()
        if let object = collector.object(document, at: .root, allowedKeys: allowed) { decode(object, collector) }
        guard collector.isEmpty else {
            throw Problem.invalid("the body is not a valid change; nothing changed", collector.diagnostics, source: "body", status: .unprocessableContent)
        }
    }

    /// The request body parsed as JSON: 415 for a non-JSON media type, 400 (with the line and
    /// column) for malformed JSON.
    static func jsonBody(_ request: HTTPRequest) throws(Problem) -> JSONValue {
        try checkMediaType(request)
        do {
            return try JSONParser.parse(request.body)
        } catch {
            throw Problem.invalid(
                "the body is not JSON", [Diagnostic(path: .root, location: error.location, message: error.reason)], source: "body",
                status: .badRequest)
        }
    }

    /// Bodies are JSON whatever they are labelled, with two exceptions allowed for people:
    /// `curl -d` labels its body `application/x-www-form-urlencoded`, and some tools say
    /// `text/plain`. Anything else (a form upload, XML) is refused with 415.
    static func checkMediaType(_ request: HTTPRequest) throws(Problem) {
        guard let type = request.headers["Content-Type"] else { return }
        let essence = String(type.prefix { $0 != ";" }).lowercased().filter { $0 != " " && $0 != "\t" }
        let accepted = ["application/json", "application/x-www-form-urlencoded", "text/plain"]
        guard accepted.contains(essence) || essence.hasSuffix("+json") else {
            throw Problem(.unsupportedMediaType, "send the body as application/json, not \(type)")
        }
    }

    /// 404 naming what exists.
    static func notFound(_ kind: String, _ key: String, known: some Sequence<String>) -> Problem {
        let list = known.sorted().joined(separator: ", ")
        return Problem(.notFound, "no \(kind) \"\(key)\"; \(kind)s: \(list.isEmpty ? "none" : list)")
    }
}

extension Problem {
    /// 422: the change leads to a configuration that does not validate; every problem listed.
    static func refusedChange(_ error: ConfigLoadError, status: HTTPStatus = .unprocessableContent) -> Problem {
        let lead = status == .conflict ? "still in use; nothing changed" : "the change does not validate; nothing changed"
        return invalid(
            "\(lead): \(error.errors.first?.description ?? "")",
            error.errors.flatMap { e in e.diagnostics.map { (Optional(e.source), $0) } }, status: status)
    }
}
