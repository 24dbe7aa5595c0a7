import Testing
import TrellisLayout

/// Small systems whose solutions are checked by hand.
@Suite("Constraint solver: small systems solved by hand")
struct ConstraintSolverTests {
    @Test("Required equalities fix a width between two edges, and a required inequality it satisfies leaves it there")
    func requiredEqualitiesAndInequalities() throws {
        var solver = ConstraintSolver()
        let left = solver.makeVariable()
        let width = solver.makeVariable()
        let right = solver.makeVariable()
        try solver.add(LinearConstraint(right - left - width, .equal))
        try solver.add(LinearConstraint(left - 10, .equal))
        try solver.add(LinearConstraint(right - 110, .equal))
        expectValue(solver, width, 100)
        try solver.add(LinearConstraint(LinearExpression(width), .greaterThanOrEqual, LinearExpression(constant: 50)))
        expectValue(solver, width, 100)
        expectValue(solver, right, 110)
    }

    @Test("A required inequality bounds an optional pull, and higher optional bounds decide within it")
    func inequalityBoundsAnOptionalPull() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        try solver.add(LinearConstraint(x - 5, .lessThanOrEqual))
        try solver.add(LinearConstraint(x - 10, .equal, priority: 500))
        expectValue(solver, x, 5)
        try solver.add(LinearConstraint(x - 2, .greaterThanOrEqual, priority: 600))
        try solver.add(LinearConstraint(x - 3, .lessThanOrEqual, priority: 700))
        expectValue(solver, x, 3)
    }

    /// Optional equalities at one priority minimise the sum of |error|: the median wins.
    @Test("Optional equalities at one priority minimise the total absolute error: the median wins")
    func equalPriorityEqualitiesMinimiseTotalAbsoluteError() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        for target in [10.0, 20, 90] {
            try solver.add(LinearConstraint(x - target, .equal, priority: 500))
        }
        expectValue(solver, x, 20)
    }

    /// A 751 constraint with a tiny error beats any number of 750 ones with huge errors.
    @Test("Priorities are strictly hierarchical: one constraint a level higher beats fifty below it")
    func prioritiesAreStrictlyHierarchical() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        for _ in 0..<50 {
            try solver.add(LinearConstraint(x - 1_000_000, .equal, priority: 750))
        }
        try solver.add(LinearConstraint(x - 0.001, .lessThanOrEqual, priority: 751))
        expectValue(solver, x, 0.001)

        var weak = ConstraintSolver()
        let y = weak.makeVariable()
        for _ in 0..<50 {
            try weak.add(LinearConstraint(y + 1e6, .equal, priority: 0.25))
        }
        try weak.add(LinearConstraint(y - 1e-3, .equal, priority: 0.5))
        #expect(abs(weak.value(of: y) - 1e-3) <= 1e-9)
    }

    /// Five levels, each deciding only what the ones above left open.
    @Test("Five priority levels each decide only what the levels above left open")
    func manyPriorityLevels() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        let y = solver.makeVariable()
        try solver.add(LinearConstraint(x + y - 100, .lessThanOrEqual, priority: 999.5))
        try solver.add(LinearConstraint(x - 80, .greaterThanOrEqual, priority: 300))
        try solver.add(LinearConstraint(y - 80, .greaterThanOrEqual, priority: 300.5))
        try solver.add(LinearConstraint(x - 1000, .equal, priority: 1))
        try solver.add(LinearConstraint(y - 1000, .equal, priority: 2))
        // x + y ≤ 100 first; then y ≥ 80 (300.5) beats x ≥ 80 (300), which takes what is left.
        expectValue(solver, y, 80)
        expectValue(solver, x, 20)
    }

    @Test("A conflicting required constraint throws unsatisfiable and leaves the solver as it was")
    func requiredConflictThrowsAndLeavesTheSolverUnchanged() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        let y = solver.makeVariable()
        try solver.add(LinearConstraint(x + y - 10, .equal))
        try solver.add(LinearConstraint(x - 3, .greaterThanOrEqual))
        try solver.add(LinearConstraint(y - 4, .equal, priority: 250))
        let before = solver

        // Through the artificial variable (inequality), and through a row of dummies only (equalities).
        #expect(throws: ConstraintError.unsatisfiable) { _ = try solver.add(LinearConstraint(y - 8, .greaterThanOrEqual)) }
        #expect(solver == before)
        try solver.add(LinearConstraint(x - 3, .equal))
        #expect(throws: ConstraintError.unsatisfiable) { _ = try solver.add(LinearConstraint(y - 8, .equal)) }
        // A redundant but consistent equality is accepted.
        try solver.add(LinearConstraint(y - 7, .equal))
        expectValue(solver, y, 7)

        // Later behaviour is that of a solver that never saw the failed constraint.
        var failed = before
        #expect(throws: ConstraintError.unsatisfiable) { _ = try failed.add(LinearConstraint(x - 2, .lessThanOrEqual)) }
        var clean = before
        try failed.add(LinearConstraint(x - 5, .equal, priority: 500))
        try clean.add(LinearConstraint(x - 5, .equal, priority: 500))
        #expect(failed == clean)
        #expect(abs(failed.value(of: x) - 5) <= 1e-9)
    }

    @Test("Removing a constraint restores the solution without it, and removing it twice throws unknownConstraint")
    func removingAConstraintRestoresTheSolution() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        let y = solver.makeVariable()
        try solver.add(LinearConstraint(x - y, .lessThanOrEqual))
        try solver.add(LinearConstraint(x - 40, .equal, priority: 250))
        try solver.add(LinearConstraint(y - 30, .equal, priority: 500))
        expectValue(solver, x, 30)
        let pin = try solver.add(LinearConstraint(y - 60, .equal))
        let high = try solver.add(LinearConstraint(x - 10, .lessThanOrEqual, priority: 900))
        expectValue(solver, x, 10)
        try solver.remove(high)
        expectValue(solver, x, 40)
        try solver.remove(pin)
        expectValue(solver, x, 30)
        expectValue(solver, y, 30)
        #expect(throws: ConstraintError.unknownConstraint) { try solver.remove(pin) }
    }

    @Test("An edit variable follows suggestions within its required constraints, and returns to its pull when removed")
    func editVariablesFollowSuggestionsWithinTheirConstraints() throws {
        var solver = ConstraintSolver()
        let left = solver.makeVariable()
        let right = solver.makeVariable()
        try solver.add(LinearConstraint(right - left - 10, .equal))
        try solver.add(LinearConstraint(right - 50, .lessThanOrEqual))
        try solver.add(LinearConstraint(LinearExpression(left), .greaterThanOrEqual))
        try solver.add(LinearConstraint(left - 20, .equal, priority: 100))
        try solver.addEditVariable(left, priority: 750)
        expectValue(solver, left, 20)
        // In order: each suggestion starts from the solver the previous one left.
        for (suggested, expected) in [(5.0, 5.0), (100, 40), (-3, 0), (33, 33)] {
            try solver.suggestValue(left, suggested)
            #expect(abs(solver.value(of: left) - expected) <= 1e-9, "suggested \(suggested)")
            #expect(abs(solver.value(of: right) - (expected + 10)) <= 1e-9, "suggested \(suggested)")
        }
        try solver.removeEditVariable(left)
        expectValue(solver, left, 20)
        #expect(throws: ConstraintError.unknownEditVariable) { try solver.suggestValue(left, 1) }
    }

    @Test("Bad input is rejected with the error that names it, without changing the solver")
    func badInputIsRejectedWithoutChangingTheSolver() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        try solver.add(LinearConstraint(x - 1, .equal, priority: 500))
        let before = solver
        func rejects(
            _ error: ConstraintError, sourceLocation: SourceLocation = #_sourceLocation,
            _ body: (inout ConstraintSolver) throws -> Void
        ) {
            #expect(throws: error, sourceLocation: sourceLocation) { try body(&solver) }
            #expect(solver == before, sourceLocation: sourceLocation)
        }
        rejects(.invalidExpression) { try $0.add(LinearConstraint(x * .nan, .equal)) }
        rejects(.invalidExpression) { try $0.add(LinearConstraint(x - .infinity, .equal)) }
        rejects(.invalidExpression) { try $0.add(LinearConstraint(x / 0, .equal)) }
        rejects(.invalidPriority) { try $0.add(LinearConstraint(x - 1, .equal, priority: 0)) }
        rejects(.invalidPriority) { try $0.add(LinearConstraint(x - 1, .equal, priority: 1000.5)) }
        rejects(.invalidPriority) { try $0.add(LinearConstraint(x - 1, .equal, priority: .nan)) }
        rejects(.badEditPriority) { try $0.addEditVariable(x, priority: 1000) }
        rejects(.unknownEditVariable) { try $0.removeEditVariable(x) }
        var other = ConstraintSolver()
        _ = other.makeVariable()
        let stranger = other.makeVariable()
        rejects(.unknownVariable) { try $0.add(LinearConstraint(x + stranger, .equal)) }
        #expect(solver.value(of: stranger) == 0)

        try solver.addEditVariable(x, priority: 600)
        #expect(throws: ConstraintError.duplicateEditVariable) { try solver.addEditVariable(x, priority: 700) }
        #expect(throws: ConstraintError.invalidValue) { try solver.suggestValue(x, .nan) }
        try solver.suggestValue(x, 7)
        expectValue(solver, x, 7)
    }
}

/// The solver gives `variable` the value `expected`, to rounding.
private func expectValue(
    _ solver: ConstraintSolver, _ variable: ConstraintVariable, _ expected: Double, sourceLocation: SourceLocation = #_sourceLocation
) {
    let value = solver.value(of: variable)
    #expect(abs(value - expected) <= 1e-9, "\(value), expected \(expected)", sourceLocation: sourceLocation)
}
