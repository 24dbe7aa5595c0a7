import TrellisJSON

extension TargetingConfiguration {
    /// Reports references in rules to names this configuration does not define, and cycles
    /// between rules (`a → b → a`), at the path of the reference that opens the cycle (in `a`).
    func checkRuleReferences(source: JSONValue?, _ collector: DiagnosticsCollector) {
        let locate: (JSONPath) -> SourceLocation = { path in source.flatMap { $0.value(at: path)?.location } ?? .unknown }
        let names = rules.keys.sorted()
        for name in names {
            checkReferences(in: rules[name]!, at: JSONPath.root.appending("rules").appending(name), collector, locate: locate)
        }
        // Depth-first search; a reference to a rule still on the stack closes a cycle.
        enum Mark { case visiting, done }
        var marks: [String: Mark] = [:]
        var stack: [(name: String, via: JSONPath)] = []
        func visit(_ name: String) {
            marks[name] = .visiting
            for (reference, path) in rules[name]!.references(at: JSONPath.root.appending("rules").appending(name)) {
                guard case .rule(let next) = reference, rules[next] != nil else { continue }
                switch marks[next] {
                case .visiting:
                    let start = stack.firstIndex { $0.name == next } ?? stack.count
                    let cycle = stack[start...].map(\.name) + [name, next]
                    let opening = stack.indices.contains(start) ? stack[start].via : path
                    collector.report("rules refer to each other in a cycle: \(cycle.joined(separator: " → "))", at: opening, locate(opening))
                case .done: continue
                case nil:
                    stack.append((name, path))
                    visit(next)
                    stack.removeLast()
                }
            }
            marks[name] = .done
        }
        for name in names where marks[name] == nil { visit(name) }
    }

    /// Weights, default variants, winners, overrides, goals and guardrails of a configuration built in code (a
    /// ``RolloutPercentage`` is valid by construction), with the decoder's messages where it has them.
    func checkValues(_ collector: DiagnosticsCollector) {
        for (key, experiment) in experiments.sorted(by: { $0.key < $1.key }) {
            let path = JSONPath.root.appending("experiments").appending(key)
            let variants = experiment.variants
            if !(2...Limits.maximumVariants).contains(variants.count)
                || variants.contains(where: { !(0...Limits.maximumWeight).contains($0.weight) })
                || !variants.contains(where: { $0.weight > 0 })
            {
                collector.report("needs 2 to \(Limits.maximumVariants) variants with weights from 0 to \(Limits.maximumWeight), not all 0", at: path.appending("variants"), .unknown)
            }
            if let problem = Experiment.unknownVariant(experiment.defaultVariant, "default variant", among: variants) {
                collector.report(problem, at: path.appending("defaultVariant"), .unknown)
            }
            if case .concluded(let winner) = experiment.status, let problem = Experiment.unknownVariant(winner, "winner", among: variants) {
                collector.report(problem, at: path.appending("winner"), .unknown)
            }
            let overridesPath = path.appending("overrides")
            if experiment.overrides.count > Limits.maximumOverrides {
                collector.report(
                    "an experiment has at most \(Limits.maximumOverrides) overrides, found \(experiment.overrides.count)", at: overridesPath, .unknown)
            }
            for (userID, variant) in experiment.overrides.sorted(by: { $0.key < $1.key }) {
                if let problem = Experiment.userIDProblem(userID) ?? Experiment.unknownVariant(variant, "variant", among: variants) {
                    collector.report(problem, at: overridesPath.appending(userID), .unknown)
                }
            }
            checkMetricNames(experiment.goals, "goals", at: path.appending("goals"), collector)
            checkMetricNames(experiment.guardrails, "guardrails", at: path.appending("guardrails"), collector)
            for (i, name) in experiment.guardrails.enumerated() where experiment.goals.contains(name) {
                collector.report(Experiment.goalAndGuardrailProblem(name), at: path.appending("guardrails").appending(i), .unknown)
            }
        }
    }

    /// `decodeMetricNames`'s checks, for names given in code.
    private func checkMetricNames(_ names: [String], _ field: String, at path: JSONPath, _ collector: DiagnosticsCollector) {
        if names.count > Limits.maximumMetricNames {
            collector.report(Experiment.tooManyMetricsProblem(field, names.count), at: path, .unknown)
        }
        for (i, name) in names.enumerated() {
            if !RuleExpression.isIdentifier(name) {
                collector.report(
                    "invalid name \"\(name)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots", at: path.appending(i), .unknown)
            } else if names[..<i].contains(name) {
                collector.report(Experiment.repeatedMetricProblem(name), at: path.appending(i), .unknown)
            }
        }
    }
}
