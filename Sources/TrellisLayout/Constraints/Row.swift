/// One coefficient of a sparse row.
struct Cell: Sendable, Equatable {
    var symbol: Int32
    var coefficient: Double
}

/// A sparse linear form `constant + Σ coefficient · symbol`, its cells sorted by symbol.
///
/// In the tableau a row defines its basic symbol: `basic = constant + Σ …`, over parametric
/// symbols only. Sorted cells make lookups a binary search and row arithmetic a merge, and keep
/// iteration order (hence pivoting) independent of hashing.
struct Row: Sendable, Equatable {
    var cells: [Cell] = []
    var constant: Double

    init(constant: Double) {
        self.constant = constant
    }

    /// The index of `symbol`'s cell, or where it would be inserted.
    private func position(of symbol: Int32) -> (index: Int, found: Bool) {
        var low = 0
        var high = cells.count
        while low < high {
            let middle = (low + high) / 2
            if cells[middle].symbol < symbol { low = middle + 1 } else { high = middle }
        }
        return (low, low < cells.count && cells[low].symbol == symbol)
    }

    func coefficient(of symbol: Int32) -> Double {
        let (index, found) = position(of: symbol)
        return found ? cells[index].coefficient : 0
    }

    /// Adds `coefficient · symbol`, dropping the cell if the sum is near zero.
    mutating func add(_ symbol: Int32, _ coefficient: Double) {
        let (index, found) = position(of: symbol)
        if found {
            let sum = cells[index].coefficient + coefficient
            if isNearZero(sum) { cells.remove(at: index) } else { cells[index].coefficient = sum }
        } else if !isNearZero(coefficient) {
            cells.insert(Cell(symbol: symbol, coefficient: coefficient), at: index)
        }
    }

    /// Adds `factor · other` (constant included): a sorted merge, dropping sums near zero.
    mutating func add(_ other: Row, times factor: Double) {
        constant += other.constant * factor
        var merged: [Cell] = []
        merged.reserveCapacity(cells.count + other.cells.count)
        var mine = 0
        var theirs = 0
        while mine < cells.count || theirs < other.cells.count {
            if theirs == other.cells.count
                || (mine < cells.count && cells[mine].symbol < other.cells[theirs].symbol) {
                merged.append(cells[mine])
                mine += 1
                continue
            }
            let symbol = other.cells[theirs].symbol
            var sum = other.cells[theirs].coefficient * factor
            if mine < cells.count && cells[mine].symbol == symbol {
                sum += cells[mine].coefficient
                mine += 1
            }
            theirs += 1
            if !isNearZero(sum) { merged.append(Cell(symbol: symbol, coefficient: sum)) }
        }
        cells = merged
    }

    /// Removes `symbol`'s cell and returns its coefficient (0 if absent).
    @discardableResult
    mutating func remove(_ symbol: Int32) -> Double {
        let (index, found) = position(of: symbol)
        guard found else { return 0 }
        return cells.remove(at: index).coefficient
    }

    mutating func multiply(by factor: Double) {
        constant *= factor
        for index in cells.indices { cells[index].coefficient *= factor }
    }

    /// Reads the row as `0 = constant + Σ …` and rewrites it as `symbol = …`, which no longer
    /// contains `symbol`. The caller makes sure `symbol` has a (non-zero) cell.
    mutating func solve(for symbol: Int32) {
        let coefficient = remove(symbol)
        multiply(by: -1 / coefficient)
    }

    /// Reads the row as `basic = constant + Σ …` and rewrites it as `entering = …`.
    mutating func solve(basic: Int32, for entering: Int32) {
        add(basic, -1)
        solve(for: entering)
    }

    /// Replaces `symbol` by `row`'s definition of it.
    mutating func substitute(_ symbol: Int32, by row: Row) {
        let coefficient = remove(symbol)
        if coefficient != 0 { add(row, times: coefficient) }
    }
}
