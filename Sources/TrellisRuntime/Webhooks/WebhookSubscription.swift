import TrellisJSON
import TrellisStore

/// A receiver of audit events: where they are POSTed, the secret they are signed with, and which
/// actions it wants. From `admin.webhooks` in `server.json` (the bootstrap set, changed with a
/// restart) or made through `POST /admin/webhooks` (a store document, on every replica at once).
public struct WebhookSubscription: Sendable, Equatable, CustomStringConvertible {
    package static let kind = "webhook"

    /// Names its delivery cursor and its deliveries (`X-Trellis-Delivery`): 1 to 64 of
    /// `A-Z a-z 0-9 . _ -`.
    public var name: String
    public var url: WebhookURL
    /// The HMAC-SHA256 key, as its UTF-8 text was given. Never read back through the API.
    public var secret: String
    /// Which audit actions it gets: `*`, an action (`rollout.kill`) or a prefix (`rollout.*`).
    public var events: [String]
    /// When it was made through the API, and by whom; nil for one from `server.json`.
    public var createdAt: Double?
    public var createdBy: String?

    public init(name: String, url: WebhookURL, secret: String, events: [String] = ["*"], createdAt: Double? = nil, createdBy: String? = nil) {
        self.name = name
        self.url = url
        self.secret = secret
        self.events = events
        self.createdAt = createdAt
        self.createdBy = createdBy
    }

    /// Never the secret: a subscription may end up in a log line.
    public var description: String { "WebhookSubscription(name: \(name), url: \(url), events: \(events))" }

    /// Whether the audit action `action` is one it wants.
    package func wants(_ action: String) -> Bool {
        events.contains { pattern in
            if pattern == "*" { return true }
            if pattern.hasSuffix(".*") { return action.hasPrefix(pattern.dropLast()) }
            return action == pattern
        }
    }

    /// The store document's body: `{"url": …, "secret": …, "events": […]}`.
    package var body: [UInt8] {
        JSONWriter.encode(.object([
            ("url", .string(url.text)), ("secret", .string(secret)), ("events", .array(events.map(JSONValue.string))),
        ]))
    }

    /// A subscription stored as a document; nil for a deleted one, or one this version cannot
    /// read (it is not delivered to, and `GET /admin/webhooks` does not list it).
    package init?(stored document: StoredDocument) {
        guard let value = try? JSONParser.parse(document.body), value.objectValue != nil else { return nil }
        let collector = DiagnosticsCollector()
        guard let object = collector.object(value, at: .root, allowedKeys: ["url", "secret", "events"]),
            let decoded = Self.decode(name: document.key, object, secretEnvironment: nil), collector.isEmpty
        else { return nil }
        self = decoded
        createdAt = document.updatedAt
        createdBy = document.updatedBy
    }

    /// The shortest secret taken: HMAC keys shorter than this are guessable offline from one
    /// signed delivery.
    package static let minimumSecretBytes = 16

    /// `url`, `secret` (or, with `secretEnvironment`, `secretEnv`) and `events` of `object`, every
    /// problem reported with its path and line.
    package static func decode(name: String, _ object: JSONObjectReader, secretEnvironment: [String: String]?) -> WebhookSubscription? {
        let url = object.string("url", required: true).flatMap { text -> WebhookURL? in
            do throws(WebhookURL.Invalid) { return try WebhookURL(text) } catch {
                object.report(error.description, atMember: "url")
                return nil
            }
        }
        let secret = Self.secret(of: object, environment: secretEnvironment)
        let events = object.value("events") == nil ? ["*"] : Self.events(of: object)
        guard let url, let secret, let events else { return nil }
        return WebhookSubscription(name: name, url: url, secret: secret, events: events)
    }

    private static func secret(of object: JSONObjectReader, environment: [String: String]?) -> String? {
        let fromEnvironment = environment != nil && object.contains("secretEnv")
        if fromEnvironment, object.contains("secret") {
            object.collector.report("give either \"secret\" or \"secretEnv\", not both", at: object.path, object.location)
            return nil
        }
        let key = fromEnvironment ? "secretEnv" : "secret"
        guard var text = object.string(key, required: true) else { return nil }
        if fromEnvironment {
            guard let value = environment?[text] else {
                object.report("environment variable \(text) is not set", atMember: key)
                return nil
            }
            text = value
        }
        guard text.utf8.count >= minimumSecretBytes, text.utf8.count <= 1024 else {
            // The secret itself is not repeated: it would be in the log.
            object.report(
                "the secret has \(text.utf8.count) bytes; give \(minimumSecretBytes) to 1024 (`openssl rand -hex 32` makes one)", atMember: key)
            return nil
        }
        return text
    }

    private static func events(of object: JSONObjectReader) -> [String]? {
        guard let values = object.array("events") else { return nil }
        var events: [String] = []
        for (index, value) in values.enumerated() {
            let path = object.path.appending("events").appending(index)
            guard let text = value.stringValue else {
                object.collector.report("expected an event pattern (a string), found \(value.typeName)", at: path, value)
                continue
            }
            guard isValidPattern(text) else {
                object.collector.report(
                    "invalid event pattern \"\(text.prefix(64))\": use *, an action such as rollout.kill, or a prefix such as rollout.*",
                    at: path, value)
                continue
            }
            events.append(text)
        }
        guard !values.isEmpty else {
            object.report("no events: leave \"events\" out (or give [\"*\"]) for every event", atMember: "events")
            return nil
        }
        return events.count == values.count ? events : nil
    }

    /// `*`, or dot-separated words of `a-z 0-9 _ -` with an optional final `.*`.
    package static func isValidPattern(_ text: String) -> Bool {
        if text == "*" { return true }
        let words = text.hasSuffix(".*") ? text.dropLast(2) : Substring(text)
        guard !words.isEmpty, words.utf8.count <= 128 else { return false }
        return words.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { word in
            !word.isEmpty && word.utf8.allSatisfy { c in
                (0x61...0x7A).contains(c) || (0x30...0x39).contains(c) || c == 0x5F || c == 0x2D
            }
        }
    }
}

/// Where a webhook's deliveries go: an `http://` or `https://` URL, its parts checked once.
public struct WebhookURL: Sendable, Equatable, CustomStringConvertible {
    /// The URL as given.
    public let text: String
    /// `https://`: the receiver's certificate is verified for ``host``.
    public let isTLS: Bool
    public let host: String
    public let port: Int
    /// The request target: the path and query (`/hooks/trellis?team=ops`).
    public let target: String

    /// Why a URL is refused.
    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    public var description: String { text }

    public init(_ text: String) throws(Invalid) {
        guard text.utf8.count <= 2048 else { throw Invalid(description: "the URL is longer than 2048 bytes") }
        guard text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Invalid(description: "the URL has spaces, control or non-ASCII characters; percent-encode them")
        }
        let lower = text.lowercased()
        isTLS = lower.hasPrefix("https://")
        guard isTLS || lower.hasPrefix("http://") else { throw Invalid(description: "the URL must start with http:// or https://") }
        let rest = text.dropFirst(isTLS ? "https://".count : "http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var target = String(rest.dropFirst(authority.count))
        guard !target.contains("#") else { throw Invalid(description: "the URL has a fragment (#…); receivers never see one, leave it out") }
        guard !authority.contains("@") else { throw Invalid(description: "the URL has credentials (user@); authenticate receivers by the signature instead") }
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        let (host, port) = try Self.hostAndPort(authority, defaultPort: isTLS ? 443 : 80)
        self.text = text
        self.host = host
        self.port = port
        self.target = target
    }

    /// `example.com`, `example.com:8080`, `[::1]:9000` → host and port (`defaultPort` when none).
    private static func hostAndPort(_ authority: Substring, defaultPort: Int) throws(Invalid) -> (String, Int) {
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw Invalid(description: "the URL's IPv6 address has no closing ]") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Invalid(description: "unexpected text after the URL's IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { throw Invalid(description: "the URL has no host") }
        guard let portText else { return (String(host), defaultPort) }
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw Invalid(description: "the URL's port must be 1 to 65535, not \"\(portText.prefix(16))\"")
        }
        return (String(host), port)
    }
}
