import Testing
import TrellisJSON
import TrellisScreens
import TrellisTargeting

/// The resolver's rules, one small screen at a time.
@Suite struct ResolutionTests {
    let resolver = ScreenResolver()

    func json(_ screen: Screen, _ outcomes: [UInt8], schemaVersion: Int = 2) -> String {
        JSONWriter.string(resolver.resolve(screen, outcomes: Outcomes(outcomes), clientSchemaVersion: schemaVersion).jsonValue(revision: 3))
    }

    func root(_ screen: Screen, _ outcomes: [UInt8], schemaVersion: Int = 2) -> String {
        let answer = resolver.resolve(screen, outcomes: Outcomes(outcomes), clientSchemaVersion: schemaVersion)
        return answer.root.map { JSONWriter.string($0.jsonValue) } ?? "null"
    }

    @Test func ruleShowsChildOrElseOrNothing() throws {
        let screen = try inlineScreen("""
            {"type": "VStack", "subviews": [
              {"type": "Rule", "rule": {"rule": "r"}, "child": {"type": "Text", "values": {"text": "yes"}}, "else": {"type": "Text", "values": {"text": "no"}}},
              {"type": "Rule", "rule": {"rule": "r"}, "child": {"type": "Spacer"}}
            ]}
            """)
        #expect(root(screen, [1, 1]) == #"{"type":"VStack","subviews":[{"type":"Text","values":{"text":"yes"}},{"type":"Spacer"}]}"#)
        #expect(root(screen, [0, 0]) == #"{"type":"VStack","subviews":[{"type":"Text","values":{"text":"no"}}]}"#)
    }

    @Test func experimentShowsItsVariantOrNothing() throws {
        let screen = try inlineScreen("""
            {"type": "Experiment", "id": "e", "experiment": "x", "variants": {"a": {"type": "Text", "values": {"text": "A"}}, "b": {"type": "Circle"}, "off": null}}
            """)
        #expect(root(screen, [0]) == #"{"type":"Text","values":{"text":"A"}}"#)
        #expect(root(screen, [1]) == #"{"type":"Circle"}"#)
        #expect(root(screen, [2]) == "null")
        #expect(root(screen, [Outcomes.none]) == "null")
        #expect(resolver.resolve(screen, outcomes: Outcomes([2]), clientSchemaVersion: 2).assignments.experiments == [.init("x", "off")])
        #expect(resolver.resolve(screen, outcomes: Outcomes([Outcomes.none]), clientSchemaVersion: 2).assignments.experiments.isEmpty)
    }

    /// Decision points in skipped branches, fallbacks and variants still take their place in the
    /// vector, so later points read their own outcome.
    @Test func skippedBranchesKeepTheCursorAligned() throws {
        let screen = try inlineScreen("""
            {"type": "VStack", "subviews": [
              {"type": "Rule", "id": "outer", "rule": {"rule": "r"},
               "child": {"type": "Rule", "id": "inner", "rule": {"rule": "r"}, "child": {"type": "Text", "values": {"text": "inner"}}},
               "else": {"type": "Experiment", "id": "ex", "experiment": "x", "variants": {"a": {"type": "Circle"}, "b": null}}},
              {"type": "Carousel", "id": "c", "subviews": [{"type": "Rule", "id": "in-carousel", "rule": {"rule": "r"}, "child": {"type": "Rectangle"}}],
               "fallback": {"type": "Rule", "id": "in-fallback", "rule": {"rule": "r"}, "child": {"type": "Divider"}}},
              {"type": "Rule", "id": "last", "rule": {"rule": "r"}, "child": {"type": "Text", "values": {"text": "last"}}}
            ]}
            """)
        #expect(resolver.decisions(of: screen).points.map(\.id) == ["outer", "inner", "ex", "in-carousel", "in-fallback", "last"])
        // outer false → else (experiment a); carousel shown (v2) with its rule true; last true.
        #expect(
            root(screen, [0, 1, 0, 1, 0, 1])
                == #"{"type":"VStack","subviews":[{"type":"Circle"},{"type":"Carousel","id":"c","subviews":[{"type":"Rectangle"}]},{"type":"Text","values":{"text":"last"}}]}"#)
        // outer true, inner false → nothing; schema 1: the carousel's fallback rule decides; last false.
        #expect(
            root(screen, [1, 0, 0, 0, 1, 0], schemaVersion: 1)
                == #"{"type":"VStack","subviews":[{"type":"Divider"}]}"#)
    }

    @Test func defaultFallbackKeepsSubviewsAndOnlyKnownProperties() throws {
        let screen = try inlineScreen("""
            {"type": "ScrollView", "id": "s", "properties": {"axis": "horizontal", "spacing": 8, "padding": 4, "action": {"type": "dismiss"}},
             "metadata": {"k": 1}, "subviews": [{"type": "Text", "properties": {"action": {"type": "dismiss"}, "font": "body"}, "values": {"text": "t"}}]}
            """)
        #expect(
            root(screen, [], schemaVersion: 1)
                == #"{"type":"VStack","id":"s","properties":{"spacing":8,"padding":4},"subviews":[{"type":"Text","properties":{"font":"body"},"values":{"text":"t"}}],"metadata":{"k":1}}"#)
        #expect(
            root(screen, [], schemaVersion: 2)
                == #"{"type":"ScrollView","id":"s","properties":{"axis":"horizontal","spacing":8,"padding":4,"action":{"type":"dismiss"}},"subviews":[{"type":"Text","properties":{"action":{"type":"dismiss"},"font":"body"},"values":{"text":"t"}}],"metadata":{"k":1}}"#)
    }

    @Test func componentWithoutFallbackIsDroppedAndReportedByPath() throws {
        let screen = try inlineScreen("""
            {"type": "HStack", "subviews": [{"type": "Circle"}, {"type": "Button", "values": {"title": "Go"}}]}
            """)
        let answer = resolver.resolve(screen, outcomes: Outcomes([]), clientSchemaVersion: 1)
        #expect(answer.root.map { JSONWriter.string($0.jsonValue) } == #"{"type":"HStack","subviews":[{"type":"Circle"}]}"#)
        #expect(answer.replaced == [.init(id: nil, path: JSONPath.root.appending("root").appending("subviews").appending(1), type: "Button", how: .dropped, replacement: nil)])
        #expect(JSONWriter.string(answer.replaced[0].jsonValue) == #"{"path":"$.root.subviews[1]","type":"Button","how":"dropped"}"#)
    }

    @Test func rootThatResolvesToNothingIsNull() throws {
        let screen = try inlineScreen(#"{"type": "Button", "id": "b", "values": {"title": "Go"}}"#)
        #expect(json(screen, [], schemaVersion: 1).hasSuffix(#""replaced":[{"id":"b","type":"Button","how":"dropped"}],"root":null}"#))
    }

    /// The envelope: id, revision, schemaVersion (the lower of client and screen), title, metadata,
    /// assignments, replaced, root, in that order.
    @Test func envelope() throws {
        let text = """
            {"id": "s", "schemaVersion": 2, "title": "T", "metadata": {"a": 1},
             "root": {"type": "VStack", "subviews": [
               {"type": "Rule", "rule": {"all": [{"rollout": "r1"}, {"rollout": "r2"}, {"rollout": "r1"}]}, "child": {"type": "Spacer"}},
               {"type": "Experiment", "experiment": "e", "variants": {"a": {"type": "Circle"}, "b": {"type": "Rectangle"}}}]}}
            """
        let screen = try decodeScreen(text).get()
        #expect(resolver.decisions(of: screen).rollouts == ["r1", "r2"])
        #expect(
            json(screen, [0, 1, 1, 0], schemaVersion: 9)
                == #"{"id":"s","revision":3,"schemaVersion":2,"title":"T","metadata":{"a":1},"assignments":{"experiments":{"e":"b"},"rollouts":{"r1":true,"r2":false}},"replaced":[],"root":{"type":"VStack","subviews":[{"type":"Rectangle"}]}}"#)
        let bare = try inlineScreen(#"{"type": "Spacer"}"#, schemaVersion: 1)
        #expect(json(bare, [], schemaVersion: 2) == #"{"id":"test","revision":3,"schemaVersion":1,"assignments":{"experiments":{},"rollouts":{}},"replaced":[],"root":{"type":"Spacer"}}"#)
    }

    /// Assignments come only from what is shown: an experiment in a branch not taken is not reported.
    @Test func assignmentsOnlyForShownNodes() throws {
        let screen = try inlineScreen("""
            {"type": "Rule", "rule": {"rule": "r"}, "child": {"type": "Experiment", "experiment": "e", "variants": {"a": {"type": "Circle"}, "b": null}},
             "else": {"type": "Rule", "rule": {"rollout": "ro"}, "child": {"type": "Spacer"}}}
            """)
        let shown = resolver.resolve(screen, outcomes: Outcomes([1, 0, 1, 1]), clientSchemaVersion: 2)
        #expect(shown.assignments == .init(experiments: [.init("e", "a")], rollouts: []))
        let other = resolver.resolve(screen, outcomes: Outcomes([0, 0, 1, 1]), clientSchemaVersion: 2)
        #expect(other.assignments == .init(experiments: [], rollouts: [.init("ro", true)]))
    }

    @Test func outcomesFollowTheConfiguration() throws {
        let screen = try inlineScreen("""
            {"type": "VStack", "subviews": [
              {"type": "Rule", "rule": {"attribute": "country", "op": "equals", "value": "DE"}, "child": {"type": "Spacer"}},
              {"type": "Experiment", "experiment": "e", "variants": {"b": {"type": "Circle"}, "a": null}},
              {"type": "Experiment", "experiment": "unknown", "variants": {"a": null, "b": null}},
              {"type": "Rule", "rule": {"rollout": "all"}, "child": {"type": "Spacer"}}]}
            """)
        let configuration = try TargetingConfiguration(
            rollouts: ["all": .init(percentage: 100, groupID: "all")],
            experiments: ["e": .init(variants: [.init(name: "a", weight: 0), .init(name: "b", weight: 1)], defaultVariant: "a")])
        let evaluator = Evaluator(configuration)
        let decisions = resolver.decisions(of: screen)
        let german = resolver.outcomes(of: decisions, for: UserContext(userID: "u", country: "DE"), evaluator: evaluator)
        #expect(german.bytes == [1, 0, Outcomes.none, 1, 1])
        // Without a user id: no rollout, the default variant ("a", index 1 on this node).
        let anonymous = resolver.outcomes(of: decisions, for: UserContext(country: "FR"), evaluator: evaluator)
        #expect(anonymous.bytes == [0, 1, Outcomes.none, 0, 0])
        #expect(anonymous.description == "0.1.255.0.0")
    }

    /// A request decides each rollout and each named rule its screen names once
    /// (``EvaluationMemo``), however many rules name it: the outcomes are what each rule's
    /// expression and each rollout say on their own, for every user — rollouts and rules shared by
    /// rules, under `not`, in `any` and `all`, beside a disabled rollout and an experiment whose
    /// key is also a rollout's name.
    @Test func eachRolloutAndRuleIsDecidedOnceAndAsOnItsOwn() throws {
        let screen = try inlineScreen("""
            {"type": "VStack", "subviews": [
              {"type": "Rule", "rule": {"rollout": "r1"}, "child": {"type": "Spacer"}},
              {"type": "Rule", "rule": {"all": [{"rollout": "r1"}, {"rollout": "r2"}]}, "child": {"type": "Spacer"}},
              {"type": "Rule", "rule": {"not": {"rollout": "r2"}}, "child": {"type": "Spacer"}},
              {"type": "Rule", "rule": {"any": [{"rollout": "off"}, {"rollout": "r3"}, {"rollout": "r1"}]}, "child": {"type": "Spacer"}},
              {"type": "Experiment", "experiment": "r3", "variants": {"a": null, "b": {"type": "Rule", "rule": {"rollout": "r3"}, "child": {"type": "Circle"}}}},
              {"type": "Rule", "rule": {"all": [{"attribute": "country", "op": "equals", "value": "DE"}, {"rollout": "r2"}]}, "child": {"type": "Spacer"}},
              {"type": "Rule", "rule": {"any": [{"rule": "german"}, {"rollout": "r2"}]}, "child": {"type": "Spacer"}},
              {"type": "Rule", "rule": {"not": {"rule": "german"}}, "child": {"type": "Spacer"}},
              {"type": "Rule", "rule": {"all": [{"rule": "lucky"}, {"rule": "german"}]}, "child": {"type": "Spacer"}}]}
            """)
        let configuration = try TargetingConfiguration(
            rules: [
                "german": .condition(AttributeCondition(attribute: "country", op: .equals, operand: .string("DE"))),
                "lucky": .any([.rollout("r3"), .not(.rollout("r1"))]),
            ],
            rollouts: [
                "r1": .init(percentage: 50, groupID: "r1"), "r2": .init(percentage: 30, groupID: "g2"),
                "r3": .init(percentage: 70, groupID: "r3"), "off": .init(percentage: 100, groupID: "off", enabled: false),
            ],
            experiments: ["r3": .init(variants: [.init(name: "a", weight: 1), .init(name: "b", weight: 1)], defaultVariant: "a")])
        let evaluator = Evaluator(configuration)
        let decisions = resolver.decisions(of: screen)
        var seen = Set<[UInt8]>()
        for user in (0..<400).map({ "user-\($0)" }) {
            for country in ["DE", "FR"] {
                let context = UserContext(userID: user, country: country)
                let outcomes = resolver.outcomes(of: decisions, for: context, evaluator: evaluator).bytes
                var expected: [UInt8] = []
                for point in decisions.points {
                    switch point.kind {
                    case .rule(let expression): expected.append(evaluator.evaluate(expression, for: context) ? 1 : 0)
                    case .experiment(let key, let variants):
                        expected.append(evaluator.variant(of: key, for: context).flatMap { variants.firstIndex(of: $0) }.map { UInt8($0) } ?? Outcomes.none)
                    }
                }
                // The nested Rule is reached only with variant b (index 1); every rollout is named
                // by a rule at the top as well, so each has its byte.
                if expected[4] != 1 { expected[5] = 0 }
                expected += decisions.rollouts.map { evaluator.isInRollout($0, for: context) ? 1 : 0 }
                #expect(outcomes == expected, "\(user) in \(country)")
                seen.insert(outcomes)
            }
        }
        #expect(seen.count > 10, "the users fall on many outcomes")
    }

    /// Points in branches not shown are not evaluated and read 0, as do rollouts only they name.
    @Test func unreachableDecisionsReadZero() throws {
        let screen = try inlineScreen("""
            {"type": "Rule", "rule": {"attribute": "country", "op": "equals", "value": "DE"},
             "child": {"type": "Experiment", "experiment": "e", "variants": {"a": null, "b": {"type": "Rule", "rule": {"rollout": "r1"}, "child": {"type": "Spacer"}}}},
             "else": {"type": "Rule", "rule": {"rollout": "r2"}, "child": {"type": "Circle"}}}
            """)
        let configuration = try TargetingConfiguration(
            rollouts: ["r1": .init(percentage: 100, groupID: "r1"), "r2": .init(percentage: 100, groupID: "r2")],
            experiments: ["e": .init(variants: [.init(name: "a", weight: 0), .init(name: "b", weight: 1)], defaultVariant: "a")])
        let evaluator = Evaluator(configuration)
        let decisions = resolver.decisions(of: screen)
        #expect(decisions.rollouts == ["r1", "r2"])
        func outcomes(_ country: String, _ user: String?) -> [UInt8] {
            resolver.outcomes(of: decisions, for: UserContext(userID: user, country: country), evaluator: evaluator).bytes
        }
        // points: country rule, experiment, r1 rule, r2 rule; then rollouts r1, r2.
        #expect(outcomes("DE", "u") == [1, 1, 1, 0, 1, 0])
        #expect(outcomes("DE", nil) == [1, 0, 0, 0, 0, 0])  // default variant a: r1's rule is not shown
        #expect(outcomes("FR", "u") == [0, 0, 0, 1, 0, 1])
        // Every user in France gets the same outcomes, so the same cache entry.
        #expect(Set((0..<50).map { outcomes("FR", "user-\($0)") }).count == 1)
    }
}
