import Foundation
import Testing
import TrellisStore
import TrellisTesting

/// What every ``EventStore`` promises, checked against each store: SQLite in a temporary file,
/// PostgreSQL in a database of its own in the suite's cluster.
@Suite(.postgresCluster) struct EventStoreContractTests {
    let hero = ExposureSubject.experiment("home-hero")
    let day: Double = 86_400
    let t0 = randomStart

    func event(_ id: String, _ user: String, _ name: String = "purchase", value: Double? = nil, at: Double) -> TrackedEvent {
        TrackedEvent(id: id, user: user, name: name, value: value, at: at, receivedAt: at + 0.5)
    }

    func exposure(_ user: String, _ variant: String, at: Double, platform: String? = nil) -> Exposure {
        Exposure(subject: hero, user: user, variant: variant, at: at, dimensions: ExposureDimensions(platform: platform))
    }

    @Test(arguments: StoreKind.allCases) func aBatchIsDurableAndReadBackWholeAfterReopening(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        let events = [event("e1", "u1", value: 9.5, at: t0 + 10), event("e2", "u2", "session", at: t0 + 20)]
        let seen = Exposure(
            subject: .screen("home"), user: "u1", variant: "3", at: t0,
            dimensions: ExposureDimensions(platform: "ios", appVersion: "5.3", country: "DE"), source: .server)
        let report = try t.store.append(EventBatch(events: events, exposures: [seen, exposure("u1", "control", at: t0)]))
        #expect(report == AppendReport(eventsWritten: 2, eventsSkipped: 0, exposuresNew: 2, exposuresMovedEarlier: 0))

        let reopened = try t.reopened()
        #expect(try reopened.events(after: nil, limit: 10) == events)
        #expect(try reopened.exposures(of: .screen("home"), after: nil, limit: 10) == [seen])
        #expect(try reopened.exposures(of: hero, after: nil, limit: 10) == [exposure("u1", "control", at: t0)])
        #expect(try reopened.exposures(of: .rollout("home-hero"), after: nil, limit: 10) == [])
        #expect(try reopened.append(EventBatch()) == AppendReport())
    }

    @Test(arguments: StoreKind.allCases) func aDuplicateEventIdWithinABatchAndAcrossBatchesIsStoredOnce(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        let first = event("e1", "u1", value: 1, at: t0)
        let report = try t.store.append(EventBatch(events: [first, event("e1", "u1", value: 2, at: t0 + 1), event("e2", "u1", at: t0)]))
        #expect(report == AppendReport(eventsWritten: 2, eventsSkipped: 1))
        let again = try t.store.append(EventBatch(events: [event("e2", "u9", at: t0 + 5), event("e3", "u1", at: t0)]))
        #expect(again == AppendReport(eventsWritten: 1, eventsSkipped: 1))
        #expect(try t.allEvents().map(\.id) == ["e1", "e2", "e3"])
        #expect(try t.allEvents().first == first)
    }

    @Test(arguments: StoreKind.allCases) func anExposureKeepsTheEarliestTimeOfItsSubjectUserAndVariantWithItsDimensions(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        var report = try t.store.append(EventBatch(exposures: [exposure("u1", "control", at: t0 + 100, platform: "ios")]))
        #expect(report.exposuresNew == 1)
        // A later time changes nothing.
        report = try t.store.append(EventBatch(exposures: [exposure("u1", "control", at: t0 + 200, platform: "web")]))
        #expect(report == AppendReport())
        #expect(try t.store.exposures(of: hero, after: nil, limit: 10) == [exposure("u1", "control", at: t0 + 100, platform: "ios")])
        // A later batch carrying an earlier time moves it, with the dimensions that came with it;
        // within a batch, the earliest of several wins.
        report = try t.store.append(
            EventBatch(exposures: [
                exposure("u1", "control", at: t0 + 50, platform: "android"), exposure("u1", "control", at: t0 + 40, platform: "web"),
                exposure("u1", "control", at: t0 + 60),
            ]))
        #expect(report == AppendReport(exposuresMovedEarlier: 1))
        #expect(try t.store.exposures(of: hero, after: nil, limit: 10) == [exposure("u1", "control", at: t0 + 40, platform: "web")])
    }

    @Test(arguments: StoreKind.allCases) func aUserExposedToTwoVariantsIsExcludedAndCountedInMultipleExposures(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        try t.store.append(
            EventBatch(
                events: [event("e1", "u1", at: t0 + 10), event("e2", "u2", at: t0 + 10)],
                exposures: [exposure("u1", "control", at: t0), exposure("u2", "control", at: t0), exposure("u2", "treatment", at: t0 + 5)]))
        let query = MetricQuery(subject: hero, measure: .count(event: "purchase"), asOf: t0 + day)
        #expect(
            try t.store.statistics(query)
                == MetricStatistics(rows: [VariantStatistics(variant: "control", users: 1, sum: 1, sumSquares: 1)], multipleExposures: 1))
        // As of before the second exposure, u2 saw one variant only.
        var before = query
        before.asOf = t0 + 4
        #expect(try t.store.statistics(before).multipleExposures == 0)
        #expect(try t.store.statistics(before).rows.map(\.users) == [2])
        #expect(try t.store.exposuresPerDay(hero, asOf: t0 + day) == [ExposureDay(day: Int(t0 / day), variant: "control", users: 1)])
    }

    @Test(arguments: StoreKind.allCases) func eventsBeforeFirstExposureAtOrAfterTheWindowsEndOrAfterAsOfDoNotCount(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        let window = 3_600.0
        try t.store.append(
            EventBatch(
                events: [
                    event("before", "u1", value: 1, at: t0 - 0.001),
                    event("at-first-exposure", "u1", value: 2, at: t0),  // counts: the start is inclusive
                    event("in-window", "u1", value: 4, at: t0 + window - 0.001),
                    event("at-window-end", "u1", value: 8, at: t0 + window),  // the end is exclusive
                    event("other-name", "u1", "session", value: 16, at: t0 + 1),
                    event("at-as-of", "u2", value: 32, at: t0 + 100),  // counts: asOf is inclusive
                    event("after-as-of", "u2", value: 64, at: t0 + 100.001),
                ],
                exposures: [exposure("u1", "a", at: t0), exposure("u2", "b", at: t0 + 99), exposure("u3", "b", at: t0 + 100.001)]))
        let windowed = MetricQuery(subject: hero, measure: .sum(event: "purchase"), window: window, asOf: t0 + day)
        #expect(try t.store.statistics(windowed).rows.map(\.sum) == [6, 96])
        let asOf = MetricQuery(subject: hero, measure: .sum(event: "purchase"), asOf: t0 + 100)
        // u1 without a window: everything from first exposure up to asOf; u3 exposed after asOf is no one.
        #expect(try t.store.statistics(asOf).rows == [
            VariantStatistics(variant: "a", users: 1, sum: 2, sumSquares: 4), VariantStatistics(variant: "b", users: 1, sum: 32, sumSquares: 1_024),
        ])
    }

    @Test(arguments: StoreKind.allCases) func aUserWithNoEventsCountsAsZeros(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        try t.store.append(
            EventBatch(
                events: [event("e1", "u1", value: 3, at: t0 + 1), event("e2", "u1", "session", at: t0 + 1)],
                exposures: [exposure("u1", "a", at: t0), exposure("u2", "a", at: t0), exposure("u3", "a", at: t0)]))
        for measure: MetricQuery.Measure in [.proportion(event: "purchase"), .sum(event: "purchase"), .count(event: "purchase")] {
            let rows = try t.store.statistics(MetricQuery(subject: hero, measure: measure, covariateLookback: day, asOf: t0 + day)).rows
            let expected: Double = if case .sum = measure { 3 } else { 1 }
            #expect(rows == [
                VariantStatistics(
                    variant: "a", users: 3, sum: expected, sumSquares: expected * expected, covariate: Moments(sum: 0, sumSquares: 0, sumProducts: 0)),
            ])
        }
        let ratio = try t.store.statistics(
            MetricQuery(subject: hero, measure: .ratio(numerator: .sum(event: "purchase"), denominator: .count(event: "session")), asOf: t0 + day))
        #expect(ratio.rows == [
            VariantStatistics(variant: "a", users: 3, sum: 3, sumSquares: 9, denominator: Moments(sum: 1, sumSquares: 1, sumProducts: 3))
        ])
        // A subject nobody saw has no rows.
        #expect(try t.store.statistics(MetricQuery(subject: .rollout("none"), measure: .count(event: "x"), asOf: t0 + day))
            == MetricStatistics(rows: [], multipleExposures: 0))
    }

    /// The queries each random data set is asked, every measure with and without a window.
    static let measures: [MetricQuery.Measure] = [
        .proportion(event: "purchase"), .sum(event: "purchase"), .count(event: "view"),
        .ratio(numerator: .sum(event: "purchase"), denominator: .count(event: "session")),
        .ratio(numerator: .count(event: "view"), denominator: .count(event: "view")),
    ]

    @Test(arguments: StoreKind.allCases) func proportionSumCountAndRatioStatisticsEqualSumsComputedInSwift(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        let batches = randomBatches(seed: 11)
        for batch in batches { try t.store.append(batch) }
        let reference = ReferenceStatistics(batches)
        for measure in Self.measures {
            for window in [nil, 2 * day, 1_234.5] {
                for asOf in [t0 + 3 * day, t0 + 30 * day] {
                    let query = MetricQuery(subject: hero, measure: measure, window: window, asOf: asOf)
                    let expected = reference.statistics(query)
                    #expect(expected.rows.count == 3 && expected.multipleExposures > 0, "the data exercises every case")
                    #expect(try t.store.statistics(query) == expected, "\(query)")
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func cupedCovariateSumsEqualSumsComputedInSwift(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        let batches = randomBatches(seed: 12)
        for batch in batches { try t.store.append(batch) }
        let reference = ReferenceStatistics(batches)
        for measure in Self.measures {
            for lookback in [day, 3_600.25] {
                let query = MetricQuery(subject: hero, measure: measure, window: 2 * day, covariateLookback: lookback, asOf: t0 + 30 * day)
                let expected = reference.statistics(query)
                #expect(expected.rows.contains { $0.covariate!.sum > 0 }, "the data has events before exposure")
                #expect(try t.store.statistics(query) == expected, "\(query)")
            }
        }
    }

    /// Several metrics answered in one scan each get their own window and lookback: the scan reads
    /// the union of their periods, and every query's sums are still its own.
    @Test(arguments: StoreKind.allCases) func queriesAnsweredTogetherEqualEachAnsweredAlone(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        let batches = randomBatches(seed: 14)
        for batch in batches { try t.store.append(batch) }
        let reference = ReferenceStatistics(batches)
        let asOf = t0 + 30 * day
        let queries = Self.measures.enumerated().map { index, measure in
            MetricQuery(
                subject: hero, measure: measure, window: [nil, 2 * day, 1_234.5][index % 3],
                covariateLookback: [nil, day, 3_600.25][(index + 1) % 3], asOf: asOf)
        }
        let together = try t.store.statistics(queries)
        #expect(together.count == queries.count)
        for (query, answer) in zip(queries, together) {
            #expect(answer == reference.statistics(query), "\(query)")
        }
        // Queries of different subjects, times or breakdowns are not answered together.
        var other = queries[0]
        other.asOf = asOf - 1
        #expect(throws: StoreError.self) { try t.store.statistics([queries[0], other]) }
        #expect(throws: StoreError.self) { try t.store.statistics([MetricQuery]()) }
    }

    @Test(arguments: StoreKind.allCases) func dimensionBreakdownRowsAddUpToTheUndividedRows(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        let batches = randomBatches(seed: 13)
        for batch in batches { try t.store.append(batch) }
        let reference = ReferenceStatistics(batches)
        let measure = MetricQuery.Measure.ratio(numerator: .sum(event: "purchase"), denominator: .count(event: "session"))
        let whole = try t.store.statistics(MetricQuery(subject: hero, measure: measure, covariateLookback: day, asOf: t0 + 30 * day))
        for dimension in MetricQuery.Dimension.allCases {
            let query = MetricQuery(subject: hero, measure: measure, covariateLookback: day, dimension: dimension, asOf: t0 + 30 * day)
            let divided = try t.store.statistics(query)
            #expect(divided == reference.statistics(query), "\(dimension)")
            #expect(divided.rows.contains { $0.dimension == nil } && divided.rows.contains { $0.dimension != nil }, "\(dimension)")
            #expect(divided.multipleExposures == whole.multipleExposures)
            for row in whole.rows {
                let parts = divided.rows.filter { $0.variant == row.variant }
                #expect(parts.reduce(0) { $0 + $1.users } == row.users)
                #expect(parts.reduce(0) { $0 + $1.sum } == row.sum)
                #expect(parts.reduce(0) { $0 + $1.sumSquares } == row.sumSquares)
                #expect(parts.reduce(0) { $0 + $1.denominator!.sumProducts } == row.denominator!.sumProducts)
                #expect(parts.reduce(0) { $0 + $1.covariate!.sumProducts } == row.covariate!.sumProducts)
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func exposuresPerDayAreTheUsersStatisticsCountsByTheirFirstExposuresUTCDay(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        for batch in randomBatches(seed: 14) { try t.store.append(batch) }
        let asOf = t0 + 5 * day
        let days = try t.store.exposuresPerDay(hero, asOf: asOf)
        #expect(days.map(\.day) == days.map(\.day).sorted())
        #expect(Set(days.map(\.day)) == Set((0..<5).map { Int(t0 / day) + $0 }))
        let rows = try t.store.statistics(MetricQuery(subject: hero, measure: .count(event: "view"), asOf: asOf)).rows
        for row in rows { #expect(days.filter { $0.variant == row.variant }.reduce(0) { $0 + $1.users } == row.users) }
        // Exactly at midnight is the new day; a second before it, the old one.
        try t.store.append(EventBatch(exposures: [exposure("late", "z", at: t0 + 10 * day - 1), exposure("midnight", "z", at: t0 + 10 * day)]))
        #expect(try t.store.exposuresPerDay(hero, asOf: t0 + 11 * day).filter { $0.variant == "z" } == [
            ExposureDay(day: Int(t0 / day) + 9, variant: "z", users: 1), ExposureDay(day: Int(t0 / day) + 10, variant: "z", users: 1),
        ])
    }

    @Test(arguments: StoreKind.allCases) func pruningRemovesOnlyOlderEventsAndKeepsExposures(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        try t.store.append(
            EventBatch(
                events: [event("old", "u1", at: t0 - 1), event("cutoff", "u1", at: t0), event("new", "u1", at: t0 + 1)],
                exposures: [exposure("u1", "a", at: t0 - 100)]))
        #expect(try t.store.pruneEvents(before: t0) == 1)
        #expect(try t.allEvents().map(\.id) == ["cutoff", "new"])
        #expect(try t.store.exposures(of: hero, after: nil, limit: 10).count == 1)
        #expect(try t.store.pruneEvents(before: t0) == 0)
        // A pruned event's id is forgotten.
        #expect(try t.store.append(EventBatch(events: [event("old", "u1", at: t0 + 2)])).eventsWritten == 1)
    }

    @Test(arguments: StoreKind.allCases) func exportPagesAreInOrderWithNoGapsOrRepeats(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        var random = SplitMix64(seed: 15)
        var appended: [TrackedEvent] = []
        for batch in 0..<4 {
            // Several events at one receivedAt, told apart by id.
            let events = (0..<150).map { n in
                TrackedEvent(id: "e\(random.below(1_000_000))-\(batch)-\(n)", user: "u\(n)", name: "view", at: t0, receivedAt: t0 + Double(batch * 10 + n % 7))
            }
            try t.store.append(EventBatch(events: events))
            appended += events
        }
        let expected = appended.sorted { ($0.receivedAt, $0.id) < ($1.receivedAt, $1.id) }
        for page in [1, 7, 150, 1_000] { #expect(try t.allEvents(page: page) == expected, "pages of \(page)") }

        let exposures = (0..<97).flatMap { n in [exposure("u\(n)", "a", at: t0), exposure("u\(n * 7 % 97)", "b", at: t0)] }
        try t.store.append(EventBatch(exposures: exposures))
        let keys = try t.allExposures(of: hero, page: 10).map(\.cursor)
        #expect(keys == Set(exposures.map(\.cursor)).sorted { ($0.user, $0.variant) < ($1.user, $1.variant) })
        #expect(keys.count == 194)
    }

    @Test(arguments: StoreKind.allCases) func aBatchThatFailsPartWayWritesNothing(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        try t.store.append(EventBatch(events: [event("kept", "u1", at: t0)], exposures: [exposure("u1", "a", at: t0 + 10)]))
        try t.plantFailure(onExposureOf: "poison")
        // Its events are inserted and an exposure moved earlier before the failing exposure.
        let failing = EventBatch(
            events: [event("lost", "u1", at: t0 + 1)],
            exposures: [exposure("u1", "a", at: t0), exposure("u2", "a", at: t0), exposure("poison", "a", at: t0)])
        #expect(throws: StoreError.self) { try t.store.append(failing) }
        let reopened = try t.reopened()
        #expect(try reopened.events(after: nil, limit: 10).map(\.id) == ["kept"])
        #expect(try reopened.exposures(of: hero, after: nil, limit: 10) == [exposure("u1", "a", at: t0 + 10)])
        // The store goes on.
        #expect(try t.store.append(EventBatch(events: [event("next", "u1", at: t0)])).eventsWritten == 1)
    }

    @Test(arguments: StoreKind.allCases) func aTimeOrValueThatIsNotFiniteRefusesTheBatch(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        for bad in [
            EventBatch(events: [event("a", "u1", at: t0), event("b", "u1", value: .nan, at: t0)]),
            EventBatch(events: [event("a", "u1", at: .infinity)]),
            EventBatch(events: [event("a", "u1", at: t0)], exposures: [exposure("u1", "a", at: -.infinity)]),
        ] {
            #expect(throws: StoreError.self) { try t.store.append(bad) }
        }
        #expect(try t.store.events(after: nil, limit: 10).isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func aQueryWithoutMeaningIsRefused(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        let nested = MetricQuery.Measure.ratio(numerator: .ratio(numerator: .count(event: "a"), denominator: .count(event: "b")), denominator: .count(event: "c"))
        for query in [
            MetricQuery(subject: hero, measure: nested, asOf: t0),
            MetricQuery(subject: hero, measure: .count(event: "a"), window: 0, asOf: t0),
            MetricQuery(subject: hero, measure: .count(event: "a"), covariateLookback: -1, asOf: t0),
            MetricQuery(subject: hero, measure: .count(event: "a"), asOf: .nan),
        ] {
            #expect(throws: StoreError.self) { try t.store.statistics(query) }
        }
    }
    @Test func theEventStoreAndTheRuntimeStoreShareAPostgreSQLDatabaseEachWithASchemaOfItsOwn() throws {
        let url = try SharedPostgres.makeDatabase()
        let runtime = try PostgresStore(url: url)
        let events = try PostgresEventStore(url: url)
        try events.append(EventBatch(events: [event("e1", "u1", at: t0)], exposures: [exposure("u1", "a", at: t0)]))
        _ = try PostgresStore(url: url)
        #expect(try PostgresEventStore(url: url).events(after: nil, limit: 10).count == 1)
        #expect(try runtime.load() == StoredState())
        // A newer event schema is refused by the event store, and by it alone.
        try SharedPostgres.current().query("INSERT INTO trellis_event_migrations (identifier) VALUES ('v99: from the future')", url: url)
        #expect(throws: StoreError.self) { try PostgresEventStore(url: url) }
        _ = try PostgresStore(url: url)
    }

    @Test func theSQLiteEventFileIsItsOwnersAlone() throws {
        let t = try EventStoreUnderTest(.sqlite)
        try t.store.append(EventBatch(events: [event("e1", "u1", at: t0)]))
        func mode(_ path: String) throws -> Int { (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1 }
        #expect(try mode(t.location) == 0o600)
        #expect(try mode(t.location + "-wal") == 0o600)
    }
}
