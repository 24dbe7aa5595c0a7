/// The statements ``RuntimeStore/prune(_:)`` runs, the same for both stores but for how
/// parameters are written (`?` in SQLite, `$1…` in PostgreSQL).
enum RetentionSQL {
    /// A statement and its parameters, in order.
    struct Statement {
        var sql: String
        var parameters: [RetentionParameter]
    }

    enum RetentionParameter {
        case int(Int)
        case double(Double)
        case text(String)
    }

    /// Deletes every revision older than the newest `keep` of its screen, except those a head
    /// serves, the newest that came from a configuration file, and `kept`.
    static func revisions(keep: Int, kept: [String: Set<Int>], placeholder: (Int) -> String) -> Statement {
        var parameters: [RetentionParameter] = [.int(keep)]
        var sql = """
            DELETE FROM screen_revision AS r
            WHERE r.number <= (SELECT max(x.number) FROM screen_revision x WHERE x.screen = r.screen) - \(placeholder(1))
                AND NOT EXISTS (SELECT 1 FROM screen_head h WHERE h.screen = r.screen AND (h.current = r.number OR h.staged = r.number))
                AND r.number <> coalesce(
                    (SELECT max(c.number) FROM screen_revision c WHERE c.screen = r.screen AND c.origin = 'config'), 0)
            """
        for (screen, numbers) in kept.sorted(by: { $0.key < $1.key }) where !numbers.isEmpty {
            parameters.append(.text(screen))
            let screenParameter = placeholder(parameters.count)
            let list = numbers.sorted().map { number in
                parameters.append(.int(number))
                return placeholder(parameters.count)
            }
            sql += "\n    AND NOT (r.screen = \(screenParameter) AND r.number IN (\(list.joined(separator: ", "))))"
        }
        return Statement(sql: sql, parameters: parameters)
    }

    /// Deletes every audit entry written before a time, except those a webhook has not been
    /// given yet (after the lowest cursor).
    static func audit(before: Double, placeholder: (Int) -> String) -> Statement {
        Statement(
            sql: """
                DELETE FROM audit WHERE at < \(placeholder(1))
                    AND id <= coalesce((SELECT min(delivered_through) FROM webhook_cursor), 9223372036854775807)
                """,
            parameters: [.double(before)])
    }
}
