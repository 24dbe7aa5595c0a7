import Testing
import TrellisJSON
@testable import TrellisTargeting

/// Decodes one expression from JSON text, returning it or every diagnostic.
func decodeRule(_ text: String) throws -> Result<RuleExpression, DiagnosticsError> {
    let value = try JSONParser.parse(text)
    return DiagnosticsCollector.decode(source: "rule") { RuleExpression.decode(value, at: .root, $0) }
}

@Suite struct RuleExpressionTests {
    @Test func decodesEveryForm() throws {
        let text = """
            {"all": [
              {"rule": "is_gold_member"},
              {"rollout": "gold-banner"},
              {"experiment": "home-hero", "variant": "big"},
              {"not": {"any": [{"attribute": "platform", "op": "in", "value": ["ios", "ipados"]}]}},
              {"attribute": "appVersion", "op": "versionAtLeast", "value": "5.2"},
              {"attribute": "country", "op": "equals", "value": "DE"},
              {"attribute": "age", "op": "greaterThanOrEqual", "value": 18},
              {"attribute": "signupDate", "op": "before", "value": "2026-01-01"}
            ]}
            """
        let expected = RuleExpression.all([
            .named("is_gold_member"),
            .rollout("gold-banner"),
            .experiment("home-hero", variant: "big"),
            .not(.any([.condition(AttributeCondition(attribute: "platform", op: .in, operand: .stringSet(["ios", "ipados"])))])),
            .condition(AttributeCondition(attribute: "appVersion", op: .versionAtLeast, operand: .version(SemanticVersion("5.2")!))),
            .condition(AttributeCondition(attribute: "country", op: .equals, operand: .string("DE"))),
            .condition(AttributeCondition(attribute: "age", op: .greaterThanOrEqual, operand: .number(18))),
            .condition(AttributeCondition(attribute: "signupDate", op: .before, operand: .date(1_767_225_600))),
        ])
        #expect(try decodeRule(text).get() == expected)
    }

    /// Each operator with a literal of its kind: the operand types docs/screens.md lists.
    @Test(arguments: [
        ("equals", "\"ios\""), ("notEquals", "\"ios\""), ("startsWith", "\"en-\""), ("endsWith", "\"@example.com\""),
        ("contains", "\"beta\""), ("in", "[\"DE\", \"AT\"]"), ("notIn", "[\"DE\"]"), ("lessThan", "18"),
        ("lessThanOrEqual", "18.5"), ("greaterThan", "-3"), ("greaterThanOrEqual", "0"), ("before", "\"2026-12-01\""),
        ("after", "\"2026-12-01T09:30:00+02:00\""), ("versionBelow", "\"5.2\""), ("versionAtLeast", "\"17.4-beta.1\""),
        ("versionEquals", "\"5.2.1\""),
    ])
    func everyOperatorAcceptsItsOperand(op: String, operand: String) throws {
        let result = try decodeRule("{\"attribute\": \"a\", \"op\": \"\(op)\", \"value\": \(operand)}")
        let expression = try result.get()
        guard case .condition(let condition) = expression else {
            Issue.record("decoded \(expression)")
            return
        }
        #expect(condition.op.rawValue == op)
        #expect(AttributeCondition.Operator.allCases.count == 16)
    }

    /// Encoding writes the authored shape back; dates in UTC and versions as written.
    @Test(arguments: [
        ("{\"rule\": \"is_gold_member\"}", #"{"rule":"is_gold_member"}"#),
        ("{\"rollout\": \"gold-banner\"}", #"{"rollout":"gold-banner"}"#),
        ("{\"variant\": \"big\", \"experiment\": \"home-hero\"}", #"{"experiment":"home-hero","variant":"big"}"#),
        ("{\"not\": {\"all\": [{\"rule\": \"a\"}, {\"any\": [{\"rule\": \"b\"}]}]}}", #"{"not":{"all":[{"rule":"a"},{"any":[{"rule":"b"}]}]}}"#),
        ("{\"value\": [\"ios\"], \"op\": \"notIn\", \"attribute\": \"platform\"}", #"{"attribute":"platform","op":"notIn","value":["ios"]}"#),
        ("{\"attribute\": \"appVersion\", \"op\": \"versionBelow\", \"value\": \"5.2\"}", #"{"attribute":"appVersion","op":"versionBelow","value":"5.2"}"#),
        ("{\"attribute\": \"appVersion\", \"op\": \"versionEquals\", \"value\": \"5.2.0+build.9\"}", #"{"attribute":"appVersion","op":"versionEquals","value":"5.2.0"}"#),
        ("{\"attribute\": \"now\", \"op\": \"after\", \"value\": \"2026-12-01\"}", #"{"attribute":"now","op":"after","value":"2026-12-01T00:00:00Z"}"#),
        ("{\"attribute\": \"now\", \"op\": \"before\", \"value\": \"2026-12-01T09:30:00.5+02:00\"}", #"{"attribute":"now","op":"before","value":"2026-12-01T07:30:00.500Z"}"#),
        ("{\"attribute\": \"age\", \"op\": \"lessThan\", \"value\": 1.5e1}", #"{"attribute":"age","op":"lessThan","value":15}"#),
        ("{\"attribute\": \"email\", \"op\": \"endsWith\", \"value\": \"@example.com\"}", #"{"attribute":"email","op":"endsWith","value":"@example.com"}"#),
    ])
    func encodesCanonically(text: String, canonical: String) throws {
        let expression = try decodeRule(text).get()
        #expect(JSONWriter.string(expression.jsonValue) == canonical)
        let again = try decodeRule(canonical).get()
        #expect(again == expression)
        #expect(JSONWriter.string(again.jsonValue) == canonical)
    }

    @Test(arguments: [
        ("[]", "$", "expected a rule expression object, found an array"),
        ("{}", "$", "a rule expression has exactly one of: all, any, not, rule, rollout, experiment, attribute"),
        ("{\"rule\": \"a\", \"rollout\": \"b\"}", "$", "exactly one of"),
        ("{\"and\": []}", "$.and", "unknown expression \"and\"; expected all, any, not, rule, rollout, experiment or attribute"),
        ("{\"all\": []}", "$.all", "\"all\" needs at least one expression"),
        ("{\"any\": {\"rule\": \"a\"}}", "$.any", "expected an array of expressions, found an object"),
        ("{\"not\": [{\"rule\": \"a\"}]}", "$.not", "expected a rule expression object, found an array"),
        ("{\"all\": [{\"rule\": \"a\"}, {\"rule\": 7}]}", "$.all[1].rule", "expected a name, found a number"),
        ("{\"rule\": \"gold member\"}", "$.rule", "invalid name \"gold member\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"),
        ("{\"rollout\": \"\"}", "$.rollout", "invalid name \"\""),
        ("{\"experiment\": \"home-hero\"}", "$", "missing required key \"variant\""),
        ("{\"experiment\": \"home hero\", \"variant\": \"big\"}", "$.experiment", "invalid name \"home hero\""),
        ("{\"experiment\": \"home-hero\", \"variant\": 1}", "$.variant", "expected a name, found a number"),
        ("{\"experiment\": \"x\", \"variant\": \"y\", \"rule\": \"z\"}", "$.rule", "unknown key \"rule\""),
        ("{\"attribute\": \"platform\", \"op\": \"equals\"}", "$", "missing required key \"value\""),
        ("{\"attribute\": \"platform\", \"value\": \"ios\"}", "$", "missing required key \"op\""),
        ("{\"attribute\": \"\", \"op\": \"equals\", \"value\": \"ios\"}", "$.attribute", "invalid name \"\""),
        ("{\"attribute\": \"platform\", \"op\": \"is\", \"value\": \"ios\"}", "$.op", "unknown operator \"is\"; expected one of: equals, notEquals, in, notIn, startsWith"),
        ("{\"attribute\": \"platform\", \"op\": \"equals\", \"value\": \"ios\", \"values\": 1}", "$.values", "unknown key \"values\"; did you mean \"value\"?"),
        ("{\"attribute\": \"platform\", \"op\": \"equals\", \"value\": [\"ios\"]}", "$.value", "operator \"equals\" needs a string, found an array"),
        ("{\"attribute\": \"platform\", \"op\": \"in\", \"value\": \"ios\"}", "$.value", "operator \"in\" needs a non-empty array of strings, found a string"),
        ("{\"attribute\": \"platform\", \"op\": \"in\", \"value\": []}", "$.value", "needs a non-empty array of strings, found an array"),
        ("{\"attribute\": \"platform\", \"op\": \"notIn\", \"value\": [\"ios\", 3]}", "$.value", "needs a non-empty array of strings"),
        ("{\"attribute\": \"age\", \"op\": \"lessThan\", \"value\": \"18\"}", "$.value", "operator \"lessThan\" needs a number, found a string"),
        ("{\"attribute\": \"now\", \"op\": \"after\", \"value\": 1796083200}", "$.value", "operator \"after\" needs a date such as \"2026-12-01T00:00:00Z\", found a number"),
        ("{\"attribute\": \"now\", \"op\": \"after\", \"value\": \"2026-02-30\"}", "$.value", "\"2026-02-30\" is not a date: use YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ (RFC 3339)"),
        ("{\"attribute\": \"appVersion\", \"op\": \"versionAtLeast\", \"value\": 5.2}", "$.value", "operator \"versionAtLeast\" needs a version string such as \"5.2.1\", found a number"),
        ("{\"attribute\": \"appVersion\", \"op\": \"versionBelow\", \"value\": \"v5\"}", "$.value", "\"v5\" is not a version such as \"5.2.1\" or \"17.4-beta.1\""),
    ])
    func refuses(text: String, path: String, reason: String) throws {
        let result = try decodeRule(text)
        guard case .failure(let error) = result else {
            Issue.record("\(text) decoded")
            return
        }
        #expect(error.diagnostics.count == 1, "\(error)")
        let diagnostic = try #require(error.diagnostics.first)
        #expect(diagnostic.path.description == path)
        #expect(diagnostic.location.line == 1)
        #expect(diagnostic.message.contains(reason), "\(diagnostic.message)")
    }

    /// Mistakes in different branches are all reported, each with its own line.
    @Test func reportsEveryMistake() throws {
        let text = """
            {"any": [
              {"rule": "ok"},
              {"rollout": "bad name"},
              {"all": []},
              {"attribute": "appVersion", "op": "versionAtLeast", "value": "five"}
            ]}
            """
        guard case .failure(let error) = try decodeRule(text) else {
            Issue.record("decoded")
            return
        }
        #expect(error.diagnostics.map(\.path.description) == ["$.any[1].rollout", "$.any[2].all", "$.any[3].value"])
        #expect(error.diagnostics.map(\.location.line) == [3, 4, 5])
    }
}
