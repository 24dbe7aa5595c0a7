import TrellisJSON

extension TargetingConfiguration {
    /// Limits on the configuration's values.
    public enum Limits {
        /// Largest weight of one variant.
        public static let maximumWeight = 1_000_000
        /// Most variants in one experiment (outcomes store a variant index in one byte).
        public static let maximumVariants = 100
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
    ///   percentage outside 0…100 or with more than two decimals, weights that are not integers or are all 0, an unknown default
    ///   variant, references to unknown rules, rollouts, experiments or variants, cycles between rules.
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
                collector.report("invalid name \"\(member.key)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.'", at: memberPath, member.keyLocation)
                return nil
            }
            return (member.key, member.value, memberPath)
        }
    }

    private static func decodeRollout(_ key: String, _ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> Rollout? {
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

    private static func decodeExperiment(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> Experiment? {
        guard let object = collector.object(value, at: path, allowedKeys: ["variants", "enabled", "defaultVariant", "description"]) else {
            return nil
        }
        let variants = object.value("variants", required: true).flatMap { decodeVariants($0, at: path.appending("variants"), collector) }
        let enabled = object.contains("enabled") ? object.bool("enabled") : true
        let description = object.string("description")
        var defaultVariant = variants?.first?.name
        if let raw = object.value("defaultVariant") {
            let defaultPath = path.appending("defaultVariant")
            defaultVariant = RuleExpression.identifier(raw, at: defaultPath, collector)
            if let name = defaultVariant, let variants, !variants.contains(where: { $0.name == name }) {
                collector.report(
                    "unknown default variant \"\(name)\"; the variants are: \(variants.map(\.name).joined(separator: ", "))",
                    at: defaultPath, raw)
                defaultVariant = nil
            }
        }
        guard let variants, let enabled, let defaultVariant, !object.contains("description") || description != nil else { return nil }
        return Experiment(variants: variants, enabled: enabled, defaultVariant: defaultVariant, description: description)
    }

    private static func decodeVariants(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> [Experiment.Variant]? {
        guard let members = value.objectValue else {
            collector.report("expected an object of variant name → integer weight, found \(value.typeName)", at: path, value)
            return nil
        }
        guard (2...Limits.maximumVariants).contains(members.count) else {
            collector.report("an experiment needs 2 to \(Limits.maximumVariants) variants, found \(members.count)", at: path, value)
            return nil
        }
        guard let reader = collector.object(value, at: path, allowedKeys: Set(members.map(\.key))) else { return nil }
        var variants: [Experiment.Variant] = []
        for member in members {
            guard RuleExpression.isIdentifier(member.key) else {
                collector.report("invalid variant name \"\(member.key)\"", at: path.appending(member.key), member.keyLocation)
                continue
            }
            guard let weight = reader.integer(member.key, in: 0...Limits.maximumWeight) else { continue }
            variants.append(Experiment.Variant(name: member.key, weight: weight))
        }
        guard variants.count == members.count else { return nil }
        guard variants.contains(where: { $0.weight > 0 }) else {
            collector.report("the weights are all 0; at least one variant needs a positive weight", at: path, value)
            return nil
        }
        return variants
    }
}

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

    /// Weights and default variants of a configuration built in code (a ``RolloutPercentage`` is
    /// valid by construction).
    func checkValues(_ collector: DiagnosticsCollector) {
        for (key, experiment) in experiments.sorted(by: { $0.key < $1.key }) {
            let path = JSONPath.root.appending("experiments").appending(key)
            if !(2...Limits.maximumVariants).contains(experiment.variants.count)
                || experiment.variants.contains(where: { !(0...Limits.maximumWeight).contains($0.weight) })
                || !experiment.variants.contains(where: { $0.weight > 0 })
            {
                collector.report("needs 2 to \(Limits.maximumVariants) variants with weights from 0 to \(Limits.maximumWeight), not all 0", at: path.appending("variants"), .unknown)
            }
            if !experiment.variants.contains(where: { $0.name == experiment.defaultVariant }) {
                collector.report("unknown default variant \"\(experiment.defaultVariant)\"", at: path.appending("defaultVariant"), .unknown)
            }
        }
    }
}

extension JSONValue {
    /// The value at `path` below this one, or nil.
    func value(at path: JSONPath) -> JSONValue? {
        var current = self
        for component in path.components {
            switch component {
            case .key(let key): guard let next = current[key] else { return nil }; current = next
            case .index(let i):
                guard let list = current.arrayValue, list.indices.contains(i) else { return nil }
                current = list[i]
            }
        }
        return current
    }
}

extension TargetingConfiguration {
    /// The configuration in the shape ``decode(_:source:)`` reads, every field written out
    /// (`groupId`, `enabled`, `defaultVariant` too), names sorted, variants in their order: equal
    /// configurations encode to equal bytes, and the encoding decodes to an equal configuration.
    public var jsonValue: JSONValue {
        func described(_ members: [(String, JSONValue)], _ description: String?) -> JSONValue {
            .object(members + (description.map { [("description", .string($0))] } ?? []))
        }
        return .object([
            ("rules", .object(rules.sorted { $0.key < $1.key }.map { ($0.key, $0.value.jsonValue) })),
            (
                "rollouts",
                .object(rollouts.sorted { $0.key < $1.key }.map { key, r in
                    (key, described([("percentage", r.percentage.jsonValue), ("groupId", .string(r.groupID)), ("enabled", .bool(r.enabled))], r.description))
                })
            ),
            (
                "experiments",
                .object(experiments.sorted { $0.key < $1.key }.map { key, e in
                    (
                        key,
                        described(
                            [
                                ("variants", .object(e.variants.map { ($0.name, .number($0.weight)) })), ("enabled", .bool(e.enabled)),
                                ("defaultVariant", .string(e.defaultVariant)),
                            ], e.description)
                    )
                })
            ),
        ])
    }
}
