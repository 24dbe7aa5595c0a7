/// Finding variables the constraints leave free: the ambiguous parts of a layout.
extension ConstraintSolver {
    /// Variables among `variables` whose value is not fixed by the constraints: they could take
    /// another value without any constraint (required or not) becoming less satisfied. Used to
    /// report ambiguous layouts. A variable in no constraint is undetermined.
    ///
    /// Two optional constraints of equal priority that pull a variable apart, with no higher
    /// priority deciding between them, do not make it undetermined by this definition: any other
    /// value would leave one of them less satisfied.
    ///
    /// The result keeps the order of `variables`. Cost: a lookup per variable, plus, for a variable
    /// bounded only through inequalities, two feasibility tests on a copy of the system.
    public func undeterminedVariables(among variables: [ConstraintVariable]) -> [ConstraintVariable] {
        var probe: ConstraintSolver?
        return variables.filter { variable in
            switch quickDetermination(of: variable) {
            case .determined: return false
            case .undetermined: return true
            case .unknown:
                if probe == nil { probe = satisfactionPreservingSystem() }
                return probe!.canMove(variable, from: value(of: variable))
            }
        }
    }

    private enum Determination { case determined, undetermined, unknown }

    /// Decides from the tableau alone when it can. Moving without making any constraint less
    /// satisfied keeps every error and dummy at its value (at an optimum, errors can only grow or stay),
    /// so what a variable can follow is its row's externals (free) and slacks (free unless blocked).
    private func quickDetermination(of variable: ConstraintVariable) -> Determination {
        guard let symbol = symbol(of: variable), let definition = row(of: symbol) else { return .undetermined }
        var hasSlack = false
        for cell in definition.cells {
            switch kinds[Int(cell.symbol)] {
            case .external: return .undetermined
            case .slack: hasSlack = true
            case .error, .dummy: continue
            }
        }
        return hasSlack ? .unknown : .determined
    }

    /// A solver with the same variables and only required constraints: the required ones, and each
    /// optional one relaxed by exactly its current error, so that it may not become less satisfied.
    private func satisfactionPreservingSystem() -> ConstraintSolver {
        var probe = ConstraintSolver()
        for _ in variableSymbols { _ = probe.makeVariable() }
        let editValues = Dictionary(uniqueKeysWithValues: edits.values.map { ($0.handle.id, $0.value) })
        for (id, record) in records.enumerated() {
            guard let record else { continue }
            var expression = record.constraint.expression
            if let edited = editValues[Int32(id)] { expression.constant = -edited }
            for relaxed in relaxations(of: expression, record.constraint) {
                _ = try? probe.add(relaxed)
            }
        }
        return probe
    }

    private func relaxations(of expression: LinearExpression,
                             _ constraint: LinearConstraint) -> [LinearConstraint] {
        if constraint.isRequired { return [LinearConstraint(expression, constraint.relation)] }
        let current = expression.evaluate { value(of: $0) }
        switch constraint.relation {
        case .equal:
            let error = absoluteValue(current)
            return [LinearConstraint(expression - error, .lessThanOrEqual),
                    LinearConstraint(expression + error, .greaterThanOrEqual)]
        case .lessThanOrEqual:
            return [LinearConstraint(expression - (current > 0 ? current : 0), .lessThanOrEqual)]
        case .greaterThanOrEqual:
            return [LinearConstraint(expression - (current < 0 ? current : 0), .greaterThanOrEqual)]
        }
    }

    /// Whether the required constraints let `variable` move measurably away from `value`.
    private func canMove(_ variable: ConstraintVariable, from value: Double) -> Bool {
        let step = 1e-6 * max(1, absoluteValue(value))
        var up = self
        if (try? up.add(LinearConstraint(LinearExpression(variable) - (value + step), .greaterThanOrEqual))) != nil {
            return true
        }
        var down = self
        return (try? down.add(LinearConstraint(LinearExpression(variable) - (value - step), .lessThanOrEqual))) != nil
    }
}
