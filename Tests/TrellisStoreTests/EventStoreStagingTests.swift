import Dispatch
import Foundation
import GRDB
import Synchronization
import Testing
import TrellisTesting

@testable import TrellisStore

/// The staging of tracked events (``EventStore/merge()``): appends go to an unindexed table and
/// merges move them into the indexed one. What it must never do is lose, repeat or hide an event.
@Suite(.postgresCluster) struct EventStoreStagingTests {
    let hero = ExposureSubject.experiment("home-hero")
    let t0 = randomStart

    @Test(arguments: StoreKind.allCases) func anAppendedBatchIsReadByStatisticsBeforeAnyMerge(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        let batches = randomBatches(seed: 21)
        for batch in batches { try t.store.append(batch) }
        let staged = batches.reduce(0) { $0 + $1.events.count }
        #expect(try t.stagedRows() == staged, "nothing merged yet")
        let query = MetricQuery(subject: hero, measure: .sum(event: "purchase"), window: 2 * 86_400, covariateLookback: 86_400, asOf: t0 + 30 * 86_400)
        #expect(try t.store.statistics(query) == ReferenceStatistics(batches).statistics(query))
        #expect(try t.stagedRows() == 0)
        // The export and pruning likewise see what was just appended.
        try t.store.append(EventBatch(events: [TrackedEvent(id: "late", user: "u1", name: "view", at: t0 + 40 * 86_400, receivedAt: t0 + 40 * 86_400)]))
        #expect(try t.store.events(after: nil, limit: staged + 1).last?.id == "late")
        try t.store.append(EventBatch(events: [TrackedEvent(id: "early", user: "u1", name: "view", at: 0, receivedAt: t0 + 41 * 86_400)]))
        #expect(try t.store.pruneEvents(before: 1) == 1)
        #expect(try t.storedRows().rows == staged + 1)
    }

    @Test(arguments: StoreKind.allCases) func aMergeMovesEveryStagedRowOnceAndSkipsDuplicates(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        let batches = randomBatches(seed: 22)
        var appended = 0
        for batch in batches {
            appended += try t.store.append(batch).eventsStaged
        }
        let first = try t.store.merge()
        #expect(first == MergeReport(eventsStored: appended, eventsSkipped: 0))
        // Every tenth event again, with another value and time (a retransmission stamped anew),
        // twice over, in separate batches: skipped, the first appended kept.
        let resent = batches.flatMap(\.events).enumerated().filter { $0.offset % 10 == 0 }.map { n, event in
            TrackedEvent(id: event.id, user: event.user, name: event.name, value: 1_000, at: event.at + 1, receivedAt: event.receivedAt + 1)
        }
        try t.store.append(EventBatch(events: resent))
        try t.store.append(EventBatch(events: resent + [TrackedEvent(id: "new", user: "u1", name: "view", at: t0, receivedAt: t0)]))
        #expect(try t.stagedRows() == 2 * resent.count + 1)
        #expect(try t.store.merge() == MergeReport(eventsStored: 1, eventsSkipped: 2 * resent.count))
        #expect(try t.store.merge() == MergeReport())
        #expect(try t.stagedRows() == 0)
        #expect(try t.storedRows() == (appended + 1, appended + 1))
        let expected = batches.flatMap(\.events) + [TrackedEvent(id: "new", user: "u1", name: "view", at: t0, receivedAt: t0)]
        #expect(try t.allEvents(page: 100) == expected.sorted { ($0.receivedAt, $0.id, $0.user) < ($1.receivedAt, $1.id, $1.user) })
    }

    @Test(arguments: StoreKind.allCases) func anAppendPastTheBoundMergesByItself(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        let store: any EventStore =
            switch kind {
            case .sqlite: try SQLiteEventStore(path: t.location, mergeThreshold: 250)
            case .postgres: try PostgresEventStore(url: t.location, mergeThreshold: 250)
            }
        let events = (0..<200).map { TrackedEvent(id: "e\($0)", user: "u\($0 % 17)", name: "view", at: t0, receivedAt: t0 + Double($0)) }
        try store.append(EventBatch(events: events))
        #expect(try t.stagedRows() == 200)
        try store.append(EventBatch(events: events.map { TrackedEvent(id: $0.id + "b", user: $0.user, name: "view", at: t0, receivedAt: t0 + 500) }))
        #expect(try t.stagedRows() == 0)
        #expect(try t.storedRows() == (400, 400))
    }

    @Test(arguments: StoreKind.allCases) func aCrashBetweenAppendAndMergeLosesNothing(_ kind: StoreKind) throws {
        let t = try EventStoreUnderTest(kind)
        let batches = randomBatches(seed: 23)
        for batch in batches { try t.store.append(batch) }
        let staged = try t.stagedRows()
        #expect(staged == batches.reduce(0) { $0 + $1.events.count })
        // A merge that fails part way (here on one user's row) changes nothing: staging is whole.
        try t.plantFailure(onMergeOf: "u7")
        #expect(throws: StoreError.self) { try t.store.merge() }
        #expect(try t.stagedRows() == staged)
        #expect(try t.storedRows().rows == 0)
        try t.removePlantedMergeFailure()
        // What a restarted server (or another replica) opens reads every acknowledged event.
        let reopened = try t.reopened()
        let query = MetricQuery(subject: hero, measure: .count(event: "view"), window: 86_400, asOf: t0 + 30 * 86_400)
        #expect(try reopened.statistics(query) == ReferenceStatistics(batches).statistics(query))
        #expect(try t.storedRows() == (staged, staged))
        #expect(try t.store.merge() == MergeReport())
    }

    @Test func concurrentReplicasAppendingAndMergingLoseAndDuplicateNothing() throws {
        let t = try EventStoreUnderTest(.postgres)
        // No merge inside append, so that every merge's report is counted here (the bound's merge
        // is the same call: anAppendPastTheBoundMergesByItself).
        let replicas = [try PostgresEventStore(url: t.location, mergeThreshold: .max), try PostgresEventStore(url: t.location, mergeThreshold: .max)]
        let rounds = 40
        // Replica r's batch n: 100 events of its own, and 30 that both replicas send (a client
        // that retried against the other replica), so both stage and merge the same keys at once.
        func batch(_ r: Int, _ n: Int) -> EventBatch {
            let own = (0..<100).map { i in
                TrackedEvent(id: "r\(r)-\(n)-\(i)", user: "u\(i % 37)", name: "view", at: t0 + Double(n), receivedAt: t0 + Double(n))
            }
            let shared = (0..<30).map { i in
                TrackedEvent(id: "s-\(n)-\(i)", user: "u\(i % 11)", name: "view", value: Double(r), at: t0 + Double(n), receivedAt: t0 + Double(n))
            }
            return EventBatch(events: r == 0 ? own + shared : shared + own)
        }
        let batches = (0..<replicas.count).map { r in (0..<rounds).map { batch(r, $0) } }
        let shared = Shared()
        // Threads of their own, all at once (a pool as wide as the two cores would run the
        // merges only after the appends).
        let group = DispatchGroup()
        for worker in 0..<2 * replicas.count {
            group.enter()
            Thread {
                defer { group.leave() }
                shared.run(worker, replicas, batches)
            }.start()
        }
        group.wait()
        #expect(shared.failures.withLock { $0 } == [])
        for replica in replicas {
            let report = try replica.merge()
            shared.reports.withLock { $0.append(report) }
        }
        let distinct = replicas.count * rounds * 100 + rounds * 30
        #expect(try t.stagedRows() == 0)
        #expect(try t.storedRows() == (distinct, distinct))
        let events = try t.allEvents(page: 997)
        #expect(events.count == distinct)
        #expect(Set(events.map(\.cursor)).count == distinct)
        // The merges took every staged row once between them, and stored each key once.
        let merged = shared.reports.withLock { $0 }
        #expect(merged.reduce(0) { $0 + $1.eventsStored } == distinct)
        #expect(merged.reduce(0) { $0 + $1.eventsStored + $1.eventsSkipped } == replicas.count * rounds * 130)
        #expect(merged.filter { $0.eventsStored > 0 }.count > 2, "merges ran while appends did")
    }

    @Test(arguments: StoreKind.allCases) func anOldSchemaDatabaseMigratesWithItsEvents(_ kind: StoreKind) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-events-v1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The v1 schema, as the previous release left it, with two users' events and an exposure.
        let rows = """
            INSERT INTO tracked_event (id, user_id, name, value, at, received_at) VALUES
                ('e1', 'u1', 'purchase', 2.5, \(t0 + 10), \(t0 + 11)), ('e2', 'u1', 'purchase', NULL, \(t0 + 20), \(t0 + 21)),
                ('e3', 'u2', 'purchase', 4, \(t0 + 30), \(t0 + 31));
            INSERT INTO exposure (kind, key, user_id, variant, first_at, source) VALUES
                ('experiment', 'home-hero', 'u1', 'a', \(t0), 'client'), ('experiment', 'home-hero', 'u2', 'b', \(t0), 'server');
            """
        let store: any EventStore
        switch kind {
        case .sqlite:
            let path = directory.appendingPathComponent(SQLiteEventStore.fileName).path
            let queue = try DatabaseQueue(path: path)
            try SQLiteEventStore.migrator.migrate(queue, upTo: "v1: tracked events and exposures")
            try queue.write { try $0.execute(sql: rows) }
            try queue.close()
            store = try SQLiteEventStore(path: path)
        case .postgres:
            let url = try SharedPostgres.makeDatabase()
            try SharedPostgres.current().query(
                """
                CREATE TABLE trellis_event_migrations (identifier text PRIMARY KEY, applied_at timestamp with time zone NOT NULL DEFAULT now());
                \(PostgresEventStore.migrations[0].sql)
                INSERT INTO trellis_event_migrations (identifier) VALUES ('\(PostgresEventStore.migrations[0].identifier)');
                \(rows)
                """, url: url)
            store = try PostgresEventStore(url: url)
        }
        #expect(try store.events(after: nil, limit: 10).map(\.id) == ["e1", "e2", "e3"])
        #expect(try store.events(after: nil, limit: 10).first == TrackedEvent(id: "e1", user: "u1", name: "purchase", value: 2.5, at: t0 + 10, receivedAt: t0 + 11))
        // A migrated event's (user, id) is known: sent again, it is skipped; another user's e1 is new.
        try store.append(
            EventBatch(events: [
                TrackedEvent(id: "e1", user: "u1", name: "purchase", value: 99, at: t0 + 40, receivedAt: t0 + 41),
                TrackedEvent(id: "e1", user: "u2", name: "purchase", value: 1, at: t0 + 40, receivedAt: t0 + 41),
            ]))
        #expect(try store.merge() == MergeReport(eventsStored: 1, eventsSkipped: 1))
        let statistics = try store.statistics(MetricQuery(subject: hero, measure: .sum(event: "purchase"), asOf: t0 + 86_400))
        #expect(statistics.rows == [
            VariantStatistics(variant: "a", users: 1, sum: 3.5, sumSquares: 12.25), VariantStatistics(variant: "b", users: 1, sum: 5, sumSquares: 25),
        ])
    }
}

/// What the replicas' threads share in concurrentReplicasAppendingAndMergingLoseAndDuplicateNothing.
private final class Shared: Sendable {
    let reports = Mutex<[MergeReport]>([])
    let failures = Mutex<[String]>([])

    /// Worker `worker`: below the replicas' count, replica `worker` appending its batches; above,
    /// merges through replica `worker - count` beside them, as a timer's.
    func run(_ worker: Int, _ replicas: [PostgresEventStore], _ batches: [[EventBatch]]) {
        let r = worker % replicas.count
        do {
            if worker < replicas.count {
                for batch in batches[r] { try replicas[r].append(batch) }
            } else {
                for _ in 0..<15 {
                    let report = try replicas[r].merge()
                    reports.withLock { $0.append(report) }
                    usleep(20_000)
                }
            }
        } catch {
            failures.withLock { $0.append("\(error)") }
        }
    }
}
