import TrellisCrypto
import TrellisJSON
import TrellisRuntime

extension ServerConfiguration {
    /// The admin API: its tokens, where it listens, and how strict it is about concurrent edits.
    ///
    /// ```json
    /// "admin": {
    ///   "tokens": [{"name": "ops-bot", "sha256": "<64 hex digits>", "role": "write"}],
    ///   "port": 9090,
    ///   "requireIfMatch": false,
    ///   "requireApproval": false,
    ///   "approvalRequiredFor": ["rollouts/checkout-v2", "screens"],
    ///   "webhooks": [{"name": "chat", "url": "http://hooks.internal/trellis", "secretEnv": "TRELLIS_CHAT_SECRET", "events": ["rollout.*"]}]
    /// }
    /// ```
    public struct Admin: Sendable, Equatable {
        /// Who may call the admin API. Empty (the default) means nobody can: every call is 401.
        public var tokens: [AdminToken] = []
        /// When set, the admin API is served only on this port (0 picks a free one) and not on
        /// ``ServerConfiguration/port``; when nil, it shares the main port.
        public var port: Int?
        /// Whether every change through the admin API must carry `If-Match` naming the version it
        /// replaces (RFC 9110 §13.1.1), so two operators cannot overwrite each other unknowingly.
        public var requireIfMatch = false
        /// Whether every change through the admin API becomes a change request that a second
        /// token, with the `approve` role, must approve before it applies (four eyes).
        public var requireApproval = false
        /// Resources whose changes need approval even when ``requireApproval`` is off, by the
        /// start of their path under `/admin/`: `rollouts` (every rollout), `screens/home`, `targeting`.
        public var approvalRequiredFor: [String] = []
        /// Receivers of the audit log's events, besides those made through `/admin/webhooks`
        /// (Webhooks/WebhookSubscription.swift).
        public var webhooks: [WebhookSubscription] = []
        /// How long a delivery is retried (with exponential backoff) before it is recorded as
        /// abandoned and the next one goes: a day.
        public var webhookRetrySeconds = 86_400.0
        /// A PEM file of certificate authorities `https://` webhook receivers may be certified by,
        /// besides the system's (an internal CA); nil: the system's only.
        public var webhookCAFile: String? = nil
        /// Whether webhooks may reach loopback, private, link-local and unique-local addresses
        /// (``InternalAddress``): off, so that an admin token cannot aim deliveries inside.
        public var webhookAllowPrivate = false

        public init(tokens: [AdminToken] = [], port: Int? = nil, requireIfMatch: Bool = false) {
            self.tokens = tokens
            self.port = port
            self.requireIfMatch = requireIfMatch
        }

        /// Whether a change of `resource` (its path under `/admin/`, such as `rollouts/banner/kill`)
        /// needs approval.
        public func needsApproval(_ resource: String) -> Bool {
            requireApproval || approvalRequiredFor.contains { prefix in
                resource == prefix || resource.hasPrefix(prefix + "/")
            }
        }
    }

    /// Decoding of `admin.approvalRequiredFor`: resource paths such as `rollouts` or `screens/home`.
    enum ApprovalResourcesDecoder {
        static func decode(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> [String] {
            guard let elements = value.arrayValue else {
                collector.report("expected an array of resource paths such as \"rollouts\" or \"screens/home\", found \(value.typeName)", at: path, value)
                return []
            }
            return elements.enumerated().compactMap { index, element in
                guard let text = element.stringValue, !text.isEmpty, !text.hasPrefix("/"), !text.hasSuffix("/") else {
                    collector.report("expected a resource path under /admin/ such as \"rollouts\" or \"screens/home\" (no leading or trailing /)", at: path.appending(index), element)
                    return nil
                }
                return text
            }
        }
    }

    /// One admin token as configured: never the token itself, only its SHA-256, so `server.json`
    /// (and a backup, a diff, a log line) gives nobody access.
    public struct AdminToken: Sendable, Equatable {
        /// Who uses it, for the audit log: 1 to 64 of `A-Z a-z 0-9 . _ -`.
        public var name: String
        /// SHA-256 of the token's bytes as sent after `Bearer ` (32 bytes).
        public var sha256: [UInt8]
        public var role: AdminRole

        public init(name: String, sha256: [UInt8], role: AdminRole) {
            self.name = name
            self.sha256 = sha256
            self.role = role
        }

        /// The token entry for `token`, as `trellis token new` prints it.
        public init(name: String, token: String, role: AdminRole) {
            self.init(name: name, sha256: SHA256.hash(token.utf8), role: role)
        }
    }

    /// Whether `text` can name a token or a signing key: short, printable, safe in logs and
    /// audit records.
    public static func isValidName(_ text: String) -> Bool {
        // Names end up in URL paths (`/admin/tokens/{name}`): `.` and `..` would walk them.
        (1...64).contains(text.utf8.count) && !text.utf8.allSatisfy({ $0 == 0x2E })
            && text.utf8.allSatisfy { c in
                (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
                    || c == 0x2E || c == 0x5F || c == 0x2D
            }
    }

    /// The rule ``isValidName(_:)`` checks, for messages.
    public static let nameRule = "use 1 to 64 of A-Z, a-z, 0-9, '.', '_', '-', not only dots"
}

/// Decoding of `admin.tokens`: every mistake reported with its path and line.
enum AdminTokensDecoder {
    static func decode(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> [ServerConfiguration.AdminToken] {
        guard let elements = value.arrayValue else {
            collector.report("expected an array of tokens, found \(value.typeName)", at: path, value)
            return []
        }
        var tokens: [ServerConfiguration.AdminToken] = []
        var names: [String: Int] = [:]
        var hashes: [[UInt8]: Int] = [:]
        for (index, element) in elements.enumerated() {
            let elementPath = path.appending(index)
            guard let token = decodeToken(element, at: elementPath, collector) else { continue }
            if let first = names[token.name] {
                collector.report("duplicate token name \"\(token.name)\" (also at index \(first))", at: elementPath.appending("name"), element["name"] ?? element)
                continue
            }
            if let first = hashes[token.sha256] {
                collector.report("the same sha256 as the token at index \(first); each token must be distinct", at: elementPath.appending("sha256"), element["sha256"] ?? element)
                continue
            }
            names[token.name] = index
            hashes[token.sha256] = index
            tokens.append(token)
        }
        return tokens
    }

    private static func decodeToken(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> ServerConfiguration.AdminToken? {
        guard let object = collector.object(value, at: path, allowedKeys: ["name", "sha256", "role"]) else { return nil }
        let name = object.string("name", required: true).flatMap { name in
            checked(name, ServerConfiguration.isValidName(name), "invalid token name \"\(name)\": \(ServerConfiguration.nameRule)", object, "name")
                .flatMap { name in
                    checked(name, !Actor.reservedNames.contains(name), "token name \"\(name)\" is reserved: the audit log names the runtime's own writers so", object, "name")
                }
        }
        let sha256 = object.string("sha256", required: true).flatMap { digest(from: $0, object) }
        let role = object.string("role", required: true).flatMap { text in
            let role = AdminRole(rawValue: text)
            if role == nil {
                let roles = AdminRole.allCases.map(\.rawValue).joined(separator: ", ")
                object.report("unknown role \"\(text)\"; expected one of: \(roles)", atMember: "role")
            }
            return role
        }
        guard let name, let sha256, let role else { return nil }
        return ServerConfiguration.AdminToken(name: name, sha256: sha256, role: role)
    }

    /// The 32 bytes of a hex SHA-256. A value that looks like a token rather than its hash gets a
    /// hint, and is not repeated in the message: it would be a secret in the log.
    private static func digest(from text: String, _ object: JSONObjectReader) -> [UInt8]? {
        let path = object.path.appending("sha256"), value = object.value("sha256")!
        if text.hasPrefix(AdminTokenFormat.prefix) {
            object.collector.report(
                "this looks like a token, not its SHA-256; put only the sha256 that `trellis token new` prints in server.json",
                at: path, value)
            return nil
        }
        guard text.utf8.count == 64, let bytes = try? Hex.decode(text) else {
            object.collector.report(
                "expected the token's SHA-256 as 64 hex digits, found \(text.utf8.count) characters\(text.utf8.count == 64 ? " that are not all hex digits" : "")",
                at: path, value)
            return nil
        }
        return bytes
    }

    private static func checked(_ text: String, _ valid: Bool, _ problem: String, _ object: JSONObjectReader, _ key: String) -> String? {
        guard valid else {
            object.collector.report(problem, at: object.path.appending(key), object.value(key)!)
            return nil
        }
        return text
    }
}

/// Decoding of `admin.webhooks`: every mistake reported with its path and line.
enum AdminWebhooksDecoder {
    static func decode(
        _ value: JSONValue, at path: JSONPath, environment: [String: String], _ collector: DiagnosticsCollector
    ) -> [WebhookSubscription] {
        guard let elements = value.arrayValue else {
            collector.report("expected an array of webhooks, found \(value.typeName)", at: path, value)
            return []
        }
        var webhooks: [WebhookSubscription] = []
        var names: [String: Int] = [:]
        for (index, element) in elements.enumerated() {
            let elementPath = path.appending(index)
            guard let object = collector.object(element, at: elementPath, allowedKeys: ["name", "url", "secret", "secretEnv", "events"])
            else { continue }
            let name = object.string("name", required: true).flatMap { name -> String? in
                guard ServerConfiguration.isValidName(name) else {
                    object.report("invalid webhook name \"\(name)\": \(ServerConfiguration.nameRule)", atMember: "name")
                    return nil
                }
                if let first = names[name] {
                    object.report("duplicate webhook name \"\(name)\" (also at index \(first))", atMember: "name")
                    return nil
                }
                names[name] = index
                return name
            }
            let webhook = WebhookSubscription.decode(name: name ?? "", object, secretEnvironment: environment)
            if name != nil, let webhook { webhooks.append(webhook) }
        }
        return webhooks
    }
}
