import TrellisCrypto
import TrellisJSON
import TrellisStore

/// An admin token made through `POST /admin/tokens`, as its document stores it: only the hash
/// of the token and the role; who made it and when are the document's `updatedBy`/`updatedAt`
/// (a token document is written when it is made, and once more, reset, when it is deleted).
package struct RuntimeToken: Sendable, Equatable {
    package static let kind = "token"
    package var name: String
    package var sha256: [UInt8]
    package var role: AdminRole
    package var createdAt: Double
    package var createdBy: String

    /// The document's body: `{"sha256":"<hex>","role":"write"}`.
    package var body: [UInt8] {
        JSONWriter.encode(.object([("sha256", .string(Hex.encode(sha256))), ("role", .string(role.rawValue))]))
    }

    /// The token a stored document holds; nil for a deleted one, or one this version cannot read
    /// (a token nobody can check is a token nobody may use).
    package init?(_ document: StoredDocument) {
        guard let object = try? JSONParser.parse(document.body), let hex = object["sha256"]?.stringValue,
            let sha256 = try? Hex.decode(hex), sha256.count == 32, let role = object["role"]?.stringValue.flatMap(AdminRole.init)
        else { return nil }
        self.init(name: document.key, sha256: sha256, role: role, createdAt: document.updatedAt, createdBy: document.updatedBy)
    }

    package init(name: String, sha256: [UInt8], role: AdminRole, createdAt: Double, createdBy: String) {
        self.name = name
        self.sha256 = sha256
        self.role = role
        self.createdAt = createdAt
        self.createdBy = createdBy
    }

    /// As the authenticator checks configured tokens.
}

/// Admin tokens, webhooks and metrics made at run time: documents in the store like rollout values, so
/// every snapshot (and every replica, through `follow()`) has them; a deleted one keeps its
/// document, reset, so that its revisions count on and the history says who deleted it.
public struct OperationalState: Sendable {
    /// The document kinds kept here.
    package static let kinds: Set<String> = [RuntimeToken.kind, WebhookSubscription.kind, MetricDefinition.kind, Guard.kind]

    /// Every document of those kinds, deleted ones too, by kind and key.
    private var documents: [String: [String: StoredDocument]] = [:]
    /// The tokens that exist, by name.
    package private(set) var tokens: [String: RuntimeToken] = [:]
    /// The webhooks that exist, by name.
    package private(set) var webhooks: [String: WebhookSubscription] = [:]
    /// The metrics experiments can name, by name.
    package private(set) var metrics: [String: MetricDefinition] = [:]
    /// The guards of rollouts and screens, by what they guard.
    package private(set) var guards: [Guard.Subject: Guard] = [:]

    package func document(kind: String, key: String) -> StoredDocument? { documents[kind]?[key] }

    /// The webhooks in force: `configured` (from `server.json`), then those made at run time
    /// whose names the configuration does not use (a configured webhook always wins its name).
    package func webhooks(configured: [WebhookSubscription]) -> [WebhookSubscription] {
        let names = Set(configured.map(\.name))
        return configured + webhooks.values.filter { !names.contains($0.name) }.sorted { $0.name < $1.name }
    }

    package mutating func record(_ document: StoredDocument) {
        documents[document.kind, default: [:]][document.key] = document
        switch document.kind {
        case RuntimeToken.kind: tokens[document.key] = RuntimeToken(document)
        case WebhookSubscription.kind: webhooks[document.key] = WebhookSubscription(stored: document)
        case MetricDefinition.kind: metrics[document.key] = MetricDefinition(document)
        case Guard.kind: if let subject = Guard.Subject(resource: document.key) { guards[subject] = Guard(document) }
        default: break
        }
    }
}
