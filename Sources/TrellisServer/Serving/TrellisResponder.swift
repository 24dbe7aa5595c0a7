import TrellisHTTP
import TrellisRuntime

/// The application as the HTTP server sees it: the route table applied to each request.
public struct TrellisResponder: HTTPResponder {
    let router: EndpointRouter

    /// The public API, and the admin API and the ops console too when `admin` is given.
    /// - Parameter readers: who may read what is not released (a revision not served to
    ///   everybody): the admin API's tokens with the read role; nil: nobody.
    init(
        state: ServerState, control: ControlPlane?, admin: AdminEndpoints? = nil, console: ConsoleAssets? = nil, readers: AdminAccess? = nil,
        tracking: Tracking? = nil
    ) {
        var router = EndpointRouter()
        Endpoints(state: state, control: control, console: admin == nil ? nil : console, readers: readers ?? admin?.access, tracking: tracking)
            .register(in: &router)
        admin?.register(in: &router)
        self.router = router
    }

    /// The admin API alone, for its own port, with the ops console (its client, so on its origin).
    init(adminOnly admin: AdminEndpoints, console: ConsoleAssets? = nil) {
        var router = EndpointRouter()
        admin.register(in: &router)
        if let console { Endpoints.registerConsole(console, in: &router) }
        self.router = router
    }

    /// The public API of a server without a runtime store (tests of the read path).
    public init(state: ServerState) {
        self.init(state: state, control: nil)
    }

    public func respond(to request: HTTPRequest, context: HTTPRequestContext) -> HTTPReply {
        switch router.match(request.method, request.path) {
        case .found(let pattern, let parameters, let handler):
            do {
                switch try handler(request, parameters, context) {
                case .response(var response):
                    response.route = pattern
                    return .response(response)
                case .deferred(let queue, let work):
                    return .deferred(on: queue) {
                        var response = work()
                        response.route = pattern
                        return response
                    }
                case .pending(let start):
                    return .pending { complete in
                        start(
                            complete.map { response in
                                var response = response
                                response.route = pattern
                                return response
                            })
                    }
                case .stream(var stream):
                    stream.head.route = pattern
                    return .stream(stream)
                }
            } catch {
                return .response(error.response(instance: request.path, requestID: context.requestID, route: pattern))
            }
        case .methodNotAllowed(let pattern, let allowed):
            let list = allowed.map(\.rawValue).joined(separator: ", ")
            return .response(
                Problem(.methodNotAllowed, "\(request.method) is not allowed on \(pattern); use \(list)", headers: ["Allow": list])
                    .response(instance: request.path, requestID: context.requestID, route: pattern))
        case .notFound:
            // The console's address as people type it, where it is served (the router takes no trailing slash).
            if request.path == "/console/", case .found = router.match(.get, "/console") {
                let permanentRedirect = HTTPStatus(code: 308, reasonPhrase: "Permanent Redirect")
                return .response(HTTPResponse(status: permanentRedirect, headers: ["Location": "/console", "Cache-Control": "no-store"]))
            }
            return .response(
                Problem(.notFound, "nothing at \(request.path); GET / lists the endpoints")
                    .response(instance: request.path, requestID: context.requestID, route: nil))
        }
    }
}
