import Synchronization
import Testing
import TrellisCrypto
import TrellisHTTP
import TrellisRuntime
@testable import TrellisServer

/// Bearer tokens against configured hashes, roles, and the failed-authentication limiter.
@Suite struct AdminAuthenticatorTests {
    static let opsToken = "trl_" + Base64URL.encode([UInt8](repeating: 0xA5, count: 32))
    static let viewerToken = "trl_viewer-token_0123456789"
    let authenticator = AdminAuthenticator(tokens: [
        ServerConfiguration.AdminToken(name: "ops-bot", token: opsToken, role: .write),
        ServerConfiguration.AdminToken(name: "dashboard", token: viewerToken, role: .read),
    ])

    func refusal(_ authorization: String?) -> AdminAuthenticationFailure? {
        if case .failure(let failure) = authenticator.authenticate(authorization: authorization) { return failure }
        return nil
    }

    @Test func aConfiguredTokenNamesItsPrincipal() throws {
        #expect(try authenticator.authenticate(authorization: "Bearer \(Self.opsToken)").get() == AdminPrincipal(name: "ops-bot", role: .write))
        #expect(try authenticator.authenticate(authorization: "bearer  \(Self.viewerToken)").get() == AdminPrincipal(name: "dashboard", role: .read))
        #expect(try authenticator.authenticate(["authorization": "BEARER \(Self.viewerToken)"]).get().name == "dashboard")
    }

    @Test func missingOrOtherSchemesGetAChallengeWithoutAnErrorCode() throws {
        for authorization in [nil, ""] as [String?] {
            let missing = try #require(refusal(authorization))
            #expect(missing.reason == .missing)
            #expect(missing.status == .unauthorized)
            #expect(missing.wwwAuthenticate == #"Bearer realm="trellis-admin""#)
        }
        let basic = try #require(refusal("Basic b3BzOnNlY3JldA=="))
        #expect(basic.reason == .otherScheme("Basic"))
        #expect(basic.status == .unauthorized)
        #expect(basic.wwwAuthenticate == #"Bearer realm="trellis-admin""#)
        #expect(!basic.detail.contains("b3BzOnNlY3JldA"))
    }

    @Test(arguments: ["Bearer", "Bearer ", "Bearer a b", "Bearer tök", "Bearer ab=cd", "Bearer ===", "Bearer \(String(repeating: "a", count: 1025))"])
    func malformedBearerCredentialsAreInvalidRequests(_ authorization: String) throws {
        let failure = try #require(refusal(authorization))
        guard case .malformed = failure.reason else { Issue.record("expected malformed, got \(failure.reason)"); return }
        #expect(failure.status == .badRequest)
        #expect(failure.wwwAuthenticate == #"Bearer realm="trellis-admin", error="invalid_request", error_description="malformed bearer token""#)
    }

    @Test func anUnknownTokenIsInvalidAndNotRepeated() throws {
        let failure = try #require(refusal("Bearer trl_guess+/=="))
        #expect(failure.reason == .unknownToken)
        #expect(failure.status == .unauthorized)
        #expect(failure.wwwAuthenticate == #"Bearer realm="trellis-admin", error="invalid_token", error_description="unknown token""#)
        let problem = failure.problem
        #expect(problem.status == .unauthorized)
        #expect(problem.headers["WWW-Authenticate"] == failure.wwwAuthenticate)
        #expect(!problem.detail.contains("guess"))
    }

    @Test func aTokenDifferingInOneCharacterOrCaseIsUnknown() {
        var altered = Array(Self.opsToken.utf8)
        altered[altered.count - 1] ^= 0x01
        #expect(refusal("Bearer " + String(decoding: altered, as: UTF8.self))?.reason == .unknownToken)
        #expect(refusal("Bearer " + Self.viewerToken.uppercased())?.reason == .unknownToken)
        #expect(refusal("Bearer " + Self.opsToken.dropLast())?.reason == .unknownToken)
    }

    @Test func noTokensConfiguredMeansNobodyGetsIn() {
        let closed = AdminAuthenticator(tokens: [])
        guard case .failure(let failure) = closed.authenticate(authorization: "Bearer \(Self.opsToken)") else {
            Issue.record("expected failure")
            return
        }
        #expect(failure.reason == .unknownToken)
    }

    @Test func aRepeatedAuthorizationHeaderIsMalformed() throws {
        let headers = HTTPHeaders([("Authorization", "Bearer \(Self.opsToken)"), ("authorization", "Bearer \(Self.viewerToken)")])
        guard case .failure(let failure) = authenticator.authenticate(headers) else { Issue.record("expected failure"); return }
        #expect(failure.reason == .malformed("the Authorization header is given 2 times"))
    }

    @Test func rolesWriteIncludesRead() throws {
        let writer = AdminPrincipal(name: "ops-bot", role: .write), reader = AdminPrincipal(name: "dashboard", role: .read)
        #expect((try? writer.authorize(.read).get()) != nil)
        #expect((try? writer.authorize(.write).get()) != nil)
        #expect((try? reader.authorize(.read).get()) != nil)
        guard case .failure(let failure) = reader.authorize(.write) else { Issue.record("expected 403"); return }
        let problem = failure.problem
        #expect(problem.status == .forbidden)
        #expect(problem.detail == "token \"dashboard\" has the role read; this needs write")
        #expect(problem.headers["WWW-Authenticate"] == #"Bearer realm="trellis-admin", error="insufficient_scope", scope="write""#)
    }

    @Test func freshTokensHaveThePrefixAndLength() throws {
        let a = try AdminTokenFormat.newToken(), b = try AdminTokenFormat.newToken()
        #expect(a.hasPrefix("trl_") && a.count == 47)
        #expect(a != b)
        #expect(try Base64URL.decode(a.dropFirst(4)).count == 32)
        #expect(AdminAuthenticator.isB64Token(a.utf8[...]))
    }
}

@Suite struct AuthenticationFailureLimiterTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        let now = Mutex(1000.0)
        func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
        var read: @Sendable () -> Double { { self.now.withLock { $0 } } }
    }

    @Test func tenFailuresWithinAMinuteBlockUntilTheOldestLeavesTheWindow() {
        let clock = ManualClock()
        let limiter = AuthenticationFailureLimiter(clock: clock.read)
        for _ in 0..<10 {
            #expect(limiter.check(remoteAddress: "10.0.0.1:5000") == .allowed)
            limiter.recordFailure(remoteAddress: "10.0.0.1:5000")
            clock.advance(1)
        }
        // First failure at 1000, now 1010: free at 1060.
        #expect(limiter.check(remoteAddress: "10.0.0.1:6001") == .limited(retryAfterSeconds: 50))
        #expect(limiter.check(remoteAddress: "10.0.0.2:5000") == .allowed)
        clock.advance(49.5)
        #expect(limiter.check(remoteAddress: "10.0.0.1:7000") == .limited(retryAfterSeconds: 1))
        clock.advance(0.5)
        #expect(limiter.check(remoteAddress: "10.0.0.1:7000") == .allowed)
        // One more failure fills the window again until the second oldest (1001) leaves it.
        limiter.recordFailure(remoteAddress: "10.0.0.1:7000")
        #expect(limiter.check(remoteAddress: "10.0.0.1:7000") == .limited(retryAfterSeconds: 1))
    }

    @Test func failuresSpreadOverMoreThanTheWindowNeverBlock() {
        let clock = ManualClock()
        let limiter = AuthenticationFailureLimiter(clock: clock.read)
        for _ in 0..<100 {
            #expect(limiter.check(remoteAddress: "[2001:db8::1]:443") == .allowed)
            limiter.recordFailure(remoteAddress: "[2001:db8::1]:443")
            clock.advance(6.01)
        }
    }

    @Test func theLimitedAnswerIs429WithRetryAfter() throws {
        let problem = try #require(AuthenticationFailureLimiter.Decision.limited(retryAfterSeconds: 42).problem)
        #expect(problem.status.code == 429)
        #expect(problem.headers["Retry-After"] == "42")
        #expect(AuthenticationFailureLimiter.Decision.allowed.problem == nil)
    }

    @Test(arguments: [
        ("127.0.0.1:53122", "127.0.0.1"), ("[::1]:53122", "::1"), ("[2001:DB8::A]:1", "2001:db8::a"),
        ("[::ffff:10.0.0.1]:80", "10.0.0.1"), ("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("", ""),
    ])
    func clientKeyIsTheAddressWithoutThePort(_ remote: String, _ key: String) {
        #expect(AuthenticationFailureLimiter.clientKey(of: remote) == key)
    }

    @Test func memoryIsBoundedAndTheOldestGoFirst() {
        let clock = ManualClock()
        let policy = AuthenticationFailureLimiter.Policy(maxFailures: 2, windowSeconds: 60, maxClients: 16)
        let limiter = AuthenticationFailureLimiter(policy: policy, clock: clock.read)
        limiter.recordFailure(remoteAddress: "10.9.9.9:1")
        limiter.recordFailure(remoteAddress: "10.9.9.9:1")
        clock.advance(1)
        for i in 0..<200 {
            limiter.recordFailure(remoteAddress: "10.0.\(i / 256).\(i % 256):1")
            #expect(limiter.trackedClients <= 16)
        }
        // The address that failed first was evicted to make room: its failures are forgotten.
        #expect(limiter.check(remoteAddress: "10.9.9.9:2") == .allowed)
        // A recent one still counts.
        limiter.recordFailure(remoteAddress: "10.0.0.199:2")
        #expect(limiter.check(remoteAddress: "10.0.0.199:3") == .limited(retryAfterSeconds: 60))
    }

    @Test func expiredAddressesAreDroppedBeforeRecentOnes() {
        let clock = ManualClock()
        let policy = AuthenticationFailureLimiter.Policy(maxFailures: 1, windowSeconds: 10, maxClients: 4)
        let limiter = AuthenticationFailureLimiter(policy: policy, clock: clock.read)
        for i in 0..<3 { limiter.recordFailure(remoteAddress: "10.0.0.\(i):1") }
        clock.advance(11)
        limiter.recordFailure(remoteAddress: "10.0.1.0:1")
        limiter.recordFailure(remoteAddress: "10.0.1.1:1")
        #expect(limiter.trackedClients == 2)
        #expect(limiter.check(remoteAddress: "10.0.1.0:1") != .allowed)
    }
}
