import Foundation
import Testing
import TrellisJSON
import TrellisRuntime
import TrellisStore
import TrellisTargeting

/// An experiment's goals, guardrails and exposure recording at run time: set by an update, kept
/// durably, dropped by a reset, read from documents stored before they existed, and refused with
/// the path and line of each mistake.
@Suite(.serialized) struct ExperimentMetricsRuntimeTests {
    typealias Harness = RuntimeCommandTests.Harness

    /// Experiments name only metrics that exist: every name these tests give, defined.
    static let metricNames = ["a", "b", "clicks", "client-errors", "errors", "purchase-rate", "revenue-per-user"] + (0...20).map { "m\($0)" }

    static func withMetrics(_ harness: Harness) throws -> Harness {
        for name in metricNames where harness.snapshot.runtime.operations.metrics[name] == nil {
            let metric = try CommandBody.metric(Array(#"{"type": "proportion", "event": "e"}"#.utf8), name: name)
            _ = try harness.runtime.execute(.metric(.define(metric)), as: .person("ops")).get()
        }
        return harness
    }

    static func update(_ key: String, _ body: String) throws -> Command {
        .experiment(.update(key: key, try ExperimentPatch(body: Array(body.utf8))))
    }

    /// The refusal of `body` as an update of `hero`, whether the body is refused as read or once planned.
    static func refusal(_ harness: Harness, _ body: String) -> Refusal? {
        do {
            let command = try update("hero", body)
            if case .failure(let refusal) = harness.runtime.execute(command, as: .person("ops")) { return refusal }
            return nil
        } catch let refusal as Refusal {
            return refusal
        } catch {
            return nil
        }
    }

    @Test func anUpdateSetsThemDurablyAndAResetDropsThem() throws {
        let config = try RuntimeCommandTests.config()
        let harness = try Self.withMetrics(try Harness(config))
        let body = #"{"goals": ["purchase-rate", "revenue-per-user"], "guardrails": ["client-errors"], "exposures": "server"}"#
        #expect(try harness.runtime.execute(Self.update("hero", body), as: .person("ops")).get().effect == .changed)
        var hero = try #require(harness.snapshot.targeting.experiments["hero"])
        #expect(hero.goals == ["purchase-rate", "revenue-per-user"] && hero.guardrails == ["client-errors"] && hero.exposures == .server)
        #expect(hero.metricNames == ["purchase-rate", "revenue-per-user", "client-errors"])
        // The variants and weights are the configuration's still.
        #expect(hero.variants.map(\.weight) == [50, 50])
        let stored = try #require(harness.snapshot.runtime.experiments["hero"]?.document.body)
        #expect(
            String(decoding: stored, as: UTF8.self)
                == #"{"weights":{"control":50,"big":50},"status":"running","overrides":{},"goals":["purchase-rate","revenue-per-user"],"guardrails":["client-errors"],"exposures":"server"}"#)

        // A later update leaves them be unless it names them; [] names none, and client is the default again.
        _ = try harness.runtime.execute(Self.update("hero", #"{"weights": {"big": 70}}"#), as: .person("ops")).get()
        #expect(harness.snapshot.targeting.experiments["hero"]?.guardrails == ["client-errors"])
        _ = try harness.runtime.execute(Self.update("hero", #"{"guardrails": [], "exposures": "client"}"#), as: .person("ops")).get()
        hero = try #require(harness.snapshot.targeting.experiments["hero"])
        #expect(hero.goals == ["purchase-rate", "revenue-per-user"] && hero.guardrails.isEmpty && hero.exposures == .client)

        // Durable: a runtime opened on the same file reads them back.
        let reopened = try Self.withMetrics(try Harness(config))
        #expect(reopened.snapshot.targeting.experiments["hero"]?.goals == ["purchase-rate", "revenue-per-user"])

        _ = try reopened.runtime.execute(.experiment(.reset(key: "hero")), as: .person("ops")).get()
        hero = try #require(reopened.snapshot.targeting.experiments["hero"])
        #expect(hero.goals.isEmpty && hero.guardrails.isEmpty && hero.exposures == .client)
    }

    /// What an experiment's runtime document held before goals, guardrails and exposures existed.
    @Test func anOldStoredExperimentDocumentStillDecodes() throws {
        let old = #"{"weights":{"control":20,"big":80},"status":"concluded","winner":"big","overrides":{"qa":"control"},"description":"d"}"#
        let value = try ExperimentValue.decode(Array(old.utf8), source: "experiment hero").get()
        guard case .settings(let settings) = value.form else { Issue.record("read as \(value.form)"); return }
        #expect(settings.goals.isEmpty && settings.guardrails.isEmpty && settings.exposures == .client)
        #expect(JSONWriter.string(value.jsonValue) == old)
        let defined = #"{"defined":{"variants":{"a":1,"b":1},"status":"running","defaultVariant":"a","overrides":{}}}"#
        let definedValue = try ExperimentValue.decode(Array(defined.utf8), source: "experiment cta").get()
        #expect(JSONWriter.string(definedValue.jsonValue) == defined)

        // And a store holding one starts with it in force.
        let config = try RuntimeCommandTests.config()
        let clock = RuntimeCommandTests.Clock()
        do {
            let first = try Self.withMetrics(try Harness(config, clock: clock))
            _ = try first.store.commit(StoreChange(documents: [
                StoredDocument(kind: ExperimentValue.kind, key: "hero", body: Array(old.utf8), revision: 1, updatedAt: clock.read(), updatedBy: "ops")
            ]))
        }
        let harness = try Self.withMetrics(try Harness(config, clock: clock))
        let hero = try #require(harness.snapshot.targeting.experiments["hero"])
        #expect(hero.variants.map(\.weight) == [20, 80] && hero.status == .concluded(winner: "big"))
        #expect(hero.metricNames.isEmpty && hero.exposures == .client)
    }

    @Test func aMetricBothAGoalAndAGuardrailAfterTheUpdateIsRefusedAtTheNameGiven() throws {
        let harness = try Self.withMetrics(try Harness(try RuntimeCommandTests.config()))
        _ = try harness.runtime.execute(Self.update("hero", #"{"guardrails": ["client-errors"]}"#), as: .person("ops")).get()
        let before = try harness.store.latestSequence()
        // With the guardrail the experiment has.
        guard case .invalid(_, let problems, _) = Self.refusal(harness, "{\"goals\": [\"purchase-rate\",\n \"client-errors\"]}") else {
            Issue.record("a goal that is a guardrail was set"); return
        }
        #expect(problems.map(\.description) == [#"$.goals[1] (line 2): "client-errors" is both a goal and a guardrail; a metric is one or the other"#])
        #expect(try harness.store.latestSequence() == before)
        // Both in one body: at the guardrail.
        guard case .invalid(_, let both, _) = Self.refusal(harness, "{\"goals\": [\"x\"],\n \"guardrails\": [\"y\", \"x\"]}") else {
            Issue.record("a metric both a goal and a guardrail was set"); return
        }
        #expect(both.map(\.description) == [#"$.guardrails[1] (line 2): "x" is both a goal and a guardrail; a metric is one or the other"#])
        // Moving a metric from guardrail to goal in one update is fine.
        _ = try harness.runtime.execute(Self.update("hero", #"{"goals": ["client-errors"], "guardrails": []}"#), as: .person("ops")).get()
        #expect(harness.snapshot.targeting.experiments["hero"]?.goals == ["client-errors"])
    }

    @Test(arguments: [
        ("{\n\"goals\": \"purchase-rate\"}", "$.goals (line 2): expected an array of metric names, found a string"),
        ("{\"goals\": [\"x\",\n \"x\"]}", #"$.goals[1] (line 2): "x" is named twice; name each metric once"#),
        ("{\"guardrails\": [\n\"a b\"]}", #"$.guardrails[0] (line 2): invalid name "a b": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"#),
        ("{\n\"exposures\": \"both\"}", #"$.exposures (line 2): unknown exposures "both"; expected client or server"#),
        ("{\n\"goal\": []}", #"$.goal (line 2): unknown key "goal"; did you mean "goals"?"#),
    ])
    func eachMistakeInAnUpdateIsReportedAtItsPathAndLine(body: String, expected: String) throws {
        let harness = try Self.withMetrics(try Harness(try RuntimeCommandTests.config()))
        guard case .invalid(_, let problems, _) = Self.refusal(harness, body) else { Issue.record("\(body) was accepted"); return }
        #expect(problems.map(\.description) == [expected])
        #expect(harness.snapshot.targeting.experiments["hero"]?.metricNames == [])
    }

    @Test func twentyOneGoalsAreRefused() throws {
        let harness = try Self.withMetrics(try Harness(try RuntimeCommandTests.config()))
        let names = (0...20).map { "\"m\($0)\"" }.joined(separator: ", ")
        guard case .invalid(_, let problems, _) = Self.refusal(harness, #"{"goals": [\#(names)]}"#) else { Issue.record("21 goals set"); return }
        #expect(problems.map(\.description) == ["$.goals (line 1): an experiment has at most 20 goals, found 21"])
    }

    /// A change request keeps an update as its form; the form reads back to the same update.
    @Test func anUpdatesFormKeepsTheFields() throws {
        let body = Array(#"{"status": "paused", "goals": ["a", "b"], "guardrails": [], "exposures": "server"}"#.utf8)
        let command = try Command(CommandForm(name: "experiment.update", arguments: ["key": "hero"], body: body))
        let form = try #require(command.form)
        #expect(String(decoding: form.body, as: UTF8.self) == #"{"status":"paused","goals":["a","b"],"guardrails":[],"exposures":"server"}"#)
        #expect(try Command(form).form == form)
        let create = Array(#"{"key": "cta", "variants": {"a": 1, "b": 1}, "goals": ["a"], "exposures": "server"}"#.utf8)
        let created = try #require(try Command(CommandForm(name: "experiment.create", body: create)).form)
        #expect(
            String(decoding: created.body, as: UTF8.self)
                == #"{"key":"cta","variants":{"a":1,"b":1},"status":"running","defaultVariant":"a","overrides":{},"goals":["a"],"exposures":"server"}"#)
        #expect(try Command(created).form == created)
    }

    @Test func aCreatedExperimentKeepsThemAndTheAdminViewShowsThem() throws {
        let harness = try Self.withMetrics(try Harness(try RuntimeCommandTests.config()))
        let body = Array(#"{"key": "cta", "variants": {"a": 1, "b": 1}, "goals": ["clicks"], "guardrails": ["errors"], "exposures": "server"}"#.utf8)
        _ = try harness.runtime.execute(.experiment(try CommandBody.newExperiment(body)), as: .person("ops")).get()
        let view = ResourceView.experiment("cta", in: harness.snapshot)
        #expect(view["goals"].map { JSONWriter.string($0) } == #"["clicks"]"#)
        #expect(view["guardrails"].map { JSONWriter.string($0) } == #"["errors"]"#)
        #expect(view["exposures"]?.stringValue == "server")
        // One without them shows the defaults.
        let hero = ResourceView.experiment("hero", in: harness.snapshot)
        #expect(hero["goals"].map { JSONWriter.string($0) } == "[]" && hero["exposures"]?.stringValue == "client")
        // A bad create is refused at its path.
        let bad = Array("{\"key\": \"x\", \"variants\": {\"a\": 1, \"b\": 1},\n \"goals\": [\"g\"], \"guardrails\": [\"g\"]}".utf8)
        do {
            _ = try CommandBody.newExperiment(bad)
            Issue.record("a metric both a goal and a guardrail was created")
        } catch {
            guard case .invalid(_, let problems, _) = error else { Issue.record("\(error)"); return }
            #expect(problems.map(\.description) == [#"$.guardrails[0] (line 2): "g" is both a goal and a guardrail; a metric is one or the other"#])
        }
    }
}
