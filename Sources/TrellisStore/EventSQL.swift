/// The read statements of the event stores, one text for SQLite and PostgreSQL but for how
/// parameters and a double literal are written: both stores answer a query with the same SQL, so
/// with the same sums.
///
/// Tables (each store's migration creates them): `tracked_event (id, user_id, name, value, at,
/// received_at)` and `exposure (kind, key, user_id, variant, first_at, platform, app_version,
/// country, source)`, primary key (kind, key, user_id, variant).
struct EventSQL {
    enum Dialect {
        case sqlite
        case postgres

        /// Parameter `n` (from 1): SQLite's `?NNN` and PostgreSQL's `$n` both name a parameter by
        /// its number, so one may be used several times.
        func placeholder(_ n: Int) -> String {
            switch self {
            case .sqlite: "?\(n)"
            case .postgres: "$\(n)"
            }
        }

        /// A double precision literal: `1.0` is REAL in SQLite but numeric in PostgreSQL, whose
        /// sums of numeric would be exact decimals, slower, and unlike SQLite's.
        func double(_ value: Int) -> String {
            switch self {
            case .sqlite: "\(value).0"
            case .postgres: "\(value)::float8"
            }
        }

        /// `floor(x)` as an integer, without SQLite's optional math functions.
        func floorInteger(_ x: String) -> String {
            switch self {
            case .sqlite: "(CAST(\(x) AS INTEGER) - (\(x) < CAST(\(x) AS INTEGER)))"
            case .postgres: "floor(\(x))::int8"
            }
        }
    }

    enum Parameter: Equatable {
        case text(String)
        case double(Double)
        case int(Int)
    }

    var sql: String
    var parameters: [Parameter]

    /// The column of each dimension in `exposure`.
    static func column(_ dimension: MetricQuery.Dimension) -> String {
        switch dimension {
        case .platform: "platform"
        case .appVersion: "app_version"
        case .country: "country"
        }
    }

    /// The per-variant sums of `queries` (which ``validate(_:)`` accepted), every one in one scan of
    /// the subject's users and their events, each query's columns under ``columnPrefix(_:)``: one row per
    /// (dimension, variant), and one with a NULL variant for the users exposed to more than one
    /// variant, whose count is ``MetricStatistics/multipleExposures`` (and whose sums mean nothing).
    ///
    /// 1. `exposed`: one row per user exposed at or before asOf, with how many variants they saw;
    ///    read in primary-key order (kind, key, user_id, …), so grouped without sorting.
    /// 2. `measured`: each user's values — a LEFT JOIN, so a user with no events gets one row of
    ///    NULLs, which every CASE below turns into zeros. The join reads only the user's events of
    ///    the metric's names in the time range any measure needs (the index (user_id, name, at)
    ///    with the value beside it), and the CASEs sort them into periods. Grouped by user alone,
    ///    so that rows arriving in user order (a merge join) are aggregated without a sort.
    /// 3. The sums over each variant's users.
    static func statistics(_ queries: [MetricQuery], _ dialect: Dialect) -> EventSQL {
        let first = queries[0]
        var parameters: [Parameter] = [.text(first.subject.kind), .text(first.subject.key), .double(first.asOf)]
        func bind(_ parameter: Parameter) -> String {
            if let index = parameters.firstIndex(of: parameter) { return dialect.placeholder(index + 1) }
            parameters.append(parameter)
            return dialect.placeholder(parameters.count)
        }
        let asOf = dialect.placeholder(3)
        let one = dialect.double(1)
        let zero = dialect.double(0)

        // One user's value of a simple measure over the events `period` admits.
        func value(_ measure: MetricQuery.Measure, _ period: String) -> String {
            switch measure {
            case .proportion(let event): "MAX(CASE WHEN e.name = \(bind(.text(event))) AND \(period) THEN \(one) ELSE \(zero) END)"
            case .sum(let event): "SUM(CASE WHEN e.name = \(bind(.text(event))) AND \(period) THEN COALESCE(e.value, \(one)) ELSE \(zero) END)"
            case .count(let event): "SUM(CASE WHEN e.name = \(bind(.text(event))) AND \(period) THEN \(one) ELSE \(zero) END)"
            case .ratio: preconditionFailure("validate() refuses a ratio of ratios")
            }
        }
        var names: [String] = []
        var perUser: [String] = []
        var sums: [String] = []
        for (index, query) in queries.enumerated() {
            let p = columnPrefix(index)
            let main: MetricQuery.Measure
            var denominator: MetricQuery.Measure?
            if case .ratio(let numerator, let divisor) = query.measure {
                main = numerator
                denominator = divisor
            } else {
                main = query.measure
            }
            for measure in [main, denominator].compactMap({ $0 }) {
                switch measure {
                case .proportion(let event), .sum(let event), .count(let event): if !names.contains(event) { names.append(event) }
                case .ratio: break
                }
            }
            // Each query's own periods: [first exposure, + window) for the metric, [- lookback,
            // first exposure) for its covariate; the join's range below only narrows what is read.
            let after = "e.at >= x.first_at" + (query.window.map { " AND e.at < x.first_at + \(bind(.double($0)))" } ?? "")
            perUser.append("\(value(main, after)) AS \(p)m")
            sums += ["SUM(\(p)m) AS \(p)m_sum", "SUM(\(p)m * \(p)m) AS \(p)m_squares"]
            if let denominator {
                perUser.append("\(value(denominator, after)) AS \(p)d")
                sums += ["SUM(\(p)d) AS \(p)d_sum", "SUM(\(p)d * \(p)d) AS \(p)d_squares", "SUM(\(p)m * \(p)d) AS \(p)d_products"]
            }
            if let lookback = query.covariateLookback {
                let before = "e.at < x.first_at AND e.at >= x.first_at - \(bind(.double(lookback)))"
                perUser.append("\(value(main, before)) AS \(p)c")
                sums += ["SUM(\(p)c) AS \(p)c_sum", "SUM(\(p)c * \(p)c) AS \(p)c_squares", "SUM(\(p)m * \(p)c) AS \(p)c_products"]
            }
        }

        // The join's time range, the union of every query's: from the longest lookback (or first
        // exposure) to the longest window (unbounded when any query has none), never after asOf.
        var range = ["e.at <= \(asOf)"]
        if let lookback = queries.compactMap(\.covariateLookback).max() {
            range.append("e.at >= x.first_at - \(bind(.double(lookback)))")
        } else {
            range.append("e.at >= x.first_at")
        }
        let windows = queries.compactMap(\.window)
        if windows.count == queries.count, let window = windows.max() { range.append("e.at < x.first_at + \(bind(.double(window)))") }

        let nameList = names.map { bind(.text($0)) }.joined(separator: ", ")
        let dimension = first.dimension.map { "MIN(\(column($0)))" } ?? "NULL"
        let sql = """
            WITH exposed AS (
                SELECT user_id, MIN(variant) AS variant, MIN(first_at) AS first_at, COUNT(*) AS variants, \(dimension) AS dimension
                FROM exposure
                WHERE kind = \(dialect.placeholder(1)) AND key = \(dialect.placeholder(2)) AND first_at <= \(asOf)
                GROUP BY user_id
            ), measured AS (
                SELECT CASE WHEN MIN(x.variants) = 1 THEN MIN(x.variant) END AS variant,
                    CASE WHEN MIN(x.variants) = 1 THEN MIN(x.dimension) END AS dimension, \(perUser.joined(separator: ", "))
                FROM exposed x
                LEFT JOIN tracked_event e ON e.user_id = x.user_id AND e.name IN (\(nameList)) AND \(range.joined(separator: " AND "))
                GROUP BY x.user_id
            )
            SELECT dimension, variant, COUNT(*) AS users, \(sums.joined(separator: ", "))
            FROM measured
            GROUP BY dimension, variant
            """
        return EventSQL(sql: sql, parameters: parameters)
    }

    /// The prefix of query `index`'s columns in ``statistics(_:_:)``' rows: `q0_m_sum`, `q1_c_squares`.
    static func columnPrefix(_ index: Int) -> String { "q\(index)_" }

    /// Refuses a batch of queries that do not share their subject, time and breakdown (one scan
    /// of one subject's users answers them all), or any query ``MetricQuery/validate()`` refuses.
    static func validate(_ queries: [MetricQuery]) throws(StoreError) {
        guard let first = queries.first else { throw StoreError.failure("no query to answer") }
        for query in queries {
            try query.validate()
            guard query.subject == first.subject, query.asOf == first.asOf, query.dimension == first.dimension else {
                throw StoreError.failure("queries answered together share their subject, asOf and dimension")
            }
        }
    }

    /// ``EventStore/exposuresPerDay(_:asOf:)``: the users `statistics` counts, by day of first exposure.
    static func exposuresPerDay(_ subject: ExposureSubject, asOf: Double, _ dialect: Dialect) -> EventSQL {
        EventSQL(
            sql: """
                SELECT day, variant, COUNT(*) AS users FROM (
                    SELECT MIN(variant) AS variant, \(dialect.floorInteger("MIN(first_at) / 86400")) AS day
                    FROM exposure
                    WHERE kind = \(dialect.placeholder(1)) AND key = \(dialect.placeholder(2)) AND first_at <= \(dialect.placeholder(3))
                    GROUP BY user_id HAVING COUNT(*) = 1
                ) AS single
                GROUP BY day, variant
                ORDER BY day, variant
                """,
            parameters: [.text(subject.kind), .text(subject.key), .double(asOf)])
    }

    /// The columns of `tracked_event` in ``TrackedEvent``'s order.
    static let eventColumns = "id, user_id, name, value, at, received_at"
    /// The columns of `exposure` in ``Exposure``'s order (the subject's two first).
    static let exposureColumns = "kind, key, user_id, variant, first_at, platform, app_version, country, source"

    /// ``EventStore/events(after:limit:)``.
    static func events(after cursor: EventCursor?, limit: Int, _ dialect: Dialect) -> EventSQL {
        guard let cursor else {
            return EventSQL(
                sql: "SELECT \(eventColumns) FROM tracked_event ORDER BY received_at, id LIMIT \(dialect.placeholder(1))",
                parameters: [.int(limit)])
        }
        return EventSQL(
            sql: """
                SELECT \(eventColumns) FROM tracked_event
                WHERE (received_at, id) > (\(dialect.placeholder(1)), \(dialect.placeholder(2)))
                ORDER BY received_at, id LIMIT \(dialect.placeholder(3))
                """,
            parameters: [.double(cursor.receivedAt), .text(cursor.id), .int(limit)])
    }

    /// ``EventStore/exposures(of:after:limit:)``.
    static func exposures(of subject: ExposureSubject, after cursor: ExposureCursor?, limit: Int, _ dialect: Dialect) -> EventSQL {
        let p = dialect.placeholder
        guard let cursor else {
            return EventSQL(
                sql: "SELECT \(exposureColumns) FROM exposure WHERE kind = \(p(1)) AND key = \(p(2)) ORDER BY user_id, variant LIMIT \(p(3))",
                parameters: [.text(subject.kind), .text(subject.key), .int(limit)])
        }
        return EventSQL(
            sql: """
                SELECT \(exposureColumns) FROM exposure
                WHERE kind = \(p(1)) AND key = \(p(2)) AND (user_id, variant) > (\(p(3)), \(p(4)))
                ORDER BY user_id, variant LIMIT \(p(5))
                """,
            parameters: [.text(subject.kind), .text(subject.key), .text(cursor.user), .text(cursor.variant), .int(limit)])
    }

    /// `rows` in ``MetricStatistics/rows``' order, sorted here: SQLite sorts NULL first and
    /// PostgreSQL last.
    static func sorted(_ rows: [VariantStatistics]) -> [VariantStatistics] {
        rows.sorted { a, b in
            switch (a.dimension, b.dimension) {
            case (nil, .some): return true
            case (.some, nil): return false
            case (.some(let x), .some(let y)) where x != y: return x.utf8.lexicographicallyPrecedes(y.utf8)
            default: return a.variant.utf8.lexicographicallyPrecedes(b.variant.utf8)
            }
        }
    }
}
