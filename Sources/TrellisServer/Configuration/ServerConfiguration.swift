import TrellisAnswers
import TrellisHTTP
import TrellisRuntime
import TrellisJSON
import TrellisLint

/// Everything `Config/server.json` can say, with the defaults a deployment gets when it says nothing.
///
/// Each setting has a dotted name (`limits.maxBodyBytes`) and can be overridden, in increasing
/// precedence, by the file, by an environment variable (`TRELLIS_LIMITS_MAX_BODY_BYTES`) and by a
/// command-line flag (`--set limits.maxBodyBytes=2097152`; common ones have their own flags).
public struct ServerConfiguration: Sendable, Equatable {
    public var host = "*"
    public var port = 8080
    public var dataDirectory = "data"
    public var logLevel = "info"
    /// One line per request; `"accessLog": {"format": …, "path": …}` in `server.json` sets the two below.
    public var accessLog = true
    /// `text`, `combined` or `json` (TrellisHTTP's `AccessLogFormat`).
    public var accessLogFormat = "text"
    /// The file the access log is appended to; nil writes it to standard output.
    public var accessLogPath: String? = nil
    /// HTTP/2 beside HTTP/1.1 (h2c with prior knowledge on plain listeners); false: HTTP/1.1 only.
    public var http2 = true
    /// `Cache-Control` max-age of screen answers, in seconds; 0 means clients revalidate every time.
    public var screenMaxAgeSeconds = 0
    public var limits = Limits()
    /// Who may use the admin API, and where it listens (ServerConfiguration+Admin.swift).
    public var admin = Admin()
    /// How requests prove who is asking (ServerConfiguration+Context.swift).
    public var context = Context()
    /// TLS on the server's own sockets: `"tls": {"certificate": "…pem", "privateKey": "…pem", "port": 8443}`.
    public var tls = TLS()
    /// The answer cache: `"cache": {"maxBytes": 536870912}`.
    public var cache = Cache()
    /// Where runtime state lives: the data directory's SQLite file, or a PostgreSQL database that
    /// several replicas share (`"storage": {"url": "postgres://…"}`).
    public var storage = Storage()
    /// Who may use the OpenFeature endpoints (ServerConfiguration+OpenFeature.swift).
    public var ofrep = OpenFeature()
    /// The change stream's limits (ServerConfiguration+OpenFeature.swift).
    public var changes = Changes()
    /// Apps' events: batch and event sizes, clock skew (ServerConfiguration+Events.swift).
    public var events = Events()
    /// String tables: `"strings": {"defaultLocale": "en"}`.
    public var strings = Strings()
    /// The lint at publish: `"lint": {"errors": ["contrast", "label"]}`.
    public var lint = Lint()
    /// Proxies whose `X-Forwarded-For` says who the client is (``ClientAddress``): the load
    /// balancer's addresses. Empty: the socket's peer is the client.
    var trustedProxies: [AddressRange] = []

    /// The runtime store (``TrellisStore/RuntimeStore``).
    public struct Storage: Sendable, Equatable {
        /// `postgres://user:password@host:port/database?…` (a libpq URI): replicas share it, learn
        /// of each other's changes by LISTEN/NOTIFY and keep serving while it is down. Nil: the
        /// embedded SQLite file in the data directory, for a single node.
        public var url: String? = nil
        /// How often a replica asks the database for the newest change sequence, besides being
        /// notified: it bounds how long a lost notification can go unnoticed.
        public var pollSeconds = 2.0
        /// `/readyz` answers 503 once the replica's view of the database is older than this; nil
        /// (the default): a stale answer beats none, a replica stays ready through an outage.
        public var maxStalenessSeconds: Int? = nil
        /// What old rows the store lets go (``Retention``); by default, nothing.
        public var retention = Retention()
        public init() {}
    }

    /// `"storage": {"retention": {"revisionsPerScreen": 200, "auditDays": 365}}`: applied in the
    /// background every ``intervalSeconds``. Nil limits (the default) keep everything. Never
    /// pruned: the revisions a screen serves (current and staged), the newest that came from its
    /// file, those a pending change request names, and audit entries a webhook has not been given.
    public typealias Retention = RetentionSettings

    /// What the lint a screen's publish runs refuses (docs/lint.md).
    public struct Lint: Sendable, Equatable {
        /// The rules whose findings refuse a publish (422 at the component's path); the others'
        /// findings are the publish answer's warnings.
        public var errors: Set<LintRule> = []
        public init() {}
    }

    /// The string tables of `strings/<locale>.json`.
    public struct Strings: Sendable, Equatable {
        /// The locale whose table holds every key a screen uses, and answers a request whose
        /// locale has no table.
        public var defaultLocale = "en"
        public init() {}
    }

    /// How much the answer cache may hold (``CacheBudget``).
    public struct Cache: Sendable, Equatable {
        /// Bytes, within ``SnapshotCacheLimits/configurableBytes``; nil: a share of the memory the
        /// process may use, read at start (``CacheBudget/default(forMemory:)``).
        public var maxBytes: Int? = nil
        public init() {}
    }

    /// Where TLS is served, and with which certificate and key (reloaded on SIGHUP).
    public struct TLS: Sendable, Equatable {
        /// PEM: the certificate, then any intermediates.
        public var certificate: String? = nil
        /// PEM, unencrypted, EC or RSA.
        public var privateKey: String? = nil
        /// A TLS listener for the public API beside the plain `port`; nil: none.
        public var port: Int? = nil
        /// The admin listener (`admin.port`) speaks TLS only.
        public var admin = false
        public init() {}

        /// The pair, when both files are named.
        public var pair: (certificate: String, privateKey: String)? {
            guard let certificate, let privateKey else { return nil }
            return (certificate, privateKey)
        }
    }

    /// HTTP limits, in the spirit of nginx's defaults.
    public struct Limits: Sendable, Equatable {
        public var maxRequestLineBytes = 8192
        public var maxHeaderBytes = 32_768
        public var maxHeaderCount = 100
        public var maxBodyBytes = 1_048_576
        public var headerTimeoutSeconds = 60.0
        public var bodyTimeoutSeconds = 60.0
        public var sendTimeoutSeconds = 60.0
        public var keepAliveTimeoutSeconds = 75.0
        /// nil: sized from the descriptor limit at start (see docs/http.md).
        public var maxConnections: Int? = nil
        public var maxRequestsPerConnection = 1000
        public var drainTimeoutSeconds = 10.0
        public init() {}
    }

    public init() {}
}

/// One overridable setting: its dotted name, how to read it, and where it goes.
struct Setting: Sendable {
    enum Kind: Sendable {
        case string(any WritableKeyPath<ServerConfiguration, String> & Sendable, allowed: [String]?)
        /// A string that may be absent (unset by default); setting it always gives a value.
        case optionalString(any WritableKeyPath<ServerConfiguration, String?> & Sendable)
        case integer(any WritableKeyPath<ServerConfiguration, Int> & Sendable, ClosedRange<Int>)
        /// An integer that may be absent (unset by default); setting it always gives a value.
        case optionalInteger(any WritableKeyPath<ServerConfiguration, Int?> & Sendable, ClosedRange<Int>)
        case seconds(any WritableKeyPath<ServerConfiguration, Double> & Sendable, ClosedRange<Double>)
        case bool(any WritableKeyPath<ServerConfiguration, Bool> & Sendable)
    }

    let name: String
    let kind: Kind

    /// `limits.maxBodyBytes` → `TRELLIS_LIMITS_MAX_BODY_BYTES`.
    var environmentName: String {
        var out = "TRELLIS_"
        for ch in name {
            if ch == "." { out += "_"; continue }
            if ch.isUppercase { out += "_" }
            out += ch.uppercased()
        }
        return out
    }

    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    static let all: [Setting] = [
        Setting(name: "host", kind: .string(\.host, allowed: nil)),
        Setting(name: "port", kind: .integer(\.port, 0...65535)),
        Setting(name: "dataDirectory", kind: .string(\.dataDirectory, allowed: nil)),
        Setting(name: "logLevel", kind: .string(\.logLevel, allowed: logLevels)),
        Setting(name: "accessLog", kind: .bool(\.accessLog)),
        Setting(name: "accessLog.format", kind: .string(\.accessLogFormat, allowed: AccessLogFormat.allCases.map(\.rawValue))),
        Setting(name: "accessLog.path", kind: .optionalString(\.accessLogPath)),
        Setting(name: "http2", kind: .bool(\.http2)),
        Setting(name: "screenMaxAgeSeconds", kind: .integer(\.screenMaxAgeSeconds, 0...31_536_000)),
        Setting(name: "limits.maxRequestLineBytes", kind: .integer(\.limits.maxRequestLineBytes, 256...1_048_576)),
        Setting(name: "limits.maxHeaderBytes", kind: .integer(\.limits.maxHeaderBytes, 1024...1_048_576)),
        Setting(name: "limits.maxHeaderCount", kind: .integer(\.limits.maxHeaderCount, 8...10_000)),
        Setting(name: "limits.maxBodyBytes", kind: .integer(\.limits.maxBodyBytes, 0...1_073_741_824)),
        Setting(name: "limits.headerTimeoutSeconds", kind: .seconds(\.limits.headerTimeoutSeconds, 0.01...3600)),
        Setting(name: "limits.bodyTimeoutSeconds", kind: .seconds(\.limits.bodyTimeoutSeconds, 0.01...3600)),
        Setting(name: "limits.sendTimeoutSeconds", kind: .seconds(\.limits.sendTimeoutSeconds, 0.01...3600)),
        Setting(name: "limits.keepAliveTimeoutSeconds", kind: .seconds(\.limits.keepAliveTimeoutSeconds, 0.01...3600)),
        Setting(name: "limits.maxConnections", kind: .optionalInteger(\.limits.maxConnections, 1...1_000_000)),
        Setting(name: "limits.maxRequestsPerConnection", kind: .integer(\.limits.maxRequestsPerConnection, 1...100_000_000)),
        Setting(name: "limits.drainTimeoutSeconds", kind: .seconds(\.limits.drainTimeoutSeconds, 0.01...3600)),
        Setting(name: "admin.port", kind: .optionalInteger(\.admin.port, 0...65535)),
        Setting(name: "admin.requireIfMatch", kind: .bool(\.admin.requireIfMatch)),
        Setting(name: "admin.requireApproval", kind: .bool(\.admin.requireApproval)),
        Setting(name: "admin.webhookRetrySeconds", kind: .seconds(\.admin.webhookRetrySeconds, 1...604_800)),
        Setting(name: "admin.webhookCAFile", kind: .optionalString(\.admin.webhookCAFile)),
        Setting(name: "admin.webhookAllowPrivate", kind: .bool(\.admin.webhookAllowPrivate)),
        Setting(name: "tls.certificate", kind: .optionalString(\.tls.certificate)),
        Setting(name: "tls.privateKey", kind: .optionalString(\.tls.privateKey)),
        Setting(name: "tls.port", kind: .optionalInteger(\.tls.port, 0...65535)),
        Setting(name: "tls.admin", kind: .bool(\.tls.admin)),
        Setting(name: "cache.maxBytes", kind: .optionalInteger(\.cache.maxBytes, SnapshotCacheLimits.configurableBytes)),
        Setting(name: "storage.url", kind: .optionalString(\.storage.url)),
        Setting(name: "storage.pollSeconds", kind: .seconds(\.storage.pollSeconds, 0.05...3600)),
        Setting(name: "storage.maxStalenessSeconds", kind: .optionalInteger(\.storage.maxStalenessSeconds, 1...31_536_000)),
        Setting(name: "storage.retention.revisionsPerScreen", kind: .optionalInteger(\.storage.retention.revisionsPerScreen, 1...1_000_000)),
        Setting(name: "storage.retention.auditDays", kind: .optionalInteger(\.storage.retention.auditDays, 1...36_500)),
        Setting(name: "storage.retention.eventDays", kind: .optionalInteger(\.storage.retention.eventDays, 1...36_500)),
        Setting(name: "storage.retention.intervalSeconds", kind: .seconds(\.storage.retention.intervalSeconds, 1...604_800)),
        Setting(name: "changes.maxStreams", kind: .integer(\.changes.maxStreams, 0...1_000_000)),
        Setting(name: "changes.maxStreamsPerClient", kind: .integer(\.changes.maxStreamsPerClient, 1...1_000_000)),
        Setting(name: "changes.streamBufferBytes", kind: .integer(\.changes.streamBufferBytes, 1024...67_108_864)),
        Setting(name: "changes.history", kind: .integer(\.changes.history, 0...1_000_000)),
        Setting(name: "changes.heartbeatSeconds", kind: .seconds(\.changes.heartbeatSeconds, 0.05...3600)),
        Setting(name: "events.maxBatchEvents", kind: .integer(\.events.maxBatchEvents, 1...100_000)),
        Setting(name: "events.maxEventBytes", kind: .integer(\.events.maxEventBytes, 256...1_048_576)),
        Setting(name: "events.maxClockSkewSeconds", kind: .seconds(\.events.maxClockSkewSeconds, 0...86_400)),
        Setting(name: "events.maxAgeSeconds", kind: .seconds(\.events.maxAgeSeconds, 60...31_536_000)),
        Setting(name: "events.guardIntervalSeconds", kind: .seconds(\.events.guardIntervalSeconds, 0.05...3600)),
        Setting(name: "events.exposureFlushSeconds", kind: .seconds(\.events.exposureFlushSeconds, 0.05...60)),
        Setting(name: "strings.defaultLocale", kind: .string(\.strings.defaultLocale, allowed: nil)),
        Setting(name: "context.maxLifetimeSeconds", kind: .seconds(\.context.maxLifetimeSeconds, 1...31_536_000)),
        Setting(name: "context.unsigned", kind: .string(\.context.unsignedPolicyName, allowed: ServerConfiguration.Context.UnsignedPolicy.allCases.map(\.rawValue))),
    ]

    static let byName: [String: Setting] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// Applies a JSON value from the file; reports what is wrong with it.
    func apply(_ value: JSONValue, to config: inout ServerConfiguration, at path: JSONPath, _ collector: DiagnosticsCollector) {
        switch kind {
        case .string(let keyPath, let allowed):
            guard let s = value.stringValue else { return collector.report("expected a string, found \(value.typeName)", at: path, value) }
            if let problem = check(string: s, allowed: allowed) { return collector.report(problem, at: path, value) }
            config[keyPath: keyPath] = s
        case .optionalString(let keyPath):
            guard let s = value.stringValue else { return collector.report("expected a string, found \(value.typeName)", at: path, value) }
            if let problem = check(string: s, allowed: nil) { return collector.report(problem, at: path, value) }
            config[keyPath: keyPath] = s
        case .integer(let keyPath, let range):
            if let i = integer(value, in: range, at: path, collector) { config[keyPath: keyPath] = i }
        case .optionalInteger(let keyPath, let range):
            if let i = integer(value, in: range, at: path, collector) { config[keyPath: keyPath] = i }
        case .seconds(let keyPath, let range):
            guard let n = value.numberValue, range.contains(n) else {
                return collector.report("expected seconds from \(range.lowerBound) to \(range.upperBound), found \(JSONWriter.string(value))", at: path, value)
            }
            config[keyPath: keyPath] = n
        case .bool(let keyPath):
            guard let b = value.boolValue else { return collector.report("expected true or false, found \(value.typeName)", at: path, value) }
            config[keyPath: keyPath] = b
        }
    }

    /// Applies a textual value from the environment or a flag; returns the problem, if any.
    func apply(text: String, to config: inout ServerConfiguration) -> String? {
        switch kind {
        case .string(let keyPath, let allowed):
            if let problem = check(string: text, allowed: allowed) { return problem }
            config[keyPath: keyPath] = text
        case .optionalString(let keyPath):
            if let problem = check(string: text, allowed: nil) { return problem }
            config[keyPath: keyPath] = text
        case .integer(let keyPath, let range):
            guard let i = Int(text), range.contains(i) else { return integerProblem(range, found: "\"\(text)\"") }
            config[keyPath: keyPath] = i
        case .optionalInteger(let keyPath, let range):
            guard let i = Int(text), range.contains(i) else { return integerProblem(range, found: "\"\(text)\"") }
            config[keyPath: keyPath] = i
        case .seconds(let keyPath, let range):
            guard let n = Double(text), range.contains(n) else {
                return "expected seconds from \(range.lowerBound) to \(range.upperBound), found \"\(text)\""
            }
            config[keyPath: keyPath] = n
        case .bool(let keyPath):
            switch text.lowercased() {
            case "true", "1", "yes", "on": config[keyPath: keyPath] = true
            case "false", "0", "no", "off": config[keyPath: keyPath] = false
            default: return "expected true or false, found \"\(text)\""
            }
        }
        return nil
    }

    private func integer(_ value: JSONValue, in range: ClosedRange<Int>, at path: JSONPath, _ collector: DiagnosticsCollector) -> Int? {
        guard let n = value.numberValue, n == n.rounded(), let i = Int(exactly: n), range.contains(i) else {
            collector.report(integerProblem(range, found: JSONWriter.string(value)), at: path, value)
            return nil
        }
        return i
    }

    private func integerProblem(_ range: ClosedRange<Int>, found: String) -> String {
        "expected an integer from \(range.lowerBound) to \(range.upperBound), found \(found)"
    }

    private func check(string: String, allowed: [String]?) -> String? {
        if string.isEmpty { return "must not be empty" }
        if let allowed, !allowed.contains(string) { return "\"\(string)\" is not one of: \(allowed.joined(separator: ", "))" }
        return nil
    }
}
