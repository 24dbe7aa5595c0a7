/// The simplex steps: substitution, pivoting, primal optimisation (after adding or removing a
/// constraint) and dual optimisation (after an edit moved some constants).
extension ConstraintSolver {
    /// A bound on pivots per optimisation. Bland's rule cannot cycle in exact arithmetic; the bound
    /// keeps a rounding-induced cycle from hanging the server (the solution is then merely feasible).
    var pivotLimit: Int { 1000 + 50 * rows.count }

    /// Replaces parametric `symbol` by `row` in every row except `skipping` and in the objectives.
    mutating func substitute(_ symbol: Int32, by row: Row, skipping: Int = -1) {
        for index in rows.indices where index != skipping {
            rows[index].substitute(symbol, by: row)
        }
        objective.substitute(symbol, by: row)
        artificialObjective?.substitute(symbol, by: row)
    }

    /// Makes `entering` basic in the row at `index`, whose basic symbol becomes parametric.
    mutating func pivot(entering: Int32, row index: Int) {
        let leaving = basics[index]
        rows[index].solve(basic: leaving, for: entering)
        let definition = rows[index]
        substitute(entering, by: definition, skipping: index)
        basics[index] = entering
        rowIndex[Int(leaving)] = -1
        rowIndex[Int(entering)] = Int32(index)
    }

    /// Primal simplex on the lexicographic objective (or on the artificial one while adding through
    /// an artificial variable): pivots until no symbol has a negative reduced cost.
    mutating func optimize(artificial: Bool = false) {
        for _ in 0..<pivotLimit {
            let kinds = self.kinds
            let entering: Int32?
            if artificial, let phaseOne = artificialObjective {
                entering = phaseOne.cells.first { $0.coefficient < 0 && kinds[Int($0.symbol)].isPivotable }?.symbol
            } else {
                entering = objective.enteringSymbol { kinds[Int($0)].isPivotable }
            }
            guard let entering, let leaving = leavingRow(for: entering) else { return }
            pivot(entering: entering, row: leaving)
        }
    }

    /// The ratio test: among restricted rows in which `entering` has a negative coefficient, the one
    /// that first reaches 0 as `entering` grows; ties go to the lowest basic symbol (Bland's rule).
    /// Nil means the objective is unbounded, which sums of non-negative errors never are.
    func leavingRow(for entering: Int32) -> Int? {
        var best: Int?
        var bestRatio = Double.infinity
        for index in rows.indices where kinds[Int(basics[index])].isRestricted {
            let coefficient = rows[index].coefficient(of: entering)
            guard coefficient < 0 else { continue }
            let ratio = -rows[index].constant / coefficient
            if best == nil || ratio < bestRatio || (ratio == bestRatio && basics[index] < basics[best!]) {
                best = index
                bestRatio = ratio
            }
        }
        return best
    }

    /// Dual simplex: while a restricted row has a negative constant, pivots it out with the symbol
    /// that keeps the objective optimal. The tableau must be optimal (dual feasible) on entry.
    mutating func dualOptimize() {
        var stuck: Set<Int32> = []
        for _ in 0..<pivotLimit {
            guard let index = mostUrgentInfeasibleRow(ignoring: stuck) else { return }
            if let entering = dualEnteringSymbol(row: index) {
                pivot(entering: entering, row: index)
            } else {
                // No symbol can repair the row: only rounding can cause this, since an edit's own
                // errors always can. Leave it rather than fail.
                stuck.insert(basics[index])
            }
        }
    }

    /// The infeasible restricted row with the lowest basic symbol (a deterministic choice).
    private func mostUrgentInfeasibleRow(ignoring stuck: Set<Int32>) -> Int? {
        var best: Int?
        for index in rows.indices where rows[index].constant < -constraintEpsilon {
            let basic = basics[index]
            guard kinds[Int(basic)].isRestricted, !stuck.contains(basic) else { continue }
            if best == nil || basic < basics[best!] { best = index }
        }
        return best
    }

    /// Among pivotable symbols with a positive coefficient in the row, the one with the smallest
    /// ratio of reduced cost to coefficient (lexicographically); ties go to the lowest symbol.
    private func dualEnteringSymbol(row index: Int) -> Int32? {
        var best: Cell?
        for cell in rows[index].cells where cell.coefficient > 0 && kinds[Int(cell.symbol)].isPivotable {
            if let current = best {
                if objective.ratio(of: cell.symbol, over: cell.coefficient,
                                   isLessThan: current.symbol, over: current.coefficient) {
                    best = cell
                }
            } else {
                best = cell
            }
        }
        return best?.symbol
    }
}
