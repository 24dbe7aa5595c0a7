import Foundation
import GRDB

/// Leases, webhook cursors, the delivery log and retention: rows outside the change sequence.
extension SQLiteStore {
    public func claimLease(_ name: String, holder: String, now: Double, expiresAt: Double) throws(StoreError) -> Bool {
        try write("claim the lease \(name)") { db in
            // The update happens only for the holder or an expired lease; otherwise no row comes back.
            try String.fetchOne(
                db,
                sql: """
                    INSERT INTO lease (name, holder, expires_at) VALUES (?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                    WHERE lease.holder = excluded.holder OR lease.expires_at < ?
                    RETURNING holder
                    """, arguments: [name, holder, expiresAt, now]) == holder
        }
    }

    public func releaseLease(_ name: String, holder: String) throws(StoreError) {
        try write("release the lease \(name)") { db in
            try db.execute(sql: "DELETE FROM lease WHERE name = ? AND holder = ?", arguments: [name, holder])
        }
    }

    public func webhookCursor(_ webhook: String, startingBefore: Double) throws(StoreError) -> WebhookCursor {
        try write("read the cursor of webhook \(webhook)") { db in
            try db.execute(
                sql: """
                    INSERT INTO webhook_cursor (webhook, delivered_through, failed_attempts)
                    SELECT ?, coalesce((SELECT max(id) FROM audit WHERE at < ?), 0), 0
                    WHERE NOT EXISTS (SELECT 1 FROM webhook_cursor WHERE webhook = ?)
                    """, arguments: [webhook, startingBefore, webhook])
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM webhook_cursor WHERE webhook = ?", arguments: [webhook]) else {
                throw StoreError.failure("the cursor of webhook \(webhook) was not written")
            }
            return WebhookCursor(
                webhook: row["webhook"], deliveredThrough: row["delivered_through"], failedAttempts: row["failed_attempts"],
                firstFailureAt: row["first_failure_at"], nextAttemptAt: row["next_attempt_at"])
        }
    }

    public func recordDelivery(_ attempt: DeliveryAttempt?, cursor: WebhookCursor) throws(StoreError) {
        try write("record a delivery to webhook \(cursor.webhook)") { db in
            if let attempt { try Self.insert(attempt, db) }
            try db.execute(
                sql: """
                    INSERT INTO webhook_cursor (webhook, delivered_through, failed_attempts, first_failure_at, next_attempt_at)
                    VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (webhook) DO UPDATE SET delivered_through = excluded.delivered_through,
                        failed_attempts = excluded.failed_attempts, first_failure_at = excluded.first_failure_at,
                        next_attempt_at = excluded.next_attempt_at
                    """,
                arguments: [cursor.webhook, cursor.deliveredThrough, cursor.failedAttempts, cursor.firstFailureAt, cursor.nextAttemptAt])
        }
    }

    /// The attempt's row, and the oldest of its webhook's beyond the log's limit deleted.
    private static func insert(_ attempt: DeliveryAttempt, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO webhook_delivery (webhook, audit_id, event, at, attempt, outcome, status, error, duration)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                attempt.webhook, attempt.auditID, attempt.event, attempt.at, attempt.attempt, attempt.outcome.rawValue,
                attempt.statusCode, attempt.error, attempt.durationSeconds,
            ])
        try db.execute(
            sql: """
                DELETE FROM webhook_delivery WHERE webhook = ? AND id <= (
                    SELECT id FROM webhook_delivery WHERE webhook = ? ORDER BY id DESC LIMIT 1 OFFSET ?)
                """, arguments: [attempt.webhook, attempt.webhook, DeliveryAttempt.logLimit])
    }

    public func deliveries(_ query: DeliveryQuery) throws(StoreError) -> [DeliveryAttempt] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let webhook = query.webhook {
            conditions.append("webhook = ?")
            _ = arguments.append(contentsOf: [webhook])
        }
        if query.failuresOnly { conditions.append("outcome <> 'delivered'") }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        _ = arguments.append(contentsOf: [query.limit])
        let frozen = arguments
        return try read("read the delivery log") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM webhook_delivery \(filter) ORDER BY id DESC LIMIT ?", arguments: frozen).map { row in
                DeliveryAttempt(
                    id: row["id"], webhook: row["webhook"], auditID: row["audit_id"], event: row["event"], at: row["at"],
                    attempt: row["attempt"], outcome: DeliveryOutcome(rawValue: row["outcome"]) ?? .failed, statusCode: row["status"],
                    error: row["error"], durationSeconds: row["duration"])
            }
        }
    }

    public func forgetWebhooks(except webhooks: Set<String>) throws(StoreError) {
        try write("forget deleted webhooks") { db in
            for webhook in try String.fetchAll(db, sql: "SELECT webhook FROM webhook_cursor") where !webhooks.contains(webhook) {
                try db.execute(sql: "DELETE FROM webhook_cursor WHERE webhook = ?", arguments: [webhook])
                try db.execute(sql: "DELETE FROM webhook_delivery WHERE webhook = ?", arguments: [webhook])
            }
        }
    }

    @discardableResult
    public func prune(_ policy: RetentionPolicy) throws(StoreError) -> PruneReport {
        // One write transaction: SQLite has one writer, so no commit runs between reading the
        // heads and deleting what they do not serve.
        try write("prune the store") { db in
            var report = PruneReport()
            if let keep = policy.revisionsPerScreen {
                report.revisions = try Self.execute(RetentionSQL.revisions(keep: keep, kept: policy.keepRevisions) { _ in "?" }, db)
            }
            if let before = policy.auditBefore {
                report.auditEntries = try Self.execute(RetentionSQL.audit(before: before) { _ in "?" }, db)
            }
            return report
        }
    }

    /// Runs `statement` and returns how many rows it changed.
    private static func execute(_ statement: RetentionSQL.Statement, _ db: Database) throws -> Int {
        let values: [any DatabaseValueConvertible] = statement.parameters.map { parameter in
            switch parameter {
            case .int(let value): value
            case .double(let value): value
            case .text(let value): value
            }
        }
        try db.execute(sql: statement.sql, arguments: StatementArguments(values))
        return db.changesCount
    }
}
