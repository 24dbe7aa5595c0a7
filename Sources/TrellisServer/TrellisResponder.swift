import TrellisHTTP

/// The application as the HTTP server sees it: the route table applied to each request.
public struct TrellisResponder: HTTPResponder {
    let router: Router

    public init(state: ServerState) {
        router = Endpoints(state: state).router()
    }

    public func respond(to request: HTTPRequest, context: HTTPRequestContext) -> HTTPReply {
        switch router.match(request.method, request.path) {
        case .found(let pattern, let parameters, let handler):
            do {
                var response = try handler(request, parameters, context)
                response.route = pattern
                return .response(response)
            } catch {
                return .response(error.response(instance: request.path, requestID: context.requestID, route: pattern))
            }
        case .methodNotAllowed(let pattern, let allowed):
            let list = allowed.map(\.rawValue).joined(separator: ", ")
            return .response(Problem(.methodNotAllowed, "\(request.method) is not allowed on \(pattern); use \(list)", headers: ["Allow": list])
                .response(instance: request.path, requestID: context.requestID, route: pattern))
        case .notFound:
            return .response(Problem(.notFound, "nothing at \(request.path); GET / lists the endpoints")
                .response(instance: request.path, requestID: context.requestID, route: nil))
        }
    }
}
