import TrellisCrypto
import TrellisJSON
import TrellisStore

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
struct WebhookRequest {
    var headers: [(String, String)]
    var body: [UInt8]

    static func deliveryID(of entry: AuditEntry, to webhook: WebhookSubscription) -> String { "\(entry.id).\(webhook.name)" }

    init(entry: AuditEntry, webhook: WebhookSubscription, attempt: Int, at time: Double) {
        let delivery = Self.deliveryID(of: entry, to: webhook)
        body = JSONWriter.encode(.object([
            ("delivery", .string(delivery)), ("webhook", .string(webhook.name)), ("event", .string(entry.draft.action)),
            ("entry", AdminEndpoints.auditValue(entry)),
        ]))
        let timestamp = String(Int(time))
        headers = [
            ("Content-Type", "application/json"), ("User-Agent", "Trellis-Webhooks/1"), ("X-Trellis-Delivery", delivery),
            ("X-Trellis-Event", entry.draft.action), ("X-Trellis-Attempt", String(attempt)), ("X-Trellis-Timestamp", timestamp),
            ("X-Trellis-Signature", "sha256=" + Self.signature(timestamp: timestamp, body: body, secret: webhook.secret)),
        ]
    }

    /// The hex HMAC-SHA256 of `timestamp.body` under `secret`.
    static func signature(timestamp: String, body: [UInt8], secret: String) -> String {
        Hex.encode(HMACSHA256.authenticationCode(for: Array(timestamp.utf8) + [0x2E] + body, key: Array(secret.utf8)))
    }
}
