import TrellisJSON
import TrellisTargeting

extension AuthoringSchema {
    /// What an attribute condition compares with; the switch in ``ruleDefinitions()`` is
    /// exhaustive, so a new operator does not compile until the schema knows its operand.
    enum Operand: CaseIterable {
        case string, stringSet, number, date, version

        init(_ op: AttributeCondition.Operator) {
            switch op {
            case .equals, .notEquals, .startsWith, .endsWith, .contains: self = .string
            case .in, .notIn: self = .stringSet
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: self = .number
            case .before, .after: self = .date
            case .versionBelow, .versionAtLeast, .versionEquals: self = .version
            }
        }

        var schema: JSONValue {
            switch self {
            case .string: object([("type", .string("string"))])
            case .stringSet: object([("type", .string("array")), ("minItems", .number(1)), ("items", object([("type", .string("string"))]))])
            case .number: object([("type", .string("number"))])
            case .date:
                described(
                    "YYYY-MM-DD (midnight UTC) or an RFC 3339 date-time such as 2026-12-01T09:30:00Z.",
                    object([("type", .string("string")), ("pattern", .string(Pattern.date))]))
            case .version:
                described(
                    "MAJOR[.MINOR[.PATCH[.FOURTH]]][-PRERELEASE][+BUILD], such as 5.2.1 or 17.4-beta.1.",
                    object([("type", .string("string")), ("pattern", .string(Pattern.version))]))
            }
        }
    }

    /// The rule grammar of `RuleExpression.decode` (docs/screens.md, "Rule expressions"): an object
    /// with `attribute` is a condition; otherwise one with `experiment` is an experiment test;
    /// otherwise it has exactly one of `all`, `any`, `not`, `rule`, `rollout`.
    static func ruleDefinitions() -> [(String, JSONValue)] {
        let operators = AttributeCondition.Operator.allCases
        let operands: [JSONValue] = Operand.allCases.compactMap { operand in
            let ops = operators.filter { Operand($0) == operand }.map(\.rawValue)
            guard !ops.isEmpty else { return nil }
            return object([
                ("if", object([("required", strings(["op"])), ("properties", object([("op", object([("enum", strings(ops))]))]))])),
                ("then", object([("properties", object([("value", operand.schema)]))])),
            ])
        }
        var condition = closedObject(
            required: ["attribute", "op", "value"],
            [
                ("attribute", described("The user attribute's name.", ref("id"))),
                ("op", object([("enum", strings(operators.map(\.rawValue)))])),
                ("value", described("A literal of the operator's kind.", .object([]))),
            ])
        condition = object((condition.objectValue ?? []).map { ($0.key, $0.value) } + [("allOf", .array(operands))])
        let list = object([("type", .string("array")), ("minItems", .number(1)), ("items", ref("ruleExpression"))])
        let experiment = closedObject(
            required: ["experiment", "variant"], [("experiment", ref("id")), ("variant", ref("id"))])
        let combinator = object([
            ("minProperties", .number(1)), ("maxProperties", .number(1)), ("additionalProperties", .bool(false)),
            (
                "properties",
                object([
                    ("all", described("True when every expression is.", list)),
                    ("any", described("True when at least one expression is.", list)),
                    ("not", described("True when the expression is false.", ref("ruleExpression"))),
                    ("rule", described("A named rule of Config/targeting.json.", ref("id"))),
                    ("rollout", described("A staged rollout that admits the user.", ref("id"))),
                ])
            ),
        ])
        return [
            (
                "ruleExpression",
                object([
                    (
                        "description",
                        .string(
                            "A rule expression: {\"all\": […]}, {\"any\": […]}, {\"not\": e}, {\"rule\": name}, {\"rollout\": key}, {\"experiment\": key, \"variant\": name} or {\"attribute\": name, \"op\": operator, \"value\": literal}."
                        )
                    ),
                    ("type", .string("object")),
                    ("if", object([("required", strings(["attribute"]))])),
                    ("then", ref("ruleCondition")),
                    ("else", object([("if", object([("required", strings(["experiment"]))])), ("then", experiment), ("else", combinator)])),
                ])
            ),
            ("ruleCondition", described("True when the user's attribute compares true with the literal.", condition)),
        ]
    }
}

extension AuthoringSchema.Pattern {
    /// ``RFC3339``: `YYYY-MM-DD` or `YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm)`; whether the day
    /// exists in its month is left to the decoder.
    static let date =
        "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])([Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?$"
    private static let prereleaseIdentifier = "(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
    /// ``SemanticVersion``: one to four parts of 1–9 digits, a pre-release, and ignored build metadata.
    static let version = "^[0-9]{1,9}(\\.[0-9]{1,9}){0,3}(-\(prereleaseIdentifier)(\\.\(prereleaseIdentifier))*)?(\\+.*)?$"
    /// A number as a style string: a plain decimal (the layout engine also reads other spellings).
    static let styleNumber = "-?[0-9]+(\\.[0-9]+)?"
}
