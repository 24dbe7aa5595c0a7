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
    }
}
