/// An incremental solver for linear equality and inequality constraints with Auto Layout
/// priorities: the Cassowary algorithm (Badros, Borning and Stuckey, "The Cassowary Linear
/// Arithmetic Constraint Solving Algorithm", ACM TOCHI 2001).
///
/// Required constraints (priority 1000) always hold; `add` refuses one that conflicts with the
/// required constraints already present. Optional ones are satisfied as well as possible, priority
/// by priority, each level strictly before the next: an optional equality minimises `|error|`, an
/// optional inequality minimises its violation, and the errors at one priority are summed.
///
/// The solver keeps an optimal simplex tableau between calls, so adding or removing a constraint
/// and suggesting a new value for an edit variable re-optimise from the current solution instead of
/// solving from scratch. It is a value type: a copy is an independent snapshot. Given the same
/// sequence of calls it gives the same solution, bit for bit.
public struct ConstraintSolver: Sendable, Equatable {
    /// Every symbol's kind, indexed by symbol number.
    var kinds: [SymbolKind] = []
    /// The index in `rows` of each symbol's row, or -1 for a parametric symbol.
    var rowIndex: [Int32] = []
    /// The tableau: each row defines its basic symbol over parametric ones.
    var rows: [Row] = []
    /// The basic symbol each row defines.
    var basics: [Int32] = []
    /// The symbol of each variable, indexed by variable id.
    var variableSymbols: [Int32] = []
    var objective = LexicographicObjective()
    /// The phase-one objective, present only while a row is added through an artificial variable.
    var artificialObjective: Row?
    /// Constraints indexed by handle id; nil once removed.
    var records: [ConstraintRecord?] = []
    var edits: [ConstraintVariable: EditInfo] = [:]

    /// What the solver remembers of a constraint, to remove it later.
    struct ConstraintRecord: Sendable, Equatable {
        var constraint: LinearConstraint
        /// The slack, first error or dummy symbol made for the constraint: identifies its row.
        var marker: Int32
        /// The second error of an optional equality, or the error of an optional inequality; -1 if none.
        var other: Int32
    }

    /// An edit variable's constraint and the value last suggested for it.
    struct EditInfo: Sendable, Equatable {
        var handle: ConstraintHandle
        var value: Double
    }

    public init() {}

    /// Makes a new variable. Its value is 0 until constraints say otherwise.
    public mutating func makeVariable() -> ConstraintVariable {
        let variable = ConstraintVariable(id: Int32(variableSymbols.count))
        variableSymbols.append(makeSymbol(.external))
        return variable
    }

    /// The variable's value in the current solution: 0 for a variable in no constraint, or for a
    /// variable this solver did not make.
    public func value(of variable: ConstraintVariable) -> Double {
        guard let symbol = symbol(of: variable) else { return 0 }
        let index = rowIndex[Int(symbol)]
        return index < 0 ? 0 : rows[Int(index)].constant
    }

    func symbol(of variable: ConstraintVariable) -> Int32? {
        guard variable.id >= 0 && Int(variable.id) < variableSymbols.count else { return nil }
        return variableSymbols[Int(variable.id)]
    }

    mutating func makeSymbol(_ kind: SymbolKind) -> Int32 {
        kinds.append(kind)
        rowIndex.append(-1)
        return Int32(kinds.count - 1)
    }

    func row(of symbol: Int32) -> Row? {
        let index = rowIndex[Int(symbol)]
        return index < 0 ? nil : rows[Int(index)]
    }

    mutating func appendRow(_ row: Row, basic: Int32) {
        rowIndex[Int(basic)] = Int32(rows.count)
        rows.append(row)
        basics.append(basic)
    }

    /// Removes the row at `index` (the last row takes its place) and returns it.
    @discardableResult
    mutating func removeRow(at index: Int) -> Row {
        let removed = rows[index]
        rowIndex[Int(basics[index])] = -1
        let last = rows.count - 1
        if index != last {
            rows[index] = rows[last]
            basics[index] = basics[last]
            rowIndex[Int(basics[index])] = Int32(index)
        }
        rows.removeLast()
        basics.removeLast()
        return removed
    }
}
