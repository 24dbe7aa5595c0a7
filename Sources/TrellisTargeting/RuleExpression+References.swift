import TrellisJSON

/// A name a rule expression refers to, which the targeting configuration must define.
public enum TargetingReference: Sendable, Hashable {
    case rule(String)
    case rollout(String)
    case experiment(String, variant: String?)
}

extension RuleExpression {
    /// Every named rule, rollout and experiment the expression refers to (not looking into named
    /// rules), in written order, each with the path of its name relative to `path` — the path of the
    /// `experiment` key for an experiment test.
    public func references(at path: JSONPath) -> [(reference: TargetingReference, path: JSONPath)] {
        var found: [(TargetingReference, JSONPath)] = []
        collectReferences(at: path, into: &found)
        return found
    }

    private func collectReferences(at path: JSONPath, into found: inout [(TargetingReference, JSONPath)]) {
        switch self {
        case .all(let list):
            for (i, e) in list.enumerated() { e.collectReferences(at: path.appending("all").appending(i), into: &found) }
        case .any(let list):
            for (i, e) in list.enumerated() { e.collectReferences(at: path.appending("any").appending(i), into: &found) }
        case .not(let inner): inner.collectReferences(at: path.appending("not"), into: &found)
        case .named(let name): found.append((.rule(name), path.appending("rule")))
        case .rollout(let key): found.append((.rollout(key), path.appending("rollout")))
        case .experiment(let key, let variant): found.append((.experiment(key, variant: variant), path.appending("experiment")))
        case .condition: break
        }
    }
}

extension TargetingConfiguration {
    /// Reports each reference of `expression` this configuration does not define, at its path:
    /// *unknown rule "x"*, *unknown rollout "x"*, *unknown experiment "x"*, *experiment "x" has no
    /// variant "y"; its variants are: a, b*.
    /// - Parameters:
    ///   - locate: where a path is in its source, for the diagnostic's line; `.unknown` by default.
    public func checkReferences(
        in expression: RuleExpression, at path: JSONPath, _ collector: DiagnosticsCollector,
        locate: (JSONPath) -> SourceLocation = { _ in .unknown }
    ) {
        for (reference, referencePath) in expression.references(at: path) {
            if let problem = problem(with: reference) {
                collector.report(problem, at: referencePath, locate(referencePath))
            }
        }
    }

    /// What is wrong with one reference, or nil when the configuration defines it.
    public func problem(with reference: TargetingReference) -> String? {
        switch reference {
        case .rule(let name):
            return rules[name] == nil ? "unknown rule \"\(name)\"" + Self.known("rules", rules.keys) : nil
        case .rollout(let key):
            return rollouts[key] == nil ? "unknown rollout \"\(key)\"" + Self.known("rollouts", rollouts.keys) : nil
        case .experiment(let key, let variant):
            guard let experiment = experiments[key] else {
                return "unknown experiment \"\(key)\"" + Self.known("experiments", experiments.keys)
            }
            guard let variant, !experiment.variants.contains(where: { $0.name == variant }) else { return nil }
            return "experiment \"\(key)\" has no variant \"\(variant)\"; its variants are: "
                + experiment.variants.map(\.name).joined(separator: ", ")
        }
    }

    private static func known(_ kind: String, _ names: some Collection<String>) -> String {
        names.isEmpty ? "; the targeting configuration defines no \(kind)" : "; known \(kind): " + names.sorted().joined(separator: ", ")
    }
}
