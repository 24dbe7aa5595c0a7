/// Edit variables (Cassowary §4.3): an optional `variable = value` constraint whose value can be
/// changed cheaply. `suggestValue` shifts the constants of the tableau and restores feasibility
/// with the dual simplex, instead of removing and re-adding a constraint.
extension ConstraintSolver {
    /// Makes `variable` an edit variable, held at its current value at `priority`.
    ///
    /// - Throws: `.badEditPriority` unless `priority` is optional, in (0, 1000);
    ///   `.duplicateEditVariable` if it already is one; `.unknownVariable` for another solver's variable.
    public mutating func addEditVariable(_ variable: ConstraintVariable, priority: Double) throws(ConstraintError) {
        guard symbol(of: variable) != nil else { throw .unknownVariable }
        guard edits[variable] == nil else { throw .duplicateEditVariable }
        guard priority > 0 && priority < ConstraintPriority.required else { throw .badEditPriority }
        // Starting from the current value, becoming an edit variable moves nothing.
        let current = value(of: variable)
        let handle = try add(LinearConstraint(LinearExpression(variable) - current, .equal, priority: priority))
        edits[variable] = EditInfo(handle: handle, value: current)
    }

    /// Removes an edit variable's constraint; the variable keeps only its other constraints.
    ///
    /// - Throws: `.unknownEditVariable` if `variable` is not an edit variable.
    public mutating func removeEditVariable(_ variable: ConstraintVariable) throws(ConstraintError) {
        guard let edit = edits.removeValue(forKey: variable), let record = record(edit.handle) else {
            throw .unknownEditVariable
        }
        removeRecord(edit.handle, record)
    }

    /// Asks for an edit variable to take `value`, as far as its priority allows, and re-optimises
    /// incrementally.
    ///
    /// - Throws: `.unknownEditVariable` if `variable` is not an edit variable; `.invalidValue` if
    ///   `value` is NaN or infinite.
    public mutating func suggestValue(_ variable: ConstraintVariable, _ value: Double) throws(ConstraintError) {
        guard let edit = edits[variable], let record = record(edit.handle) else { throw .unknownEditVariable }
        guard value.isFinite else { throw .invalidValue }
        let delta = value - edit.value
        edits[variable]?.value = value
        // The edit's equation was `variable - old - errorPlus + errorMinus = 0`; the new one is the
        // same with errorPlus shifted by delta, so every row's constant moves by delta times its
        // errorPlus coefficient (or errorPlus's own row by -delta).
        if let index = basicIndex(record.marker) {
            rows[index].constant -= delta
        } else if let index = basicIndex(record.other) {
            rows[index].constant += delta
        } else {
            for index in rows.indices {
                let coefficient = rows[index].coefficient(of: record.marker)
                if coefficient != 0 { rows[index].constant += delta * coefficient }
            }
        }
        dualOptimize()
    }

    private func basicIndex(_ symbol: Int32) -> Int? {
        let index = rowIndex[Int(symbol)]
        return index < 0 ? nil : Int(index)
    }
}
