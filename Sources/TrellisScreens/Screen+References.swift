import TrellisJSON
import TrellisTargeting

extension Screen {
    /// Every name the screen uses that `configuration` does not define, at its path in the screen:
    /// named rules, rollouts and experiments in Rule expressions (and the variants of experiment
    /// tests), the experiment of each Experiment node, and its variants, which must be exactly the
    /// experiment's (*experiment "home-hero" has no variant "huge"*; *the Experiment node does not
    /// show the variant "big" of "home-hero"*), so every user sees the variant they are assigned.
    /// Lines are unknown (`.unknown`): the model keeps paths, not source locations.
    public func unknownReferences(in configuration: TargetingConfiguration) -> [Diagnostic] {
        let collector = DiagnosticsCollector()
        forEachDecision { node, path in
            switch node {
            case .rule(_, let rule, _, _):
                configuration.checkReferences(in: rule, at: path.appending("rule"), collector)
            case .experiment(_, let key, let variants):
                if let experiment = configuration.experiments[key] {
                    let configured = experiment.variants.map(\.name)
                    for variant in variants where !configured.contains(variant.name) {
                        collector.report(
                            configuration.problem(with: .experiment(key, variant: variant.name)) ?? "",
                            at: path.appending("variants").appending(variant.name), .unknown)
                    }
                    for name in configured where !variants.contains(where: { $0.name == name }) {
                        collector.report(
                            "the Experiment node does not show the variant \"\(name)\" of \"\(key)\"; add it (null shows nothing)",
                            at: path.appending("variants"), .unknown)
                    }
                } else if let problem = configuration.problem(with: .experiment(key, variant: nil)) {
                    collector.report(problem, at: path.appending("experiment"), .unknown)
                }
            case .component: break
            }
        }
        return collector.diagnostics
    }

    /// Throws every unknown reference (``unknownReferences(in:)``), attributed to `source`.
    public func checkReferences(in configuration: TargetingConfiguration, source: String) throws(DiagnosticsError) {
        let diagnostics = unknownReferences(in: configuration)
        guard diagnostics.isEmpty else { throw DiagnosticsError(source: source, diagnostics: diagnostics) }
    }
}

extension Screen {
    /// Every rule, rollout and experiment the screen names, in Rule nodes and Experiment nodes,
    /// with where: what the stale-flag report and a retirement look for.
    public func targetingReferences() -> [(reference: TargetingReference, path: JSONPath)] {
        var found: [(reference: TargetingReference, path: JSONPath)] = []
        forEachDecision { node, path in
            switch node {
            case .rule(_, let rule, _, _): found += rule.references(at: path.appending("rule"))
            case .experiment(_, let key, _): found.append((.experiment(key, variant: nil), path.appending("experiment")))
            case .component: break
            }
        }
        return found
    }

    /// Calls `body` with every Rule and Experiment node, depth first, with its path.
    func forEachDecision(_ body: (Node, JSONPath) -> Void) {
        // A path is made only for a decision: most nodes are components, which need none.
        func visit(_ node: Node, _ path: () -> JSONPath) {
            switch node {
            case .component(let c):
                for (i, child) in c.subviews.enumerated() { visit(child) { path().appending("subviews").appending(i) } }
                if let fallback = c.fallback { visit(fallback) { path().appending("fallback") } }
            case .rule(_, _, let then, let otherwise):
                let path = path()
                body(node, path)
                visit(then) { path.appending("child") }
                if let otherwise { visit(otherwise) { path.appending("else") } }
            case .experiment(_, _, let variants):
                let path = path()
                body(node, path)
                for variant in variants {
                    variant.node.map { child in visit(child) { path.appending("variants").appending(variant.name) } }
                }
            }
        }
        visit(root) { JSONPath.root.appending("root") }
    }
}
