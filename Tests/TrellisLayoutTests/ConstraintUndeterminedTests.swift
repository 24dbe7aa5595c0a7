import Testing
import TrellisLayout

/// `undeterminedVariables(among:)`: what an ambiguous layout looks like to the solver.
@Suite("Constraint solver: undetermined variables")
struct ConstraintUndeterminedTests {
    @Test("A view pinned on one side is undetermined, pinned on both it is not")
    func oneSidedPinIsUndeterminedAndTwoSidedIsNot() throws {
        var solver = ConstraintSolver()
        let left = solver.makeVariable()
        let width = solver.makeVariable()
        let right = solver.makeVariable()
        let unused = solver.makeVariable()
        try solver.add(LinearConstraint(right - left - width, .equal))
        try solver.add(LinearConstraint(left - 16, .equal))
        try solver.add(LinearConstraint(LinearExpression(width), .greaterThanOrEqual))
        #expect(solver.undeterminedVariables(among: [left, width, right, unused]) == [width, right, unused])
        try solver.add(LinearConstraint(right - 300, .equal))
        #expect(solver.undeterminedVariables(among: [left, width, right]) == [])
    }

    /// Bounded on one side by inequalities only: the slack lets it move.
    @Test("Inequalities alone leave a variable room to move unless they pinch it to one value")
    func inequalitiesAloneLeaveRoom() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        let y = solver.makeVariable()
        try solver.add(LinearConstraint(x - 10, .greaterThanOrEqual))
        try solver.add(LinearConstraint(y - x, .greaterThanOrEqual))
        try solver.add(LinearConstraint(y - 10, .lessThanOrEqual))
        // 10 ≤ x ≤ y ≤ 10: both fixed although only inequalities say so.
        #expect(solver.undeterminedVariables(among: [x, y]) == [])
        var loose = ConstraintSolver()
        let a = loose.makeVariable()
        let b = loose.makeVariable()
        try loose.add(LinearConstraint(a - 10, .greaterThanOrEqual))
        try loose.add(LinearConstraint(b - a, .greaterThanOrEqual))
        try loose.add(LinearConstraint(b - 20, .lessThanOrEqual))
        #expect(loose.undeterminedVariables(among: [a, b]) == [a, b])
    }

    @Test("Optional constraints that fix a unique optimum determine it; one with room below it does not")
    func optionalConstraintsDetermineAUniqueOptimum() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        let y = solver.makeVariable()
        try solver.add(LinearConstraint(x - 40, .equal, priority: 250))
        try solver.add(LinearConstraint(y - x, .lessThanOrEqual, priority: 500))
        try solver.add(LinearConstraint(y - 100, .equal, priority: 100))
        #expect(abs(solver.value(of: y) - 40) <= 1e-9)
        #expect(solver.undeterminedVariables(among: [x, y]) == [])

        // Only an inequality at a lower priority than nothing else: y can go anywhere below x.
        var open = ConstraintSolver()
        let p = open.makeVariable()
        let q = open.makeVariable()
        try open.add(LinearConstraint(p - 40, .equal, priority: 250))
        try open.add(LinearConstraint(q - p, .lessThanOrEqual, priority: 500))
        #expect(open.undeterminedVariables(among: [p, q]) == [q])
    }

    @Test("An edit variable with a suggestion counts as a constraint that determines it")
    func editVariableCountsAsAConstraint() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        try solver.add(LinearConstraint(LinearExpression(x), .greaterThanOrEqual))
        #expect(solver.undeterminedVariables(among: [x]) == [x])
        try solver.addEditVariable(x, priority: 500)
        try solver.suggestValue(x, 12)
        #expect(solver.undeterminedVariables(among: [x]) == [])
    }
}
