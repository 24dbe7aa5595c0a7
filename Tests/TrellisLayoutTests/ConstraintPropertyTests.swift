import Testing
import TrellisTesting
import TrellisLayout

/// Seeded random systems: required constraints hold, and incremental edits end where a fresh solve
/// of the final system does.
@Suite("Constraint solver: seeded random systems")
struct ConstraintPropertyTests {
    /// A random constraint over `variables`: one to three terms with small integer coefficients.
    /// Optional constraints get distinct priorities, so the optimum's errors are unique and two
    /// optimal solutions can differ only in undetermined variables.
    static func randomConstraint(_ random: inout SplitMix64, _ variables: [ConstraintVariable],
                                 priorities: inout [Double]) -> LinearConstraint {
        var terms: [(ConstraintVariable, Double)] = []
        for _ in 0...random.below(3) {
            let coefficient = Double(random.below(7) - 3)
            terms.append((variables[random.below(variables.count)], coefficient == 0 ? 1 : coefficient))
        }
        let expression = LinearExpression(terms, constant: Double(random.below(201) - 100))
        let relation: ConstraintRelation = [.equal, .lessThanOrEqual, .greaterThanOrEqual][random.below(3)]
        if random.chance(40) { return LinearConstraint(expression, relation) }
        return LinearConstraint(expression, relation, priority: priorities.removeFirst())
    }

    static func shuffledPriorities(_ random: inout SplitMix64) -> [Double] {
        var priorities = (0..<400).map { 0.5 + Double($0) * 2.49 }
        for index in priorities.indices.reversed() {
            priorities.swapAt(index, random.below(index + 1))
        }
        return priorities
    }

    /// How far a solution is from satisfying a constraint.
    static func violation(_ constraint: LinearConstraint, _ solver: ConstraintSolver) -> Double {
        let terms = constraint.expression.terms
        let value = terms.reduce(constraint.expression.constant) { $0 + $1.coefficient * solver.value(of: $1.variable) }
        switch constraint.relation {
        case .equal: return abs(value)
        case .lessThanOrEqual: return max(0, value)
        case .greaterThanOrEqual: return max(0, -value)
        }
    }

    /// Each priority's total violation, highest first: the objective both solvers minimise.
    static func levelErrors(_ constraints: [LinearConstraint], _ solver: ConstraintSolver) -> [Double: Double] {
        var errors: [Double: Double] = [:]
        for constraint in constraints where constraint.priority < ConstraintPriority.required {
            errors[constraint.priority, default: 0] += violation(constraint, solver)
        }
        return errors
    }

    @Test("Required constraints always hold, and incremental adds, removes and edits end where a fresh solve does")
    func requiredConstraintsHoldAndIncrementalEqualsFresh() throws {
        var comparedValues = 0
        for seed in 1...120 as ClosedRange<UInt64> {
            var random = SplitMix64(seed: seed)
            var priorities = Self.shuffledPriorities(&random)
            var solver = ConstraintSolver()
            let variables = (0..<(3 + random.below(6))).map { _ in solver.makeVariable() }
            var live: [(handle: ConstraintHandle, constraint: LinearConstraint)] = []
            var edits: [ConstraintVariable: (priority: Double, value: Double)] = [:]

            for step in 0..<(10 + random.below(30)) {
                if !live.isEmpty && random.chance(15) {
                    let removed = live.remove(at: random.below(live.count))
                    try solver.remove(removed.handle)
                } else if random.chance(15) {
                    let variable = variables[random.below(variables.count)]
                    if edits[variable] == nil {
                        let priority = priorities.removeFirst()
                        try solver.addEditVariable(variable, priority: priority)
                        edits[variable] = (priority, solver.value(of: variable))
                    }
                    let value = Double(random.below(401) - 200)
                    try solver.suggestValue(variable, value)
                    edits[variable]?.value = value
                } else {
                    let constraint = Self.randomConstraint(&random, variables, priorities: &priorities)
                    let before = solver
                    do {
                        live.append((try solver.add(constraint), constraint))
                    } catch {
                        #expect(error == .unsatisfiable, "seed \(seed) step \(step)")
                        #expect(constraint.priority >= ConstraintPriority.required, "seed \(seed) step \(step)")
                        #expect(solver == before, "seed \(seed) step \(step)")
                    }
                }
                for (_, constraint) in live where constraint.priority >= ConstraintPriority.required {
                    #expect(Self.violation(constraint, solver) < 1e-6, "seed \(seed) step \(step)")
                }
            }

            // The final system solved from scratch, edits as plain optional equalities.
            var fresh = ConstraintSolver()
            for _ in variables { _ = fresh.makeVariable() }
            var final = live.map(\.constraint)
            for (variable, edit) in edits.sorted(by: { $0.key.id < $1.key.id }) {
                final.append(LinearConstraint(variable - edit.value, .equal, priority: edit.priority))
            }
            for constraint in final { try fresh.add(constraint) }

            let incrementalErrors = Self.levelErrors(final, solver)
            for (priority, error) in Self.levelErrors(final, fresh) {
                let incremental = try #require(incrementalErrors[priority], "seed \(seed) priority \(priority)")
                #expect(abs(incremental - error) <= 1e-6 * max(1, error), "seed \(seed) priority \(priority)")
            }
            let undetermined = Set(fresh.undeterminedVariables(among: variables))
            #expect(Set(solver.undeterminedVariables(among: variables)) == undetermined, "seed \(seed)")
            for variable in variables where !undetermined.contains(variable) {
                #expect(abs(solver.value(of: variable) - fresh.value(of: variable))
                            <= 1e-6 * max(1, abs(fresh.value(of: variable))), "seed \(seed)")
                comparedValues += 1
            }
        }
        // The generator must produce determined variables for the comparison to mean anything.
        #expect(comparedValues > 100)
    }

    /// The same calls give the same solution, bit for bit.
    @Test("The same calls give the same solution, bit for bit", arguments: 1...20 as ClosedRange<UInt64>)
    func solvingIsDeterministic(seed: UInt64) throws {
        func solve(seed: UInt64) throws -> [UInt64] {
            var random = SplitMix64(seed: seed)
            var priorities = Self.shuffledPriorities(&random)
            var solver = ConstraintSolver()
            let variables = (0..<8).map { _ in solver.makeVariable() }
            for _ in 0..<40 {
                _ = try? solver.add(Self.randomConstraint(&random, variables, priorities: &priorities))
            }
            return variables.map { solver.value(of: $0).bitPattern }
        }
        #expect(try solve(seed: seed) == solve(seed: seed))
    }
}
