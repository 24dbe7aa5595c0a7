/// Removing a constraint (Cassowary §4.2): its errors leave the objective, its marker is pivoted
/// into the basis if it is not already there, and the marker's row is dropped.
extension ConstraintSolver {
    /// Removes a constraint added by `add(_:)` and re-optimises.
    ///
    /// - Throws: `.unknownConstraint` if the handle names no constraint of this solver.
    public mutating func remove(_ handle: ConstraintHandle) throws(ConstraintError) {
        guard handle.id >= 0, Int(handle.id) < records.count, let record = records[Int(handle.id)],
              !edits.values.contains(where: { $0.handle == handle }) else { throw .unknownConstraint }
        removeRecord(handle, record)
    }

    func record(_ handle: ConstraintHandle) -> ConstraintRecord? {
        guard handle.id >= 0, Int(handle.id) < records.count else { return nil }
        return records[Int(handle.id)]
    }

    mutating func removeRecord(_ handle: ConstraintHandle, _ record: ConstraintRecord) {
        records[Int(handle.id)] = nil
        if !record.constraint.isRequired, let level = objective.existingLevelIndex(for: record.constraint.priority) {
            for symbol in [record.marker, record.other] where symbol >= 0 && kinds[Int(symbol)] == .error {
                if let definition = row(of: symbol) {
                    objective.add(definition, times: -1, level: level)
                } else {
                    objective.add(symbol, -1, level: level)
                }
            }
            objective.release(level: level)
        }

        if rowIndex[Int(record.marker)] >= 0 {
            removeRow(at: Int(rowIndex[Int(record.marker)]))
        } else if let index = markerLeavingRow(record.marker) {
            let leaving = basics[index]
            var definition = removeRow(at: index)
            definition.solve(basic: leaving, for: record.marker)
            substitute(record.marker, by: definition)
        }
        if record.other >= 0 { dropSymbol(record.other) }
        optimize()
    }

    /// The row to pivot a parametric marker into, so that dropping the row drops the constraint:
    /// the restricted row that stays feasible (smallest ratio, first among negative coefficients),
    /// else any row holding the marker. Ties go to the lowest basic symbol.
    private func markerLeavingRow(_ marker: Int32) -> Int? {
        var negative: (index: Int, ratio: Double)?
        var positive: (index: Int, ratio: Double)?
        var unrestricted: Int?
        func better(_ ratio: Double, _ index: Int, than current: (index: Int, ratio: Double)?) -> Bool {
            guard let current else { return true }
            return ratio < current.ratio || (ratio == current.ratio && basics[index] < basics[current.index])
        }
        for index in rows.indices {
            let coefficient = rows[index].coefficient(of: marker)
            if coefficient == 0 { continue }
            if !kinds[Int(basics[index])].isRestricted {
                if unrestricted.map({ basics[index] < basics[$0] }) ?? true { unrestricted = index }
            } else if coefficient < 0 {
                let ratio = -rows[index].constant / coefficient
                if better(ratio, index, than: negative) { negative = (index, ratio) }
            } else {
                let ratio = rows[index].constant / coefficient
                if better(ratio, index, than: positive) { positive = (index, ratio) }
            }
        }
        return negative?.index ?? positive?.index ?? unrestricted
    }

    /// Removes a removed constraint's second error from the tableau. Only its own constraint's
    /// equation held it, so what is left of it is rounding noise.
    private mutating func dropSymbol(_ symbol: Int32) {
        if rowIndex[Int(symbol)] >= 0 { removeRow(at: Int(rowIndex[Int(symbol)])) }
        for index in rows.indices { rows[index].remove(symbol) }
        objective.substitute(symbol, by: Row(constant: 0))
    }
}
