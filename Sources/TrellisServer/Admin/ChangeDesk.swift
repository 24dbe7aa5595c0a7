import Synchronization
import TrellisHTTP

/// Where admin writes that need approval are held, and from where approved ones are made: it
/// decides which writes need approval (`admin.requireApproval`, `admin.approvalRequiredFor`) and
/// replays a change request's write, as its author, through a router of the admin routes that
/// holds nothing and is never reachable from the network.
final class ChangeDesk: Sendable {
    /// The header a replayed request names its author in. Only the replay router reads it, and
    /// only the server makes its requests.
    static let authorHeader = "X-Trellis-Change-Author"
    static let unknownAuthor = "unknown"
    /// What a write answers when it was only checked (``ControlPlane/Rider/checkOnly``).
    static let checkedAnswer = HTTPResponse(status: .ok, headers: ["X-Trellis-Checked": "1"])

    let configuration: ServerConfiguration.Admin
    private let replayRouter = Mutex<EndpointRouter?>(nil)

    init(configuration: ServerConfiguration.Admin) { self.configuration = configuration }

    func setReplayRouter(_ router: EndpointRouter) { replayRouter.withLock { $0 = router } }

    /// Decides, for a write a token is allowed to make, whether it is held as a change request.
    struct Gate: Sendable {
        /// The reply for a held write (the change request, 202), or nil to make the write now.
        let hold: @Sendable (HTTPRequest, HTTPRequestContext, _ actor: String) throws(Problem) -> HTTPReply?
    }

    func gate(_ admin: AdminEndpoints) -> Gate {
        let configuration = self.configuration
        return Gate { request, context, actor throws(Problem) in
            let resource = Self.resource(of: request.path)
            guard !resource.hasPrefix(Self.changesResource), configuration.needsApproval(resource) else { return nil }
            return admin.propose(
                ChangeDesk.Proposal(
                    method: request.method.rawValue, path: request.path,
                    query: request.query.items.map { ChangeRequest.QueryItem(name: $0.name, value: $0.value) }, body: request.body,
                    applyAt: nil, comment: nil, needsApproval: true),
                ifMatch: request.headers, actor: actor, request, context)
        }
    }

    /// A write to hold, as a request or a `POST /admin/changes` body gives it.
    struct Proposal: Sendable {
        var method: String
        var path: String
        var query: [ChangeRequest.QueryItem]
        var body: [UInt8]
        var applyAt: Double?
        var comment: String?
        var needsApproval: Bool
    }

    static let changesResource = "changes"

    /// A path's resource under `/admin/`: `rollouts/banner/kill`.
    static func resource(of path: String) -> String {
        path.hasPrefix("/admin/") ? String(path.dropFirst("/admin/".count)) : path
    }

    /// Why `method` `path` is not an admin write a change request may hold (not routed, a read,
    /// the change requests' own); nil when it is. A route that needs more than the write role is
    /// refused when it is checked (the replay router answers 403).
    func writeProblem(method: String, path: String) -> String? {
        guard method != "GET", method != "HEAD" else { return "\(method) is a read; a change request holds a write (PUT, POST or DELETE)" }
        guard path.hasPrefix("/admin/"), !Self.resource(of: path).hasPrefix(Self.changesResource) else {
            return "a change request holds a write to an admin resource under /admin/ (not /admin/changes)"
        }
        guard let router = replayRouter.withLock({ $0 }) else { return "the admin routes are not ready" }
        switch router.match(HTTPMethod(rawValue: method), path) {
        case .found: return nil
        case .methodNotAllowed(_, let allowed): return "\(path) does not take \(method); it takes \(allowed.map(\.rawValue).joined(separator: ", "))"
        case .notFound: return "no admin resource at \(path)"
        }
    }

    /// Makes `request` (its query, body and headers as given; the author in ``authorHeader``)
    /// through the replay router and returns its answer. A write's work runs here and now: call
    /// on the write queue only.
    func replay(_ request: HTTPRequest, context: HTTPRequestContext) -> HTTPResponse {
        guard let router = replayRouter.withLock({ $0 }) else { return Problem(.serviceUnavailable, "the admin routes are not ready").response(instance: request.path, requestID: context.requestID, route: nil) }
        switch router.match(request.method, request.path) {
        case .found(_, let parameters, let handler):
            let reply: HTTPReply
            do throws(Problem) { reply = try handler(request, parameters, context) } catch {
                return error.response(instance: request.path, requestID: context.requestID, route: nil)
            }
            switch reply {
            case .response(let response): return response
            case .deferred(_, let work): return work()  // the write queue, where this runs
            case .stream:  // no admin route streams
                return Problem(.notFound, "no admin resource at \(request.method) \(request.path)")
                    .response(instance: request.path, requestID: context.requestID, route: nil)
            }
        case .methodNotAllowed, .notFound:
            return Problem(.notFound, "no admin resource at \(request.method) \(request.path)")
                .response(instance: request.path, requestID: context.requestID, route: nil)
        }
    }
}
