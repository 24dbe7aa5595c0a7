extension ScreenDecisions {
    /// For each decision point, whether the user whose outcomes these are reaches it: a point
    /// inside a branch its enclosing Rule or Experiment does not show is never evaluated.
    public func reachability(of outcomes: Outcomes) -> [Bool] {
        var shown: [Bool] = []
        shown.reserveCapacity(points.count)
        for index in points.indices {
            shown.append(guards[index].map { shown[$0.point] && ScreenResolver.shows(outcomes.bytes[$0.point], $0.outcome) } ?? true)
        }
        return shown
    }
}
