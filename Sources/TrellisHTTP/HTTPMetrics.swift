import Metrics

/// The server's metrics, recorded through swift-metrics (the factory the server was given, else
/// the bootstrapped backend):
/// - `http_requests_total{route,status}` counter,
/// - `http_request_duration_seconds{route}` timer,
/// - `http_open_connections` gauge (counted by the server, not here),
/// - `http2_errors_total{scope,code}` counter: HTTP/2 stream and connection errors the server sent,
/// - `http2_limit_refusals_total{limit}` counter: what reached one of the HTTP/2 limits
///   (`concurrent_streams`, `header_list`, `body`, `continuation_frames`, `field_block_octets`,
///   `buffered_bodies`, `rapid_reset`, `unsent_acknowledgements`, `idle_frames`, `window_stall`).
///
/// Each event loop owns one `HTTPMetrics`, so the handle caches are read and filled by one
/// thread only: no lock in the request path beyond what the metrics backend itself takes.
final class HTTPMetrics {
    private struct Key: Hashable {
        var route: String?
        var status: Int
    }

    /// The handles one (route, status) records into: found with one lookup a request.
    private struct Handles {
        let requests: Counter
        let duration: Metrics.Timer
    }

    private let factory: any MetricsFactory
    private var handles: [Key: Handles] = [:]
    /// One timer a route, shared by its statuses.
    private var timers: [String: Metrics.Timer] = [:]

    /// HTTP/2's counters by their labels, made when first needed.
    private var http2Counters: [String: Counter] = [:]

    init(factory: any MetricsFactory) { self.factory = factory }

    /// The handles of the request before: a loop's requests mostly repeat their route and status,
    /// and the route's text is the registered one, so equal in one comparison of its storage.
    private var last: (key: Key, handles: Handles)?

    /// Counts an HTTP/2 error the server sent, and the limit it reached if any.
    func recordHTTP2(_ error: HTTP2Error) {
        let scope = error.scope == .connection ? "connection" : "stream"
        counter("http2_errors_total", [("scope", scope), ("code", error.code.description)]).increment()
        if let limit = error.limit { recordHTTP2Limit(limit) }
    }

    /// Counts one refusal for an HTTP/2 limit.
    func recordHTTP2Limit(_ limit: String) {
        counter("http2_limit_refusals_total", [("limit", limit)]).increment()
    }

    private func counter(_ label: String, _ dimensions: [(String, String)]) -> Counter {
        let key = label + dimensions.map { "|\($0.1)" }.joined()
        if let found = http2Counters[key] { return found }
        let made = Counter(label: label, dimensions: dimensions, factory: factory)
        http2Counters[key] = made
        return made
    }

    func record(route: String?, status: Int, durationNanos: Int64) {
        let key = Key(route: route, status: status)
        let found: Handles
        if let last, last.key == key {
            found = last.handles
        } else {
            found = handles[key] ?? makeHandles(key)
            last = (key, found)
        }
        found.requests.increment()
        found.duration.recordNanoseconds(durationNanos)
    }

    private func makeHandles(_ key: Key) -> Handles {
        let routeLabel = key.route ?? "unmatched"
        let timer = timers[routeLabel] ?? Metrics.Timer(
            label: "http_request_duration_seconds", dimensions: [("route", routeLabel)],
            preferredDisplayUnit: .seconds, factory: factory)
        timers[routeLabel] = timer
        let made = Handles(
            requests: Counter(
                label: "http_requests_total", dimensions: [("route", routeLabel), ("status", String(key.status))],
                factory: factory),
            duration: timer)
        handles[key] = made
        return made
    }
}

/// Request ids: `X-Request-Id` from the client when it is sane, else a per-process random prefix,
/// the loop number and a counter (unique within the process, cheap, no lock).
struct RequestIDGenerator {
    static let processPrefix: String = {
        var rng = SystemRandomNumberGenerator()
        let n = rng.next() as UInt64
        return String(n & 0xFFFF_FFFF_FFFF, radix: 36)
    }()

    private let prefix: [UInt8]
    private var counter: UInt64 = 0

    init(loop: Int) { prefix = Array((Self.processPrefix + "-" + String(loop, radix: 36) + "-").utf8) }

    /// `prefix` and the counter in base 36, written into the string's own storage: one a request.
    mutating func next() -> String {
        counter &+= 1
        var digits = counter, length = 1
        while digits >= 36 { digits /= 36; length += 1 }
        return String(unsafeUninitializedCapacity: prefix.count + length) { out in
            _ = out.initialize(from: prefix)
            var n = counter
            for i in stride(from: prefix.count + length - 1, through: prefix.count, by: -1) {
                let digit = UInt8(n % 36)
                out[i] = digit < 10 ? 48 + digit : 87 + digit
                n /= 36
            }
            return prefix.count + length
        }
    }

    /// 1…`maxLength` characters from `A-Z a-z 0-9 - _ . : / + =`.
    static func isSane(_ id: String, maxLength: Int) -> Bool {
        let utf8 = id.utf8
        guard !utf8.isEmpty, utf8.count <= maxLength else { return false }
        return utf8.allSatisfy { b in
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "-_.:/+=".utf8.contains(b)
            }
        }
    }
}
