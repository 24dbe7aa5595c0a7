import Foundation
import GRDB
import Testing
import TrellisTesting

@testable import TrellisStore

/// The event stores' goals, measured (docs/operations.md, "Events"): `append` of 10,000-event
/// batches, and `statistics` over 1,000,000 exposed users and 5,000,000 events. Prints figures and
/// asserts nothing on time; runs only when asked:
///
///     TRELLIS_MEASURE_EVENTS=1 swift test --build-path .build-events --filter EventStoreMeasurements
@Suite(.serialized, .postgresCluster, .enabled(if: ProcessInfo.processInfo.environment["TRELLIS_MEASURE_EVENTS"] == "1"))
struct EventStoreMeasurements {
    static let users = Int(ProcessInfo.processInfo.environment["TRELLIS_MEASURE_USERS"] ?? "") ?? 1_000_000
    static let events = users * 5
    static let batch = 10_000
    static let subject = ExposureSubject.experiment("bench")
    static let t0 = randomStart
    static let day = 86_400.0

    /// User n's first exposure: spread over two weeks.
    static func firstExposure(_ n: Int) -> Double { t0 + Double(n &* 7_919 % (14 * 86_400)) }

    @Test(arguments: StoreKind.allCases) func appendAndStatistics(_ kind: StoreKind) throws {
        let environment = ProcessInfo.processInfo.environment
        // TRELLIS_MEASURE_KINDS=postgres: one store only.
        if let kinds = environment["TRELLIS_MEASURE_KINDS"], !kinds.split(separator: ",").contains(Substring(kind.rawValue)) { return }
        // TRELLIS_MEASURE_PG_SETTINGS="shared_buffers=1GB max_wal_size=8GB": the server's settings
        // (ALTER SYSTEM, then a restart) instead of initdb's defaults.
        if kind == .postgres, let settings = environment["TRELLIS_MEASURE_PG_SETTINGS"] {
            let cluster = try SharedPostgres.current()
            for setting in settings.split(separator: " ") {
                let parts = setting.split(separator: "=", maxSplits: 1)
                try cluster.query("ALTER SYSTEM SET \(parts[0]) = '\(parts[1])'")
            }
            try cluster.stop()
            try cluster.start()
        }
        let t = try EventStoreUnderTest(kind)
        var random = SplitMix64(seed: 1)
        print("== \(kind): \(Self.users) users, \(Self.events) events, \(environment["TRELLIS_MEASURE_PG_SETTINGS"].map { "server settings \($0)" } ?? "default server settings")")

        var clock = ContinuousClock.now
        for start in stride(from: 0, to: Self.users, by: Self.batch) {
            let exposures = (start..<min(start + Self.batch, Self.users)).flatMap { n -> [Exposure] in
                let variant = n % 2 == 0 ? "control" : "treatment"
                let platform = ["ios", "android", "web"][n % 3]
                let one = Exposure(subject: Self.subject, user: "user-\(n)", variant: variant, at: Self.firstExposure(n), dimensions: ExposureDimensions(platform: platform))
                // One user in 200 also sees the other variant.
                guard n % 200 == 7 else { return [one] }
                return [one, Exposure(subject: Self.subject, user: "user-\(n)", variant: "control", at: Self.firstExposure(n) + 60)]
            }
            try t.store.append(EventBatch(exposures: exposures))
        }
        print("exposures: \(Self.users) in \(seconds(since: clock)) s")

        let names = ["session", "session", "view", "purchase", "session", "view", "purchase", "view", "session", "session"]
        var timings: [Double] = []
        for start in stride(from: 0, to: Self.events, by: Self.batch) {
            let events = (start..<start + Self.batch).map { n -> TrackedEvent in
                let user = random.below(Self.users)
                let at = Self.firstExposure(user) - 2 * Self.day + Double(random.below(16 * 86_400))
                return TrackedEvent(
                    id: "e-\(n)-\(random.next() % 1_000_000)", user: "user-\(user)", name: names[n % names.count],
                    value: n % 3 == 0 ? nil : Double(random.below(10_000)) / 100, at: at, receivedAt: Self.t0 + Double(n) / 1_000)
            }
            clock = ContinuousClock.now
            try t.store.append(EventBatch(events: events))
            timings.append(seconds(since: clock))
        }
        func rate(_ slice: ArraySlice<Double>) -> Int { Int(Double(slice.count * Self.batch) / slice.reduce(0, +)) }
        print("append, batches of \(Self.batch): \(rate(timings[...])) events/s overall; first 10 batches \(rate(timings.prefix(10))), last 10 \(rate(timings.suffix(10))); slowest batch \(timings.max()!) s")

        let asOf = Self.t0 + 30 * Self.day
        let queries: [(String, MetricQuery)] = [
            ("proportion, 7-day window", MetricQuery(subject: Self.subject, measure: .proportion(event: "purchase"), window: 7 * Self.day, asOf: asOf)),
            ("sum", MetricQuery(subject: Self.subject, measure: .sum(event: "purchase"), asOf: asOf)),
            ("ratio", MetricQuery(subject: Self.subject, measure: .ratio(numerator: .sum(event: "purchase"), denominator: .count(event: "session")), asOf: asOf)),
            ("sum with CUPED, 7-day lookback", MetricQuery(subject: Self.subject, measure: .sum(event: "purchase"), window: 7 * Self.day, covariateLookback: 7 * Self.day, asOf: asOf)),
            ("ratio with CUPED by platform", MetricQuery(subject: Self.subject, measure: .ratio(numerator: .sum(event: "purchase"), denominator: .count(event: "session")), covariateLookback: 7 * Self.day, dimension: .platform, asOf: asOf)),
        ]
        for pass in ["before ANALYZE", "after ANALYZE"] {
            if pass == "after ANALYZE" { try analyze(t) }
            for (name, query) in queries {
                clock = ContinuousClock.now
                let statistics = try t.store.statistics(query)
                print("statistics \(pass), \(name): \(seconds(since: clock)) s (\(statistics.rows.map(\.users).reduce(0, +)) users, \(statistics.multipleExposures) multiple)")
            }
        }
        clock = ContinuousClock.now
        let days = try t.store.exposuresPerDay(Self.subject, asOf: asOf)
        print("exposuresPerDay: \(seconds(since: clock)) s (\(days.count) rows)")
        if ProcessInfo.processInfo.environment["TRELLIS_MEASURE_PLANS"] == "1" { try printPlan(t, queries[3].1) }
    }

    func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    func analyze(_ t: EventStoreUnderTest) throws {
        switch t.kind {
        case .sqlite: try DatabaseQueue(path: t.location).write { try $0.execute(sql: "ANALYZE") }
        case .postgres: try SharedPostgres.current().query("ANALYZE", url: t.location)
        }
    }

    /// The statistics statement's plan: SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN ANALYZE.
    func printPlan(_ t: EventStoreUnderTest, _ query: MetricQuery) throws {
        switch t.kind {
        case .sqlite:
            let statement = EventSQL.statistics([query], .sqlite)
            let arguments = SQLiteEventStore.arguments(statement)
            let plan = try DatabaseQueue(path: t.location).read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: arguments).map { "\($0["id"] as Int) \($0["parent"] as Int) \($0["detail"] as String)" }
            }
            print(plan.joined(separator: "\n"))
        case .postgres:
            let statement = EventSQL.statistics([query], .postgres)
            let types = statement.parameters.map { parameter in
                switch parameter {
                case .text: "text"
                case .double: "float8"
                case .int: "int8"
                }
            }
            let values = statement.parameters.map { parameter in
                switch parameter {
                case .text(let value): "'\(value)'"
                case .double(let value): "\(value)"
                case .int(let value): "\(value)"
                }
            }
            print(
                try SharedPostgres.current().query(
                    "SET work_mem = '\(PostgresEventStore.workMemory)'; \(PostgresEventStore.statisticsPlan.map { "SET \($0); " }.joined())PREPARE s(\(types.joined(separator: ", "))) AS \(statement.sql); EXPLAIN (ANALYZE, BUFFERS) EXECUTE s(\(values.joined(separator: ", ")))",
                    url: t.location))
        }
    }
}
