import CoreMetrics
import TrellisAnswers
import TrellisHTTP
import TrellisJSON
import TrellisRoutes
import TrellisRuntime
import TrellisScreens
import TrellisStore
import TrellisTargeting

/// Admin routes: each handler runs only once the request's token may do what its method needs
/// (`GET`: read; anything else: write; or the role the route names) and its query has only the
/// parameters the route takes — before the path, the body or the resource is looked at, so a
/// caller without a token learns nothing, and every failed attempt counts toward the address's
/// limit.
struct AuthorizingRouter {
    typealias Handler = @Sendable (HTTPRequest, PathParameters, HTTPRequestContext, _ actor: String) throws(Problem) -> HTTPReply

    var router: EndpointRouter
    let access: AdminAccess

    /// - Parameter query: the query parameters the route takes; nil when the handler checks them.
    /// - Parameter role: the role the route needs; by default read for `GET`, write otherwise.
    mutating func add(
        _ method: HTTPMethod, _ pattern: String, query: Set<String>? = [], role: AdminRole? = nil, replying handler: @escaping Handler
    ) {
        let access = self.access
        let required = role ?? (method == .get ? .read : .write)
        router.add(method, pattern, replying: { request, parameters, context throws(Problem) in
            let actor = try access.authorize(request, context, role: required)
            if let query { _ = try QueryParameters(request.query, allowed: query) }
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

/// The admin API: the HTTP face of the runtime. A read answers from the snapshot in force, on the
/// event loop (the few that need the store run on the control plane's read queue). A write is
/// decoded into a ``Command`` and made by the ``Runtime`` on its write queue; its ``Outcome`` or
/// ``Refusal`` becomes the answer (status, problem, ETag).
struct AdminEndpoints: Sendable {
    let state: ServerState
    let runtime: Runtime
    let access: AdminAccess
    /// Apps' events, for results and exports; nil for an admin API without them (tests).
    let tracking: Tracking?
    /// What guards saw when this replica last looked; nil without one.
    let guardRunner: GuardRunner?
    var control: ControlPlane { runtime.control }

    init(state: ServerState, runtime: Runtime, access: AdminAccess, tracking: Tracking? = nil, guardRunner: GuardRunner? = nil) {
        self.state = state
        self.runtime = runtime
        self.access = access
        self.tracking = tracking
        self.guardRunner = guardRunner
    }

    /// Registers every admin route in `router`.
    func register(in router: inout EndpointRouter) {
        var routes = AuthorizingRouter(router: router, access: access)
        registerCommands(in: &routes)
        registerRollouts(in: &routes)
        registerExperiments(in: &routes)
        registerScreens(in: &routes)
        registerRouteTable(in: &routes)
        registerStrings(in: &routes)
        registerRules(in: &routes)
        registerTargeting(in: &routes)
        registerChanges(in: &routes)
        registerTokens(in: &routes)
        registerWebhooks(in: &routes)
        registerMetrics(in: &routes)
        registerGuards(in: &routes)
        if let tracking { registerResults(in: &routes, tracking: tracking) }
        registerWhoAmI(in: &routes)
        routes.add(.get, "/admin/audit", query: nil, replying: { request, _, context, actor throws(Problem) in
            try audit(request, context, actor)
        })
        routes.add(.get, "/admin/explain", query: nil) { request, _, context, _ throws(Problem) in try explain(request, context) }
        router = routes.router
    }

    /// Every write a change request may hold (``AdminWrites``): the body, path parameters and
    /// query read into the command through its ``CommandForm``, as a stored request's is.
    private func registerCommands(in routes: inout AuthorizingRouter) {
        for write in AdminWrites.all {
            routes.add(write.method, write.pattern, query: write.query, replying: { request, parameters, context, actor throws(Problem) in
                try Self.checkMediaType(request)
                let form = write.form(parameters, query: request.query.items.map { ($0.name, $0.value) }, body: request.body)
                let command: Command
                do throws(Refusal) { command = try Command(form) } catch { throw Problem(error) }
                return execute(command, request, context, actor)
            })
        }
    }

    // MARK: - Writes

    /// Makes `command` as `actor` on the runtime's write queue and answers from there, once it is
    /// durable and published (or held, or refused).
    func execute(
        _ command: Command, _ request: HTTPRequest, _ context: HTTPRequestContext, _ actor: String,
        answer: @escaping @Sendable (Outcome) -> HTTPResponse = { Self.answer($0) }
    ) -> HTTPReply {
        let runtime = self.runtime
        let ifMatch = Self.condition(request.headers)
        return .deferred(on: runtime.control.writeQueue, for: request, context) { () throws(Problem) in
            switch runtime.executeOnWriteQueue(command, as: .person(actor), ifMatch: ifMatch) {
            case .success(let outcome): return answer(outcome)
            case .failure(let refusal): throw Problem(refusal)
            }
        }
    }

    /// The versions `If-Match` accepts; nil without one.
    static func condition(_ headers: HTTPHeaders) -> VersionCondition? {
        guard !headers.values(for: "If-Match").isEmpty else { return nil }
        return VersionCondition { headers.ifMatchMatches($0) ?? true }
    }

    /// The answer to a command made: what it wrote to, as it is now, with its ETag; 201 with its
    /// `Location` for what it created; 202 for a write held as a change request.
    static func answer(_ outcome: Outcome) -> HTTPResponse {
        let snapshot = outcome.snapshot
        if let change = outcome.changeRequest {
            var response = resource(
                changeView(change, in: snapshot), etag: ResourceView.version(of: .changeRequest(change.id), in: snapshot),
                status: outcome.effect == .held ? .accepted : .ok)
            if outcome.effect == .held { response.headers.add(name: "Location", value: "/admin/changes/\(change.id)") }
            return response
        }
        let target = outcome.target
        switch (target, outcome.effect) {
        case (.rollout(let key), .removed), (.experiment(let key), .removed):
            return resource(.object([("key", .string(key)), ("retired", .bool(true))]))
        case (.rule(let name), .removed):
            return resource(.object([("name", .string(name)), ("retired", .bool(true))]))
        case (.token, .removed), (.webhook, .removed), (.metric, .removed), (.guardrail, .removed):
            return HTTPResponse(status: .noContent, headers: ["Cache-Control": "no-store"], body: [])
        default: break
        }
        var view: JSONValue
        let location: String?
        switch target {
        case .rollout(let key): (view, location) = (ResourceView.rollout(key, in: snapshot), "/admin/rollouts/\(key)")
        case .experiment(let key): (view, location) = (ResourceView.experiment(key, in: snapshot), "/admin/experiments/\(key)")
        case .rule(let name): (view, location) = (ResourceView.rule(name, in: snapshot), "/admin/rules/\(name)")
        case .targeting: (view, location) = (snapshot.targeting.jsonValue, nil)
        case .screen(let id): (view, location) = (ResourceView.screenHeadMembers(id, in: snapshot).map(JSONValue.object) ?? .null, "/admin/screens/\(id)")
        case .routeTable: (view, location) = (ResourceView.routeTableHeadMembers(in: snapshot).map(JSONValue.object) ?? .null, "/admin/routes")
        case .strings(let locale):
            (view, location) = (ResourceView.stringsHeadMembers(locale, in: snapshot).map(JSONValue.object) ?? .null, "/admin/strings/\(locale)")
        case .metric(let name):
            (view, location) = (snapshot.runtime.operations.metrics[name].map { ResourceView.metric($0, in: snapshot) } ?? .null, "/admin/metrics/\(name)")
        case .guardrail(let subject):
            (view, location) = (snapshot.runtime.operations.guards[subject].map { Self.guardView($0) } ?? .null, "/admin/\(subject.resource)/guard")
        case .token, .webhook, .changeRequest, .changeRequests: (view, location) = (.null, nil)
        }
        if !outcome.warnings.isEmpty, let members = view.objectValue { view = JSONValue(.object(members + [JSONMember(key: "warnings", value: .array(outcome.warnings))])) }
        let created = outcome.effect == .created
        var response = resource(view, etag: ResourceView.version(of: target, in: snapshot), status: created ? .created : .ok)
        if created, let location { response.headers.add(name: "Location", value: location) }
        return response
    }

    // MARK: - Answers

    /// A resource as JSON with its ETag; never cached by anyone (it is the thing that changes).
    static func resource(_ value: JSONValue, etag: String? = nil, status: HTTPStatus = .ok, pretty: Bool = true) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]
        if let etag { headers.add(name: "ETag", value: etag) }
        return HTTPResponse(status: status, headers: headers, body: JSONWriter.encode(value, style: pretty ? .pretty : .compact))
    }

    /// The request body as a JSON object, every key from `allowed`; 415 for a non-JSON media type,
    /// 400 for malformed JSON, 422 for unknown keys (all of them, with line and column).
    static func payload(
        _ request: HTTPRequest, allowed: Set<String>,
        _ decode: (JSONObjectReader, DiagnosticsCollector) -> Void
    ) throws(Problem) {
        try checkMediaType(request)
        do throws(Refusal) { try CommandBody.object(request.body, allowed: allowed, decode) } catch { throw Problem(error) }
    }

    /// Bodies are JSON whatever they are labelled, with two exceptions allowed for people:
    /// `curl -d` labels its body `application/x-www-form-urlencoded`, and some tools say
    /// `text/plain`. Anything else (a form upload, XML) is refused with 415.
    static func checkMediaType(_ request: HTTPRequest) throws(Problem) {
        guard let type = request.headers["Content-Type"] else { return }
        let essence = mediaTypeEssence(type)
        let accepted = ["application/json", "application/x-www-form-urlencoded", "text/plain"]
        guard accepted.contains(essence) || essence.hasSuffix("+json") else {
            throw Problem(.unsupportedMediaType, "send the body as application/json, not \(type)")
        }
    }

    /// `Application/JSON; charset=utf-8` → `application/json`: the type and subtype, lowercased.
    static func mediaTypeEssence(_ contentType: String) -> String {
        String(contentType.prefix { $0 != ";" }).lowercased().filter { $0 != " " && $0 != "\t" }
    }

    /// 404 naming what exists.
    static func notFound(_ kind: String, _ key: String, known: some Sequence<String>) -> Problem {
        Problem(Runtime.notFound(kind, key, known: known))
    }
}

extension Problem {
    /// The answer to a refused command.
    init(_ refusal: Refusal) {
        switch refusal {
        case .notFound(let detail): self.init(.notFound, detail)
        case .conflict(let detail): self.init(.conflict, detail)
        case .forbidden(let detail): self.init(.forbidden, detail)
        case .versionMismatch(let current):
            self.init(
                .preconditionFailed,
                "If-Match does not name the current version (\(current ?? "none")); it changed since you read it. Nothing changed; read it again and retry")
        case .versionRequired(let reason): self.init(.preconditionRequired, reason)
        case .invalid(let detail, let diagnostics, let source):
            self = diagnostics.isEmpty ? Problem(.unprocessableContent, detail) : .invalid(detail, diagnostics, source: source, status: .unprocessableContent)
        case .malformed(let detail, let diagnostics, let source):
            self = diagnostics.isEmpty ? Problem(.badRequest, detail) : .invalid(detail, diagnostics, source: source, status: .badRequest)
        case .rejected(let error): self = .refusedChange(error)
        case .stillInUse(let error): self = .refusedChange(error, status: .conflict)
        case .lostRace(let detail): self.init(.conflict, "another change got there first (\(detail)); read the resource again and retry")
        case .notStored(let detail):
            self.init(.serviceUnavailable, "the change was not stored: \(detail); nothing changed", headers: ["Retry-After": "1"])
        case .storeUnreachable(let detail):
            self.init(
                .serviceUnavailable,
                "the runtime store is unreachable (\(detail)); the change was not made — public endpoints keep serving the last state; send it again",
                extensions: [("outcome", .string("not-made"))], headers: ["Retry-After": "5"])
        case .outcomeUnknown(let detail):
            // The commit was sent and its answer lost: only a read tells whether it was made.
            self.init(
                .serviceUnavailable,
                "the runtime store's answer to the commit was lost (\(detail)); the change may or may not have been made — read the resource before retrying (a retry with the same If-Match cannot make it twice)",
                extensions: [("outcome", .string("unknown"))], headers: ["Retry-After": "5"])
        case .storeUnreadable(let detail): self.init(.serviceUnavailable, detail)
        }
    }

    /// 422: the change leads to a configuration that does not validate; every problem listed.
    static func refusedChange(_ error: ConfigLoadError, status: HTTPStatus = .unprocessableContent) -> Problem {
        let lead = status == .conflict ? "still in use; nothing changed" : "the change does not validate; nothing changed"
        return invalid(
            "\(lead): \(error.errors.first?.description ?? "")",
            error.errors.flatMap { e in e.diagnostics.map { (Optional(e.source), $0) } }, status: status)
    }
}
