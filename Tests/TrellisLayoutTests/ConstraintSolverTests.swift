import TrellisLayout
import XCTest

/// Small systems whose solutions are checked by hand.
final class ConstraintSolverTests: XCTestCase {
    func testRequiredEqualitiesAndInequalities() throws {
        var solver = ConstraintSolver()
        let left = solver.makeVariable()
        let width = solver.makeVariable()
        let right = solver.makeVariable()
        try solver.add(LinearConstraint(right - left - width, .equal))
        try solver.add(LinearConstraint(left - 10, .equal))
        try solver.add(LinearConstraint(right - 110, .equal))
        XCTAssertEqual(solver.value(of: width), 100, accuracy: 1e-9)
        try solver.add(LinearConstraint(LinearExpression(width), .greaterThanOrEqual, LinearExpression(constant: 50)))
        XCTAssertEqual(solver.value(of: width), 100, accuracy: 1e-9)
        XCTAssertEqual(solver.value(of: right), 110, accuracy: 1e-9)
    }

    func testInequalityBoundsAnOptionalPull() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        try solver.add(LinearConstraint(x - 5, .lessThanOrEqual))
        try solver.add(LinearConstraint(x - 10, .equal, priority: 500))
        XCTAssertEqual(solver.value(of: x), 5, accuracy: 1e-9)
        try solver.add(LinearConstraint(x - 2, .greaterThanOrEqual, priority: 600))
        try solver.add(LinearConstraint(x - 3, .lessThanOrEqual, priority: 700))
        XCTAssertEqual(solver.value(of: x), 3, accuracy: 1e-9)
    }

    /// Optional equalities at one priority minimise the sum of |error|: the median wins.
    func testEqualPriorityEqualitiesMinimiseTotalAbsoluteError() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        for target in [10.0, 20, 90] {
            try solver.add(LinearConstraint(x - target, .equal, priority: 500))
        }
        XCTAssertEqual(solver.value(of: x), 20, accuracy: 1e-9)
    }

    /// A 751 constraint with a tiny error beats any number of 750 ones with huge errors.
    func testPrioritiesAreStrictlyHierarchical() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        for _ in 0..<50 {
            try solver.add(LinearConstraint(x - 1_000_000, .equal, priority: 750))
        }
        try solver.add(LinearConstraint(x - 0.001, .lessThanOrEqual, priority: 751))
        XCTAssertEqual(solver.value(of: x), 0.001, accuracy: 1e-9)

        var weak = ConstraintSolver()
        let y = weak.makeVariable()
        for _ in 0..<50 {
            try weak.add(LinearConstraint(y + 1e6, .equal, priority: 0.25))
        }
        try weak.add(LinearConstraint(y - 1e-3, .equal, priority: 0.5))
        XCTAssertEqual(weak.value(of: y), 1e-3, accuracy: 1e-9)
    }

    /// Five levels, each deciding only what the ones above left open.
    func testManyPriorityLevels() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        let y = solver.makeVariable()
        try solver.add(LinearConstraint(x + y - 100, .lessThanOrEqual, priority: 999.5))
        try solver.add(LinearConstraint(x - 80, .greaterThanOrEqual, priority: 300))
        try solver.add(LinearConstraint(y - 80, .greaterThanOrEqual, priority: 300.5))
        try solver.add(LinearConstraint(x - 1000, .equal, priority: 1))
        try solver.add(LinearConstraint(y - 1000, .equal, priority: 2))
        // x + y ≤ 100 first; then y ≥ 80 (300.5) beats x ≥ 80 (300), which takes what is left.
        XCTAssertEqual(solver.value(of: y), 80, accuracy: 1e-9)
        XCTAssertEqual(solver.value(of: x), 20, accuracy: 1e-9)
    }

    func testRequiredConflictThrowsAndLeavesTheSolverUnchanged() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        let y = solver.makeVariable()
        try solver.add(LinearConstraint(x + y - 10, .equal))
        try solver.add(LinearConstraint(x - 3, .greaterThanOrEqual))
        try solver.add(LinearConstraint(y - 4, .equal, priority: 250))
        let before = solver

        // Through the artificial variable (inequality), and through a row of dummies only (equalities).
        XCTAssertThrowsError(try solver.add(LinearConstraint(y - 8, .greaterThanOrEqual))) {
            XCTAssertEqual($0 as? ConstraintError, .unsatisfiable)
        }
        XCTAssertEqual(solver, before)
        try solver.add(LinearConstraint(x - 3, .equal))
        XCTAssertThrowsError(try solver.add(LinearConstraint(y - 8, .equal))) {
            XCTAssertEqual($0 as? ConstraintError, .unsatisfiable)
        }
        // A redundant but consistent equality is accepted.
        try solver.add(LinearConstraint(y - 7, .equal))
        XCTAssertEqual(solver.value(of: y), 7, accuracy: 1e-9)

        // Later behaviour is that of a solver that never saw the failed constraint.
        var failed = before
        XCTAssertThrowsError(try failed.add(LinearConstraint(x - 2, .lessThanOrEqual)))
        var clean = before
        try failed.add(LinearConstraint(x - 5, .equal, priority: 500))
        try clean.add(LinearConstraint(x - 5, .equal, priority: 500))
        XCTAssertEqual(failed, clean)
        XCTAssertEqual(failed.value(of: x), 5, accuracy: 1e-9)
    }

    func testRemovingAConstraintRestoresTheSolution() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        let y = solver.makeVariable()
        try solver.add(LinearConstraint(x - y, .lessThanOrEqual))
        try solver.add(LinearConstraint(x - 40, .equal, priority: 250))
        try solver.add(LinearConstraint(y - 30, .equal, priority: 500))
        XCTAssertEqual(solver.value(of: x), 30, accuracy: 1e-9)
        let pin = try solver.add(LinearConstraint(y - 60, .equal))
        let high = try solver.add(LinearConstraint(x - 10, .lessThanOrEqual, priority: 900))
        XCTAssertEqual(solver.value(of: x), 10, accuracy: 1e-9)
        try solver.remove(high)
        XCTAssertEqual(solver.value(of: x), 40, accuracy: 1e-9)
        try solver.remove(pin)
        XCTAssertEqual(solver.value(of: x), 30, accuracy: 1e-9)
        XCTAssertEqual(solver.value(of: y), 30, accuracy: 1e-9)
        XCTAssertThrowsError(try solver.remove(pin)) { XCTAssertEqual($0 as? ConstraintError, .unknownConstraint) }
    }

    func testEditVariablesFollowSuggestionsWithinTheirConstraints() throws {
        var solver = ConstraintSolver()
        let left = solver.makeVariable()
        let right = solver.makeVariable()
        try solver.add(LinearConstraint(right - left - 10, .equal))
        try solver.add(LinearConstraint(right - 50, .lessThanOrEqual))
        try solver.add(LinearConstraint(LinearExpression(left), .greaterThanOrEqual))
        try solver.add(LinearConstraint(left - 20, .equal, priority: 100))
        try solver.addEditVariable(left, priority: 750)
        XCTAssertEqual(solver.value(of: left), 20, accuracy: 1e-9)
        for (suggested, expected) in [(5.0, 5.0), (100, 40), (-3, 0), (33, 33)] {
            try solver.suggestValue(left, suggested)
            XCTAssertEqual(solver.value(of: left), expected, accuracy: 1e-9)
            XCTAssertEqual(solver.value(of: right), expected + 10, accuracy: 1e-9)
        }
        try solver.removeEditVariable(left)
        XCTAssertEqual(solver.value(of: left), 20, accuracy: 1e-9)
        XCTAssertThrowsError(try solver.suggestValue(left, 1)) {
            XCTAssertEqual($0 as? ConstraintError, .unknownEditVariable)
        }
    }

    func testBadInputIsRejectedWithoutChangingTheSolver() throws {
        var solver = ConstraintSolver()
        let x = solver.makeVariable()
        try solver.add(LinearConstraint(x - 1, .equal, priority: 500))
        let before = solver
        func expect(_ error: ConstraintError, _ body: (inout ConstraintSolver) throws -> Void) {
            XCTAssertThrowsError(try body(&solver)) { XCTAssertEqual($0 as? ConstraintError, error) }
            XCTAssertEqual(solver, before)
        }
        expect(.invalidExpression) { try $0.add(LinearConstraint(x * .nan, .equal)) }
        expect(.invalidExpression) { try $0.add(LinearConstraint(x - .infinity, .equal)) }
        expect(.invalidExpression) { try $0.add(LinearConstraint(x / 0, .equal)) }
        expect(.invalidPriority) { try $0.add(LinearConstraint(x - 1, .equal, priority: 0)) }
        expect(.invalidPriority) { try $0.add(LinearConstraint(x - 1, .equal, priority: 1000.5)) }
        expect(.invalidPriority) { try $0.add(LinearConstraint(x - 1, .equal, priority: .nan)) }
        expect(.badEditPriority) { try $0.addEditVariable(x, priority: 1000) }
        expect(.unknownEditVariable) { try $0.removeEditVariable(x) }
        var other = ConstraintSolver()
        _ = other.makeVariable()
        let stranger = other.makeVariable()
        expect(.unknownVariable) { try $0.add(LinearConstraint(x + stranger, .equal)) }
        XCTAssertEqual(solver.value(of: stranger), 0)

        try solver.addEditVariable(x, priority: 600)
        XCTAssertThrowsError(try solver.addEditVariable(x, priority: 700)) {
            XCTAssertEqual($0 as? ConstraintError, .duplicateEditVariable)
        }
        XCTAssertThrowsError(try solver.suggestValue(x, .nan)) { XCTAssertEqual($0 as? ConstraintError, .invalidValue) }
        try solver.suggestValue(x, 7)
        XCTAssertEqual(solver.value(of: x), 7, accuracy: 1e-9)
    }
}
