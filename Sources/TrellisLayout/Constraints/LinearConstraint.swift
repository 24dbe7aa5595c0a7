/// How a constraint's expression compares with zero.
public enum ConstraintRelation: Sendable {
    case equal, lessThanOrEqual, greaterThanOrEqual
}

/// `expression RELATION 0` at `priority`.
public struct LinearConstraint: Sendable, Equatable {
    public var expression: LinearExpression
    public var relation: ConstraintRelation
    /// In (0, 1000]; `ConstraintPriority.required` (1000) must hold, anything lower is optional.
    public var priority: Double

    /// `expression relation 0`.
    public init(_ expression: LinearExpression, _ relation: ConstraintRelation,
                priority: Double = ConstraintPriority.required) {
        self.expression = expression
        self.relation = relation
        self.priority = priority
    }

    /// `lhs relation rhs`, kept as `lhs - rhs relation 0`.
    public init(_ lhs: LinearExpression, _ relation: ConstraintRelation, _ rhs: LinearExpression,
                priority: Double = ConstraintPriority.required) {
        self.init(lhs - rhs, relation, priority: priority)
    }

    var isRequired: Bool { priority >= ConstraintPriority.required }
}
