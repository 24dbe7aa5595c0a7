import Dispatch
import Foundation
import Synchronization
import Testing
import TrellisStore
import TrellisTesting

/// What only the shared store does: several stores (replicas) on one database, migrations under a
/// lock, outages, and notifications. Each test has a database of its own in the suite's cluster,
/// except the outage test, which stops and starts a cluster of its own.
@Suite(.postgresCluster) struct PostgresStoreTests {
    @Test func racingCompareAndSetWritesFromTwoStoresLetExactlyOneWin() throws {
        let url = try SharedPostgres.makeDatabase()
        let stores = [try PostgresStore(url: url), try PostgresStore(url: url)]
        let rounds = 40
        for round in 1...rounds {
            let outcomes = Mutex<[Result<Int64, StoreError>]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let change = StoreChange(documents: [document("k", "\(round)-\(index)", revision: round)], audit: [audit("rollouts/k")])
                let outcome = Result { () throws(StoreError) in try stores[index].commit(change) }
                outcomes.withLock { $0.append(outcome) }
            }
            let results = outcomes.withLock { $0 }
            let conflict: StoreError = round == 1 ? .conflict("rollout k already has a runtime value") : .conflict("rollout k is no longer at revision \(round - 1)")
            #expect(results.compactMap { try? $0.get() } == [Int64(round)], "round \(round): \(results)")
            #expect(results.compactMap { if case .failure(let error) = $0 { error } else { nil } } == [conflict], "round \(round)")
        }
        let state = try stores[1].load()
        #expect(state.documents.map(\.revision) == [rounds])
        #expect(state.sequence == Int64(rounds))
        #expect(try stores[0].audit(AuditQuery(limit: 1000)).map(\.id) == Array(1...Int64(rounds)))
    }

    /// Commits from several threads and stores at once, with a reader reading on from the last
    /// sequence it saw: it sees every change, none skipped (sequence order is commit order).
    @Test func aReaderReadingOnFromItsSequenceMissesNoConcurrentCommit() throws {
        let url = try SharedPostgres.makeDatabase()
        let writers = [try PostgresStore(url: url), try PostgresStore(url: url), try PostgresStore(url: url)]
        let reader = try PostgresStore(url: url)
        let perWriter = 20
        let done = Atomic<Int>(0)
        let sequences = Mutex<[Int64]>([])
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for (index, writer) in writers.enumerated() {
            DispatchQueue.global().async(group: group) {
                for n in 0..<perWriter {
                    do {
                        let sequence = try writer.commit(StoreChange(documents: [document("w\(index)-\(n)", "x")]))
                        sequences.withLock { $0.append(sequence) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
                done.add(1, ordering: .releasing)
            }
        }
        var seen: Set<String> = []
        var last: Int64 = 0
        var reads = 0
        while true {
            let finished = done.load(ordering: .acquiring) == writers.count
            let changes = try reader.changes(after: last)
            #expect(changes.sequence >= last)
            seen.formUnion(changes.documents.map(\.key))
            last = changes.sequence
            reads += 1
            // Everything up to `last` must have been seen by now, whatever is still in flight.
            #expect(seen.count == Int(last), "after \(reads) reads at sequence \(last), \(seen.count) changes seen")
            if finished { break }
        }
        group.wait()
        #expect(failures.withLock { $0 } == [])
        #expect(seen.count == writers.count * perWriter)
        #expect(sequences.withLock { $0 }.sorted() == Array(1...Int64(writers.count * perWriter)))
    }

    @Test func storesOpenedTogetherOnAFreshDatabaseMigrateItOnce() throws {
        let url = try SharedPostgres.makeDatabase()
        let errors = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do { _ = try PostgresStore(url: url) } catch { errors.withLock { $0.append("\(error)") } }
        }
        #expect(errors.withLock { $0 } == [])
        let cluster = try SharedPostgres.current()
        // Each of the two migrations (v1: the runtime state; v2: leases, webhook cursors, the delivery log) once.
        #expect(try cluster.query("SELECT count(*) FROM trellis_schema_migrations", url: url) == "2")
        #expect(try cluster.query("SELECT value FROM change_sequence", url: url) == "0")
    }

    @Test func aDatabaseFromANewerSchemaIsRefusedNamingTheMigration() throws {
        let url = try SharedPostgres.makeDatabase()
        _ = try PostgresStore(url: url)
        try SharedPostgres.current().query("INSERT INTO trellis_schema_migrations (identifier) VALUES ('v99: from the future')", url: url)
        do {
            _ = try PostgresStore(url: url)
            Issue.record("expected the database to be refused")
        } catch {
            guard case .failure(let message) = error else { throw error }
            #expect(message.contains("newer version of trellis"))
            #expect(message.contains("v99: from the future"))
        }
    }

    @Test func aMalformedURLFailsAndAnUnreachableServerIsUnavailableQuickly() throws {
        do {
            _ = try PostgresStore(url: "postgres://trellis@127.0.0.1/trellis?no_such_option=1")
            Issue.record("expected a malformed URL to be refused")
        } catch {
            guard case .failure(let message) = error else { throw error }
            #expect(message.hasPrefix("invalid PostgreSQL URL"))
        }
        // Port 1 on the loopback: refused at once.
        let began = ContinuousClock.now
        expectUnavailable("connecting to a closed port") { try PostgresStore(url: "postgres://trellis@127.0.0.1:1/trellis") }
        #expect(ContinuousClock.now - began < .seconds(3))
    }

    /// The server stopped: every call is unavailable, within the connect timeout; started again,
    /// the same store instance works, with everything acknowledged before.
    @Test func aStoreOutlivesAServerRestart() throws {
        let cluster = try TemporaryPostgres()
        defer { cluster.shutdown() }
        let url = try cluster.makeDatabase()
        let store = try PostgresStore(url: url)
        let acknowledged = try store.commit(StoreChange(documents: [document("a", "1")], audit: [audit("rollouts/a")]))
        _ = try store.load()  // the reading connection is open too, and about to be cut

        try cluster.stop()
        let began = ContinuousClock.now
        expectUnavailable("commit") { try store.commit(StoreChange(documents: [document("b", "1")])) }
        expectUnavailable("load") { try store.load() }
        expectUnavailable("changes") { try store.changes(after: 0) }
        expectUnavailable("latestSequence") { try store.latestSequence() }
        expectUnavailable("audit") { try store.audit(AuditQuery()) }
        expectUnavailable("revision") { try store.revision(of: .screen("home"), number: 1) }
        expectUnavailable("backup") { try store.backup(to: NSTemporaryDirectory() + "/trellis-unavailable-\(UUID().uuidString).sqlite") }
        #expect(ContinuousClock.now - began < .seconds(5), "calls to a stopped server took \(ContinuousClock.now - began)")

        try cluster.start()
        let state = try store.load()
        #expect(state.documents == [document("a", "1")])
        #expect(state.sequence == acknowledged)
        #expect(try store.commit(StoreChange(documents: [document("b", "1")])) == acknowledged + 1)
        #expect(try store.audit(AuditQuery()).count == 1)
    }

    @Test func theListenerIsNotifiedOfCommitsAndListensAgainAfterItsSessionEnds() throws {
        let cluster = try SharedPostgres.current()
        let url = try cluster.makeDatabase()
        let store = try PostgresStore(url: url)
        let name = "listener-\(UUID().uuidString)"
        let events = EventLog()
        let listener = try PostgresChangeListener(url: url + "?application_name=\(name)", handler: events.append)
        listener.start()
        defer { listener.stop() }
        events.wait("listening") { $0 == [.listening] }

        let first = try store.commit(StoreChange(documents: [document("a", "1")]))
        events.wait("the first notification") { $0 == [.listening, .notified(first)] }

        #expect(try cluster.terminateBackends(applicationName: name) == 1)
        let seen = events.wait("lost and listening again") { $0.count >= 4 && $0.last == .listening }
        #expect(seen.count == 4)
        if seen.count == 4, case .lost = seen[2] {} else { Issue.record("expected .lost before listening again: \(seen)") }

        let second = try store.commit(StoreChange(documents: [document("b", "1")]))
        events.wait("the notification after reconnecting") { $0.last == .notified(second) }

        listener.stop()
        let stopped = events.all
        _ = try store.commit(StoreChange(documents: [document("c", "1")]))
        usleep(300_000)
        #expect(events.all == stopped, "nothing is reported after stop()")
    }

    @Test func aListenerStartedWhileTheServerIsDownReportsLostThenListens() throws {
        // A port nothing listens on: the listener reports the failed start once and keeps trying.
        let events = EventLog()
        let listener = try PostgresChangeListener(url: "postgres://trellis@127.0.0.1:1/trellis", handler: events.append)
        listener.start()
        events.wait("lost") { !$0.isEmpty }
        usleep(500_000)
        listener.stop()
        let seen = events.all
        #expect(seen.count == 1, "one .lost per outage, not per attempt: \(seen)")
        if case .lost(let reason)? = seen.first { #expect(reason.contains("cannot connect")) } else { Issue.record("expected .lost: \(seen)") }
    }

    /// A commit whose answer is lost — the connection ended while the server waits to confirm it —
    /// is of unknown outcome, not failed: here it did commit. (A synchronous standby that never
    /// comes makes COMMIT wait after writing locally; ending the backend then is the lost answer.)
    @Test func aCommitWhoseAnswerIsLostIsOfUnknownOutcomeNotFailed() throws {
        let cluster = try TemporaryPostgres()
        defer { cluster.shutdown() }
        let url = try cluster.makeDatabase()
        let store = try PostgresStore(url: url)
        try store.commit(StoreChange(documents: [document("k", "1")]))
        try cluster.query("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
        try cluster.query("SELECT pg_reload_conf()")
        let outcome = Mutex<Result<Int64, StoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let result = Result { () throws(StoreError) in try store.commit(StoreChange(documents: [document("k", "2", revision: 2)])) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while try cluster.query("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'") != "1", ContinuousClock.now < deadline {
            usleep(20_000)
        }
        #expect(try cluster.terminateBackends(applicationName: PostgresStore.applicationName) >= 1)
        #expect(done.wait(timeout: .now() + 10) == .success)
        switch outcome.withLock({ $0 }) {
        case .failure(.unknownOutcome)?: break
        case let other: Issue.record("expected unknownOutcome, got \(String(describing: other))")
        }
        try cluster.query("ALTER SYSTEM RESET synchronous_standby_names")
        try cluster.query("SELECT pg_reload_conf()")
        #expect(try store.load().documents.map(\.revision) == [2], "the commit was made before its answer was lost")
    }
}
