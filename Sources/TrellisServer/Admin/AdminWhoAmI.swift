import TrellisHTTP
import TrellisRuntime
import TrellisJSON

/// `GET /admin/whoami`: the name and role of the token the request carries, so a client (the ops
/// console) can show what it may do without trying something it may not. Any valid token may ask.
extension AdminEndpoints {
    func registerWhoAmI(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/whoami") { _, _, _, actor throws(Problem) in
            // The token authorised this request from the same list a moment ago; gone now only if
            // it was deleted since, and then it no longer has a role.
            guard let token = access.tokens(of: state.published.snapshot.runtime).first(where: { $0.name == actor }) else {
                throw AdminAuthenticationFailure(.unknownToken).problem
            }
            return Self.resource(.object([("name", .string(token.name)), ("role", .string(token.role.rawValue))]))
        }
    }
}
