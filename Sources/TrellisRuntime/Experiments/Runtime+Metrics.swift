import TrellisJSON
import TrellisStore
import TrellisTargeting

/// Metric commands: documents every replica reads on its next snapshot, audited with their
/// definitions before and after, made against their version (`If-Match`) like targeting entries.
extension Runtime {
    package func planMetric(_ command: MetricCommand, in snapshot: Snapshot, actor: String, ifMatch: VersionCondition?) throws(Refusal) -> PlannedChange {
        let name = command.name
        let existing = snapshot.runtime.operations.metrics[name]
        try checkVersion(ifMatch, current: ResourceView.version(of: .metric(name), in: snapshot))
        switch command {
        case .define(let metric):
            guard RuleExpression.isIdentifier(name) else {
                throw .invalid(
                    "invalid metric name \"\(name)\": 1 to 64 letters, digits, '_', '-' or '.', not dots alone",
                    [Diagnostic(path: .root, location: .unknown, message: "invalid metric name \"\(name)\"")], source: "path")
            }
            if existing == metric { throw .conflict("metric \"\(name)\" is already defined so; nothing to change") }
            var plan = planOperational(
                kind: MetricDefinition.kind, key: name, body: metric.body, in: snapshot, now: state.clock(), actor: actor,
                action: existing == nil ? "metric.create" : "metric.update", before: existing?.jsonValue, after: metric.jsonValue)
            plan.effect = existing == nil ? .created : .changed
            return plan
        case .delete:
            guard let existing else { throw Self.notFound("metric", name, known: snapshot.runtime.operations.metrics.keys) }
            let readers = snapshot.targeting.experiments.filter { $0.value.metricNames.contains(name) }.keys.sorted()
            if !readers.isEmpty {
                throw .conflict(
                    "metric \"\(name)\" is named by the experiment\(readers.count == 1 ? "" : "s") \(readers.joined(separator: ", ")); take it out of their goals and guardrails first")
            }
            var plan = planOperational(
                kind: MetricDefinition.kind, key: name, body: RuntimeState.resetBody, in: snapshot, now: state.clock(), actor: actor,
                action: "metric.delete", before: existing.jsonValue, after: nil)
            plan.effect = .removed
            return plan
        }
    }

    /// The metric names `command` gives experiments that they did not name before, each at its
    /// path in the command's body. A name an experiment had already (targeting.json's, say) is
    /// let be: a command never fails on what it does not change.
    package static func metricsNamedAnew(by command: Command, in snapshot: Snapshot) -> [(name: String, path: JSONPath)] {
        func anew(_ names: [String], of key: String, at path: JSONPath) -> [(name: String, path: JSONPath)] {
            let had = Set(snapshot.targeting.experiments[key]?.metricNames ?? [])
            return names.enumerated().filter { !had.contains($0.element) }.map { ($0.element, path.appending($0.offset)) }
        }
        switch command {
        case .experiment(.create(let key, let experiment)):
            return anew(experiment.goals, of: key, at: .root.appending("goals")) + anew(experiment.guardrails, of: key, at: .root.appending("guardrails"))
        case .experiment(.update(let key, let patch)):
            let had = Set(snapshot.targeting.experiments[key]?.metricNames ?? [])
            return ((patch.goals ?? []) + (patch.guardrails ?? [])).filter { !had.contains($0.name) }.map { ($0.name, $0.path) }
        case .targeting(.replace(let targeting)):
            return targeting.experiments.sorted { $0.key < $1.key }.flatMap { key, experiment in
                let path = JSONPath.root.appending("experiments").appending(key)
                return anew(experiment.goals, of: key, at: path.appending("goals")) + anew(experiment.guardrails, of: key, at: path.appending("guardrails"))
            }
        default:
            return []
        }
    }

    /// Refuses metric names an experiment is given that no metric has: each at its path.
    package static func checkMetricsExist(_ names: [(name: String, path: JSONPath)], in snapshot: Snapshot) throws(Refusal) {
        let metrics = snapshot.runtime.operations.metrics
        let unknown = names.filter { metrics[$0.name] == nil }
        guard !unknown.isEmpty else { return }
        let known = metrics.keys.sorted().joined(separator: ", ")
        throw .invalid(
            "the experiment names metrics that are not defined; define them first (PUT /admin/metrics/{name}); nothing changed",
            unknown.map {
                Diagnostic(path: $0.path, location: .unknown, message: "no metric \"\($0.name)\"; metrics: \(known.isEmpty ? "none" : known)")
            }, source: "body")
    }
}

extension CommandBody {
    /// A metric definition's body, for metric `name`.
    package static func metric(_ bytes: [UInt8], name: String) throws(Refusal) -> MetricDefinition {
        let document = try json(bytes)
        let collector = DiagnosticsCollector()
        guard let metric = MetricDefinition.decode(document, name: name, at: .root, collector), collector.isEmpty else {
            throw .invalid("the body is not a metric definition; nothing changed", collector.diagnostics, source: "body")
        }
        return metric
    }
}
