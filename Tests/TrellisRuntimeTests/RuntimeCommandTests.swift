import CoreMetrics
import Foundation
import Logging
import Synchronization
import Testing
import TrellisJSON
import TrellisRuntime
import TrellisStore
import TrellisTargeting

/// The runtime's command API in process: a real SQLite file in a temporary directory, the
/// configuration's screens and targeting, and a clock the test moves. No server, no socket, no
/// HTTP (this target cannot import them): what a command does, who it is recorded as, and what a
/// refusal leaves (nothing).
@Suite(.serialized) struct RuntimeCommandTests {
    final class Clock: Sendable {
        let now = Mutex<Double>(1_800_000_000)
        func advance(by seconds: Double) { now.withLock { $0 += seconds } }
        var read: @Sendable () -> Double { { [self] in now.withLock { $0 } } }
    }

    /// The runtime's host, as small as it can be: publishing is swapping the cell.
    final class Host: RuntimeHost {
        let published: PublishedSnapshot
        let clock: @Sendable () -> Double
        let metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance
        let storeHealth: StoreHealth

        init(_ snapshot: Snapshot, clock: @escaping @Sendable () -> Double) {
            published = PublishedSnapshot(snapshot)
            self.clock = clock
            storeHealth = StoreHealth(kind: "sqlite", clock: clock)
        }

        func publish(_ snapshot: Snapshot, sequence: Int64, screens touched: Set<String>?) { published.publish(snapshot) }
    }

    /// A runtime over `config` and the store file in it, as a server starts one.
    struct Harness {
        let runtime: Runtime
        let store: SQLiteStore
        let clock: Clock
        let config: TemporaryConfig

        init(_ config: TemporaryConfig, clock: Clock = Clock(), settings: Runtime.Settings = Runtime.Settings()) throws {
            self.config = config
            store = try SQLiteStore(path: config.url.appendingPathComponent("runtime.sqlite").path)
            let loader = ConfigLoader(directory: config.url)
            let started = try ControlPlane.start(loader: loader, store: store, now: clock.read())
            let control = ControlPlane(
                store: store, state: Host(started.snapshot, clock: clock.read), loader: loader, baseline: started.baseline, logger: Logger(label: "test"),
                appliedSequence: started.sequence)
            runtime = Runtime(control: control, settings: settings)
            self.clock = clock
        }

        var snapshot: Snapshot { runtime.state.published.snapshot }
        /// The version of change request `id` a reviewer reads.
        func read(_ id: Int) -> VersionCondition { .version(ResourceView.version(of: .changeRequest(id), in: snapshot)) }
        func percentage(_ key: String) -> Double? { snapshot.targeting.rollouts[key].map { Double($0.percentage.basisPoints) / 100 } }
        func audit(_ resource: String?) throws -> [AuditDraft] { try store.audit(AuditQuery(resource: resource)).map(\.draft) }
    }

    static func config() throws -> TemporaryConfig {
        try TemporaryConfig(screens: ["home": screen], targeting: targeting)
    }

    static func set(_ key: String, to percentage: Double) -> Command {
        .rollout(.update(key: key, RolloutPatch(percentage: RolloutPercentage(basisPoints: Int(percentage * 100)))))
    }

    @Test func aCommandIsDurableAndRecordedAsItsActor() throws {
        let config = try Self.config()
        let harness = try Harness(config)
        let outcome = try harness.runtime.execute(Self.set("banner", to: 40), as: .person("ops")).get()
        #expect(outcome.effect == .changed)
        #expect(outcome.target == .rollout("banner"))
        #expect(harness.percentage("banner") == 40)
        #expect(try harness.audit("rollouts/banner").map(\.actor) == ["ops"])
        // Acknowledged means durable: a runtime opened on the same file starts from it.
        let reopened = try Harness(config)
        #expect(reopened.percentage("banner") == 40)
    }

    @Test func aCommandAgainstAnotherVersionIsRefusedAndChangesNothing() throws {
        let harness = try Harness(try Self.config())
        let before = try harness.store.latestSequence()
        let current = ResourceView.version(of: .rollout("banner"), in: harness.snapshot)
        let refused = harness.runtime.execute(Self.set("banner", to: 50), as: .person("ops"), ifMatch: .version("\"elsewhere\""))
        guard case .failure(.versionMismatch(let named)) = refused else { Issue.record("expected a version mismatch, got \(refused)"); return }
        #expect(named == current)
        #expect(try harness.store.latestSequence() == before)
        #expect(harness.percentage("banner") == 10)
        // The version read a moment ago is accepted.
        #expect(throws: Never.self) { try harness.runtime.execute(Self.set("banner", to: 50), as: .person("ops"), ifMatch: .version(current)).get() }
    }

    @Test func aCheckBuildsTheCommandWithoutCommittingIt() throws {
        let harness = try Harness(try Self.config())
        let before = try harness.store.latestSequence()
        let rule = RuleExpression.decode(try JSONParser.parse(Array(#"{"attribute": "tier", "op": "equals", "value": "vip"}"#.utf8)), at: .root, DiagnosticsCollector())
        let checked = try harness.runtime.check(.rule(.define(name: "is_vip", try #require(rule))), as: .person("ops")).get()
        #expect(checked.snapshot.targeting.rules["is_vip"] != nil)
        #expect(harness.snapshot.targeting.rules["is_vip"] == nil)
        #expect(try harness.store.latestSequence() == before)
    }

    @Test func retiringWhatAScreenUsesIsRefusedNamingTheScreen() throws {
        let harness = try Harness(try Self.config())
        let refused = harness.runtime.execute(.rollout(.retire(key: "banner")), as: .person("ops"))
        guard case .failure(.stillInUse(let error)) = refused else { Issue.record("expected still in use, got \(refused)"); return }
        #expect(error.description.contains("home"))
        #expect(harness.snapshot.targeting.rollouts["banner"] != nil)
    }

    @Test func aHeldCommandIsMadeAsItsAuthorOnceAnotherApprovesIt() throws {
        var settings = Runtime.Settings()
        settings.approvalRequiredFor = ["rollouts"]
        let harness = try Harness(try Self.config(), settings: settings)
        let held = try harness.runtime.execute(Self.set("banner", to: 60), as: .person("ops")).get()
        #expect(held.effect == .held)
        let id = try #require(held.changeRequest?.id)
        #expect(harness.percentage("banner") == 10)
        // Its author cannot approve it; the scheduler is no person and is never held.
        guard case .failure(.forbidden) = harness.runtime.execute(.changeRequest(.approve(id: id, comment: nil)), as: .person("ops"), ifMatch: harness.read(id)) else {
            Issue.record("the author approved their own request"); return
        }
        #expect(try harness.runtime.execute(Self.set("banner", to: 20), as: .scheduler).get().effect == .changed)
        // A second writer's approval finds its target moved: stale, and nothing changes.
        guard case .failure(.conflict) = harness.runtime.execute(.changeRequest(.approve(id: id, comment: nil)), as: .person("lead"), ifMatch: harness.read(id)) else {
            Issue.record("a stale request was made"); return
        }
        #expect(harness.percentage("banner") == 20)
        #expect(try Runtime.changeRequest(id, in: harness.snapshot).status == .stale)

        let again = try harness.runtime.execute(Self.set("banner", to: 60), as: .person("ops")).get()
        let againID = try #require(again.changeRequest?.id)
        let approved = try harness.runtime.execute(.changeRequest(.approve(id: againID, comment: "ok")), as: .person("lead"), ifMatch: harness.read(againID)).get()
        #expect(approved.changeRequest?.status == .applied)
        #expect(harness.percentage("banner") == 60)
        #expect(harness.snapshot.runtime.rollouts["banner"]?.document.updatedBy == "ops")
        let actions = try harness.audit(nil).suffix(2).map { "\($0.action) \($0.actor)" }
        #expect(actions == ["rollout.update ops", "change.approve lead"])
    }

    @Test func anApprovedRequestWaitsForItsTimeAndTheSchedulerMakesIt() throws {
        let harness = try Harness(try Self.config())
        let at = harness.clock.read() + 60
        let held = try harness.runtime.execute(.changeRequest(.propose(Self.set("banner", to: 33), applyAt: at, comment: nil)), as: .person("ops")).get()
        #expect(held.changeRequest?.status == .approved)
        harness.runtime.runScheduledWork()
        #expect(harness.percentage("banner") == 10)
        harness.clock.advance(by: 61)
        harness.runtime.runScheduledWork()
        #expect(harness.percentage("banner") == 33)
        #expect(try harness.audit("changes").last.map { "\($0.action) \($0.actor)" } == "change.apply scheduler")
    }

    @Test func aRequestStoredAsAnAdminWriteByTheFirstVersionIsReadAndMade() throws {
        let config = try Self.config()
        let clock = Clock()
        // What the first version stored: the write as made, not a command.
        do {
            let first = try Harness(config, clock: clock)
            let bound = try #require(ResourceView.version(of: .rollout("banner"), in: first.snapshot))
            let stamp = RFC3339.string(fromSeconds: clock.read())
            let document = JSONValue.object([
                ("id", .number(1)), ("status", .string("pending")), ("method", .string("PUT")), ("path", .string("/admin/rollouts/banner")),
                ("query", .object([])), ("body", .string(#"{"percentage": 70}"#)), ("boundETag", .string(bound)), ("author", .string("ops")),
                ("createdAt", .string(stamp)), ("updatedAt", .string(stamp)), ("applyAt", .null), ("comment", .null), ("reviews", .array([])),
                ("outcome", .null),
            ])
            _ = try first.store.commit(StoreChange(documents: [
                StoredDocument(kind: ChangeRequest.kind, key: ChangeRequest.key(1), body: JSONWriter.encode(document), revision: 1, updatedAt: clock.read(), updatedBy: "ops")
            ]))
        }
        let harness = try Harness(config, clock: clock)
        let stored = try Runtime.changeRequest(1, in: harness.snapshot)
        #expect(stored.command == CommandForm(name: "rollout.update", arguments: ["key": "banner"], body: Array(#"{"percentage": 70}"#.utf8)))
        let approved = try harness.runtime.execute(.changeRequest(.approve(id: 1, comment: nil)), as: .person("lead"), ifMatch: harness.read(1)).get()
        #expect(approved.changeRequest?.status == .applied)
        #expect(harness.percentage("banner") == 70)
    }

    @Test func aScreenIsStagedPromotedAndRolledBackAsRevisions() throws {
        let harness = try Harness(try Self.config())
        let staged = Array(screen.replacingOccurrences(of: "\"Hello\"", with: "\"Staged\"").utf8)
        let half = try #require(RolloutPercentage(basisPoints: 5_000))
        _ = try harness.runtime.execute(.screen(.publish(id: "home", document: staged, stage: half)), as: .person("ops")).get()
        var head = try #require(harness.snapshot.runtime.screens["home"]?.head)
        #expect(head.current == 1 && head.staged == 2 && head.stagedBasisPoints == 5_000)
        _ = try harness.runtime.execute(.screen(.promote(id: "home")), as: .person("ops")).get()
        head = try #require(harness.snapshot.runtime.screens["home"]?.head)
        #expect(head.current == 2 && head.staged == nil)
        // Nothing staged now: a promote is refused, and the store is as it was.
        let before = try harness.store.latestSequence()
        guard case .failure(.conflict) = harness.runtime.execute(.screen(.promote(id: "home")), as: .person("ops")) else {
            Issue.record("promoted nothing"); return
        }
        #expect(try harness.store.latestSequence() == before)
        let back = try harness.runtime.execute(.screen(.rollback(id: "home", revision: 1)), as: .person("ops")).get()
        #expect(back.snapshot.runtime.screens["home"]?.head.current == 3)
        #expect(try harness.store.revision(of: .screen("home"), number: 3)?.copiedFrom == 1)
        // A document that does not validate is refused with where.
        guard case .failure(.invalid(_, let problems, _)) = harness.runtime.execute(
            .screen(.publish(id: "home", document: Array("{\n\"id\": \"home\"}".utf8), stage: nil)), as: .person("ops"))
        else { Issue.record("an invalid screen was published"); return }
        #expect(!problems.isEmpty)
    }

    @Test func theWholeTargetingDocumentIsReplacedAndRolledBack() throws {
        let harness = try Harness(try Self.config())
        let now = harness.snapshot.targeting
        var rollouts = now.rollouts
        rollouts["banner"]?.percentage = try #require(RolloutPercentage(basisPoints: 7_500))
        let desired = try TargetingConfiguration(rules: now.rules, rollouts: rollouts, experiments: now.experiments)
        _ = try harness.runtime.execute(.targeting(.replace(desired)), as: .person("ops")).get()
        #expect(harness.percentage("banner") == 75)
        let history = try #require(harness.snapshot.runtime.targetingHistory)
        _ = try harness.runtime.execute(.targeting(.rollback(revision: history.head.current - 1)), as: .person("ops")).get()
        #expect(harness.percentage("banner") == 10)
        #expect(harness.snapshot.runtime.targetingHistory?.current.origin == .rollback)
    }

    @Test func aTokenIsKeptAsItsHashAndTheConfiguredOnesAreNotTouched() throws {
        var settings = Runtime.Settings()
        settings.configuredTokens = ["bootstrap"]
        let harness = try Harness(try Self.config(), settings: settings)
        let hash = [UInt8](repeating: 7, count: 32)
        _ = try harness.runtime.execute(.token(.create(name: "ci", role: .write, sha256: hash)), as: .person("admin")).get()
        #expect(harness.snapshot.runtime.operations.tokens["ci"]?.sha256 == hash)
        guard case .failure(.conflict) = harness.runtime.execute(.token(.delete(name: "bootstrap")), as: .person("admin")) else {
            Issue.record("a configured token was deleted"); return
        }
        let gone = try harness.runtime.execute(.token(.delete(name: "ci")), as: .person("admin")).get()
        #expect(gone.effect == .removed)
        #expect(harness.snapshot.runtime.operations.tokens["ci"] == nil)
    }

    @Test func aCommandsFormReadsBackToTheSameCommand() throws {
        let body = Array(#"{"percentage": 12.5, "description": null, "schedule": []}"#.utf8)
        let command = try Command(CommandForm(name: "rollout.update", arguments: ["key": "banner"], body: body))
        let form = try #require(command.form)
        #expect(form.name == "rollout.update")
        #expect(String(decoding: form.body, as: UTF8.self) == #"{"percentage":12.5,"description":null,"schedule":[]}"#)
        #expect(try Command(form).form == form)
        // A body with a mistake is refused with where it is.
        guard case .failure(.invalid(_, let problems, _)) = Result(catching: { () throws(Refusal) in
            try Command(CommandForm(name: "rollout.update", arguments: ["key": "banner"], body: Array("{\n\"percentage\": 101}".utf8)))
        }) else { Issue.record("a percentage of 101 was read"); return }
        #expect(problems.first?.location.line == 2)
    }
}

/// A temporary directory shaped like `Config/`, removed when the value is released.
final class TemporaryConfig {
    let url: URL

    init(screens: [String: String], targeting: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-runtime-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url.appendingPathComponent("screens"), withIntermediateDirectories: true)
        for (id, text) in screens { try Data(text.utf8).write(to: url.appendingPathComponent("screens/\(id).json")) }
        try Data(targeting.utf8).write(to: url.appendingPathComponent("targeting.json"))
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A rule, a rollout the screen uses behind it, and an experiment.
let targeting = """
    {
      "rules": {"is_gold": {"attribute": "tier", "op": "equals", "value": "gold"}},
      "rollouts": {"banner": {"percentage": 10, "description": "the banner"}},
      "experiments": {"hero": {"variants": {"control": 50, "big": 50}, "defaultVariant": "control"}}
    }
    """

/// A screen that names all three.
let screen = """
    {
      "id": "home", "schemaVersion": 1,
      "root": {"type": "VStack", "id": "root", "subviews": [
        {"type": "Rule", "id": "banner-rule", "rule": {"all": [{"rollout": "banner"}, {"not": {"rule": "is_gold"}}]},
         "child": {"type": "Text", "id": "banner", "values": {"text": "Banner"}}},
        {"type": "Experiment", "id": "hero-experiment", "experiment": "hero", "variants": {
          "control": {"type": "Text", "id": "hero-a", "values": {"text": "A"}},
          "big": {"type": "Text", "id": "hero-b", "values": {"text": "B"}}}},
        {"type": "Text", "id": "greeting", "values": {"text": "Hello"}}
      ]}
    }
    """
