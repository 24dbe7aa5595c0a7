import Synchronization
import TrellisHTTP
import TrellisRuntime

#if canImport(Glibc)
import Glibc
#endif

/// Slows down token guessing: a client address with `maxFailures` failed authentications within
/// `windowSeconds` is refused (429, `Retry-After`) until the oldest of them leaves the window.
///
/// Keyed on the IP address alone (not the port, which a client changes with every connection).
/// Memory is bounded by `maxClients`: when full, addresses whose failures have all expired go
/// first, then the ones that failed longest ago. Only the admin path uses it, so one `Mutex` is
/// fine; screen requests never touch it.
public final class AuthenticationFailureLimiter: Sendable {
    public struct Policy: Sendable, Equatable {
        public var maxFailures: Int
        public var windowSeconds: Double
        /// Most addresses remembered at once (each costs about `maxFailures` timestamps).
        public var maxClients: Int

        public init(maxFailures: Int = 10, windowSeconds: Double = 60, maxClients: Int = 10_000) {
            precondition(maxFailures >= 1 && windowSeconds > 0 && maxClients >= 1, "invalid limiter policy")
            self.maxFailures = maxFailures
            self.windowSeconds = windowSeconds
            self.maxClients = maxClients
        }
    }

    public enum Decision: Sendable, Equatable {
        case allowed
        /// Refused; the client may try again after this many whole seconds (at least 1).
        case limited(retryAfterSeconds: Int)

        /// The 429 answer for ``limited(retryAfterSeconds:)`` (RFC 6585 §4, `Retry-After` per
        /// RFC 9110 §10.2.3); nil when allowed.
        public var problem: Problem? {
            guard case .limited(let seconds) = self else { return nil }
            return Problem(
                .tooManyRequests,
                "too many failed authentications from this address; try again in \(seconds) s",
                headers: ["Retry-After": String(seconds)])
        }
    }

    private struct State {
        /// Per address, the times of its most recent failures (at most `maxFailures`), oldest first.
        var failures: [String: [Double]] = [:]
    }

    public let policy: Policy
    private let clock: @Sendable () -> Double
    private let state = Mutex(State())

    /// - Parameter clock: seconds on a clock that does not jump; tests pass their own.
    public init(policy: Policy = Policy(), clock: @escaping @Sendable () -> Double = AuthenticationFailureLimiter.monotonicClock) {
        self.policy = policy
        self.clock = clock
    }

    /// Whether a request from `remoteAddress` (`127.0.0.1:53122`, `[::1]:53122`) may try to
    /// authenticate now. Call before checking its token.
    public func check(remoteAddress: String) -> Decision {
        let key = Self.clientKey(of: remoteAddress), now = clock(), policy = policy
        return state.withLock { state in
            guard let times = state.failures[key] else { return .allowed }
            let recent = times.filter { $0 > now - policy.windowSeconds }
            state.failures[key] = recent.isEmpty ? nil : recent
            guard recent.count >= policy.maxFailures else { return .allowed }
            let freeAt = recent[recent.count - policy.maxFailures] + policy.windowSeconds
            return .limited(retryAfterSeconds: max(1, Int((freeAt - now).rounded(.up))))
        }
    }

    /// Counts a failed authentication from `remoteAddress`.
    public func recordFailure(remoteAddress: String) {
        let key = Self.clientKey(of: remoteAddress), now = clock(), policy = policy
        state.withLock { state in
            if state.failures[key] == nil, state.failures.count >= policy.maxClients {
                Self.evict(from: &state, now: now, policy: policy)
            }
            var times = state.failures[key, default: []]
            times.append(now)
            if times.count > policy.maxFailures { times.removeFirst(times.count - policy.maxFailures) }
            state.failures[key] = times
        }
    }

    /// How many addresses are remembered (for tests and metrics).
    public var trackedClients: Int { state.withLock { $0.failures.count } }

    /// Makes room: expired addresses first; if none, the eighth that failed longest ago, so a
    /// flood of new addresses costs one sort per `maxClients / 8` of them, not one per failure.
    private static func evict(from state: inout State, now: Double, policy: Policy) {
        state.failures = state.failures.filter { ($0.value.last ?? 0) > now - policy.windowSeconds }
        guard state.failures.count >= policy.maxClients else { return }
        let byLastFailure = state.failures.sorted { ($0.value.last ?? 0) < ($1.value.last ?? 0) }
        for (key, _) in byLastFailure.prefix(max(1, policy.maxClients / 8)) { state.failures[key] = nil }
    }

    /// The IP part of a peer address: `127.0.0.1:53122` → `127.0.0.1`, `[::1]:53122` → `::1`,
    /// with IPv6 in lower case and IPv4-mapped IPv6 (`::ffff:10.0.0.1`) read as the IPv4 address,
    /// so one client cannot count as two. Anything else is taken whole.
    public static func clientKey(of remoteAddress: String) -> String {
        var host = Substring(remoteAddress)
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon {
            host = host[..<colon]
        }
        let lower = host.lowercased()
        if lower.hasPrefix("::ffff:"), lower.dropFirst(7).contains(".") { return String(lower.dropFirst(7)) }
        return lower
    }

    /// `clock_gettime(CLOCK_MONOTONIC)`: unaffected by changes to the wall clock, which could
    /// otherwise lift or extend a limit.
    public static let monotonicClock: @Sendable () -> Double = {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
