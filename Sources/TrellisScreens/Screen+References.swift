import TrellisJSON
import TrellisTargeting

extension ScreenDecisions {
    /// Every name the screen uses that `configuration` does not define, at its path in the screen:
    /// named rules, rollouts and experiments in Rule expressions (and the variants of experiment
    /// tests), the experiment of each Experiment node, and its variants, which must be exactly the
    /// experiment's (*experiment "home-hero" has no variant "huge"*; *the Experiment node does not
    /// show the variant "big" of "home-hero"*), so every user sees the variant they are assigned.
    /// Lines are unknown (`.unknown`): decisions keep paths, not source locations. Read from the
    /// decision points, so a server checks a screen it no longer holds the tree of.
    public func unknownReferences(in configuration: TargetingConfiguration) -> [Diagnostic] {
        let collector = DiagnosticsCollector()
        for point in points {
            switch point.kind {
            case .rule(let rule):
                configuration.checkReferences(in: rule, at: point.path.appending("rule"), collector)
            case .experiment(let key, let variants):
                if let experiment = configuration.experiments[key] {
                    let configured = experiment.variants.map(\.name)
                    for variant in variants where !configured.contains(variant) {
                        collector.report(
                            configuration.problem(with: .experiment(key, variant: variant)) ?? "",
                            at: point.path.appending("variants").appending(variant), .unknown)
                    }
                    for name in configured where !variants.contains(name) {
                        collector.report(
                            "the Experiment node does not show the variant \"\(name)\" of \"\(key)\"; add it (null shows nothing)",
                            at: point.path.appending("variants"), .unknown)
                    }
                } else if let problem = configuration.problem(with: .experiment(key, variant: nil)) {
                    collector.report(problem, at: point.path.appending("experiment"), .unknown)
                }
            }
        }
        return collector.diagnostics
    }

    /// Throws every unknown reference (``unknownReferences(in:)``), attributed to `source`.
    public func checkReferences(in configuration: TargetingConfiguration, source: String) throws(DiagnosticsError) {
        let diagnostics = unknownReferences(in: configuration)
        guard !diagnostics.isEmpty else { return }
        throw DiagnosticsError(source: source, diagnostics: diagnostics)
    }

    /// Every rule, rollout and experiment the screen names, in Rule nodes and Experiment nodes,
    /// with where: what the stale-flag report and a retirement look for.
    public func targetingReferences() -> [(reference: TargetingReference, path: JSONPath)] {
        var found: [(reference: TargetingReference, path: JSONPath)] = []
        for point in points {
            switch point.kind {
            case .rule(let rule): found += rule.references(at: point.path.appending("rule"))
            case .experiment(let key, _): found.append((.experiment(key, variant: nil), point.path.appending("experiment")))
            }
        }
        return found
    }
}

extension Screen {
    /// The screen's unknown references (``ScreenDecisions/unknownReferences(in:)``).
    public func unknownReferences(in configuration: TargetingConfiguration) -> [Diagnostic] {
        ScreenResolver().decisions(of: self).unknownReferences(in: configuration)
    }

    /// Throws every unknown reference (``unknownReferences(in:)``), attributed to `source`.
    public func checkReferences(in configuration: TargetingConfiguration, source: String) throws(DiagnosticsError) {
        try ScreenResolver().decisions(of: self).checkReferences(in: configuration, source: source)
    }

    /// The rules, rollouts and experiments the screen names (``ScreenDecisions/targetingReferences()``).
    public func targetingReferences() -> [(reference: TargetingReference, path: JSONPath)] {
        ScreenResolver().decisions(of: self).targetingReferences()
    }
}
