/// A linear expression: a sum of variables times coefficients, plus a constant.
///
/// Built with `+`, `-` between expressions, variables and numbers, `*` and `/` by a number, and prefix
/// `-`. A variable may appear in several terms; the solver adds them up.
public struct LinearExpression: Sendable, Equatable {
    /// One variable times its coefficient.
    public struct Term: Sendable, Equatable {
        public var variable: ConstraintVariable
        public var coefficient: Double

        /// `coefficient · variable`.
        public init(_ variable: ConstraintVariable, _ coefficient: Double) {
            self.variable = variable
            self.coefficient = coefficient
        }
    }

    /// The terms in the order they were written; not merged, so a variable may repeat.
    public var terms: [Term]
    /// The number added to the terms.
    public var constant: Double

    /// `constant` alone (0 by default).
    public init(constant: Double = 0) {
        self.terms = []
        self.constant = constant
    }

    /// `variable` with coefficient 1.
    public init(_ variable: ConstraintVariable) {
        self.terms = [Term(variable, 1)]
        self.constant = 0
    }

    /// `Σ coefficient · variable + constant`.
    public init(_ terms: [(ConstraintVariable, Double)], constant: Double = 0) {
        self.terms = terms.map { Term($0.0, $0.1) }
        self.constant = constant
    }

    /// Every coefficient and the constant are finite numbers (neither NaN nor infinite).
    var isFinite: Bool {
        constant.isFinite && terms.allSatisfy { $0.coefficient.isFinite }
    }

    /// The expression's value when each variable has the value `value(variable)`.
    func evaluate(_ value: (ConstraintVariable) -> Double) -> Double {
        terms.reduce(constant) { $0 + $1.coefficient * value($1.variable) }
    }

    func scaled(by factor: Double) -> LinearExpression {
        var result = self
        for index in result.terms.indices { result.terms[index].coefficient *= factor }
        result.constant *= factor
        return result
    }
}

extension LinearExpression {
    public static prefix func - (expression: LinearExpression) -> LinearExpression {
        expression.scaled(by: -1)
    }

    public static func + (lhs: LinearExpression, rhs: LinearExpression) -> LinearExpression {
        var result = lhs
        result.terms += rhs.terms
        result.constant += rhs.constant
        return result
    }

    public static func - (lhs: LinearExpression, rhs: LinearExpression) -> LinearExpression {
        lhs + rhs.scaled(by: -1)
    }

    public static func * (lhs: LinearExpression, rhs: Double) -> LinearExpression { lhs.scaled(by: rhs) }
    public static func * (lhs: Double, rhs: LinearExpression) -> LinearExpression { rhs.scaled(by: lhs) }
    public static func / (lhs: LinearExpression, rhs: Double) -> LinearExpression { lhs.scaled(by: 1 / rhs) }

    public static func + (lhs: LinearExpression, rhs: ConstraintVariable) -> LinearExpression { lhs + .init(rhs) }
    public static func + (lhs: ConstraintVariable, rhs: LinearExpression) -> LinearExpression { .init(lhs) + rhs }
    public static func - (lhs: LinearExpression, rhs: ConstraintVariable) -> LinearExpression { lhs - .init(rhs) }
    public static func - (lhs: ConstraintVariable, rhs: LinearExpression) -> LinearExpression { .init(lhs) - rhs }
    public static func + (lhs: LinearExpression, rhs: Double) -> LinearExpression { lhs + .init(constant: rhs) }
    public static func + (lhs: Double, rhs: LinearExpression) -> LinearExpression { .init(constant: lhs) + rhs }
    public static func - (lhs: LinearExpression, rhs: Double) -> LinearExpression { lhs - .init(constant: rhs) }
    public static func - (lhs: Double, rhs: LinearExpression) -> LinearExpression { .init(constant: lhs) - rhs }
}

extension ConstraintVariable {
    public static prefix func - (variable: ConstraintVariable) -> LinearExpression { -LinearExpression(variable) }

    public static func + (lhs: ConstraintVariable, rhs: ConstraintVariable) -> LinearExpression {
        LinearExpression(lhs) + LinearExpression(rhs)
    }

    public static func - (lhs: ConstraintVariable, rhs: ConstraintVariable) -> LinearExpression {
        LinearExpression(lhs) - LinearExpression(rhs)
    }

    public static func + (lhs: ConstraintVariable, rhs: Double) -> LinearExpression { LinearExpression(lhs) + rhs }
    public static func + (lhs: Double, rhs: ConstraintVariable) -> LinearExpression { lhs + LinearExpression(rhs) }
    public static func - (lhs: ConstraintVariable, rhs: Double) -> LinearExpression { LinearExpression(lhs) - rhs }
    public static func - (lhs: Double, rhs: ConstraintVariable) -> LinearExpression { lhs - LinearExpression(rhs) }
    public static func * (lhs: ConstraintVariable, rhs: Double) -> LinearExpression { LinearExpression(lhs) * rhs }
    public static func * (lhs: Double, rhs: ConstraintVariable) -> LinearExpression { lhs * LinearExpression(rhs) }
    public static func / (lhs: ConstraintVariable, rhs: Double) -> LinearExpression { LinearExpression(lhs) / rhs }
}
