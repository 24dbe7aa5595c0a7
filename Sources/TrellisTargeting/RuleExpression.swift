/// A targeting condition, as written in screens and in `Config/targeting.json`.
///
/// ```json
/// {"all": [{"rule": "is_gold_member"}, {"rollout": "gold-banner"}]}
/// {"attribute": "appVersion", "op": "versionAtLeast", "value": "5.2"}
/// ```
public indirect enum RuleExpression: Sendable, Equatable {
    case all([RuleExpression])
    case any([RuleExpression])
    case not(RuleExpression)
    /// A named rule defined once in the targeting configuration.
    case named(String)
    /// True for the users a staged rollout admits.
    case rollout(String)
    /// True for the users an experiment assigns to `variant`.
    case experiment(String, variant: String)
    case condition(AttributeCondition)
}

/// A test of one attribute of the user context against a literal.
public struct AttributeCondition: Sendable, Equatable {
    public var attribute: String { didSet { builtIn = UserContext.BuiltInAttribute(rawValue: attribute) } }
    public var op: Operator
    public var operand: Operand
    /// `attribute` when it names a built-in one, looked up once rather than at every evaluation.
    public private(set) var builtIn: UserContext.BuiltInAttribute?

    public init(attribute: String, op: Operator, operand: Operand) {
        self.attribute = attribute
        builtIn = UserContext.BuiltInAttribute(rawValue: attribute)
        self.op = op
        self.operand = operand
    }

    public enum Operator: String, Sendable, CaseIterable {
        case equals, notEquals, `in`, notIn
        case startsWith, endsWith, contains
        case lessThan, lessThanOrEqual, greaterThan, greaterThanOrEqual
        case before, after
        case versionBelow, versionAtLeast, versionEquals

        /// What kind of literal the operator compares with.
        var operandKind: OperandKind {
            switch self {
            case .equals, .notEquals, .startsWith, .endsWith, .contains: .string
            case .in, .notIn: .stringSet
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: .number
            case .before, .after: .date
            case .versionBelow, .versionAtLeast, .versionEquals: .version
            }
        }
    }

    enum OperandKind { case string, stringSet, number, date, version }

    public enum Operand: Sendable, Equatable {
        case string(String)
        case stringSet([String])
        case number(Double)
        /// Seconds since 1970-01-01T00:00:00Z.
        case date(Double)
        case version(SemanticVersion)
    }
}
