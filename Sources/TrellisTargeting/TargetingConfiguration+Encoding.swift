import TrellisJSON

extension TargetingConfiguration {
    /// The configuration in the shape ``decode(_:source:)`` reads, every field written out
    /// (`groupId`, `enabled`, `status`, `defaultVariant`, `overrides` too; `winner` when concluded),
    /// names and user ids sorted, variants in their order, percentages as written (`12.5`, never
    /// `12.50`): equal configurations encode to equal bytes, and the encoding decodes to an equal
    /// configuration.
    public var jsonValue: JSONValue {
        .object([
            ("rules", .object(rules.sorted { $0.key < $1.key }.map { ($0.key, $0.value.jsonValue) })),
            ("rollouts", .object(rollouts.sorted { $0.key < $1.key }.map { ($0.key, $0.value.jsonValue) })),
            ("experiments", .object(experiments.sorted { $0.key < $1.key }.map { ($0.key, $0.value.jsonValue) })),
        ])
    }
}

extension TargetingConfiguration.Rollout {
    /// The rollout as targeting.json writes it: `percentage`, `groupId`, `enabled`, then `description` if any.
    public var jsonValue: JSONValue {
        .object(
            [("percentage", percentage.jsonValue), ("groupId", .string(groupID)), ("enabled", .bool(enabled))]
                + (description.map { [("description", .string($0))] } ?? []))
    }
}

extension TargetingConfiguration.Experiment {
    /// The experiment as targeting.json writes it: `variants`, `status`, `winner` (when concluded),
    /// `defaultVariant`, `overrides` (sorted by user id), `goals`, `guardrails` (in their order) and
    /// `exposures` when not their defaults, then `description` if any.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [
            ("variants", .object(variants.map { ($0.name, $0.jsonValue) })), ("status", .string(status.description)),
        ]
        if case .concluded(let winner) = status { members.append(("winner", .string(winner))) }
        members.append(("defaultVariant", .string(defaultVariant)))
        members.append(("overrides", .object(overrides.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        members += Self.metricMembers(goals: goals, guardrails: guardrails, exposures: exposures)
        if let description { members.append(("description", .string(description))) }
        return .object(members)
    }

    /// `goals`, `guardrails` and `exposures`, each only when not its default: an experiment that
    /// names no metric encodes to the bytes it did before they existed (its stored documents, ETags
    /// and audit entries stay the same). The runtime's settings form writes them with this too.
    public static func metricMembers(goals: [String], guardrails: [String], exposures: ExposureRecording) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if !goals.isEmpty { members.append(("goals", .array(goals.map(JSONValue.string)))) }
        if !guardrails.isEmpty { members.append(("guardrails", .array(guardrails.map(JSONValue.string)))) }
        if exposures != .client { members.append(("exposures", .string(exposures.rawValue))) }
        return members
    }
}

extension TargetingConfiguration.Experiment.Variant {
    /// The weight alone, or `{"weight": w, "value": v}` for a variant with a typed value.
    public var jsonValue: JSONValue {
        guard let value else { return .number(weight) }
        return .object([("weight", .number(weight)), ("value", value)])
    }
}
