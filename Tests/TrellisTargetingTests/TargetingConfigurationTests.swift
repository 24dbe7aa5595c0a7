import Testing
import TrellisJSON
import TrellisTargeting

@Suite struct TargetingConfigurationTests {
    func errors(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [String] {
        switch decodeTargeting(text) {
        case .success:
            Issue.record("decoded", sourceLocation: sourceLocation)
            return []
        case .failure(let error): return error.diagnostics.map(\.description)
        }
    }

    @Test func configTargetingDefinesWhatTheScreensUse() throws {
        let configuration = try configTargeting()
        #expect(configuration.rules.keys.sorted() == ["is_gold_member", "is_modern_client", "is_staff"])
        #expect(configuration.rollouts["gold-banner"]?.percentage == 25)
        #expect(configuration.rollouts["gold-banner"]?.groupID == "gold-banner")
        #expect(configuration.rollouts["gold-banner"]?.enabled == true)
        #expect(configuration.rollouts["gold-banner"]?.description?.hasPrefix("Gold week") == true)
        #expect(configuration.experiments["home-hero"]?.variants == [.init(name: "control", weight: 50), .init(name: "big", weight: 50)])
        #expect(configuration.experiments["home-hero"]?.defaultVariant == "control")
        #expect(configuration.experiments["product-related"]?.variants.map(\.name) == ["control", "hidden"])
    }

    @Test func defaults() throws {
        let configuration = try decodeTargeting("""
            {"rollouts": {"r": {"percentage": 5}}, "experiments": {"e": {"variants": {"b": 1, "a": 1}}}}
            """).get()
        #expect(configuration.rollouts["r"] == .init(percentage: 5, groupID: "r", enabled: true))
        #expect(configuration.experiments["e"]?.defaultVariant == "b")
        #expect(configuration.experiments["e"]?.enabled == true)
        #expect(try decodeTargeting("{}").get().rules.isEmpty)
    }

    @Test func unknownKeysEverywhere() {
        #expect(
            errors("""
                {"rule": {},
                 "rollouts": {"r": {"percentage": 5, "group": "x"}},
                 "experiments": {"e": {"variants": {"a": 1, "b": 1}, "enable": false, "owner": "me"}}}
                """) == [
                    "$.rule (line 1): unknown key \"rule\"; did you mean \"rules\"?",
                    "$.rollouts.r.group (line 2): unknown key \"group\"; did you mean \"groupId\"?",
                    "$.experiments.e.enable (line 3): unknown key \"enable\"; did you mean \"enabled\"?",
                    "$.experiments.e.owner (line 3): unknown key \"owner\"; expected one of: defaultVariant, description, enabled, variants",
                ])
    }

    @Test(arguments: [
        (#"{"percentage": 101}"#, "$.rollouts.r.percentage (line 1): expected a percentage from 0 to 100, found 101"),
        (#"{"percentage": -1}"#, "$.rollouts.r.percentage (line 1): expected a percentage from 0 to 100, found -1"),
        (#"{"percentage": 100.5}"#, "$.rollouts.r.percentage (line 1): expected a percentage from 0 to 100, found 100.5"),
        (#"{"percentage": 2.555}"#, "$.rollouts.r.percentage (line 1): expected a percentage with at most two decimals (such as 12.5 or 0.25), found 2.555"),
        (#"{"percentage": 0.001}"#, "$.rollouts.r.percentage (line 1): expected a percentage with at most two decimals (such as 12.5 or 0.25), found 0.001"),
        (#"{"percentage": "25"}"#, "$.rollouts.r.percentage (line 1): expected a percentage from 0 to 100 (a number such as 25 or 12.5), found a string"),
        (#"{}"#, "$.rollouts.r (line 1): missing required key \"percentage\""),
        (#"{"percentage": 5, "enabled": "no"}"#, "$.rollouts.r.enabled (line 1): expected a boolean, found a string"),
        (#"{"percentage": 5, "groupId": "a b"}"#, "$.rollouts.r.groupId (line 1): invalid name \"a b\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.'"),
    ])
    func badRollouts(rollout: String, expected: String) {
        #expect(errors(#"{"rollouts": {"r": "# + rollout + "}}") == [expected])
    }

    @Test(arguments: [
        (#"{"variants": {"a": 1.5, "b": 1}}"#, "$.experiments.e.variants.a (line 1): expected an integer from 0 to 1000000, found 1.5"),
        (#"{"variants": {"a": "1", "b": 1}}"#, "$.experiments.e.variants.a (line 1): expected a number, found a string"),
        (#"{"variants": {"a": 0, "b": 0}}"#, "$.experiments.e.variants (line 1): the weights are all 0; at least one variant needs a positive weight"),
        (#"{"variants": {"a": 1}}"#, "$.experiments.e.variants (line 1): an experiment needs 2 to 100 variants, found 1"),
        (#"{"variants": [1, 2]}"#, "$.experiments.e.variants (line 1): expected an object of variant name → integer weight, found an array"),
        (#"{"variants": {"a": 1, "b": 1}, "defaultVariant": "c"}"#, "$.experiments.e.defaultVariant (line 1): unknown default variant \"c\"; the variants are: a, b"),
        (#"{"variants": {"a": 1, "b c": 1}}"#, "$.experiments.e.variants[\"b c\"] (line 1): invalid variant name \"b c\""),
        (#"{"enabled": false}"#, "$.experiments.e (line 1): missing required key \"variants\""),
    ])
    func badExperiments(experiment: String, expected: String) {
        #expect(errors(#"{"experiments": {"e": "# + experiment + "}}") == [expected])
    }

    @Test func ruleCycleIsReportedWithItsPath() {
        #expect(
            errors("""
                {"rules": {
                  "a": {"all": [{"attribute": "x", "op": "equals", "value": "1"}, {"rule": "b"}]},
                  "b": {"not": {"rule": "a"}}
                }}
                """) == ["$.rules.a.all[1].rule (line 2): rules refer to each other in a cycle: a → b → a"])
        #expect(errors(#"{"rules": {"self": {"rule": "self"}}}"#) == ["$.rules.self.rule (line 1): rules refer to each other in a cycle: self → self"])
        #expect(
            errors(#"{"rules": {"a": {"rule": "b"}, "b": {"rule": "c"}, "c": {"any": [{"rule": "b"}]}}}"#)
                == ["$.rules.b.rule (line 1): rules refer to each other in a cycle: b → c → b"])
    }

    @Test func unknownReferencesInRules() {
        #expect(
            errors("""
                {"rules": {"a": {"any": [{"rule": "missing"}, {"rollout": "r"}, {"experiment": "e", "variant": "z"}, {"rule": "b"}]},
                           "b": {"rollout": "nope"}},
                 "rollouts": {"r": {"percentage": 1}},
                 "experiments": {"e": {"variants": {"x": 1, "y": 1}}}}
                """) == [
                    "$.rules.a.any[0].rule (line 1): unknown rule \"missing\"; known rules: a, b",
                    "$.rules.a.any[2].experiment (line 1): experiment \"e\" has no variant \"z\"; its variants are: x, y",
                    "$.rules.b.rollout (line 2): unknown rollout \"nope\"; known rollouts: r",
                ])
    }

    @Test func ruleSyntaxErrorsComeFromTheExpressionDecoder() {
        #expect(errors(#"{"rules": {"a": {"and": []}}}"#) == [#"$.rules.a.and (line 1): unknown expression "and"; expected all, any, not, rule, rollout, experiment or attribute"#])
        #expect(errors(#"{"rules": {"a b": {"rule": "c"}}}"#) == [#"$.rules["a b"] (line 1): invalid name "a b": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.'"#])
        #expect(errors(#"{"rules": []}"#) == ["$.rules (line 1): expected an object of name → definition, found an array"])
        #expect(errors(#"{"rules": {}, }"#).count == 1)  // a syntax error is the only diagnostic
    }

    @Test func configurationsBuiltInCodeAreChecked() {
        #expect(throws: DiagnosticsError.self) {
            try TargetingConfiguration(rules: ["a": .named("a")])
        }
        #expect(throws: DiagnosticsError.self) {
            try TargetingConfiguration(experiments: ["e": .init(variants: [.init(name: "a", weight: 1), .init(name: "b", weight: 1)], defaultVariant: "c")])
        }
    }

    /// Encoding writes every field; the encoding decodes to the same configuration and bytes.
    @Test func encodingRoundTrips() throws {
        let configuration = try configTargeting()
        let bytes = JSONWriter.encode(configuration.jsonValue)
        let again = try TargetingConfiguration.decode(bytes, source: "encoded").get()
        #expect(JSONWriter.encode(again.jsonValue) == bytes)
        #expect(again.rules == configuration.rules)
        #expect(again.rollouts == configuration.rollouts)
        #expect(again.experiments == configuration.experiments)
        let small = try decodeTargeting(#"{"rollouts": {"r": {"percentage": 5}}, "experiments": {"e": {"variants": {"b": 1, "a": 0}}}}"#).get()
        #expect(
            JSONWriter.string(small.jsonValue)
                == #"{"rules":{},"rollouts":{"r":{"percentage":5,"groupId":"r","enabled":true}},"experiments":{"e":{"variants":{"b":1,"a":0},"enabled":true,"defaultVariant":"b"}}}"#)
        #expect(errors(#"{"rollouts": {"r": {"percentage": 5, "description": 7}}}"#) == ["$.rollouts.r.description (line 1): expected a string, found a number"])
    }
}
