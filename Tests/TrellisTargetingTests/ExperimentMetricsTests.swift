import Testing
import TrellisJSON
import TrellisTargeting

/// An experiment's `goals`, `guardrails` and `exposures`: what it is run to move, what must not get
/// worse, and who records that a user saw a variant.
@Suite struct ExperimentMetricsTests {
    func errors(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [String] {
        TargetingConfigurationTests().errors(text, sourceLocation: sourceLocation)
    }

    @Test func theFieldsAreReadAndWrittenBackInTheirOrder() throws {
        let configuration = try decodeTargeting("""
            {"experiments": {"e": {"variants": {"a": 1, "b": 1}, "description": "d",
              "goals": ["revenue-per-user", "purchase-rate"], "guardrails": ["client-errors"], "exposures": "server"}}}
            """).get()
        let experiment = try #require(configuration.experiments["e"])
        #expect(experiment.goals == ["revenue-per-user", "purchase-rate"])
        #expect(experiment.guardrails == ["client-errors"])
        #expect(experiment.exposures == .server)
        #expect(experiment.metricNames == ["revenue-per-user", "purchase-rate", "client-errors"])
        let text = JSONWriter.string(configuration.jsonValue)
        #expect(
            text
                == #"{"rules":{},"rollouts":{},"experiments":{"e":{"variants":{"a":1,"b":1},"status":"running","defaultVariant":"a","overrides":{},"goals":["revenue-per-user","purchase-rate"],"guardrails":["client-errors"],"exposures":"server","description":"d"}}}"#)
        let again = try decodeTargeting(text).get()
        #expect(again.experiments == configuration.experiments)
        #expect(JSONWriter.string(again.jsonValue) == text)
    }

    @Test func theDefaultsAreNoMetricsAndClientExposures() throws {
        let experiment = try #require(try decodeTargeting(#"{"experiments": {"e": {"variants": {"a": 1, "b": 1}}}}"#).get().experiments["e"])
        #expect(experiment.goals.isEmpty && experiment.guardrails.isEmpty && experiment.exposures == .client)
        #expect(experiment.metricNames.isEmpty)
        // A guardrail alone, or a goal alone, is an experiment too.
        let guarded = try decodeTargeting(#"{"experiments": {"e": {"variants": {"a": 1, "b": 1}, "guardrails": ["latency"]}}}"#).get()
        #expect(guarded.experiments["e"]?.metricNames == ["latency"])
    }

    /// The bytes an experiment encoded to before these fields existed, whether it leaves them out or
    /// gives their defaults: stored documents, ETags and audit entries stay as they were.
    @Test func anExperimentWithoutThemEncodesByteIdenticallyToBefore() throws {
        let before = #"{"rules":{},"rollouts":{},"experiments":{"e":{"variants":{"b":1,"a":0},"status":"concluded","winner":"a","defaultVariant":"b","overrides":{"amy":"a"},"description":"d"}}}"#
        let plain = try decodeTargeting("""
            {"experiments": {"e": {"variants": {"b": 1, "a": 0}, "status": "concluded", "winner": "a", "overrides": {"amy": "a"}, "description": "d"}}}
            """).get()
        #expect(JSONWriter.string(plain.jsonValue) == before)
        let defaults = try decodeTargeting("""
            {"experiments": {"e": {"variants": {"b": 1, "a": 0}, "status": "concluded", "winner": "a", "overrides": {"amy": "a"}, "description": "d",
              "goals": [], "guardrails": [], "exposures": "client"}}}
            """).get()
        #expect(JSONWriter.string(defaults.jsonValue) == before)
        #expect(defaults.experiments == plain.experiments)
    }

    @Test(arguments: [
        (#""goals": "purchase-rate""#, "$.experiments.e.goals (line 1): expected an array of metric names, found a string"),
        (#""goals": null"#, "$.experiments.e.goals (line 1): expected an array of metric names, found null"),
        (#""goals": ["ok", 7]"#, "$.experiments.e.goals[1] (line 1): expected a name, found a number"),
        (#""goals": ["a b"]"#, #"$.experiments.e.goals[0] (line 1): invalid name "a b": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"#),
        (#""goals": [".."]"#, #"$.experiments.e.goals[0] (line 1): invalid name "..": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"#),
        (#""goals": ["x", "x"]"#, #"$.experiments.e.goals[1] (line 1): "x" is named twice; name each metric once"#),
        (#""guardrails": {"x": 1}"#, "$.experiments.e.guardrails (line 1): expected an array of metric names, found an object"),
        (#""guardrails": ["y", "x", "y"]"#, #"$.experiments.e.guardrails[2] (line 1): "y" is named twice; name each metric once"#),
        (#""goals": ["x", "y"], "guardrails": ["z", "y"]"#, #"$.experiments.e.guardrails[1] (line 1): "y" is both a goal and a guardrail; a metric is one or the other"#),
        (#""exposures": "both""#, #"$.experiments.e.exposures (line 1): unknown exposures "both"; expected client or server"#),
        (#""exposures": "Server""#, #"$.experiments.e.exposures (line 1): unknown exposures "Server"; expected client or server"#),
        (#""exposures": true"#, "$.experiments.e.exposures (line 1): expected a string, found a boolean"),
    ])
    func eachMistakeIsReportedAtItsPath(members: String, expected: String) {
        #expect(errors(#"{"experiments": {"e": {"variants": {"a": 1, "b": 1}, "# + members + "}}}") == [expected])
    }

    @Test func atMost20GoalsAnd20Guardrails() throws {
        func names(_ count: Int, _ prefix: String) -> String { (0..<count).map { "\"\(prefix)\($0)\"" }.joined(separator: ", ") }
        let fine = #"{"experiments": {"e": {"variants": {"a": 1, "b": 1}, "goals": [\#(names(20, "g"))], "guardrails": [\#(names(20, "r"))]}}}"#
        #expect(try decodeTargeting(fine).get().experiments["e"]?.metricNames.count == 40)
        #expect(
            errors(#"{"experiments": {"e": {"variants": {"a": 1, "b": 1}, "goals": [\#(names(21, "g"))], "guardrails": [\#(names(21, "r"))]}}}"#) == [
                "$.experiments.e.goals (line 1): an experiment has at most 20 goals, found 21",
                "$.experiments.e.guardrails (line 1): an experiment has at most 20 guardrails, found 21",
            ])
    }

    /// Every mistake at once, each on its own line, beside the experiment's other mistakes.
    @Test func everyMistakeIsReportedWithItsLine() {
        #expect(
            errors("""
                {"experiments": {"e": {"variants": {"a": 1, "b": 1},
                  "defaultVariant": "c",
                  "goals": ["purchase-rate",
                            "purchase-rate"],
                  "guardrails": ["client-errors",
                                 "bad name"],
                  "exposures": "sometimes"}}}
                """) == [
                    #"$.experiments.e.defaultVariant (line 2): unknown default variant "c"; the variants are: a, b"#,
                    #"$.experiments.e.goals[1] (line 4): "purchase-rate" is named twice; name each metric once"#,
                    #"$.experiments.e.guardrails[1] (line 6): invalid name "bad name": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"#,
                    #"$.experiments.e.exposures (line 7): unknown exposures "sometimes"; expected client or server"#,
                ])
        #expect(
            errors("""
                {"experiments": {"e": {"variants": {"a": 1, "b": 1},
                  "goals": ["purchase-rate", "revenue"],
                  "guardrails": ["latency",
                                 "revenue"]}}}
                """) == [#"$.experiments.e.guardrails[1] (line 4): "revenue" is both a goal and a guardrail; a metric is one or the other"#])
    }

    @Test func unknownKeysListTheNewFields() {
        #expect(
            errors(#"{"experiments": {"e": {"variants": {"a": 1, "b": 1}, "goal": ["x"], "exposure": "server"}}}"#) == [
                #"$.experiments.e.goal (line 1): unknown key "goal"; did you mean "goals"?"#,
                #"$.experiments.e.exposure (line 1): unknown key "exposure"; did you mean "exposures"?"#,
            ])
    }

    @Test func configurationsBuiltInCodeGetTheSameChecks() {
        let ab: [TargetingConfiguration.Experiment.Variant] = [.init(name: "a", weight: 1), .init(name: "b", weight: 1)]
        func problems(_ experiment: TargetingConfiguration.Experiment) -> [String] {
            do {
                _ = try TargetingConfiguration(experiments: ["e": experiment])
                return []
            } catch { return error.diagnostics.map(\.description) }
        }
        #expect(problems(.init(variants: ab, defaultVariant: "a", goals: ["x"], guardrails: ["y"], exposures: .server)) == [])
        #expect(problems(.init(variants: ab, defaultVariant: "a", goals: ["x", "x"])) == [#"$.experiments.e.goals[1]: "x" is named twice; name each metric once"#])
        #expect(
            problems(.init(variants: ab, defaultVariant: "a", guardrails: ["a b"]))
                == [#"$.experiments.e.guardrails[0]: invalid name "a b": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"#])
        #expect(
            problems(.init(variants: ab, defaultVariant: "a", goals: ["x"], guardrails: ["x"]))
                == [#"$.experiments.e.guardrails[0]: "x" is both a goal and a guardrail; a metric is one or the other"#])
        #expect(
            problems(.init(variants: ab, defaultVariant: "a", goals: (0...20).map { "m\($0)" }))
                == ["$.experiments.e.goals: an experiment has at most 20 goals, found 21"])
    }
}
