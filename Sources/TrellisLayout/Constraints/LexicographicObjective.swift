/// The objective: one row of summed errors per optional priority level, highest priority first,
/// compared lexicographically.
///
/// This is Cassowary's symbolic weight with one component per distinct priority. A symbol's reduced
/// cost is the vector of its coefficients in the level rows; a vector is negative when its first
/// non-zero component is. So error at a priority can never be traded for error at a higher one,
/// however many levels there are and however close their priorities (750 against 751).
struct LexicographicObjective: Sendable, Equatable {
    struct Level: Sendable, Equatable {
        var priority: Double
        var row = Row(constant: 0)
        /// Constraints at this priority; the level is dropped when it reaches 0.
        var constraintCount = 0
    }

    private(set) var levels: [Level] = []

    /// The index of `priority`'s level, made (in priority order) if there was none.
    mutating func levelIndex(for priority: Double) -> Int {
        var index = 0
        while index < levels.count && levels[index].priority > priority { index += 1 }
        if index == levels.count || levels[index].priority != priority {
            levels.insert(Level(priority: priority), at: index)
        }
        return index
    }

    func existingLevelIndex(for priority: Double) -> Int? {
        levels.firstIndex { $0.priority == priority }
    }

    mutating func retain(level index: Int) { levels[index].constraintCount += 1 }

    /// Drops the level when its last constraint goes; its row is then zero up to rounding.
    mutating func release(level index: Int) {
        levels[index].constraintCount -= 1
        if levels[index].constraintCount <= 0 { levels.remove(at: index) }
    }

    mutating func add(_ symbol: Int32, _ coefficient: Double, level index: Int) {
        levels[index].row.add(symbol, coefficient)
    }

    mutating func add(_ row: Row, times factor: Double, level index: Int) {
        levels[index].row.add(row, times: factor)
    }

    mutating func substitute(_ symbol: Int32, by row: Row) {
        for index in levels.indices { levels[index].row.substitute(symbol, by: row) }
    }

    /// The sign of `symbol`'s reduced cost: that of its first non-zero level coefficient.
    func sign(of symbol: Int32) -> Int {
        for level in levels {
            let coefficient = level.row.coefficient(of: symbol)
            if coefficient != 0 { return coefficient < 0 ? -1 : 1 }
        }
        return 0
    }

    /// Primal entering choice: the lowest-numbered symbol allowed by `isCandidate` whose reduced
    /// cost is negative (Bland's rule, which cannot cycle), or nil at the optimum.
    func enteringSymbol(_ isCandidate: (Int32) -> Bool) -> Int32? {
        var best: Int32?
        for level in levels {
            for cell in level.row.cells where cell.coefficient < 0 {
                if let current = best, cell.symbol >= current { break }
                if isCandidate(cell.symbol) && sign(of: cell.symbol) < 0 { best = cell.symbol }
            }
        }
        return best
    }

    /// Whether `lhs / lhsDivisor` is lexicographically smaller than `rhs / rhsDivisor` (positive
    /// divisors), comparing level by level with a tolerance: the dual simplex ratio test.
    func ratio(of lhs: Int32, over lhsDivisor: Double, isLessThan rhs: Int32, over rhsDivisor: Double) -> Bool {
        for level in levels {
            let left = level.row.coefficient(of: lhs) / lhsDivisor
            let right = level.row.coefficient(of: rhs) / rhsDivisor
            if absoluteValue(left - right) > constraintEpsilon { return left < right }
        }
        return false
    }
}
