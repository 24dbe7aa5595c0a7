import TrellisJSON
import TrellisStore
import TrellisTargeting

/// What ops may change of a rollout at run time, as the store keeps it (a whole value, not a
/// patch: the newest write is the whole truth). The group id stays the configuration's, so
/// raising a percentage never reshuffles users.
package struct RolloutSettings: Sendable, Equatable {
    package static let kind = "rollout"

    package var percentage: RolloutPercentage
    package var enabled: Bool
    package var description: String?

    package init(percentage: RolloutPercentage, enabled: Bool, description: String?) {
        self.percentage = percentage
        self.enabled = enabled
        self.description = description
    }

    package init(_ rollout: TargetingConfiguration.Rollout) {
        self.init(percentage: rollout.percentage, enabled: rollout.enabled, description: rollout.description)
    }

    package func applied(to rollout: TargetingConfiguration.Rollout) -> TargetingConfiguration.Rollout {
        var result = rollout
        result.percentage = percentage
        result.enabled = enabled
        result.description = description
        return result
    }

    package var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("percentage", percentage.jsonValue), ("enabled", .bool(enabled))]
        if let description { members.append(("description", .string(description))) }
        return .object(members)
    }

    /// Reads the settings form of a stored document.
    package static func decode(_ document: JSONValue, _ collector: DiagnosticsCollector) -> RolloutSettings? {
        guard let object = collector.object(document, at: .root, allowedKeys: ["percentage", "enabled", "description"]),
            let percentageValue = object.value("percentage", required: true),
            let percentage = RolloutPercentage.decode(percentageValue, at: .root.appending("percentage"), collector),
            let enabled = object.bool("enabled", required: true)
        else { return nil }
        return RolloutSettings(percentage: percentage, enabled: enabled, description: object.string("description"))
    }
}

/// What ops may change of an experiment at run time: weights, status (and winner), overrides,
/// description, goals, guardrails and who records exposures. The variants themselves, their order
/// and the default variant stay the configuration's.
package struct ExperimentSettings: Sendable, Equatable {
    package static let kind = "experiment"

    /// Variant name → weight, in the configuration's order.
    package var weights: [(name: String, weight: Int)]
    package var status: TargetingConfiguration.Experiment.Status
    package var overrides: [String: String]
    package var description: String?
    package var goals: [String]
    package var guardrails: [String]
    package var exposures: TargetingConfiguration.Experiment.ExposureRecording

    package static func == (a: ExperimentSettings, b: ExperimentSettings) -> Bool {
        a.weights.elementsEqual(b.weights) { $0.name == $1.name && $0.weight == $1.weight } && a.status == b.status
            && a.overrides == b.overrides && a.description == b.description && a.goals == b.goals && a.guardrails == b.guardrails
            && a.exposures == b.exposures
    }

    package init(
        weights: [(name: String, weight: Int)], status: TargetingConfiguration.Experiment.Status, overrides: [String: String],
        description: String?, goals: [String] = [], guardrails: [String] = [],
        exposures: TargetingConfiguration.Experiment.ExposureRecording = .client
    ) {
        self.weights = weights
        self.status = status
        self.overrides = overrides
        self.description = description
        self.goals = goals
        self.guardrails = guardrails
        self.exposures = exposures
    }

    package init(_ experiment: TargetingConfiguration.Experiment) {
        self.init(
            weights: experiment.variants.map { ($0.name, $0.weight) }, status: experiment.status, overrides: experiment.overrides,
            description: experiment.description, goals: experiment.goals, guardrails: experiment.guardrails, exposures: experiment.exposures)
    }

    package func applied(to experiment: TargetingConfiguration.Experiment) -> TargetingConfiguration.Experiment {
        var result = experiment
        let byName = Dictionary(weights.map { ($0.name, $0.weight) }, uniquingKeysWith: { a, _ in a })
        result.variants = experiment.variants.map { .init(name: $0.name, weight: byName[$0.name] ?? $0.weight, value: $0.value) }
        result.status = status
        result.overrides = overrides
        result.description = description
        result.goals = goals
        result.guardrails = guardrails
        result.exposures = exposures
        return result
    }

    /// The stored form; `goals`, `guardrails` and `exposures` only when not their defaults, so a
    /// document written before they existed and one written now without them are the same bytes.
    package var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [
            ("weights", .object(weights.map { ($0.name, .number($0.weight)) })), ("status", .string(status.description)),
        ]
        if case .concluded(let winner) = status { members.append(("winner", .string(winner))) }
        members.append(("overrides", .object(overrides.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        members += TargetingConfiguration.Experiment.metricMembers(goals: goals, guardrails: guardrails, exposures: exposures)
        if let description { members.append(("description", .string(description))) }
        return .object(members)
    }

    /// Reads the settings form of a stored document; one without `goals`, `guardrails` or
    /// `exposures` (all written before they existed) has their defaults.
    package static func decode(_ document: JSONValue, _ collector: DiagnosticsCollector) -> ExperimentSettings? {
        do {
            guard
                let object = collector.object(
                    document, at: .root,
                    allowedKeys: ["weights", "status", "winner", "overrides", "description", "goals", "guardrails", "exposures"]),
                let weightMembers = object.value("weights", required: true)?.objectValue,
                let statusName = object.string("status", required: true),
                let overrideMembers = object.value("overrides", required: true)?.objectValue
            else { return nil }
            let status: TargetingConfiguration.Experiment.Status
            switch (statusName, object.string("winner")) {
            case ("running", nil): status = .running
            case ("paused", nil): status = .paused
            case ("concluded", let winner?): status = .concluded(winner: winner)
            default:
                collector.report("unknown status \"\(statusName)\" or a winner without concluded", at: .root.appending("status"), document)
                return nil
            }
            var weights: [(name: String, weight: Int)] = []
            for member in weightMembers {
                guard let n = member.value.numberValue, let weight = Int(exactly: n) else {
                    collector.report("expected an integer weight", at: .root.appending("weights").appending(member.key), member.value)
                    return nil
                }
                weights.append((member.key, weight))
            }
            var overrides: [String: String] = [:]
            for member in overrideMembers { overrides[member.key] = member.value.stringValue }
            let goals: [String]? = object.value("goals").map {
                TargetingConfiguration.decodeMetricNames($0, "goals", at: .root.appending("goals"), collector)
            } ?? []
            let guardrails: [String]? = object.value("guardrails").map {
                TargetingConfiguration.decodeMetricNames($0, "guardrails", at: .root.appending("guardrails"), collector)
            } ?? []
            let exposures: TargetingConfiguration.Experiment.ExposureRecording? = object.value("exposures").map {
                TargetingConfiguration.decodeExposures($0, at: .root.appending("exposures"), collector)
            } ?? .client
            guard let goals, let guardrails, let exposures else { return nil }
            return ExperimentSettings(
                weights: weights, status: status, overrides: overrides, description: object.string("description"), goals: goals,
                guardrails: guardrails, exposures: exposures)
        }
    }
}
