extension ScreenDecisions {
    /// For each decision point, whether the user whose outcomes these are reaches it: a point
    /// inside a branch its enclosing Rule or Experiment does not show is never evaluated.
    public func reachability(of outcomes: Outcomes) -> [Bool] {
        var shown: [Bool] = []
        shown.reserveCapacity(table.pointCount)
        for point in table.points { shown.append(point.isReached(shown, outcomes.bytes)) }
        return shown
    }
}
