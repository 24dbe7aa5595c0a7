import Foundation
import GRDB
import TrellisStore
import TrellisTesting

/// A fresh, empty event store of one kind — `events.sqlite` in a temporary directory, or a new
/// database in the suite's PostgreSQL cluster — removed with the value.
final class EventStoreUnderTest {
    let kind: StoreKind
    let directory: URL
    let store: any EventStore
    /// The SQLite file's path or the database's URL.
    let location: String

    init(_ kind: StoreKind) throws {
        self.kind = kind
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-events-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch kind {
        case .sqlite:
            location = directory.appendingPathComponent(SQLiteEventStore.fileName).path
            store = try SQLiteEventStore(path: location)
        case .postgres:
            location = try SharedPostgres.makeDatabase()
            store = try PostgresEventStore(url: location)
        }
    }

    /// Another store on the same data, as a restarted server (or another replica) opens it.
    func reopened() throws -> any EventStore {
        switch kind {
        case .sqlite: try SQLiteEventStore(path: location)
        case .postgres: try PostgresEventStore(url: location)
        }
    }

    /// Makes every insert of an exposure of `user` fail, after whatever the transaction wrote
    /// before it: a failure part way through an append.
    func plantFailure(onExposureOf user: String) throws {
        switch kind {
        case .sqlite:
            try DatabaseQueue(path: location).write { db in
                try db.execute(
                    sql: """
                        CREATE TRIGGER planted_failure BEFORE INSERT ON exposure WHEN NEW.user_id = '\(user)'
                        BEGIN SELECT RAISE(ABORT, 'planted failure'); END
                        """)
            }
        case .postgres:
            try SharedPostgres.current().query(
                """
                CREATE FUNCTION planted_failure() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.user_id = '\(user)' THEN RAISE EXCEPTION 'planted failure'; END IF; RETURN NEW; END $$;
                CREATE TRIGGER planted_failure BEFORE INSERT ON exposure FOR EACH ROW EXECUTE FUNCTION planted_failure();
                """, url: location)
        }
    }

    /// Rows in the staging table, read past the store.
    func stagedRows() throws -> Int {
        switch kind {
        case .sqlite: try DatabaseQueue(path: location).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM tracked_event_staged") ?? -1 }
        case .postgres: Int(try SharedPostgres.current().query("SELECT count(*) FROM tracked_event_staged", url: location)) ?? -1
        }
    }

    /// Rows of `tracked_event` and how many distinct (user_id, id) among them, read past the store.
    func storedRows() throws -> (rows: Int, keys: Int) {
        let sql = "SELECT count(*), count(DISTINCT user_id || '/' || id) FROM tracked_event"
        switch kind {
        case .sqlite:
            let row = try DatabaseQueue(path: location).read { try Row.fetchOne($0, sql: sql)! }
            return (row[0], row[1])
        case .postgres:
            let parts = try SharedPostgres.current().query(sql, url: location).split(separator: "|").compactMap { Int($0) }
            return (parts[0], parts[1])
        }
    }

    /// Makes every insert into `tracked_event` of an event of `user` fail: a merge interrupted
    /// part way. ``removePlantedMergeFailure()`` takes it away.
    func plantFailure(onMergeOf user: String) throws {
        switch kind {
        case .sqlite:
            try DatabaseQueue(path: location).write { db in
                try db.execute(
                    sql: """
                        CREATE TRIGGER planted_merge_failure BEFORE INSERT ON tracked_event WHEN NEW.user_id = '\(user)'
                        BEGIN SELECT RAISE(ABORT, 'planted failure'); END
                        """)
            }
        case .postgres:
            try SharedPostgres.current().query(
                """
                CREATE FUNCTION planted_merge_failure() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.user_id = '\(user)' THEN RAISE EXCEPTION 'planted failure'; END IF; RETURN NEW; END $$;
                CREATE TRIGGER planted_merge_failure BEFORE INSERT ON tracked_event FOR EACH ROW EXECUTE FUNCTION planted_merge_failure();
                """, url: location)
        }
    }

    func removePlantedMergeFailure() throws {
        switch kind {
        case .sqlite: try DatabaseQueue(path: location).write { try $0.execute(sql: "DROP TRIGGER planted_merge_failure") }
        case .postgres: try SharedPostgres.current().query("DROP TRIGGER planted_merge_failure ON tracked_event", url: location)
        }
    }

    /// Every stored event, read through the export in pages of `page`.
    func allEvents(page: Int = 1_000) throws -> [TrackedEvent] {
        var events: [TrackedEvent] = []
        while true {
            let next = try store.events(after: events.last?.cursor, limit: page)
            events += next
            if next.count < page { return events }
        }
    }

    /// Every stored exposure of `subject`, read through the export in pages of `page`.
    func allExposures(of subject: ExposureSubject, page: Int = 1_000) throws -> [Exposure] {
        var exposures: [Exposure] = []
        while true {
            let next = try store.exposures(of: subject, after: exposures.last?.cursor, limit: page)
            exposures += next
            if next.count < page { return exposures }
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// The statistics a store must answer, computed in Swift from the same rows: the contract of
/// ``EventStore/statistics(_:)`` written as plainly as possible.
struct ReferenceStatistics {
    /// Every event appended (a duplicate id is the first one's).
    var events: [TrackedEvent]
    /// Every exposure appended, each (subject, user, variant) once with its earliest time.
    var exposures: [Exposure]

    init(_ batches: [EventBatch]) {
        var events: [TrackedEvent] = []
        var ids: Set<String> = []
        var exposures: [String: Exposure] = [:]
        for batch in batches {
            for event in batch.events where ids.insert(event.id).inserted { events.append(event) }
            for exposure in batch.exposures {
                let key = "\(exposure.subject)\u{0}\(exposure.user)\u{0}\(exposure.variant)"
                if let kept = exposures[key], kept.at <= exposure.at { continue }
                exposures[key] = exposure
            }
        }
        self.events = events
        self.exposures = Array(exposures.values)
    }

    func statistics(_ query: MetricQuery) -> MetricStatistics {
        var byUser: [String: [Exposure]] = [:]
        for exposure in exposures where exposure.subject == query.subject && exposure.at <= query.asOf {
            byUser[exposure.user, default: []].append(exposure)
        }
        var eventsByUser: [String: [TrackedEvent]] = [:]
        for event in events { eventsByUser[event.user, default: []].append(event) }

        struct Key: Hashable {
            var dimension: String?
            var variant: String
        }
        var rows: [Key: VariantStatistics] = [:]
        var multiple = 0
        for (user, seen) in byUser {
            guard seen.count == 1, let exposure = seen.first else {
                multiple += 1
                continue
            }
            let first = exposure.at
            let events = eventsByUser[user] ?? []
            func value(_ measure: MetricQuery.Measure, covariate: Bool) -> Double {
                func counts(_ event: TrackedEvent, _ name: String) -> Bool {
                    guard event.name == name, event.at <= query.asOf else { return false }
                    if covariate { return event.at < first && event.at >= first - query.covariateLookback! }
                    return event.at >= first && (query.window.map { event.at < first + $0 } ?? true)
                }
                switch measure {
                case .proportion(let name): return events.contains { counts($0, name) } ? 1 : 0
                case .sum(let name): return events.filter { counts($0, name) }.reduce(0) { $0 + ($1.value ?? 1) }
                case .count(let name): return Double(events.filter { counts($0, name) }.count)
                case .ratio: fatalError("no ratio of ratios")
                }
            }
            var main = query.measure
            var denominator: MetricQuery.Measure?
            if case .ratio(let n, let d) = query.measure {
                main = n
                denominator = d
            }
            let x = value(main, covariate: false)
            let dimension: String? =
                switch query.dimension {
                case nil: nil
                case .platform: exposure.dimensions.platform
                case .appVersion: exposure.dimensions.appVersion
                case .country: exposure.dimensions.country
                }
            let key = Key(dimension: dimension, variant: exposure.variant)
            var row = rows[key] ?? VariantStatistics(
                dimension: dimension, variant: exposure.variant, users: 0, sum: 0, sumSquares: 0,
                denominator: denominator == nil ? nil : Moments(sum: 0, sumSquares: 0, sumProducts: 0),
                covariate: query.covariateLookback == nil ? nil : Moments(sum: 0, sumSquares: 0, sumProducts: 0))
            row.users += 1
            row.sum += x
            row.sumSquares += x * x
            if let denominator {
                let d = value(denominator, covariate: false)
                row.denominator!.sum += d
                row.denominator!.sumSquares += d * d
                row.denominator!.sumProducts += x * d
            }
            if query.covariateLookback != nil {
                let c = value(main, covariate: true)
                row.covariate!.sum += c
                row.covariate!.sumSquares += c * c
                row.covariate!.sumProducts += x * c
            }
            rows[key] = row
        }
        let sorted = rows.values.sorted { a, b in
            switch (a.dimension, b.dimension) {
            case (nil, .some): true
            case (.some, nil): false
            case (.some(let x), .some(let y)) where x != y: x.utf8.lexicographicallyPrecedes(y.utf8)
            default: a.variant.utf8.lexicographicallyPrecedes(b.variant.utf8)
            }
        }
        return MetricStatistics(rows: sorted, multipleExposures: multiple)
    }
}

/// Random batches for an experiment: `users` users over three variants (a few in two), first
/// exposed over a week from ``randomStart``, with events of three names before and after, values
/// in quarters (so that every sum is exact in double precision, whatever its order).
func randomBatches(seed: UInt64, users: Int = 300, subject: ExposureSubject = .experiment("home-hero")) -> [EventBatch] {
    var random = SplitMix64(seed: seed)
    let variants = ["control", "treatment", "wide"]
    let platforms: [String?] = [nil, "ios", "android"]
    let countries: [String?] = [nil, "DE", "FR", "US"]
    let names = ["purchase", "session", "view"]
    var batches: [EventBatch] = []
    var batch = EventBatch()
    for n in 0..<users {
        let user = "u\(n)"
        let first = randomStart + Double(random.below(7 * 86_400))
        let variant = variants[random.below(variants.count)]
        let dimensions = ExposureDimensions(
            platform: platforms[random.below(platforms.count)], appVersion: random.coin() ? "5.\(random.below(3))" : nil,
            country: countries[random.below(countries.count)])
        batch.exposures.append(Exposure(subject: subject, user: user, variant: variant, at: first, dimensions: dimensions))
        // Some seen again later (the first time must stay), some in a second variant too.
        if random.chance(20) { batch.exposures.append(Exposure(subject: subject, user: user, variant: variant, at: first + 3_600)) }
        if random.chance(5) {
            batch.exposures.append(Exposure(subject: subject, user: user, variant: variants[(variants.firstIndex(of: variant)! + 1) % 3], at: first + 60))
        }
        for e in 0..<random.below(12) {
            // From a day before first exposure to a week after, some exactly at it.
            let at = random.chance(5) ? first : first - 86_400 + Double(random.below(8 * 86_400))
            let value: Double? = random.chance(30) ? nil : Double(random.below(400)) / 4
            batch.events.append(
                TrackedEvent(id: "\(user)-\(e)", user: user, name: names[random.below(names.count)], value: value, at: at, receivedAt: at + 1))
        }
        if batch.events.count > 500 {
            batches.append(batch)
            batch = EventBatch()
        }
    }
    batches.append(batch)
    return batches
}

/// 2027-01-04 00:00 UTC: a Monday, a day boundary.
let randomStart: Double = 1_799_020_800
