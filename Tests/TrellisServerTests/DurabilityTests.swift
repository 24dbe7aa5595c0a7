import Foundation
import Synchronization
import Testing
import TrellisRuntime
import TrellisServer
import TrellisStore
import TrellisTesting

/// Acknowledged means durable, proven on the real binary and a real SQLite file:
///
/// - every acknowledged admin write had the WAL fsynced before its answer was sent (seen by an
///   LD_PRELOAD shim in the server process; a kill -9 alone cannot tell, since the page cache
///   survives it — TrellisStoreTests' DurabilityProbeTests shows the same check fails on a store
///   opened with `synchronous=NORMAL`);
/// - SIGKILL at random moments of a stream of every kind of admin write, each time with a write in
///   flight: after each restart the audit log holds exactly the acknowledged writes, in order, with
///   their values (plus at most the one in flight, last), the stored revisions match, and the
///   server serves exactly that state.
@Suite(.serialized) struct DurabilityTests {
    // MARK: - The writes

    /// Every kind of admin write.
    enum Kind: String, CaseIterable, Sendable {
        case rolloutPut, rolloutKill, rolloutReset, experimentPut, experimentReset
        case screenPublish, screenStage, screenStagePercentage, screenPromote, screenAbandon, screenRollback
        case routesPublish, routesRollback
    }

    /// What the server holds once a write is in force (the configuration's values at first).
    struct Model: Sendable {
        struct Staged: Sendable { var revision: Int, percentage: Double }
        var rolloutPercentage = 10.0
        var rolloutEnabled = true
        var rolloutRuntime = false
        var controlWeight = 50
        var experimentRuntime = false
        /// The body and greeting of each revision of screen `home`, revision 1 first.
        var screens = [(body: AdminFlowTests.screen("start"), text: "start")]
        var screenCurrent = 1
        var staged: Staged?
        /// The body of each revision of the route table.
        var tables = [DurabilityTests.table("config")]
        var tableCurrent = 1
    }

    /// One admin write: the request, the audit entry it must leave and the state it puts in force.
    struct Write: Sendable {
        var number: Int
        var kind: Kind
        var method: String
        var target: String
        var body: String?
        var action: String
        var resource: String
        /// The audit entry's `after`, canonical JSON (``DurabilityTests/canonical(_:)``).
        var after: String
        var model: Model
        var description: String { "#\(number) \(kind) \(method) \(target)" }
    }

    static func table(_ marker: String) -> String {
        """
        {"routes": [
          {"pattern": "app://home", "screen": "home"},
          {"pattern": "app://\(marker)", "native": "deals.\(marker)"}
        ]}
        """
    }

    /// The stream of writes: every kind in a shuffled deck, redealt when empty; a kind that needs a
    /// state the model is not in (a reset needs a runtime value, a promote a staged revision) is
    /// preceded by the write that makes it. Used by one thread at a time (the writer, then the test
    /// once the writer has finished).
    final class WriteStream: @unchecked Sendable {
        var random: SplitMix64
        var model = Model()
        private var deck: [Kind] = []
        private var number = 0

        init(seed: UInt64) { random = SplitMix64(seed: seed) }

        func next() -> Write {
            if deck.isEmpty { deck = Kind.allCases.shuffled(using: &random) }
            let kind = deck[0]
            if let first = prerequisite(of: kind) { return make(first) }
            deck.removeFirst()
            return make(kind)
        }

        /// Deals `write`'s kind again first: a write the kill lost is retried, so every kind dealt is
        /// stored in the end.
        func retry(_ write: Write) { deck.insert(write.kind, at: 0) }

        private func prerequisite(of kind: Kind) -> Kind? {
            switch kind {
            case .rolloutReset: model.rolloutRuntime ? nil : .rolloutPut
            case .experimentReset: model.experimentRuntime ? nil : .experimentPut
            case .screenStagePercentage, .screenPromote, .screenAbandon: model.staged == nil ? .screenStage : nil
            default: nil
            }
        }

        /// The next write of `kind`, its values unique to it; the model moves on to its state.
        private func make(_ kind: Kind) -> Write {
            number += 1
            let n = number
            var next = model
            var method = "PUT"
            var target: String
            var body: String?
            var action: String
            var after: String  // JSON text
            switch kind {
            case .rolloutPut, .rolloutKill, .rolloutReset:
                target = "/admin/rollouts/banner"
                switch kind {
                case .rolloutPut:
                    next.rolloutPercentage = Double(n % 9_999 + 1) / 100
                    next.rolloutEnabled = true
                    next.rolloutRuntime = true
                    body = #"{"percentage": \#(DurabilityTests.text(next.rolloutPercentage)), "enabled": true}"#
                    action = "rollout.update"
                case .rolloutKill:
                    method = "POST"
                    target += "/kill"
                    next.rolloutEnabled = false
                    next.rolloutRuntime = true
                    action = "rollout.kill"
                default:
                    method = "POST"
                    target += "/reset"
                    (next.rolloutPercentage, next.rolloutEnabled, next.rolloutRuntime) = (10, true, false)
                    action = "rollout.reset"
                }
                after = #"{"percentage": \#(DurabilityTests.text(next.rolloutPercentage)), "groupId": "banner", "enabled": \#(next.rolloutEnabled), "description": "the banner"}"#
            case .experimentPut, .experimentReset:
                target = "/admin/experiments/hero"
                if kind == .experimentPut {
                    next.controlWeight = n % 99 + 1
                    next.experimentRuntime = true
                    body = #"{"weights": {"control": \#(next.controlWeight), "big": \#(100 - next.controlWeight)}}"#
                    action = "experiment.update"
                } else {
                    method = "POST"
                    target += "/reset"
                    (next.controlWeight, next.experimentRuntime) = (50, false)
                    action = "experiment.reset"
                }
                after = #"{"variants": {"control": \#(next.controlWeight), "big": \#(100 - next.controlWeight)}, "status": "running", "defaultVariant": "control", "overrides": {}}"#
            case .screenPublish, .screenStage, .screenStagePercentage, .screenPromote, .screenAbandon, .screenRollback:
                target = "/admin/screens/home"
                switch kind {
                case .screenPublish:
                    let text = "publish \(n)"
                    body = AdminFlowTests.screen(text)
                    next.screens.append((body!, text))
                    next.screenCurrent = next.screens.count
                    action = "screen.publish"
                case .screenStage:
                    let text = "stage \(n)"
                    let percentage = Double(n % 99 + 1)
                    target += "?stage=\(Int(percentage))"
                    body = AdminFlowTests.screen(text)
                    next.screens.append((body!, text))
                    next.staged = .init(revision: next.screens.count, percentage: percentage)
                    action = "screen.stage"
                case .screenStagePercentage:
                    let percentage = Double(n % 99 + 1)
                    target += "/stage"
                    body = #"{"percentage": \#(Int(percentage))}"#
                    next.staged?.percentage = percentage
                    action = "screen.stage"
                case .screenPromote:
                    method = "POST"
                    target += "/promote"
                    next.screenCurrent = next.staged!.revision
                    next.staged = nil
                    action = "screen.promote"
                case .screenAbandon:
                    method = "POST"
                    target += "/abandon"
                    next.staged = nil
                    action = "screen.abandon"
                default:
                    method = "POST"
                    target += "/rollback"
                    let revision = Int.random(in: 1...next.screens.count, using: &random)
                    body = #"{"revision": \#(revision)}"#
                    next.screens.append(next.screens[revision - 1])
                    next.screenCurrent = next.screens.count
                    next.staged = nil
                    action = "screen.rollback"
                }
                let staged = next.staged.map { #", "staged": {"revision": \#($0.revision), "percentage": \#(DurabilityTests.text($0.percentage))}"# }
                after = #"{"revision": \#(next.screenCurrent)\#(staged ?? "")}"#
            case .routesPublish, .routesRollback:
                target = "/admin/routes"
                if kind == .routesPublish {
                    body = DurabilityTests.table("m\(n)")
                    next.tables.append(body!)
                    action = "routes.publish"
                } else {
                    method = "POST"
                    target += "/rollback"
                    let revision = Int.random(in: 1...next.tables.count, using: &random)
                    body = #"{"revision": \#(revision)}"#
                    next.tables.append(next.tables[revision - 1])
                    action = "routes.rollback"
                }
                next.tableCurrent = next.tables.count
                after = #"{"revision": \#(next.tableCurrent)}"#
            }
            let resource = kind.rawValue.hasPrefix("rollout") ? "rollouts/banner"
                : kind.rawValue.hasPrefix("experiment") ? "experiments/hero" : kind.rawValue.hasPrefix("screen") ? "screens/home" : "routes"
            model = next
            return Write(
                number: n, kind: kind, method: method, target: target, body: body, action: action, resource: resource,
                after: DurabilityTests.canonical(bytes: Array(after.utf8)), model: next)
        }
    }

    /// A number as JSON writes it: `12`, `12.5`.
    static func text(_ number: Double) -> String { number == number.rounded() ? "\(Int(number))" : "\(number)" }

    /// A value JSONSerialization read, written with sorted keys: the same JSON read from two texts
    /// compares equal whatever the order of members and the spacing.
    static func canonical(_ value: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func canonical(bytes: [UInt8]?) -> String {
        guard let bytes, let value = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else { return "none" }
        return canonical(value)
    }

    /// - Parameter storageURL: a PostgreSQL database to store in instead of the data directory's file.
    static func configured(storageURL: String? = nil) throws -> ServedBinary {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("start")])
        try config.write(targeting: AdminFlowTests.targeting)
        try config.write(routes: table("config"))
        return try ServedBinary(config: config, extra: storageURL.map { #""storage": {"url": "\#($0)"}"# } ?? "")
    }

    // MARK: - Each acknowledgement follows an fsync of the WAL

    /// The WAL's fsync is what makes a commit survive a power cut; kill -9 cannot show it (the page
    /// cache outlives the process), so the server's own fsync and fdatasync calls are watched: every
    /// kind of write, one at a time, and for each, a sync of `trellis.sqlite-wal` that finished
    /// after the request was sent and before its 200 was read.
    @Test func everyAcknowledgedWriteFsyncedTheWALBeforeItsAnswer() throws {
        let served = try Self.configured()
        let probe = try FsyncProbe(in: served.config.url)
        let (process, port) = try probe.serve(served)
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let stream = WriteStream(seed: 29)
        let client = try TestClient(port: port, timeout: 10)
        var writes: [Write] = []
        var intervals: [ClosedRange<Int64>] = []
        while Set(writes.map(\.kind)).count < Kind.allCases.count {
            let write = stream.next()
            let sent = FsyncProbe.now()
            let response = try client.exchange(write.method, write.target, body: write.body)
            let read = FsyncProbe.now()
            try #require(response.status == 200, "\(write.description): \(response.status) \(response.text)")
            writes.append(write)
            intervals.append(sent...read)
        }
        let wal = FsyncProbe.resolved(served.dataDirectory.path) + "/" + SQLiteStore.fileName + "-wal"
        let unsynced = try probe.unsynced(intervals, path: wal)
        #expect(unsynced.isEmpty, "acknowledged without an fsync of the WAL: \(unsynced.map { writes[$0].description })")
        let walSyncs = try probe.syncs().filter { $0.path == wal && $0.result == 0 }
        #expect(walSyncs.count >= writes.count, "\(writes.count) writes, \(walSyncs.count) syncs of the WAL")
    }

    // MARK: - kill -9 at random moments

    /// What the writer thread sent and what came back 200, and the write in flight when the server
    /// was killed.
    final class Ledger: Sendable {
        struct State {
            var acknowledged: [Write] = []
            var inFlight: Write?
            var killedDuring: Write?
            var failure: String?
        }
        private let state = Mutex(State())
        func sending(_ write: Write) { state.withLock { $0.inFlight = write } }
        func acknowledged(_ write: Write) { state.withLock { $0.acknowledged.append(write); $0.inFlight = nil } }
        func failed(_ reason: String) { state.withLock { $0.failure = reason } }
        var snapshot: State { state.withLock { $0 } }

        /// SIGKILLs `pid` if a write is in flight (sent, its answer not yet read), holding the ledger
        /// so that it cannot be acknowledged in between; the write, or nil when none was in flight.
        func killIfWriting(_ pid: pid_t) -> Write? {
            state.withLock { state in
                guard let write = state.inFlight else { return nil }
                kill(pid, SIGKILL)
                state.killedDuring = write
                return write
            }
        }
    }

    /// Sends the stream's writes one after another on one connection until the server is gone.
    static func writeUntilKilled(port: Int, stream: WriteStream, ledger: Ledger, finished: DispatchSemaphore) {
        Thread {
            defer { finished.signal() }
            guard let client = try? TestClient(port: port, timeout: 10) else { return ledger.failed("cannot connect") }
            while true {
                let write = stream.next()
                ledger.sending(write)
                guard let response = try? client.exchange(write.method, write.target, body: write.body) else { return }
                guard response.status == 200 else { return ledger.failed("\(write.description): \(response.status) \(response.text)") }
                ledger.acknowledged(write)
            }
        }.start()
    }

    /// With the embedded store, and with a replica of a shared PostgreSQL one.
    @Test(arguments: [false, true]) func sigkillAtRandomMomentsLosesNothingAcknowledged(onPostgres: Bool) throws {
        let seed = ProcessInfo.processInfo.environment["TRELLIS_DURABILITY_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...999_999)
        print("DurabilityTests: seed \(seed) (TRELLIS_DURABILITY_SEED=\(seed) replays the writes and kill points)")
        var random = SplitMix64(seed: seed)
        let stream = WriteStream(seed: seed ^ 0x5EED)
        let storageURL = onPostgres ? try ReplicaTests.postgres.get().makeDatabase() : nil
        let server = try Self.configured(storageURL: storageURL)
        try server.start()
        var history: [Write] = []  // every write the store holds, in order

        for round in 1...4 {
            let context = "seed \(seed), kill \(round)"
            // At least 7 a round: 28 writes deal the whole deck (13 kinds, a prerequisite before some).
            let killAfter = Int.random(in: 7...16, using: &random)
            let ledger = Ledger()
            let finished = DispatchSemaphore(value: 0)
            Self.writeUntilKilled(port: server.port, stream: stream, ledger: ledger, finished: finished)
            // A guard against a hang, not a timed assertion: it only ends a wait that would never end.
            let deadline = Date().addingTimeInterval(120)
            while ledger.snapshot.acknowledged.count < killAfter, ledger.snapshot.failure == nil, Date() < deadline { usleep(1_000) }
            let pid = try #require(server.process?.processIdentifier)
            // Then, a random 0–4 ms after a write is sent (anywhere from its parsing to its answer), the
            // kill — if that write, or the next, is still unanswered; else again with the next one.
            var killedDuring: Write?
            while killedDuring == nil, ledger.snapshot.failure == nil, Date() < deadline {
                guard ledger.snapshot.inFlight != nil else {
                    usleep(50)
                    continue
                }
                usleep(UInt32.random(in: 0...4_000, using: &random))
                killedDuring = ledger.killIfWriting(pid)
            }
            server.killNine()
            finished.wait()
            let sent = ledger.snapshot
            try #require(sent.failure == nil, "\(context): \(sent.failure ?? "")")
            #expect(sent.acknowledged.count >= killAfter, "\(context)")
            // The kill landed while a write was in flight: sent, its answer not read.
            let inFlight = try #require(killedDuring, "\(context): no write in flight at the kill")

            // The file as the crash left it: it opens, and holds exactly the acknowledged writes, in
            // order, with their values — and perhaps the one in flight (it may have committed before
            // its answer was sent; its answer may even have been read after the kill), last.
            do {
                let store: any RuntimeStore = try storageURL.map { url throws(StoreError) in try PostgresStore(url: url) }
                    ?? SQLiteStore(path: server.dataDirectory.appendingPathComponent(SQLiteStore.fileName).path)
                let entries = try store.audit(AuditQuery(limit: 100_000, after: 0)).map(\.draft).filter { $0.actor == "ops-bot" }
                var expected = history + sent.acknowledged
                if let unanswered = sent.inFlight, entries.count == expected.count + 1 { expected.append(unanswered) }
                #expect(
                    entries.count == expected.count,
                    "\(context): \(entries.count) audit entries for \(history.count) earlier writes, \(sent.acknowledged.count) acknowledged now and \(inFlight.description) in flight")
                for (entry, write) in zip(entries, expected) {
                    let seen = "\(entry.action) \(entry.resource) \(Self.canonical(bytes: entry.after))"
                    let wanted = "\(write.action) \(write.resource) \(write.after)"
                    #expect(seen == wanted, "\(context): \(write.description)")
                    if seen != wanted { break }
                }
                print("DurabilityTests \(context): killed after \(killAfter)+ acknowledged (\(sent.acknowledged.count)) during \(inFlight.description); \(sent.inFlight == nil ? "its answer was read" : entries.count == expected.count && expected.last?.number == inFlight.number ? "committed, unanswered" : "not committed")")
                history = expected
                let model = history.last?.model ?? Model()
                // Nothing half-written: the revisions stored are those the audited writes made.
                for (key, bodies) in [(RevisionedKey.screen("home"), model.screens.map(\.body)), (.routeTable, model.tables)] {
                    let summaries = try store.revisions(of: key)
                    #expect(summaries.map(\.number) == Array(1...bodies.count), "\(context): revisions of \(key)")
                    for (number, body) in zip(1..., bodies).dropFirst() {
                        let stored = try store.revision(of: key, number: number).map { String(decoding: $0.document, as: UTF8.self) }
                        #expect(stored == body, "\(context): revision \(number) of \(key)")
                    }
                }
            }
            stream.model = history.last?.model ?? Model()
            if let lost = sent.inFlight, history.last?.number != lost.number { stream.retry(lost) }

            // Restarted, the server serves exactly that state.
            try server.start()
            try Self.expectServes(stream.model, server, context)
        }
        #expect(Set(history.map(\.kind)) == Set(Kind.allCases), "seed \(seed): kinds never written: \(Set(Kind.allCases).subtracting(history.map(\.kind)))")
        server.stop()
    }

    /// The served rollout, experiment, screen and route table are the model's.
    static func expectServes(_ model: Model, _ server: ServedBinary, _ context: String) throws {
        let rollout = try server.request("GET", "/admin/rollouts/banner", token: ServedBinary.readToken).json
        #expect(rollout["percentage"]?.number == model.rolloutPercentage, "\(context)")
        #expect(rollout["enabled"]?.bool == model.rolloutEnabled, "\(context)")
        #expect(rollout["source"]?.string == (model.rolloutRuntime ? "runtime" : "config"), "\(context)")

        let experiment = try server.request("GET", "/admin/experiments/hero", token: ServedBinary.readToken).json
        let weights = experiment["variants"]?.array.map { ($0["name"]?.string ?? "", $0["weight"]?.number ?? -1) }
        #expect(weights?.map { $0.0 } == ["control", "big"], "\(context)")
        #expect(weights?.map { $0.1 } == [Double(model.controlWeight), Double(100 - model.controlWeight)], "\(context)")
        #expect(experiment["source"]?.string == (model.experimentRuntime ? "runtime" : "config"), "\(context)")

        let head = try server.request("GET", "/admin/screens/home", token: ServedBinary.readToken).json
        #expect(head["revision"]?.number == Double(model.screenCurrent), "\(context)")
        #expect(head["latestRevision"]?.number == Double(model.screens.count), "\(context)")
        #expect(head["staged"]?["revision"]?.number == model.staged.map { Double($0.revision) }, "\(context)")
        #expect(head["staged"]?["percentage"]?.number == model.staged?.percentage, "\(context)")
        // A request without a user id gets the current revision, staged or not.
        let screen = try server.request("GET", "/v1/screens/home", token: nil).json
        let greeting = screen["root"]?["subviews"]?.array.first { $0["id"]?.string == "greeting" }?["values"]?["text"]?.string
        #expect(greeting == model.screens[model.screenCurrent - 1].text, "\(context)")

        let routes = try server.request("GET", "/admin/routes", token: ServedBinary.readToken)
        #expect(routes.json["revision"]?.number == Double(model.tableCurrent), "\(context)")
        #expect(routes.json["latestRevision"]?.number == Double(model.tables.count), "\(context)")
        let table = canonical(bytes: Array(model.tables[model.tableCurrent - 1].utf8))
        #expect(routes.json["table"].map { canonical($0.value) } == table, "\(context)")
    }
}
