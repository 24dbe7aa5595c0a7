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
        #expect(configuration.rules.keys.sorted() == ["is_gold_member", "is_modern_client", "is_staff", "signed_in"])
        #expect(configuration.rollouts["checkout-v2"]?.percentage == 10)
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
        #expect(configuration.experiments["e"]?.status == .running)
        #expect(configuration.experiments["e"]?.overrides == [:])
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
                    "$.experiments.e.owner (line 3): unknown key \"owner\"; expected one of: defaultVariant, description, enabled, exposures, goals, guardrails, overrides, status, variants, winner",
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
        (#"{"percentage": 5, "groupId": "a b"}"#, "$.rollouts.r.groupId (line 1): invalid name \"a b\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"),
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
        #expect(errors(#"{"rules": {"a b": {"rule": "c"}}}"#) == [#"$.rules["a b"] (line 1): invalid name "a b": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"#])
        #expect(errors(#"{"rules": []}"#) == ["$.rules (line 1): expected an object of name → definition, found an array"])
        #expect(errors(#"{"rules": {}, }"#).count == 1)  // a syntax error is the only diagnostic
    }

    @Test func configurationsBuiltInCodeAreChecked() {
        #expect(throws: DiagnosticsError.self) {
            try TargetingConfiguration(rules: ["a": .named("a")])
        }
        let ab: [TargetingConfiguration.Experiment.Variant] = [.init(name: "a", weight: 1), .init(name: "b", weight: 1)]
        #expect(throws: DiagnosticsError.self) {
            try TargetingConfiguration(experiments: ["e": .init(variants: ab, status: .concluded(winner: "c"), defaultVariant: "a")])
        }
        #expect(throws: DiagnosticsError.self) {
            try TargetingConfiguration(experiments: ["e": .init(variants: ab, defaultVariant: "a", overrides: ["u": "c"])])
        }
        #expect(throws: DiagnosticsError.self) {
            try TargetingConfiguration(experiments: ["e": .init(variants: ab, defaultVariant: "a", overrides: ["": "a"])])
        }
        let many = Dictionary(uniqueKeysWithValues: (0...1_000).map { ("user-\($0)", "a") })
        do {
            _ = try TargetingConfiguration(experiments: ["e": .init(variants: ab, defaultVariant: "a", overrides: many)])
            Issue.record("1001 overrides accepted")
        } catch {
            #expect(error.diagnostics.map(\.description) == ["$.experiments.e.overrides: an experiment has at most 1000 overrides, found 1001"])
        }
        #expect(throws: Never.self) {
            try TargetingConfiguration(experiments: ["e": .init(variants: ab, status: .concluded(winner: "b"), defaultVariant: "a", overrides: ["u": "a"])])
        }
        #expect(throws: DiagnosticsError.self) {
            try TargetingConfiguration(experiments: ["e": .init(variants: [.init(name: "a", weight: 1), .init(name: "b", weight: 1)], defaultVariant: "c")])
        }
    }

    @Test func statusesAndOverrides() throws {
        let configuration = try decodeTargeting("""
            {"experiments": {
              "running": {"variants": {"a": 1, "b": 1}, "status": "running", "overrides": {"qa-kim": "b", "Zoë": "a"}},
              "paused": {"variants": {"a": 1, "b": 1}, "status": "paused"},
              "old-off": {"variants": {"a": 1, "b": 1}, "enabled": false},
              "old-on": {"variants": {"a": 1, "b": 1}, "enabled": true},
              "done": {"variants": {"a": 1, "b": 0}, "status": "concluded", "winner": "b"}}}
            """).get()
        let experiments = configuration.experiments
        #expect(experiments["running"]?.status == .running && experiments["running"]?.overrides == ["qa-kim": "b", "Zoë": "a"])
        #expect(experiments["paused"]?.status == .paused && experiments["old-off"]?.status == .paused)
        #expect(experiments["old-on"]?.status == .running)
        #expect(experiments["done"]?.status == .concluded(winner: "b"))  // a winner of weight 0 is a deliberate choice
    }

    @Test(arguments: [
        (#"{"variants": {"a": 1, "b": 1}, "status": "stopped"}"#, #"$.experiments.e.status (line 1): unknown status "stopped"; expected running, paused or concluded"#),
        (#"{"variants": {"a": 1, "b": 1}, "status": false}"#, "$.experiments.e.status (line 1): expected a string, found a boolean"),
        (#"{"variants": {"a": 1, "b": 1}, "status": "paused", "enabled": false}"#,
         #"$.experiments.e.enabled (line 1): give "status" or "enabled", not both ("enabled": false is the older spelling of "status": "paused")"#),
        (#"{"variants": {"a": 1, "b": 1}, "status": "concluded"}"#,
         #"$.experiments.e (line 1): missing required key "winner": a concluded experiment names the variant everyone gets"#),
        (#"{"variants": {"a": 1, "b": 1}, "status": "concluded", "winner": "c"}"#, #"$.experiments.e.winner (line 1): unknown winner "c"; the variants are: a, b"#),
        (#"{"variants": {"a": 1, "b": 1}, "status": "concluded", "winner": 1}"#, "$.experiments.e.winner (line 1): expected a name, found a number"),
        (#"{"variants": {"a": 1, "b": 1}, "status": "running", "winner": "a"}"#,
         #"$.experiments.e.winner (line 1): "winner" is only for "status": "concluded"; this experiment is running"#),
        (#"{"variants": {"a": 1, "b": 1}, "winner": "a"}"#, #"$.experiments.e.winner (line 1): "winner" is only for "status": "concluded"; this experiment is running"#),
        (#"{"variants": {"a": 1, "b": 1}, "enabled": false, "winner": "a"}"#,
         #"$.experiments.e.winner (line 1): "winner" is only for "status": "concluded"; this experiment is paused"#),
        (#"{"variants": {"a": 1, "b": 1}, "overrides": ["u"]}"#, "$.experiments.e.overrides (line 1): expected an object of user id → variant name, found an array"),
        (#"{"variants": {"a": 1, "b": 1}, "overrides": {"u": "c"}}"#, #"$.experiments.e.overrides.u (line 1): unknown variant "c"; the variants are: a, b"#),
        (#"{"variants": {"a": 1, "b": 1}, "overrides": {"u": 1}}"#, "$.experiments.e.overrides.u (line 1): expected a variant name, found a number"),
        (#"{"variants": {"a": 1, "b": 1}, "overrides": {"": "a"}}"#, #"$.experiments.e.overrides[""] (line 1): a user id must not be empty"#),
        (#"{"variants": {"a": 1, "b": 1}, "overrides": {"tab\there": "a"}}"#, #"$.experiments.e.overrides["tab\there"] (line 1): a user id must not contain control characters"#),
    ])
    func badStatusesAndOverrides(experiment: String, expected: String) {
        #expect(errors(#"{"experiments": {"e": "# + experiment + "}}") == [expected])
    }

    /// Every bad override is reported, each at its own line; the limits are 1000 overrides and 256-byte ids.
    @Test func overrideLimits() {
        let long = String(repeating: "x", count: 257)
        #expect(
            errors("""
                {"experiments": {"e": {"variants": {"a": 1, "b": 1},
                  "overrides": {"ok": "a",
                    "\(long)": "a",
                    "qa": "z"}}}}
                """) == [
                    "$.experiments.e.overrides.\(long) (line 3): a user id is at most 256 bytes, this one has 257",
                    #"$.experiments.e.overrides.qa (line 4): unknown variant "z"; the variants are: a, b"#,
                ])
        let many = (0...1_000).map { "\"u\($0)\": \"a\"" }.joined(separator: ", ")
        #expect(
            errors(#"{"experiments": {"e": {"variants": {"a": 1, "b": 1}, "overrides": {"# + many + "}}}}")
                == ["$.experiments.e.overrides (line 1): an experiment has at most 1000 overrides, found 1001"])
        let enough = (0..<1_000).map { "\"u\($0)\": \"b\"" }.joined(separator: ", ")
        #expect(throws: Never.self) {
            try decodeTargeting(#"{"experiments": {"e": {"variants": {"a": 1, "b": 1}, "overrides": {"# + enough + "}}}}").get()
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
                == #"{"rules":{},"rollouts":{"r":{"percentage":5,"groupId":"r","enabled":true}},"experiments":{"e":{"variants":{"b":1,"a":0},"status":"running","defaultVariant":"b","overrides":{}}}}"#)
        let full = try decodeTargeting("""
            {"rollouts": {"r": {"percentage": 12.50, "groupId": "g", "enabled": false, "description": "d"}},
             "experiments": {"e": {"variants": {"b": 1, "a": 0}, "status": "concluded", "winner": "a", "overrides": {"zed": "b", "amy": "a"}},
                             "p": {"variants": {"x": 1, "y": 1}, "enabled": false}}}
            """).get()
        let fullText = JSONWriter.string(full.jsonValue)
        #expect(
            fullText
                == #"{"rules":{},"rollouts":{"r":{"percentage":12.5,"groupId":"g","enabled":false,"description":"d"}},"experiments":{"e":{"variants":{"b":1,"a":0},"status":"concluded","winner":"a","defaultVariant":"b","overrides":{"amy":"a","zed":"b"}},"p":{"variants":{"x":1,"y":1},"status":"paused","defaultVariant":"x","overrides":{}}}}"#)
        let fullAgain = try TargetingConfiguration.decode(Array(fullText.utf8), source: "encoded").get()
        #expect(fullAgain.rollouts == full.rollouts && fullAgain.experiments == full.experiments)
        #expect(errors(#"{"rollouts": {"r": {"percentage": 5, "description": 7}}}"#) == ["$.rollouts.r.description (line 1): expected a string, found a number"])
    }
}

/// Variants with a typed value (`{"weight": 50, "value": …}`), which OFREP answers as the flag's value.
@Suite struct TypedVariantValueTests {
    @Test func weightAloneAndTypedValueMix() throws {
        let configuration = try decodeTargeting("""
            {"experiments": {"e": {"variants": {"plain": 1, "on": {"weight": 2, "value": true},
                                                 "limit": {"weight": 3, "value": 12.5},
                                                 "theme": {"weight": 4, "value": {"color": "blue", "sizes": [1, 2]}}}}}}
            """).get()
        let variants = try #require(configuration.experiments["e"]?.variants)
        #expect(variants.map(\.weight) == [1, 2, 3, 4])
        #expect(variants[0].value == nil)
        #expect(variants[1].value == .bool(true))
        #expect(variants[2].value == .number(12.5))
        #expect(variants[3].value.map { JSONWriter.string($0) } == #"{"color":"blue","sizes":[1,2]}"#)
    }

    @Test func encodingKeepsTheValueAndDecodesToTheSame() throws {
        let text = #"{"experiments": {"e": {"variants": {"a": 1, "b": {"weight": 1, "value": "x"}}}}}"#
        let configuration = try decodeTargeting(text).get()
        let encoded = JSONWriter.string(configuration.jsonValue)
        #expect(encoded.contains(#""variants":{"a":1,"b":{"weight":1,"value":"x"}}"#))
        let again = try decodeTargeting(encoded).get()
        #expect(again.experiments["e"] == configuration.experiments["e"])
    }

    @Test func mistakesNameThePathAndLine() {
        let errors = TargetingConfigurationTests().errors("""
            {"experiments": {"e": {"variants": {
              "a": {"weight": 1},
              "b": {"value": 3},
              "c": {"weight": 1, "value": null},
              "d": {"weight": 1.5, "value": 1, "colour": 2}}}}}
            """)
        #expect(errors == [
            "$.experiments.e.variants.a (line 2): missing required key \"value\"",
            "$.experiments.e.variants.b (line 3): missing required key \"weight\"",
            "$.experiments.e.variants.c.value (line 4): a variant's value must not be null; write the weight alone and its name is its value",
            "$.experiments.e.variants.d.colour (line 5): unknown key \"colour\"; expected one of: value, weight",
            "$.experiments.e.variants.d.weight (line 5): expected an integer from 0 to 1000000, found 1.5",
        ])
    }
}
