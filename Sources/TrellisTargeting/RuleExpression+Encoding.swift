import TrellisJSON

extension RuleExpression {
    /// The expression in the same shape it is authored in.
    public var jsonValue: JSONValue {
        switch self {
        case .all(let list): .object([("all", .array(list.map(\.jsonValue)))])
        case .any(let list): .object([("any", .array(list.map(\.jsonValue)))])
        case .not(let inner): .object([("not", inner.jsonValue)])
        case .named(let name): .object([("rule", .string(name))])
        case .rollout(let key): .object([("rollout", .string(key))])
        case .experiment(let key, let variant): .object([("experiment", .string(key)), ("variant", .string(variant))])
        case .condition(let c): .object([("attribute", .string(c.attribute)), ("op", .string(c.op.rawValue)), ("value", c.operand.jsonValue)])
        }
    }
}

extension AttributeCondition.Operand {
    var jsonValue: JSONValue {
        switch self {
        case .string(let s): .string(s)
        case .stringSet(let list): .array(list.map { .string($0) })
        case .number(let n): .number(n)
        case .date(let seconds): .string(RFC3339.string(fromSeconds: seconds))
        case .version(let v): .string(v.description)
        }
    }
}
