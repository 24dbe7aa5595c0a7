import TrellisCrypto
import TrellisHTTP
import TrellisRuntime

/// Who called the admin API: the configured token's name (for the audit log) and its role.
public struct AdminPrincipal: Sendable, Equatable {
    public var name: String
    public var role: AdminRole

    public init(name: String, role: AdminRole) {
        self.name = name
        self.role = role
    }
}

/// Checks bearer tokens (RFC 6750) against the SHA-256 hashes in `admin.tokens`.
///
/// The presented token is hashed and compared with every configured hash in constant time, so
/// neither the comparison nor the number of comparisons depends on how much of a guess was right.
/// Comparing hashes rather than tokens also means the process never holds a valid token in memory
/// unless one is presented.
public struct AdminAuthenticator: Sendable {
    /// The `realm` of every `WWW-Authenticate` challenge (RFC 6750 §3).
    public static let realm = "trellis-admin"
    /// Longer credentials are refused before hashing; Trellis tokens are 47 characters.
    public static let maximumTokenBytes = 1024

    private let tokens: [ServerConfiguration.AdminToken]

    public init(tokens: [ServerConfiguration.AdminToken]) { self.tokens = tokens }

    /// The principal whose token `authorization` (the `Authorization` header's value, nil when the
    /// request has none) carries, or why there is none.
    public func authenticate(authorization: String?) -> Result<AdminPrincipal, AdminAuthenticationFailure> {
        let token: Substring
        switch Self.bearerToken(in: authorization) {
        case .success(let t): token = t
        case .failure(let failure): return .failure(failure)
        }
        let digest = SHA256.hash(token.utf8)
        var match: ServerConfiguration.AdminToken?
        // Every hash is compared, even after a match: the time taken says nothing about which.
        for candidate in tokens {
            let equal = ConstantTime.equal(digest, candidate.sha256)
            if equal, match == nil { match = candidate }
        }
        guard let match else { return .failure(AdminAuthenticationFailure(.unknownToken)) }
        return .success(AdminPrincipal(name: match.name, role: match.role))
    }

    /// As ``authenticate(authorization:)``, reading the request's headers; a request with more
    /// than one `Authorization` field is malformed (RFC 6750 §3.1 "repeats the same parameter").
    public func authenticate(_ headers: HTTPHeaders) -> Result<AdminPrincipal, AdminAuthenticationFailure> {
        let values = headers.values(for: "Authorization")
        guard values.count <= 1 else {
            return .failure(AdminAuthenticationFailure(.malformed("the Authorization header is given \(values.count) times")))
        }
        return authenticate(authorization: values.first)
    }

    /// The b64token of `Bearer <token>` (RFC 6750 §2.1); the scheme is case-insensitive (RFC 9110 §11.1).
    static func bearerToken(in authorization: String?) -> Result<Substring, AdminAuthenticationFailure> {
        guard let authorization, !authorization.isEmpty else { return .failure(AdminAuthenticationFailure(.missing)) }
        let scheme = authorization.prefix { $0 != " " }
        guard scheme.lowercased() == "bearer" else {
            return .failure(AdminAuthenticationFailure(.otherScheme(Self.printableScheme(scheme))))
        }
        let token = authorization.dropFirst(scheme.count).drop { $0 == " " }
        guard !token.isEmpty else { return .failure(AdminAuthenticationFailure(.malformed("no token after \"Bearer\""))) }
        guard token.utf8.count <= maximumTokenBytes else {
            return .failure(AdminAuthenticationFailure(.malformed("the token is longer than \(maximumTokenBytes) bytes")))
        }
        guard isB64Token(token.utf8) else {
            return .failure(AdminAuthenticationFailure(.malformed(
                "the token has characters a bearer token cannot have (RFC 6750 §2.1: A-Z a-z 0-9 - . _ ~ + / and trailing =)")))
        }
        return .success(token)
    }

    /// `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="` (RFC 6750 §2.1).
    static func isB64Token(_ bytes: Substring.UTF8View) -> Bool {
        let body = bytes.reversed().drop { $0 == 0x3D }
        guard !body.isEmpty else { return false }
        return body.allSatisfy { c in
            (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
                || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x7E || c == 0x2B || c == 0x2F
        }
    }

    /// The scheme for a message: it is not secret, but it is client text, so only a short,
    /// printable-ASCII version goes into the answer.
    private static func printableScheme(_ scheme: Substring) -> String {
        let printable = scheme.utf8.prefix(32).allSatisfy { (0x21...0x7E).contains($0) }
        return printable ? String(scheme.prefix(32)) : "a scheme with unprintable characters"
    }
}
