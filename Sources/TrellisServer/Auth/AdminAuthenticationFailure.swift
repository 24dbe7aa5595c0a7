import TrellisHTTP
import TrellisRuntime

/// Why a request to the admin API has no principal, and the answer that says so (RFC 6750 §3).
public struct AdminAuthenticationFailure: Error, Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// No `Authorization` header.
        case missing
        /// `Authorization` with another scheme, such as `Basic` (named here).
        case otherScheme(String)
        /// `Bearer` with something that is not one token (the reason says what).
        case malformed(String)
        /// A well-formed token whose hash is not configured.
        case unknownToken
    }

    public var reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    /// 401, except 400 for a malformed request, as RFC 6750 §3.1 asks of `invalid_request`.
    public var status: HTTPStatus {
        if case .malformed = reason { return .badRequest }
        return .unauthorized
    }

    /// The `WWW-Authenticate` challenge. A request without bearer credentials gets no `error`
    /// (RFC 6750 §3: "SHOULD NOT include an error code"); the others get `invalid_request` or
    /// `invalid_token` (§3.1).
    public var wwwAuthenticate: String {
        let realm = "Bearer realm=\"\(AdminAuthenticator.realm)\""
        switch reason {
        case .missing, .otherScheme: return realm
        case .malformed: return realm + ", error=\"invalid_request\", error_description=\"malformed bearer token\""
        case .unknownToken: return realm + ", error=\"invalid_token\", error_description=\"unknown token\""
        }
    }

    /// What a person reads in the problem answer. Never contains the presented token.
    public var detail: String {
        switch reason {
        case .missing: "the admin API needs a token: send Authorization: Bearer <token>"
        case .otherScheme(let scheme): "Authorization uses the \(scheme) scheme; the admin API takes only Bearer tokens (RFC 6750)"
        case .malformed(let why): "malformed Authorization header: \(why)"
        case .unknownToken: "unknown token: no configured admin token has this token's SHA-256"
        }
    }

    /// The answer: `application/problem+json` with the challenge header.
    public var problem: Problem {
        Problem(status, detail, headers: ["WWW-Authenticate": wwwAuthenticate])
    }
}

/// A principal whose role does not allow the request (RFC 6750 §3.1 `insufficient_scope`).
public struct AdminAuthorizationFailure: Error, Sendable, Equatable {
    public var principal: AdminPrincipal
    public var required: AdminRole

    public init(principal: AdminPrincipal, required: AdminRole) {
        self.principal = principal
        self.required = required
    }

    /// 403 with `WWW-Authenticate: Bearer realm=…, error="insufficient_scope", scope="write"`.
    public var problem: Problem {
        let challenge = "Bearer realm=\"\(AdminAuthenticator.realm)\", error=\"insufficient_scope\", scope=\"\(required.rawValue)\""
        return Problem(
            .forbidden, "token \"\(principal.name)\" has the role \(principal.role.rawValue); this needs \(required.rawValue)",
            headers: ["WWW-Authenticate": challenge])
    }
}

extension AdminPrincipal {
    /// Success when this principal's role allows what needs `required`, else the 403.
    public func authorize(_ required: AdminRole) -> Result<Void, AdminAuthorizationFailure> {
        role.allows(required) ? .success(()) : .failure(AdminAuthorizationFailure(principal: self, required: required))
    }
}
