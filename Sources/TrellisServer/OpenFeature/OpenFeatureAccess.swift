import TrellisCrypto
import TrellisHTTP
import TrellisRuntime

/// Who may evaluate flags: everyone when `ofrep.keys` is empty (the default, like screens); else
/// a request carrying one of the keys, as `X-API-Key` (OFREP's `ApiKeyAuth`) or
/// `Authorization: Bearer` (`BearerAuth`). Keys are compared as admin tokens are: by SHA-256, in
/// constant time, every configured hash each time.
///
/// A client address that fails `maxFailures` times within the limiter's window is answered 429
/// with `Retry-After` until the window passes. The limiter (and its lock) is consulted only
/// once a key has failed, so a request with a good key takes no lock.
struct OpenFeatureAccess: Sendable {
    let keys: [ServerConfiguration.APIKey]
    let limiter: AuthenticationFailureLimiter

    init(keys: [ServerConfiguration.APIKey], limiter: AuthenticationFailureLimiter = AuthenticationFailureLimiter()) {
        self.keys = keys
        self.limiter = limiter
    }

    /// - Throws: 401 for a missing or unknown key, 429 (`Retry-After`) once the address has failed too often.
    func check(_ request: HTTPRequest, remoteAddress: String) throws(OpenFeatureFailure) {
        guard !keys.isEmpty else { return }
        let presented = request.headers["X-API-Key"] ?? bearer(request.headers["Authorization"])
        if let presented, presented.utf8.count <= AdminAuthenticator.maximumTokenBytes, matches(presented) { return }
        if case .limited(let seconds) = limiter.check(remoteAddress: remoteAddress) {
            throw OpenFeatureFailure(
                status: .tooManyRequests, code: .general,
                details: "too many failed API keys from this address; try again in \(seconds) s", headers: ["Retry-After": String(seconds)])
        }
        limiter.recordFailure(remoteAddress: remoteAddress)
        throw OpenFeatureFailure(
            status: .unauthorized, code: .general,
            details: presented == nil
                ? "this server needs an API key: send it as X-API-Key or Authorization: Bearer"
                : "unknown API key", headers: ["WWW-Authenticate": "Bearer realm=\"trellis-ofrep\""])
    }

    private func bearer(_ authorization: String?) -> String? {
        guard let authorization, authorization.prefix(7).lowercased() == "bearer " else { return nil }
        return String(authorization.dropFirst(7).drop { $0 == " " })
    }

    /// Every hash is compared, even after a match: the time taken says nothing about which.
    private func matches(_ key: String) -> Bool {
        let digest = SHA256.hash(key.utf8)
        var found = false
        for candidate in keys where ConstantTime.equal(digest, candidate.sha256) { found = true }
        return found
    }
}
