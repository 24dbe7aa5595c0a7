import Testing
import TrellisJSON
import TrellisTargeting

@Suite struct ExplainTests {
    let configuration: TargetingConfiguration
    let evaluator: Evaluator

    init() throws {
        configuration = try decodeTargeting("""
            {"rules": {"is_staff": {"attribute": "email", "op": "endsWith", "value": "@example.com"},
                       "is_gold": {"any": [{"attribute": "membership", "op": "in", "value": ["gold"]}, {"rule": "is_staff"}]}},
             "rollouts": {"gold-banner": {"percentage": 25}, "half": {"percentage": 50.5}, "off": {"percentage": 100, "enabled": false}},
             "experiments": {"hero": {"variants": {"control": 1, "big": 1}, "overrides": {"qa-kim": "big"}},
                             "old": {"variants": {"a": 1, "b": 1}, "status": "concluded", "winner": "b"}}}
            """).get()
        evaluator = Evaluator(configuration)
    }

    func condition(_ attribute: String, _ op: AttributeCondition.Operator, _ operand: AttributeCondition.Operand) -> RuleExpression {
        .condition(AttributeCondition(attribute: attribute, op: op, operand: operand))
    }

    /// `all` stops at the first false expression: the rest are in the tree, marked not evaluated.
    @Test func allRecordsWhereItStopped() {
        let expression = RuleExpression.all([.named("is_gold"), .rollout("gold-banner"), .experiment("hero", variant: "big")])
        let explanation = evaluator.explain(expression, for: UserContext(userID: "user-1"))
        #expect(explanation.value == false && explanation.children.count == 3)
        #expect(explanation.children.map(\.value) == [false, nil, nil])
        #expect(explanation.children[1].detail == nil && explanation.children[1].children.isEmpty && !explanation.children[1].isEvaluated)
        #expect(explanation.summary == "expression 1 of 3 is false; 2 expressions after it were not evaluated")
        // The named rule shows its definition's explanation, which shows is_staff's.
        let gold = explanation.children[0]
        #expect(gold.summary == #"the definition of rule "is_gold" is false"#)
        #expect(gold.children.map(\.expression) == [configuration.rules["is_gold"]!])
        let definition = gold.children[0]
        #expect(definition.children.map(\.value) == [false, false] && definition.summary == "none of the 2 is true")
        #expect(definition.children[0].detail == .condition(attributeText: nil, readable: false))
        #expect(definition.children[1].children.first?.detail == .condition(attributeText: nil, readable: false))
    }

    /// `any` stops at the first true expression.
    @Test func anyRecordsWhereItStopped() {
        let context = UserContext(userID: "user-1", attributes: ["membership": "gold"])
        let explanation = evaluator.explain(.any([.rollout("off"), .named("is_gold"), .rollout("gold-banner")]), for: context)
        #expect(explanation.value == true && explanation.children.map(\.value) == [false, true, nil])
        #expect(explanation.summary == "expression 2 of 3 is true; 1 expression after it was not evaluated")
        guard case .rollout(let off) = explanation.children[0].detail else { Issue.record("no rollout detail"); return }
        #expect(off.reason == .disabled && off.placement != nil)
        // Inside is_gold, `any` stopped at the membership test: is_staff was not evaluated.
        #expect(explanation.children[1].children[0].children.map(\.value) == [true, nil])
    }

    @Test func leavesCarryTheirDecisions() throws {
        let kim = UserContext(userID: "qa-kim", attributes: ["age": "abc"])
        let hero = evaluator.explain(.experiment("hero", variant: "control"), for: kim)
        #expect(hero.value == false && hero.detail == .experiment(VariantDecision(variant: "big", reason: .override)))
        #expect(hero.summary == #"the user's id is overridden into "big", not "control""#)
        let old = evaluator.explain(.experiment("old", variant: "b"), for: UserContext())
        #expect(old.value == true && old.summary == #"the experiment is concluded: everyone gets the winner "b""#)
        let unknown = evaluator.explain(.experiment("nope", variant: "x"), for: kim)
        #expect(unknown.value == false && unknown.detail == .experiment(nil) && unknown.summary == #"no experiment "nope" is defined: false"#)
        let unreadable = evaluator.explain(condition("age", .greaterThan, .number(18)), for: kim)
        #expect(unreadable.value == false && unreadable.detail == .condition(attributeText: "abc", readable: false))
        #expect(unreadable.summary == #"age is "abc", which is not a number: false"#)
        let missing = evaluator.explain(condition("country", .notEquals, .string("DE")), for: kim)
        #expect(missing.summary == "the context has no country: a condition on a missing attribute is false")
        let rule = evaluator.explain(.named("nope"), for: kim)
        #expect(rule.value == false && rule.detail == .unknownRule && rule.summary == #"no rule "nope" is defined: false"#)
        let half = evaluator.explain(.not(.rollout("half")), for: kim)
        let decision = evaluator.rolloutDecision("half", for: kim)
        #expect(half.value == !decision.admitted && half.children.first?.detail == .rollout(decision))
        #expect(decision.percentage?.description == "50.5")
    }

    /// The whole tree as a person reads it with curl: gold-banner:user-1 is at position 11.28.
    @Test func jsonForPeople() {
        let expression = RuleExpression.all([condition("country", .equals, .string("DE")), .rollout("gold-banner")])
        let outside = evaluator.explain(expression, for: UserContext(userID: "user-1", country: "FR"))
        #expect(
            JSONWriter.string(outside.jsonValue) == """
                {"expression":{"all":[{"attribute":"country","op":"equals","value":"DE"},{"rollout":"gold-banner"}]},"value":false,\
                "why":"expression 1 of 2 is false; 1 expression after it was not evaluated","children":[\
                {"expression":{"attribute":"country","op":"equals","value":"DE"},"value":false,"why":"country is \\"FR\\"","actual":"FR"},\
                {"expression":{"rollout":"gold-banner"},"evaluated":false,"why":"not evaluated: an earlier expression already decided the enclosing all or any"}]}
                """)
        let inside = evaluator.explain(expression, for: UserContext(userID: "user-1", country: "DE"))
        #expect(
            JSONWriter.string(inside.jsonValue["children"]!.arrayValue![1]) == """
                {"expression":{"rollout":"gold-banner"},"value":true,"why":"position 11.28 is below 25: admitted (bucket 12)",\
                "rollout":{"admitted":true,"reason":"bucket","enabled":true,\
                "percentage":25,"groupId":"gold-banner","bucket":12,"position":11.28,"admittedFrom":11.29}}
                """)
        #expect(inside.jsonValue["value"] == .bool(true) && inside.jsonValue["why"] == .string("all 2 are true"))
    }

    /// For thousands of generated expressions and users, explain's value is evaluate's, and the
    /// tree is honest: children mirror the expression, and only the ones after the deciding
    /// child of an all / any are unevaluated.
    @Test func explainAgreesWithEvaluate() {
        var random = SplitMix64(seed: 7)
        let contexts = (0..<30).map { i in
            UserContext(
                userID: i % 7 == 0 ? nil : i % 11 == 0 ? "qa-kim" : "user-\(i)", country: ["DE", "FR", nil][i % 3],
                attributes: i % 2 == 0 ? ["membership": "gold", "age": "\(i)"] : ["email": "x@example.com", "age": "n/a"])
        }
        for _ in 0..<400 {
            let expression = randomExpression(&random, depth: 4)
            for context in contexts {
                let explanation = evaluator.explain(expression, for: context)
                #expect(explanation.value == evaluator.evaluate(expression, for: context))
                checkHonest(explanation)
                _ = JSONWriter.encode(explanation.jsonValue)
            }
        }
    }

    /// Flat rules (``FlatRules``) mean what their expressions mean: thousands of generated
    /// expressions, added one after another with names between them, each evaluated from where
    /// it starts for every user, agree with the expression evaluated as a tree.
    @Test func flatRulesAgreeWithEvaluate() {
        var random = SplitMix64(seed: 11)
        let contexts = (0..<30).map { i in
            UserContext(
                userID: i % 7 == 0 ? nil : "user-\(i)", country: ["DE", "FR", nil][i % 3],
                attributes: i % 2 == 0 ? ["membership": "gold", "age": "\(i)"] : ["age": "n/a"])
        }
        var rules = FlatRules()
        var added: [(start: Int, expression: RuleExpression)] = []
        for i in 0..<600 {
            let expression = randomExpression(&random, depth: 4)
            added.append((rules.append(expression), expression))
            if i % 3 == 0 {
                let index = rules.append(name: "between-\(i)")
                #expect(rules.name(at: index) == "between-\(i)")
            }
        }
        rules = rules.exactlySized()
        for (start, expression) in added {
            for context in contexts {
                #expect(evaluator.evaluate(rules, at: start, for: context) == evaluator.evaluate(expression, for: context), "\(expression)")
            }
        }
    }

    private func checkHonest(_ node: RuleExplanation) {
        #expect(node.isEvaluated)
        switch node.expression {
        case .all(let list), .any(let list):
            #expect(node.children.map(\.expression) == list)
            let evaluated = node.children.prefix { $0.isEvaluated }
            #expect(node.children.dropFirst(evaluated.count).allSatisfy { !$0.isEvaluated && $0.children.isEmpty && $0.detail == nil })
            let decisive: Bool = if case .all = node.expression { false } else { true }
            // Every evaluated child but the last is not decisive; the last is, exactly when some were skipped.
            #expect(evaluated.dropLast().allSatisfy { $0.value != decisive })
            if evaluated.count < list.count { #expect(evaluated.last?.value == decisive) }
            evaluated.forEach(checkHonest)
        case .not(let inner):
            #expect(node.children.map(\.expression) == [inner] && node.value == node.children[0].value.map { !$0 })
            node.children.forEach(checkHonest)
        case .named(let name):
            #expect(node.children.map(\.expression) == configuration.rules[name].map { [$0] } ?? [])
            node.children.forEach(checkHonest)
        case .rollout, .experiment, .condition:
            #expect(node.children.isEmpty && node.detail != nil)
        }
    }

    private func randomExpression(_ random: inout SplitMix64, depth: Int) -> RuleExpression {
        let pick = random.next(depth == 0 ? 6 : 10)
        switch pick {
        case 0: return .rollout(["gold-banner", "half", "off", "nope"][random.next(4)])
        case 1: return .experiment(["hero", "old", "nope"][random.next(3)], variant: ["control", "big", "a", "b"][random.next(4)])
        case 2: return .named(["is_gold", "is_staff", "nope"][random.next(3)])
        case 3: return condition("country", .equals, .string(["DE", "FR"][random.next(2)]))
        case 4: return condition("age", .greaterThan, .number(Double(random.next(40))))
        case 5: return condition("membership", .notIn, .stringSet(["gold"]))
        case 6: return .not(randomExpression(&random, depth: depth - 1))
        default:
            let list = (0...random.next(3)).map { _ in randomExpression(&random, depth: depth - 1) }
            return pick == 7 ? .any(list) : .all(list)
        }
    }
}

/// A small deterministic generator (SplitMix64), so generated cases are the same on every run.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
