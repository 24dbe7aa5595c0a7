import TrellisHTTP

/// Who may use the admin API: bearer tokens checked against their configured hashes, roles, and a
/// limit on failed attempts per client address. Only admin requests come here; the screen path
/// never does.
struct AdminAccess: Sendable {
    let authenticator: AdminAuthenticator
    let limiter: AuthenticationFailureLimiter
    /// Whether writes without `If-Match` are refused (428).
    let requireIfMatch: Bool
    let hasTokens: Bool

    init(configuration: ServerConfiguration.Admin, limiter: AuthenticationFailureLimiter = AuthenticationFailureLimiter()) {
        authenticator = AdminAuthenticator(tokens: configuration.tokens)
        self.limiter = limiter
        requireIfMatch = configuration.requireIfMatch
        hasTokens = !configuration.tokens.isEmpty
    }

    /// The name of the token the request carries, when it may do what needs `role`.
    /// - Throws: 429 for an address with too many recent failures, 401 without a valid token
    ///   (with `WWW-Authenticate: Bearer`), 403 for a token whose role is not enough.
    func authorize(_ request: HTTPRequest, _ context: HTTPRequestContext, role: AdminRole) throws(Problem) -> String {
        if let problem = limiter.check(remoteAddress: context.remoteAddress).problem { throw problem }
        switch authenticator.authenticate(request.headers) {
        case .failure(let failure):
            limiter.recordFailure(remoteAddress: context.remoteAddress)
            var problem = failure.problem
            if !hasTokens {
                problem.detail += "; this server has no admin tokens: make one with `trellis token new` and add it to admin.tokens in server.json"
            }
            throw problem
        case .success(let principal):
            if case .failure(let failure) = principal.authorize(role) { throw failure.problem }
            return principal.name
        }
    }
}
