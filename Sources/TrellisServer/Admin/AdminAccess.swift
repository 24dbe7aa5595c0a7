import TrellisCrypto
import Synchronization
import TrellisHTTP
import TrellisRuntime

/// Who may use the admin API: bearer tokens checked against their hashes — those configured in
/// `server.json` and those made through `/admin/tokens`, which the published snapshot carries —
/// roles, and a limit on failed attempts per client address. Only admin requests come here; the
/// screen path never does.
struct AdminAccess: Sendable {
    let configured: [ServerConfiguration.AdminToken]
    /// The webhooks of `server.json`, which the API lists but does not delete.
    let webhooks: [WebhookSubscription]
    let limiter: AuthenticationFailureLimiter
    /// Whether writes without `If-Match` are refused (428).
    let requireIfMatch: Bool
    /// Where the tokens made at run time come from: the snapshot in force when a request arrives.
    let published: PublishedSnapshot
    /// When each token last authenticated a request here.
    let usage: TokenUsage
    let clock: @Sendable () -> Double
    /// Whose `X-Forwarded-For` names the client the failure limit counts (``ClientAddress``).
    let trustedProxies: [AddressRange]

    init(
        configuration: ServerConfiguration.Admin, published: PublishedSnapshot, clock: @escaping @Sendable () -> Double,
        limiter: AuthenticationFailureLimiter = AuthenticationFailureLimiter(), trustedProxies: [AddressRange] = []
    ) {
        self.trustedProxies = trustedProxies
        configured = configuration.tokens
        webhooks = configuration.webhooks
        self.limiter = limiter
        requireIfMatch = configuration.requireIfMatch
        self.published = published
        usage = TokenUsage()
        self.clock = clock
    }

    /// The configured tokens, then those made at run time whose names the configuration does not
    /// use (a configured token always wins its name).
    func tokens(of runtime: RuntimeState) -> [ServerConfiguration.AdminToken] {
        let made = runtime.operations.tokens
        guard !made.isEmpty else { return configured }
        let names = Set(configured.map(\.name))
        return configured + made.values.filter { !names.contains($0.name) }.sorted { $0.name < $1.name }.map(\.adminToken)
    }

    /// The role of the token named `name`, as in force now.
    func role(of name: String) -> AdminRole? {
        tokens(of: published.snapshot.runtime).first { $0.name == name }?.role
    }

    /// The name of the token the request carries, when it may do what needs `role`. A valid token
    /// always passes: the limit slows guessing, and must never let anyone who can reach the port
    /// (behind a balancer, everyone shares its address) lock the operators out.
    /// - Throws: 401 without a valid token (with `WWW-Authenticate: Bearer`), or 429 instead for an
    ///   address with too many recent failures; 403 for a token whose role is not enough.
    func authorize(_ request: HTTPRequest, _ context: HTTPRequestContext, role: AdminRole) throws(Problem) -> String {
        let tokens = tokens(of: published.snapshot.runtime)
        switch AdminAuthenticator(tokens: tokens).authenticate(request.headers) {
        case .failure(let failure):
            let client = ClientAddress.of(request, context, trusting: trustedProxies)
            if let problem = limiter.check(remoteAddress: client).problem { throw problem }
            limiter.recordFailure(remoteAddress: client)
            var problem = failure.problem
            if tokens.isEmpty {
                problem.detail += "; this server has no admin tokens: make one with `trellis token new` and add it to admin.tokens in server.json"
            }
            throw problem
        case .success(let principal):
            usage.record(principal.name, at: clock())
            if case .failure(let failure) = principal.authorize(role) { throw failure.problem }
            return principal.name
        }
    }
}

/// When each admin token last authenticated a request, on this replica: kept in memory only (a
/// write to the store on every admin request would cost more than it tells), so it starts empty
/// at every start and each replica knows its own. Only the admin path touches it.
final class TokenUsage: Sendable {
    private let lastUsed = Mutex<[String: Double]>([:])

    func record(_ name: String, at time: Double) { lastUsed.withLock { $0[name] = time } }

    func lastUsed(_ name: String) -> Double? { lastUsed.withLock { $0[name] } }
}

extension Runtime.Settings {
    /// What `server.json`'s `admin` says about writes.
    init(_ admin: ServerConfiguration.Admin) {
        self.init()
        requireApproval = admin.requireApproval
        approvalRequiredFor = admin.approvalRequiredFor
        requireVersion = admin.requireIfMatch
        configuredTokens = Set(admin.tokens.map(\.name))
        configuredWebhooks = admin.webhooks
        webhookAllowPrivate = admin.webhookAllowPrivate
    }
}

extension RuntimeToken {
    /// The token as the authenticator checks it, beside those of `server.json`.
    var adminToken: ServerConfiguration.AdminToken { ServerConfiguration.AdminToken(name: name, sha256: sha256, role: role) }
}

/// A short-lived, signed permission to read one revision of one screen that is not served to
/// everybody, for what cannot send a token: the console's preview frames load
/// `/preview/{id}?revision=N&grant=…`. Signed with a key derived from every admin token's hash,
/// so every replica with the same tokens accepts it, and a token's deletion ends every grant.
extension AdminAccess {
    /// How long a grant is good for: long enough for a frame to load and reload.
    static let previewGrantSeconds = 300.0

    /// A grant for revision `revision` of screen `screen`, good until `until`.
    func previewGrant(screen: String, revision: Int, until: Double) -> String {
        let expiry = String(Int(until))
        return expiry + "." + Base64URL.encode(HMACSHA256.authenticationCode(for: Self.grantMessage(screen, revision, expiry), key: previewKey()))
    }

    /// Whether `grant` lets its bearer read revision `revision` of screen `screen` at `now`.
    func accepts(previewGrant grant: String, screen: String, revision: Int, now: Double) -> Bool {
        let parts = grant.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let until = Double(parts[0]), until >= now, until <= now + Self.previewGrantSeconds + 1,
            let code = try? Base64URL.decode(parts[1])
        else { return false }
        return HMACSHA256.isValid(code, for: Self.grantMessage(screen, revision, String(parts[0])), key: previewKey())
    }

    private static func grantMessage(_ screen: String, _ revision: Int, _ expiry: String) -> [UInt8] {
        Array("trellis preview grant\n\(screen)\n\(revision)\n\(expiry)".utf8)
    }

    private func previewKey() -> [UInt8] {
        SHA256.hash(Array("trellis preview grant key".utf8) + tokens(of: published.snapshot.runtime).sorted { $0.name < $1.name }.flatMap(\.sha256))
    }
}
