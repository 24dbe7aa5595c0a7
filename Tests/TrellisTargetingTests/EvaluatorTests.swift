import Testing
import TrellisJSON
import TrellisTargeting

@Suite struct EvaluatorTests {
    let context = UserContext(
        userID: "user-1", platform: "ios", appVersion: SemanticVersion("5.2.1"), osVersion: SemanticVersion("17.4-beta.1"),
        schemaVersion: 2, locale: "de-DE", country: "DE",
        attributes: ["age": "34", "email": "kim@example.com", "signup": "2025-06-01T12:00:00+02:00", "build": "5.10", "bad": "abc"],
        now: 1_767_225_600)  // 2026-01-01T00:00:00Z

    func holds(_ attribute: String, _ op: AttributeCondition.Operator, _ operand: AttributeCondition.Operand) -> Bool {
        Evaluator.holds(AttributeCondition(attribute: attribute, op: op, operand: operand), for: context)
    }

    @Test func stringOperators() {
        #expect(holds("country", .equals, .string("DE")))
        #expect(!holds("country", .equals, .string("de")))  // case matters
        #expect(holds("country", .notEquals, .string("AT")))
        #expect(!holds("country", .notEquals, .string("DE")))
        #expect(holds("email", .endsWith, .string("@example.com")))
        #expect(!holds("email", .endsWith, .string("@example.org")))
        #expect(holds("locale", .startsWith, .string("de-")))
        #expect(!holds("locale", .startsWith, .string("en")))
        #expect(holds("email", .contains, .string("kim@")))
        #expect(!holds("email", .contains, .string("bob")))
        #expect(holds("userId", .equals, .string("user-1")))
        #expect(holds("email", .contains, .string("")) && holds("email", .startsWith, .string("")))
        #expect(!holds("country", .contains, .string("DEU")))
    }

    /// Strings compare byte for byte: a precomposed é is not e + combining acute, though Swift's
    /// `==` would call them equal.
    @Test func stringsCompareByteForByte() {
        let c = UserContext(attributes: ["name": "Zo\u{E9}", "city": "Mu\u{308}nchen"])
        func holds(_ a: String, _ op: AttributeCondition.Operator, _ operand: AttributeCondition.Operand) -> Bool {
            Evaluator.holds(AttributeCondition(attribute: a, op: op, operand: operand), for: c)
        }
        #expect(holds("name", .equals, .string("Zo\u{E9}")))
        #expect(!holds("name", .equals, .string("Zoe\u{301}")))
        #expect(holds("name", .notEquals, .string("Zoe\u{301}")))
        #expect(!holds("name", .in, .stringSet(["Zoe\u{301}"])))
        #expect(holds("name", .notIn, .stringSet(["Zoe\u{301}"])))
        #expect(!holds("city", .startsWith, .string("M\u{FC}")))
        #expect(holds("city", .startsWith, .string("Mu")))  // Swift's hasPrefix says false: "u" is not "ü"
        #expect(holds("city", .contains, .string("u\u{308}n")) && holds("city", .endsWith, .string("chen")))
        #expect(holds("name", .endsWith, .string("\u{E9}")) && !holds("name", .endsWith, .string("e")))
    }

    @Test func setOperators() {
        #expect(holds("platform", .in, .stringSet(["ios", "ipados"])))
        #expect(!holds("platform", .in, .stringSet(["android"])))
        #expect(holds("platform", .notIn, .stringSet(["android", "web"])))
        #expect(!holds("platform", .notIn, .stringSet(["ios"])))
    }

    @Test func numberOperators() {
        #expect(holds("age", .lessThan, .number(35)) && !holds("age", .lessThan, .number(34)))
        #expect(holds("age", .lessThanOrEqual, .number(34)) && !holds("age", .lessThanOrEqual, .number(33.5)))
        #expect(holds("age", .greaterThan, .number(33)) && !holds("age", .greaterThan, .number(34)))
        #expect(holds("age", .greaterThanOrEqual, .number(34)) && !holds("age", .greaterThanOrEqual, .number(34.01)))
        #expect(holds("schemaVersion", .greaterThanOrEqual, .number(2)))
        // Text that is not a number never compares.
        #expect(!holds("bad", .lessThan, .number(1)) && !holds("bad", .greaterThanOrEqual, .number(1)))
    }

    @Test(arguments: ["1e3", "-2.5", ".5", "18"])
    func numbersParse(text: String) {
        #expect(Evaluator.holds(AttributeCondition(attribute: "n", op: .greaterThan, operand: .number(-10)), for: UserContext(attributes: ["n": text])))
    }

    @Test(arguments: ["nan", "inf", "infinity", "", " 5", "5 ", "0x10", "1,5"])
    func nonNumbersDoNotCompare(text: String) {
        let c = UserContext(attributes: ["n": text])
        #expect(!Evaluator.holds(AttributeCondition(attribute: "n", op: .greaterThan, operand: .number(-1e308)), for: c))
        #expect(!Evaluator.holds(AttributeCondition(attribute: "n", op: .lessThan, operand: .number(1e308)), for: c))
    }

    @Test func dateOperators() {
        let june = RFC3339Date("2025-06-01T10:00:00Z")  // = the signup instant, written in UTC
        #expect(!holds("signup", .before, .date(june)) && !holds("signup", .after, .date(june)))
        #expect(holds("signup", .before, .date(june + 1)) && holds("signup", .after, .date(june - 1)))
        #expect(holds("now", .after, .date(RFC3339Date("2025-12-31T23:59:59Z"))))
        #expect(holds("now", .before, .date(RFC3339Date("2026-01-01T00:00:01Z"))))
        #expect(!holds("bad", .before, .date(june)) && !holds("bad", .after, .date(june)))
        #expect(!Evaluator.holds(AttributeCondition(attribute: "now", op: .after, operand: .date(0)), for: UserContext()))
    }

    @Test func versionOperators() {
        #expect(holds("appVersion", .versionAtLeast, .version(SemanticVersion("5.2")!)))
        #expect(!holds("appVersion", .versionAtLeast, .version(SemanticVersion("5.10")!)))
        #expect(holds("appVersion", .versionBelow, .version(SemanticVersion("5.10")!)))
        #expect(holds("appVersion", .versionEquals, .version(SemanticVersion("5.2.1.0")!)))
        #expect(holds("osVersion", .versionBelow, .version(SemanticVersion("17.4")!)))  // a pre-release comes first
        #expect(holds("build", .versionAtLeast, .version(SemanticVersion("5.9")!)))  // a free attribute, parsed
        #expect(!holds("bad", .versionBelow, .version(SemanticVersion("99")!)) && !holds("bad", .versionAtLeast, .version(SemanticVersion("0")!)))
    }

    /// A condition on a missing attribute is false for every operator, `notEquals` and `notIn` included.
    @Test(arguments: AttributeCondition.Operator.allCases)
    func missingAttributeIsFalse(op: AttributeCondition.Operator) {
        let operand: AttributeCondition.Operand =
            switch op {
            case .equals, .notEquals, .startsWith, .endsWith, .contains: .string("")
            case .in, .notIn: .stringSet(["x"])
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: .number(0)
            case .before, .after: .date(0)
            case .versionBelow, .versionAtLeast, .versionEquals: .version(SemanticVersion("1")!)
            }
        #expect(!Evaluator.holds(AttributeCondition(attribute: "tier", op: op, operand: operand), for: UserContext()))
        #expect(!holds("missing", op, operand))
        let evaluator = Evaluator(.empty)
        #expect(evaluator.evaluate(.not(.condition(AttributeCondition(attribute: "tier", op: op, operand: operand))), for: UserContext()))
    }

    @Test func combinators() throws {
        let yes = RuleExpression.condition(AttributeCondition(attribute: "country", op: .equals, operand: .string("DE")))
        let no = RuleExpression.condition(AttributeCondition(attribute: "country", op: .equals, operand: .string("FR")))
        let evaluator = Evaluator(.empty)
        #expect(evaluator.evaluate(.all([yes, yes]), for: context) && !evaluator.evaluate(.all([yes, no]), for: context))
        #expect(evaluator.evaluate(.any([no, yes]), for: context) && !evaluator.evaluate(.any([no, no]), for: context))
        #expect(evaluator.evaluate(.not(no), for: context) && !evaluator.evaluate(.not(yes), for: context))
        // Unknown names are false.
        #expect(!evaluator.evaluate(.named("x"), for: context))
        #expect(!evaluator.evaluate(.rollout("x"), for: context))
        #expect(!evaluator.evaluate(.experiment("x", variant: "a"), for: context))
        #expect(evaluator.variant(of: "x", for: context) == nil)
    }

    @Test func namedRulesOfConfigTargeting() throws {
        let evaluator = Evaluator(try configTargeting())
        let rule = RuleExpression.named("is_gold_member")
        #expect(evaluator.evaluate(rule, for: UserContext(attributes: ["membership": "gold"])))
        #expect(evaluator.evaluate(rule, for: UserContext(attributes: ["membership": "platinum"])))
        #expect(!evaluator.evaluate(rule, for: UserContext(attributes: ["membership": "silver"])))
        #expect(evaluator.evaluate(rule, for: UserContext(attributes: ["email": "ops@example.com"])))  // staff, through is_staff
        #expect(!evaluator.evaluate(rule, for: UserContext()))
        let modern = RuleExpression.named("is_modern_client")
        #expect(evaluator.evaluate(modern, for: UserContext(platform: "ios", appVersion: SemanticVersion("5.0"))))
        #expect(!evaluator.evaluate(modern, for: UserContext(platform: "android", appVersion: SemanticVersion("5.0"))))
    }

    @Test func rolloutsAndTheKillSwitch() throws {
        let user = (0...).lazy.map { "user-\($0)" }.first { Bucketing.rolloutBucket(groupID: "shared", userID: $0) == 30 }!
        func evaluator(_ percentage: RolloutPercentage, enabled: Bool = true) throws -> Evaluator {
            Evaluator(try TargetingConfiguration(rollouts: ["r": .init(percentage: percentage, groupID: "shared", enabled: enabled)]))
        }
        #expect(!(try evaluator(29)).isInRollout("r", for: UserContext(userID: user)))
        #expect(try evaluator(30).isInRollout("r", for: UserContext(userID: user)))
        #expect(try evaluator(30).evaluate(.rollout("r"), for: UserContext(userID: user)))
        #expect(!(try evaluator(30, enabled: false)).isInRollout("r", for: UserContext(userID: user)))
        #expect(!(try evaluator(100)).isInRollout("r", for: UserContext()))  // no user id: out, even at 100%
    }

    @Test func groupIDDecidesTheBucket() throws {
        let evaluator = Evaluator(try TargetingConfiguration(rollouts: [
            "a": .init(percentage: 40, groupID: "shared"), "b": .init(percentage: 40, groupID: "shared"), "c": .init(percentage: 40, groupID: "c"),
        ]))
        var differs = 0
        for i in 0..<1000 {
            let c = UserContext(userID: "user-\(i)")
            #expect(evaluator.isInRollout("a", for: c) == evaluator.isInRollout("b", for: c))
            if evaluator.isInRollout("a", for: c) != evaluator.isInRollout("c", for: c) { differs += 1 }
        }
        #expect(differs > 300)
    }

    @Test func experimentsDefaultVariantAndPause() throws {
        let variants: [TargetingConfiguration.Experiment.Variant] = [.init(name: "control", weight: 0), .init(name: "big", weight: 1)]
        let on = Evaluator(try TargetingConfiguration(experiments: ["e": .init(variants: variants, defaultVariant: "control")]))
        let off = Evaluator(try TargetingConfiguration(experiments: ["e": .init(variants: variants, status: .paused, defaultVariant: "control")]))
        for i in 0..<200 {
            #expect(on.variant(of: "e", for: UserContext(userID: "user-\(i)")) == "big")
            #expect(off.variant(of: "e", for: UserContext(userID: "user-\(i)")) == "control")
        }
        #expect(on.variant(of: "e", for: UserContext()) == "control")  // no user id
        #expect(on.evaluate(.experiment("e", variant: "big"), for: UserContext(userID: "u")))
        #expect(!on.evaluate(.experiment("e", variant: "control"), for: UserContext(userID: "u")))
    }

    @Test func configExperimentsSplitByWeight() throws {
        let evaluator = Evaluator(try configTargeting())
        var hidden = 0
        for i in 0..<100_000 where evaluator.variant(of: "product-related", for: UserContext(userID: "user-\(i)")) == "hidden" { hidden += 1 }
        #expect(abs(hidden - 10_000) <= 1_000, "\(hidden)")
    }
}

/// Seconds since the epoch of an RFC 3339 text, through the rule decoder (the parser is internal).
func RFC3339Date(_ text: String) -> Double {
    let value = JSONValue.object([("attribute", .string("a")), ("op", .string("before")), ("value", .string(text))])
    let result = DiagnosticsCollector.decode(source: "date") { RuleExpression.decode(value, at: .root, $0) }
    guard case .success(.condition(let c)) = result, case .date(let seconds) = c.operand else { return .nan }
    return seconds
}

/// `FlatRules.everyLine`, which `warm()` reads the rules' buffers with before they are evaluated:
/// every 64-byte line a buffer spans is read, and little more (the last byte's line may be read twice).
@Suite struct FlatRulesWarmTests {
    @Test func everyLineReadsAByteOfEachLineTheBufferSpans() {
        let ones = [UInt8](repeating: 1, count: 400)
        ones.withUnsafeBytes { all in
            for start in [0, 1, 17, 63] {
                for count in [0, 1, 2, 63, 64, 65, 127, 128, 129, 300] {
                    let bytes = UnsafeRawBufferPointer(rebasing: all[start..<start + count])
                    let lines = (count + 63) / 64
                    let read = FlatRules.everyLine(bytes)
                    #expect(read >= lines && read <= lines + 1, "start \(start), \(count) bytes: \(read) reads")
                }
            }
        }
    }
}
