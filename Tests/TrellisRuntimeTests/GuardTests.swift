import Foundation
import Logging
import Testing
import TrellisJSON
import TrellisRuntime
import TrellisStats
import TrellisStore
import TrellisTargeting

/// Guards in process: a real runtime store and a real event store in a temporary directory, the
/// runner looked at once at a time the test chooses.
@Suite(.serialized) struct GuardTests {
    typealias Harness = RuntimeCommandTests.Harness

    struct Fleet {
        let harness: Harness
        let events: SQLiteEventStore
        let runner: GuardRunner

        init() throws {
            harness = try Harness(try RuntimeCommandTests.config())
            events = try SQLiteEventStore(path: harness.config.url.appendingPathComponent("events.sqlite").path)
            runner = GuardRunner(runtime: harness.runtime, events: events, holder: "test", logger: Logger(label: "test"))
        }

        /// `users` users of `variant` of `subject`, `failing` of them sending `event` after exposure.
        func arm(_ subject: ExposureSubject, _ variant: String, users: Int, failing: Int, event: String, prefix: String) throws {
            let now = harness.clock.read()
            var batch = EventBatch()
            for i in 0..<users {
                let user = "\(prefix)\(i)"
                batch.exposures.append(Exposure(subject: subject, user: user, variant: variant, at: now - 100, dimensions: ExposureDimensions(), source: .server))
                if i < failing { batch.events.append(TrackedEvent(id: "\(user)-f", user: user, name: event, value: nil, at: now - 50, receivedAt: now)) }
            }
            try events.append(batch)
        }

        func guarding(_ subject: Guard.Subject, _ body: String) throws {
            _ = try harness.runtime.execute(.guardrail(.set(try CommandBody.guarding(subject, Array(body.utf8)))), as: .person("ops")).get()
        }
    }

    static func stage(_ harness: Harness) throws {
        let document = Array(try String(contentsOf: harness.config.url.appendingPathComponent("screens/home.json"), encoding: .utf8).replacingOccurrences(of: "Hello", with: "Hi").utf8)
        _ = try harness.runtime.execute(.screen(.publish(id: "home", document: document, stage: RolloutPercentage(basisPoints: 5_000))), as: .person("ops")).get()
    }

    @Test func aStagedRevisionThatFailsMoreIsAbandonedByTheGuardWithItsFigures() throws {
        let fleet = try Fleet()
        try Self.stage(fleet.harness)
        let snapshot = fleet.harness.snapshot
        let staged = try #require(snapshot.staged["home"]?.entry.revision)
        let current = try #require(snapshot.screens["home"]?.revision)
        try fleet.guarding(.screen("home"), #"{"checks": [{"metric": "render-failures", "tolerance": 0.1}], "minimumUsers": 100}"#)
        let failure = RenderFailure.eventName(screen: "home")
        try fleet.arm(.screen("home"), String(current), users: 3_000, failing: 30, event: failure, prefix: "c")
        try fleet.arm(.screen("home"), String(staged), users: 3_000, failing: 150, event: failure, prefix: "t")
        #expect(fleet.runner.runOnce() == [.screen("home")])
        #expect(fleet.harness.snapshot.staged["home"] == nil, "the staged revision is still served")
        let audit = try fleet.harness.audit("screens/home")
        #expect(audit.suffix(2).map(\.action) == ["screen.abandon", "guard.halt"])
        #expect(audit.suffix(2).allSatisfy { $0.actor == "guard" })
        let evidence = try JSONParser.parse(try #require(audit.last?.after))
        #expect(evidence["verdict"]?.stringValue == "regression")
        #expect(evidence["checks"]?.arrayValue?.first?["treatmentUsers"]?.numberValue == 3_000)
        #expect(fleet.runner.lastEvaluation(of: .screen("home"))?.verdict == .regression)
        // Nothing staged, nothing to do: a second look halts nothing.
        #expect(fleet.runner.runOnce().isEmpty)
    }

    @Test func aRevisionThatFailsAsOftenAsTheCurrentOneIsLeftServed() throws {
        let fleet = try Fleet()
        try Self.stage(fleet.harness)
        let snapshot = fleet.harness.snapshot
        let staged = try #require(snapshot.staged["home"]?.entry.revision)
        let current = try #require(snapshot.screens["home"]?.revision)
        try fleet.guarding(.screen("home"), #"{"checks": [{"metric": "render-failures"}], "minimumUsers": 100}"#)
        let failure = RenderFailure.eventName(screen: "home")
        try fleet.arm(.screen("home"), String(current), users: 3_000, failing: 60, event: failure, prefix: "c")
        try fleet.arm(.screen("home"), String(staged), users: 3_000, failing: 61, event: failure, prefix: "t")
        #expect(fleet.runner.runOnce().isEmpty)
        #expect(fleet.harness.snapshot.staged["home"] != nil)
        #expect(fleet.runner.lastEvaluation(of: .screen("home"))?.verdict == .noRegression)
    }

    @Test func tooFewUsersDecideNothingHoweverBadTheyLook() throws {
        let fleet = try Fleet()
        try Self.stage(fleet.harness)
        let snapshot = fleet.harness.snapshot
        let staged = try #require(snapshot.staged["home"]?.entry.revision)
        let current = try #require(snapshot.screens["home"]?.revision)
        try fleet.guarding(.screen("home"), #"{"checks": [{"metric": "render-failures"}], "minimumUsers": 1000}"#)
        let failure = RenderFailure.eventName(screen: "home")
        try fleet.arm(.screen("home"), String(current), users: 900, failing: 5, event: failure, prefix: "c")
        try fleet.arm(.screen("home"), String(staged), users: 900, failing: 400, event: failure, prefix: "t")
        #expect(fleet.runner.runOnce().isEmpty)
        #expect(fleet.runner.lastEvaluation(of: .screen("home"))?.verdict == .insufficient)
    }

    @Test func aRolloutWhoseUsersErrMoreIsKilledAndAHaltAgainstAnOlderVersionIsRefused() throws {
        let fleet = try Fleet()
        let errors = try CommandBody.metric(Array(#"{"type": "proportion", "event": "client_error", "higherIsBetter": false}"#.utf8), name: "errors")
        _ = try fleet.harness.runtime.execute(.metric(.define(errors)), as: .person("ops")).get()
        try fleet.guarding(.rollout("banner"), #"{"checks": [{"metric": "errors", "tolerance": 0.05}], "minimumUsers": 100}"#)
        try fleet.arm(.rollout("banner"), "off", users: 4_000, failing: 40, event: "client_error", prefix: "c")
        try fleet.arm(.rollout("banner"), "on", users: 4_000, failing: 200, event: "client_error", prefix: "t")
        // What the guard saw, then a person's change: the halt made against what it saw is refused.
        let seen = ResourceView.version(of: .rollout("banner"), in: fleet.harness.snapshot)
        _ = try fleet.harness.runtime.execute(RuntimeCommandTests.set("banner", to: 20), as: .person("ops")).get()
        guard case .failure(.versionMismatch) = fleet.harness.runtime.execute(
            .guardrail(.halt(.rollout("banner"), evidence: .null)), as: .guardian, ifMatch: .version(seen))
        else { Issue.record("a halt made against an older version was applied"); return }
        #expect(fleet.harness.snapshot.targeting.rollouts["banner"]?.enabled == true)
        #expect(fleet.runner.runOnce() == [.rollout("banner")])
        #expect(fleet.harness.snapshot.targeting.rollouts["banner"]?.enabled == false)
        #expect(try fleet.harness.audit("rollouts/banner").last.map { "\($0.action) by \($0.actor)" } == "guard.halt by guard")
    }

    @Test func aGuardNamesMetricsThatExistAndRenderFailuresOnlyForAScreen() throws {
        let fleet = try Fleet()
        guard case .failure(.invalid(_, let problems, _)) = fleet.harness.runtime.execute(
            .guardrail(.set(try CommandBody.guarding(.rollout("banner"), Array(#"{"checks": [{"metric": "nope"}]}"#.utf8)))), as: .person("ops"))
        else { Issue.record("a guard named a metric that does not exist"); return }
        #expect(problems.map(\.path.description) == ["$.checks[0].metric"])
        guard case .failure(.invalid(_, let more, _)) = Result(catching: { () throws(Refusal) in
            try CommandBody.guarding(.rollout("banner"), Array("{\"checks\": [{\"metric\": \"render-failures\"}],\n \"action\": \"explode\"}".utf8))
        }) else { Issue.record("a bad guard was read"); return }
        #expect(more.map { "\($0.path) \($0.location.line)" } == ["$.checks[0].metric 1", "$.action 2"])
    }

    @Test func aGuardedRampTakesItsNextStepOnlyAfterALookThatFoundNoRegression() throws {
        let fleet = try Fleet()
        let harness = fleet.harness
        let errors = try CommandBody.metric(Array(#"{"type": "proportion", "event": "client_error", "higherIsBetter": false}"#.utf8), name: "errors")
        _ = try harness.runtime.execute(.metric(.define(errors)), as: .person("ops")).get()
        try fleet.guarding(.rollout("banner"), #"{"checks": [{"metric": "errors"}], "minimumUsers": 1000, "action": "hold"}"#)
        let step = ScheduledStep(at: harness.clock.read() + 60, percentage: try #require(RolloutPercentage(basisPoints: 5_000)))
        _ = try harness.runtime.execute(.rollout(.update(key: "banner", RolloutPatch(schedule: [step]))), as: .person("ops")).get()
        harness.clock.advance(by: 120)
        // Due, but no look yet: it waits.
        harness.runtime.runScheduledWork()
        #expect(harness.percentage("banner") == 10)
        // A look with too few users: still waits.
        try fleet.arm(.rollout("banner"), "off", users: 500, failing: 10, event: "client_error", prefix: "c")
        try fleet.arm(.rollout("banner"), "on", users: 500, failing: 10, event: "client_error", prefix: "t")
        #expect(fleet.runner.runOnce().isEmpty)
        harness.runtime.runScheduledWork()
        #expect(harness.percentage("banner") == 10)
        // Enough users and no regression: the step goes.
        try fleet.arm(.rollout("banner"), "off", users: 3_000, failing: 60, event: "client_error", prefix: "c2-")
        try fleet.arm(.rollout("banner"), "on", users: 3_000, failing: 60, event: "client_error", prefix: "t2-")
        fleet.runner.runOnce()
        #expect(fleet.runner.lastEvaluation(of: .rollout("banner"))?.verdict == .noRegression)
        harness.runtime.runScheduledWork()
        #expect(harness.percentage("banner") == 50)
    }
}
