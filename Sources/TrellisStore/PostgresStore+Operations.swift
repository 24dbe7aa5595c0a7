/// Leases, webhook cursors, the delivery log and retention, with the statements of
/// ``SQLiteStore``'s: rows outside the change sequence, written on the writing connection.
extension PostgresStore {
    public func claimLease(_ name: String, holder: String, now: Double, expiresAt: Double) throws(StoreError) -> Bool {
        try ensureMigrated()
        return try writer.run { connection throws(StoreError) in
            // One statement, so two replicas claiming at once cannot both win: the row's lock
            // orders them and the second sees the first's holder in the WHERE.
            try connection.execute(
                """
                INSERT INTO lease (name, holder, expires_at) VALUES ($1, $2, $3)
                ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                WHERE lease.holder = excluded.holder OR lease.expires_at < $4
                RETURNING holder
                """, [.text(name), .text(holder), .double(expiresAt), .double(now)]
            ).rows.first.map { row throws(StoreError) in try row.text("holder") } == holder
        }
    }

    public func releaseLease(_ name: String, holder: String) throws(StoreError) {
        try ensureMigrated()
        try writer.run { connection throws(StoreError) in
            _ = try connection.execute("DELETE FROM lease WHERE name = $1 AND holder = $2", [.text(name), .text(holder)])
        }
    }

    public func webhookCursor(_ webhook: String, startingBefore: Double) throws(StoreError) -> WebhookCursor {
        try ensureMigrated()
        return try writer.run { connection throws(StoreError) in
            try connection.execute(
                """
                INSERT INTO webhook_cursor (webhook, delivered_through, failed_attempts)
                VALUES ($1, coalesce((SELECT max(id) FROM audit WHERE at < $2), 0), 0)
                ON CONFLICT (webhook) DO NOTHING
                """, [.text(webhook), .double(startingBefore)])
            guard let row = try connection.execute("SELECT * FROM webhook_cursor WHERE webhook = $1", [.text(webhook)]).rows.first else {
                throw StoreError.failure("the cursor of webhook \(webhook) was not written")
            }
            return WebhookCursor(
                webhook: try row.text("webhook"), deliveredThrough: try row.int64("delivered_through"),
                failedAttempts: try row.int("failed_attempts"), firstFailureAt: try row.optionalDouble("first_failure_at"),
                nextAttemptAt: try row.optionalDouble("next_attempt_at"))
        }
    }

    public func recordDelivery(_ attempt: DeliveryAttempt?, cursor: WebhookCursor) throws(StoreError) {
        try ensureMigrated()
        try writer.run { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                if let attempt { try Self.insert(attempt, connection) }
                try connection.execute(
                    """
                    INSERT INTO webhook_cursor (webhook, delivered_through, failed_attempts, first_failure_at, next_attempt_at)
                    VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (webhook) DO UPDATE SET delivered_through = excluded.delivered_through,
                        failed_attempts = excluded.failed_attempts, first_failure_at = excluded.first_failure_at,
                        next_attempt_at = excluded.next_attempt_at
                    """,
                    [
                        .text(cursor.webhook), .int(cursor.deliveredThrough), .int(cursor.failedAttempts), .double(cursor.firstFailureAt),
                        .double(cursor.nextAttemptAt),
                    ])
            }
        }
    }

    /// The attempt's row, and the oldest of its webhook's beyond the log's limit deleted.
    private static func insert(_ attempt: DeliveryAttempt, _ connection: PostgresConnection) throws(StoreError) {
        try connection.execute(
            """
            INSERT INTO webhook_delivery (webhook, audit_id, event, at, attempt, outcome, status, error, duration)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            """,
            [
                .text(attempt.webhook), .int(attempt.auditID), .text(attempt.event), .double(attempt.at), .int(attempt.attempt),
                .text(attempt.outcome.rawValue), .int(attempt.statusCode), .text(attempt.error), .double(attempt.durationSeconds),
            ])
        try connection.execute(
            """
            DELETE FROM webhook_delivery WHERE webhook = $1 AND id <= (
                SELECT id FROM webhook_delivery WHERE webhook = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)
            """, [.text(attempt.webhook), .int(DeliveryAttempt.logLimit)])
    }

    public func deliveries(_ query: DeliveryQuery) throws(StoreError) -> [DeliveryAttempt] {
        try ensureMigrated()
        var conditions: [String] = []
        var parameters: [PostgresValue] = []
        if let webhook = query.webhook {
            parameters.append(.text(webhook))
            conditions.append("webhook = $\(parameters.count)")
        }
        if query.failuresOnly { conditions.append("outcome <> 'delivered'") }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        parameters.append(.int(query.limit))
        let sql = """
            SELECT id, webhook, audit_id, event, at, attempt, outcome, status, error, duration FROM webhook_delivery \(filter)
            ORDER BY id DESC LIMIT $\(parameters.count)
            """
        return try reader.run { connection throws(StoreError) in
            try connection.execute(sql, parameters).rows.map { row throws(StoreError) in
                DeliveryAttempt(
                    id: try row.int64("id"), webhook: try row.text("webhook"), auditID: try row.int64("audit_id"),
                    event: try row.text("event"), at: try row.double("at"), attempt: try row.int("attempt"),
                    outcome: DeliveryOutcome(rawValue: try row.text("outcome")) ?? .failed, statusCode: try row.optionalInt("status"),
                    error: try row.optionalText("error"), durationSeconds: try row.double("duration"))
            }
        }
    }

    public func forgetWebhooks(except webhooks: Set<String>) throws(StoreError) {
        try ensureMigrated()
        try writer.run { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                for row in try connection.execute("SELECT webhook FROM webhook_cursor").rows {
                    let webhook = try row.text("webhook")
                    guard !webhooks.contains(webhook) else { continue }
                    try connection.execute("DELETE FROM webhook_cursor WHERE webhook = $1", [.text(webhook)])
                    try connection.execute("DELETE FROM webhook_delivery WHERE webhook = $1", [.text(webhook)])
                }
            }
        }
    }

    @discardableResult
    public func prune(_ policy: RetentionPolicy) throws(StoreError) -> PruneReport {
        try ensureMigrated()
        return try writer.run { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) -> PruneReport in
                // The change-sequence row's lock, as a commit takes it first: no head can change
                // between the deletes reading the heads and committing.
                _ = try connection.execute("SELECT value FROM change_sequence FOR UPDATE")
                var report = PruneReport()
                if let keep = policy.revisionsPerScreen {
                    report.revisions = try Self.execute(RetentionSQL.revisions(keep: keep, kept: policy.keepRevisions) { "$\($0)" }, connection)
                }
                if let before = policy.auditBefore {
                    report.auditEntries = try Self.execute(RetentionSQL.audit(before: before) { "$\($0)" }, connection)
                }
                return report
            }
        }
    }

    private static func execute(_ statement: RetentionSQL.Statement, _ connection: PostgresConnection) throws(StoreError) -> Int {
        let parameters: [PostgresValue] = statement.parameters.map { parameter in
            switch parameter {
            case .int(let value): .int(value)
            case .double(let value): .double(value)
            case .text(let value): .text(value)
            }
        }
        return try connection.execute(statement.sql, parameters).affectedRows
    }
}
