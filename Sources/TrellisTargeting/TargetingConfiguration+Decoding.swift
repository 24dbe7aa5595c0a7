import TrellisJSON

extension TargetingConfiguration {
    /// Limits on the configuration's values.
    public enum Limits {
        /// Largest weight of one variant.
        public static let maximumWeight = 1_000_000
        /// Most variants in one experiment (outcomes store a variant index in one byte).
        public static let maximumVariants = 100
        /// Most ``Experiment/overrides`` in one experiment.
        public static let maximumOverrides = 1_000
        /// Longest user id in an override, in UTF-8 bytes: the longest a request's `user` may be.
        public static let maximumUserIDBytes = UserContext.Limits.maximumValueBytes
        /// Most ``Experiment/goals`` of one experiment, and most ``Experiment/guardrails``: a
        /// result computes each for every variant, so the list stays one people can read.
        public static let maximumMetricNames = 20
    }

    /// Parses and checks a targeting document such as `Config/targeting.json`:
    ///
    /// ```json
    /// { "rules": { "is_gold_member": {"attribute": "tier", "op": "in", "value": ["gold"]} },
    ///   "rollouts": { "gold-banner": {"percentage": 25} },
    ///   "experiments": { "home-hero": {"variants": {"control": 50, "big": 50}, "defaultVariant": "control"} } }
    /// ```
    ///
    /// - Returns: the configuration, or every mistake with its path and line: unknown keys, a
    ///   percentage outside 0…100 or with more than two decimals, weights that are not integers or
    ///   are all 0, an unknown default variant, an unknown status, a missing or unknown winner, both
    ///   `enabled` and `status`, bad overrides (too many, a bad user id, an unknown variant), bad
    ///   goals or guardrails (not names, too many, one twice, a metric both), an unknown `exposures`,
    ///   references to unknown rules, rollouts, experiments or variants, cycles between rules.
    public static func decode(_ bytes: [UInt8], source: String) -> Result<TargetingConfiguration, DiagnosticsError> {
        DiagnosticsCollector.decode(bytes, source: source) { document, collector in decodeDocument(document, collector) }
    }

    /// Checks an already parsed document, as the byte-level `decode(_:source:)` does after parsing.
    public static func decode(_ document: JSONValue, source: String) -> Result<TargetingConfiguration, DiagnosticsError> {
        DiagnosticsCollector.decode(source: source) { collector in
            decodeDocument(document, collector)
        }
    }

    private static func decodeDocument(_ document: JSONValue, _ collector: DiagnosticsCollector) -> TargetingConfiguration? {
        guard let object = collector.object(document, at: .root, allowedKeys: ["rules", "rollouts", "experiments"]) else {
            return nil
        }
        var rules: [String: RuleExpression] = [:]
        var rollouts: [String: Rollout] = [:]
        var experiments: [String: Experiment] = [:]
        var complete = true

        for (name, value, path) in entries(object, "rules", collector) {
            if let expression = RuleExpression.decode(value, at: path, collector) { rules[name] = expression } else { complete = false }
        }
        for (key, value, path) in entries(object, "rollouts", collector) {
            if let rollout = decodeRollout(key, value, at: path, collector) { rollouts[key] = rollout } else { complete = false }
        }
        for (key, value, path) in entries(object, "experiments", collector) {
            if let experiment = decodeExperiment(value, at: path, collector) { experiments[key] = experiment } else { complete = false }
        }
        let configuration = TargetingConfiguration(uncheckedRules: rules, rollouts: rollouts, experiments: experiments)
        // References are checked against what decoded; a rule that failed to decode is not also "unknown".
        if complete { configuration.checkRuleReferences(source: document, collector) }
        return configuration
    }

    /// The members of the object under `key`, each with a valid name; reports the others.
    private static func entries(
        _ object: JSONObjectReader, _ key: String, _ collector: DiagnosticsCollector
    ) -> [(String, JSONValue, JSONPath)] {
        guard let value = object.value(key) else { return [] }
        let path = JSONPath.root.appending(key)
        guard let members = value.objectValue else {
            collector.report("expected an object of name → definition, found \(value.typeName)", at: path, value)
            return []
        }
        return members.compactMap { member in
            let memberPath = path.appending(member.key)
            guard RuleExpression.isIdentifier(member.key) else {
                collector.report("invalid name \"\(member.key)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots", at: memberPath, member.keyLocation)
                return nil
            }
            return (member.key, member.value, memberPath)
        }
    }

    /// One rollout's definition as targeting.json writes it under `rollouts.<key>` (its group id
    /// defaults to `key`); nil after reporting every mistake in it.
    public static func decodeRollout(_ key: String, _ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> Rollout? {
        guard let object = collector.object(value, at: path, allowedKeys: ["percentage", "groupId", "enabled", "description"]) else {
            return nil
        }
        let percentage = object.value("percentage", required: true).flatMap {
            RolloutPercentage.decode($0, at: path.appending("percentage"), collector)
        }
        var groupID: String? = key
        if let raw = object.value("groupId") { groupID = RuleExpression.identifier(raw, at: path.appending("groupId"), collector) }
        let enabled = object.contains("enabled") ? object.bool("enabled") : true
        let description = object.string("description")
        guard let percentage, let groupID, let enabled, !object.contains("description") || description != nil else { return nil }
        return Rollout(percentage: percentage, groupID: groupID, enabled: enabled, description: description)
    }
}
