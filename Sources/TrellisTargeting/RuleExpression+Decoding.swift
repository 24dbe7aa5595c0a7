import TrellisJSON

extension RuleExpression {
    /// Decodes an expression, reporting every mistake with its path; nil when any was found.
    public static func decode(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> RuleExpression? {
        guard let members = value.objectValue else {
            collector.report("expected a rule expression object, found \(value.typeName)", at: path, value)
            return nil
        }
        let keys = Set(members.map(\.key))
        if keys.contains("attribute") { return decodeCondition(value, at: path, collector) }
        if keys.contains("experiment") {
            guard let object = collector.object(value, at: path, allowedKeys: ["experiment", "variant"]) else { return nil }
            let key = object.value("experiment", required: true).flatMap { identifier($0, at: path.appending("experiment"), collector) }
            let variant = object.value("variant", required: true).flatMap { identifier($0, at: path.appending("variant"), collector) }
            guard let key, let variant else { return nil }
            return .experiment(key, variant: variant)
        }
        guard members.count == 1, let member = members.first else {
            collector.report(
                "a rule expression has exactly one of: all, any, not, rule, rollout, experiment, attribute",
                at: path, value)
            return nil
        }
        let childPath = path.appending(member.key)
        switch member.key {
        case "all", "any":
            guard let list = member.value.arrayValue else {
                collector.report("expected an array of expressions, found \(member.value.typeName)", at: childPath, member.value)
                return nil
            }
            if list.isEmpty { collector.report("\"\(member.key)\" needs at least one expression", at: childPath, member.value) }
            let children = list.enumerated().map { decode($1, at: childPath.appending($0), collector) }
            guard !list.isEmpty, children.allSatisfy({ $0 != nil }) else { return nil }
            return member.key == "all" ? .all(children.map { $0! }) : .any(children.map { $0! })
        case "not":
            return decode(member.value, at: childPath, collector).map { .not($0) }
        case "rule", "rollout":
            guard let name = identifier(member.value, at: childPath, collector) else { return nil }
            return member.key == "rule" ? .named(name) : .rollout(name)
        default:
            collector.report(
                "unknown expression \"\(member.key)\"; expected all, any, not, rule, rollout, experiment or attribute",
                at: childPath, member.keyLocation)
            return nil
        }
    }

    /// Names of rules, rollouts and experiments: 1–64 of `a-z A-Z 0-9 _ - .`.
    static func identifier(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> String? {
        guard let name = value.stringValue else {
            collector.report("expected a name, found \(value.typeName)", at: path, value)
            return nil
        }
        guard isIdentifier(name) else {
            collector.report("invalid name \"\(name)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots", at: path, value)
            return nil
        }
        return name
    }

    public static func isIdentifier(_ name: String) -> Bool {
        // Names end up in URL paths (`/admin/rules/{name}`): `.` and `..` would walk them.
        (1...64).contains(name.utf8.count) && !name.utf8.allSatisfy({ $0 == 0x2E })
            && name.utf8.allSatisfy { c in
                (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
                    || c == 0x5F || c == 0x2D || c == 0x2E
            }
    }

    private static func decodeCondition(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> RuleExpression? {
        guard let object = collector.object(value, at: path, allowedKeys: ["attribute", "op", "value"]) else { return nil }
        let attribute = object.value("attribute", required: true).flatMap { identifier($0, at: path.appending("attribute"), collector) }
        let opName = object.string("op", required: true)
        let operandValue = object.value("value", required: true)
        guard let attribute, let opName, let operandValue else { return nil }
        guard let op = AttributeCondition.Operator(rawValue: opName) else {
            let known = AttributeCondition.Operator.allCases.map(\.rawValue).joined(separator: ", ")
            object.report("unknown operator \"\(opName)\"; expected one of: \(known)", atMember: "op")
            return nil
        }
        guard let operand = decodeOperand(operandValue, for: op, at: path.appending("value"), collector) else { return nil }
        return .condition(AttributeCondition(attribute: attribute, op: op, operand: operand))
    }

    private static func decodeOperand(
        _ value: JSONValue, for op: AttributeCondition.Operator, at path: JSONPath, _ collector: DiagnosticsCollector
    ) -> AttributeCondition.Operand? {
        func fail(_ expected: String) -> AttributeCondition.Operand? {
            collector.report("operator \"\(op.rawValue)\" needs \(expected), found \(value.typeName)", at: path, value)
            return nil
        }
        switch op.operandKind {
        case .string:
            return value.stringValue.map { .string($0) } ?? fail("a string")
        case .number:
            return value.numberValue.map { .number($0) } ?? fail("a number")
        case .stringSet:
            guard let list = value.arrayValue, !list.isEmpty, list.allSatisfy({ $0.stringValue != nil }) else {
                return fail("a non-empty array of strings")
            }
            return .stringSet(list.map { $0.stringValue! })
        case .version:
            guard let text = value.stringValue else { return fail("a version string such as \"5.2.1\"") }
            guard let version = SemanticVersion(text) else {
                collector.report("\"\(text)\" is not a version such as \"5.2.1\" or \"17.4-beta.1\"", at: path, value)
                return nil
            }
            return .version(version)
        case .date:
            guard let text = value.stringValue else { return fail("a date such as \"2026-12-01T00:00:00Z\"") }
            guard let seconds = RFC3339.seconds(from: text) else {
                collector.report("\"\(text)\" is not a date: use YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ (RFC 3339)", at: path, value)
                return nil
            }
            return .date(seconds)
        }
    }
}
