import TrellisCrypto
import TrellisJSON
import TrellisStore
import TrellisTargeting

/// What one delivery sends: the audit entry as JSON, and the headers that let a receiver check
/// where it came from and tell a repeat.
///
/// - `X-Trellis-Delivery: <audit id>.<webhook name>` — the same for every attempt at the same entry:
///   deliveries are at least once, so a receiver deduplicates by it.
/// - `X-Trellis-Event: rollout.update` — the entry's action.
/// - `X-Trellis-Timestamp: 1800000000` — when this attempt was signed (seconds since 1970).
/// - `X-Trellis-Signature: sha256=<hex>` — HMAC-SHA256, keyed with the webhook's secret (its
///   UTF-8 bytes), of the timestamp, a `.`, and the body's bytes. A receiver recomputes it,
///   compares in constant time, and refuses timestamps far from its clock (a replay).
package struct WebhookRequest {
    package var headers: [(String, String)]
    package var body: [UInt8]

    package static func deliveryID(of entry: AuditEntry, to webhook: WebhookSubscription) -> String { "\(entry.id).\(webhook.name)" }

    package init(entry: AuditEntry, webhook: WebhookSubscription, attempt: Int, at time: Double) {
        let delivery = Self.deliveryID(of: entry, to: webhook)
        body = JSONWriter.encode(.object([
            ("delivery", .string(delivery)), ("webhook", .string(webhook.name)), ("event", .string(entry.draft.action)),
            ("entry", entry.jsonValue),
        ]))
        let timestamp = String(Int(time))
        headers = [
            ("Content-Type", "application/json"), ("User-Agent", "Trellis-Webhooks/1"), ("X-Trellis-Delivery", delivery),
            ("X-Trellis-Event", entry.draft.action), ("X-Trellis-Attempt", String(attempt)), ("X-Trellis-Timestamp", timestamp),
            ("X-Trellis-Signature", "sha256=" + Self.signature(timestamp: timestamp, body: body, secret: webhook.secret)),
        ]
    }

    /// The hex HMAC-SHA256 of `timestamp.body` under `secret`.
    package static func signature(timestamp: String, body: [UInt8], secret: String) -> String {
        Hex.encode(HMACSHA256.authenticationCode(for: Array(timestamp.utf8) + [0x2E] + body, key: Array(secret.utf8)))
    }
}

extension AuditEntry {
    /// An audit entry as the audit log and webhooks show it: `before` and `after` embedded as JSON.
    package var jsonValue: JSONValue {
        func embedded(_ bytes: [UInt8]?) -> JSONValue {
            guard let bytes else { return .null }
            return (try? JSONParser.parse(bytes)) ?? .string(String(decoding: bytes, as: UTF8.self))
        }
        let draft = self.draft
        return .object([
            ("id", .number(Double(id))), ("at", .string(RFC3339.string(fromSeconds: draft.at))), ("actor", .string(draft.actor)),
            ("action", .string(draft.action)), ("resource", .string(draft.resource)), ("before", embedded(draft.before)),
            ("after", embedded(draft.after)),
        ])
    }
}
