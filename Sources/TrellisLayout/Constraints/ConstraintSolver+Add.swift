/// Adding a constraint (Cassowary §4.1): its row is built over the current parametric symbols,
/// solved for a subject that keeps the tableau feasible, or else added through an artificial variable.
extension ConstraintSolver {
    /// Adds a constraint and re-optimises.
    ///
    /// - Returns: A handle for `remove(_:)`.
    /// - Throws: `.unsatisfiable` if the constraint is required and conflicts with the required
    ///   constraints already added; `.invalidExpression` for a NaN or infinite coefficient or
    ///   constant; `.invalidPriority` for a priority outside (0, 1000]; `.unknownVariable` for a
    ///   variable of another solver. On error the solver is left exactly as it was.
    @discardableResult
    public mutating func add(_ constraint: LinearConstraint) throws(ConstraintError) -> ConstraintHandle {
        guard constraint.expression.isFinite else { throw .invalidExpression }
        guard ConstraintPriority.isValid(constraint.priority) else { throw .invalidPriority }
        for term in constraint.expression.terms where symbol(of: term.variable) == nil {
            throw .unknownVariable
        }
        let handle = ConstraintHandle(id: Int32(records.count))
        var (row, record, newKinds) = plannedRow(for: constraint)
        let oldKinds = kinds
        let kind = { (symbol: Int32) in
            Int(symbol) < oldKinds.count ? oldKinds[Int(symbol)] : newKinds[Int(symbol) - oldKinds.count]
        }

        if let subject = chooseSubject(row, record, kind) {
            commit(record, newKinds)
            row.solve(for: subject)
            substitute(subject, by: row)
            appendRow(row, basic: subject)
        } else if row.cells.allSatisfy({ kind($0.symbol) == .dummy }) {
            // Only dummies: a required equality that the others already imply (constant 0), which
            // its dummy then marks, or one that contradicts them.
            guard isNearZero(row.constant) else { throw .unsatisfiable }
            commit(record, newKinds)
            row.solve(for: record.marker)
            substitute(record.marker, by: row)
            appendRow(row, basic: record.marker)
        } else {
            // Only this path can fail after the tableau has changed, so only it pays for a snapshot.
            let before = self
            commit(record, newKinds)
            guard addWithArtificialVariable(row) else {
                self = before
                throw .unsatisfiable
            }
        }
        optimize()
        return handle
    }

    /// The constraint's row over parametric symbols (basic ones replaced by their rows), with its
    /// slack, errors or dummy. The new symbols are numbered from `kinds.count` but not yet made:
    /// nothing changes until `commit`, so a refused constraint costs no snapshot.
    private func plannedRow(for constraint: LinearConstraint) -> (Row, ConstraintRecord, [SymbolKind]) {
        let expression = constraint.expression
        var row = Row(constant: expression.constant)
        for term in expression.terms where !isNearZero(term.coefficient) {
            let symbol = variableSymbols[Int(term.variable.id)]
            if let definition = self.row(of: symbol) {
                row.add(definition, times: term.coefficient)
            } else {
                row.add(symbol, term.coefficient)
            }
        }
        var newKinds: [SymbolKind] = []
        func plan(_ kind: SymbolKind) -> Int32 {
            newKinds.append(kind)
            return Int32(kinds.count + newKinds.count - 1)
        }
        var record = ConstraintRecord(constraint: constraint, marker: -1, other: -1)
        switch (constraint.relation, constraint.isRequired) {
        case (.lessThanOrEqual, _), (.greaterThanOrEqual, _):
            // expression + slack = 0 for ≤, expression - slack = 0 for ≥.
            let sign: Double = constraint.relation == .lessThanOrEqual ? 1 : -1
            record.marker = plan(.slack)
            row.add(record.marker, sign)
            if !constraint.isRequired {
                // The error absorbs the violation: expression ± slack ∓ error = 0.
                record.other = plan(.error)
                row.add(record.other, -sign)
            }
        case (.equal, false):
            // expression = errorPlus - errorMinus; the objective sums both, |expression| at the optimum.
            record.marker = plan(.error)
            record.other = plan(.error)
            row.add(record.marker, -1)
            row.add(record.other, 1)
        case (.equal, true):
            record.marker = plan(.dummy)
            row.add(record.marker, 1)
        }
        // A non-negative constant lets a restricted subject with a negative coefficient start feasible.
        if row.constant < 0 { row.multiply(by: -1) }
        return (row, record, newKinds)
    }

    /// Makes the planned symbols, records the constraint and enters its errors in the objective at
    /// its priority (they are new, hence parametric: a plain coefficient).
    private mutating func commit(_ record: ConstraintRecord, _ newKinds: [SymbolKind]) {
        for kind in newKinds { _ = makeSymbol(kind) }
        records.append(record)
        guard !record.constraint.isRequired else { return }
        let level = objective.levelIndex(for: record.constraint.priority)
        objective.retain(level: level)
        for symbol in [record.marker, record.other] where symbol >= 0 && kinds[Int(symbol)] == .error {
            objective.add(symbol, 1, level: level)
        }
    }

    /// The symbol to solve the new row for: its first variable (unrestricted, so any value is
    /// feasible), else its own slack or error when that is ≥ 0 once solved for; nil if neither.
    private func chooseSubject(_ row: Row, _ record: ConstraintRecord, _ kind: (Int32) -> SymbolKind) -> Int32? {
        if let cell = row.cells.first(where: { kind($0.symbol) == .external }) { return cell.symbol }
        for symbol in [record.marker, record.other] where symbol >= 0 && kind(symbol).isRestricted {
            if row.coefficient(of: symbol) < 0 { return symbol }
        }
        return nil
    }

    /// Phase one: adds the row as the definition of a new artificial symbol, minimises that symbol,
    /// and succeeds if it reaches 0 (the constraint can hold). The artificial symbol is then removed.
    private mutating func addWithArtificialVariable(_ row: Row) -> Bool {
        let artificial = makeSymbol(.slack)
        appendRow(row, basic: artificial)
        artificialObjective = row
        optimize(artificial: true)
        let satisfiable = isNearZero(artificialObjective!.constant)
        artificialObjective = nil

        let index = rowIndex[Int(artificial)]
        if index >= 0 {
            var definition = removeRow(at: Int(index))
            if definition.cells.isEmpty { return satisfiable }
            guard let entering = definition.cells.first(where: { kinds[Int($0.symbol)].isPivotable })?.symbol else {
                return false
            }
            definition.solve(basic: artificial, for: entering)
            substitute(entering, by: definition)
            appendRow(definition, basic: entering)
        }
        // Parametric now, the artificial symbol is 0: dropping its cells changes no solution.
        for index in rows.indices { rows[index].remove(artificial) }
        objective.substitute(artificial, by: Row(constant: 0))
        return satisfiable
    }
}
