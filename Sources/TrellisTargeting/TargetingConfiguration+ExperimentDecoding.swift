import TrellisJSON

extension TargetingConfiguration {
    /// An experiment's definition; nil after reporting every mistake in it.
    ///
    /// `"enabled": true` / `false` is the older spelling of `"status": "running"` / `"paused"`;
    /// either may be given, not both. `goals`, `guardrails` and `exposures` are optional: an
    /// experiment written before they existed reads as naming no metric, with clients recording exposures.
    public static func decodeExperiment(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> Experiment? {
        let keys: Set<String> = [
            "variants", "status", "winner", "enabled", "defaultVariant", "overrides", "description", "goals", "guardrails", "exposures",
        ]
        guard let object = collector.object(value, at: path, allowedKeys: keys) else { return nil }
        let variants = object.value("variants", required: true).flatMap { decodeVariants($0, at: path.appending("variants"), collector) }
        let status = decodeStatus(object, at: path, variants: variants, collector)
        let description = object.string("description")
        var defaultVariant = variants?.first?.name
        if let raw = object.value("defaultVariant") {
            let defaultPath = path.appending("defaultVariant")
            defaultVariant = RuleExpression.identifier(raw, at: defaultPath, collector)
            if let name = defaultVariant, let variants, let problem = Experiment.unknownVariant(name, "default variant", among: variants) {
                collector.report(problem, at: defaultPath, raw)
                defaultVariant = nil
            }
        }
        let overrides = object.value("overrides").map { decodeOverrides($0, at: path.appending("overrides"), variants, collector) } ?? [:]
        let goals = object.value("goals").map { decodeMetricNames($0, "goals", at: path.appending("goals"), collector) } ?? []
        let guardrails = object.value("guardrails").map { decodeMetricNames($0, "guardrails", at: path.appending("guardrails"), collector) } ?? []
        if let goals, let guardrails, let items = object.value("guardrails")?.arrayValue {
            for (i, name) in guardrails.enumerated() where goals.contains(name) {
                collector.report(Experiment.goalAndGuardrailProblem(name), at: path.appending("guardrails").appending(i), items[i])
            }
        }
        let exposures = object.value("exposures").map { decodeExposures($0, at: path.appending("exposures"), collector) } ?? .client
        guard let variants, let status, let defaultVariant, let overrides, let goals, let guardrails, let exposures,
            !object.contains("description") || description != nil, Set(goals).isDisjoint(with: guardrails)
        else {
            return nil
        }
        return Experiment(
            variants: variants, status: status, defaultVariant: defaultVariant, overrides: overrides, description: description, goals: goals,
            guardrails: guardrails, exposures: exposures)
    }

    /// `"goals"` or `"guardrails"` (`field`): an array of metric names, each an identifier, at most
    /// ``Limits/maximumMetricNames``, none twice; nil after reporting every mistake, each at its
    /// element (`goals[1]`). The runtime's experiment updates read theirs with it too.
    public static func decodeMetricNames(_ value: JSONValue, _ field: String, at path: JSONPath, _ collector: DiagnosticsCollector) -> [String]? {
        guard let items = value.arrayValue else {
            collector.report("expected an array of metric names, found \(value.typeName)", at: path, value)
            return nil
        }
        guard items.count <= Limits.maximumMetricNames else {
            collector.report(Experiment.tooManyMetricsProblem(field, items.count), at: path, value)
            return nil
        }
        var names: [String] = []
        var complete = true
        for (i, item) in items.enumerated() {
            guard let name = RuleExpression.identifier(item, at: path.appending(i), collector) else {
                complete = false
                continue
            }
            if names.contains(name) {
                collector.report(Experiment.repeatedMetricProblem(name), at: path.appending(i), item)
                complete = false
                continue
            }
            names.append(name)
        }
        return complete ? names : nil
    }

    /// `"exposures"`: `"client"` or `"server"`; nil after reporting anything else.
    public static func decodeExposures(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> Experiment.ExposureRecording? {
        guard let name = value.stringValue else {
            collector.report("expected a string, found \(value.typeName)", at: path, value)
            return nil
        }
        guard let exposures = Experiment.ExposureRecording(rawValue: name) else {
            collector.report("unknown exposures \"\(name)\"; expected client or server", at: path, value)
            return nil
        }
        return exposures
    }

    private static func decodeStatus(
        _ object: JSONObjectReader, at path: JSONPath, variants: [Experiment.Variant]?, _ collector: DiagnosticsCollector
    ) -> Experiment.Status? {
        let winner = object.value("winner")
        /// Reports a `winner` given to an experiment that is not concluded.
        func refuseWinner(_ status: String) -> Experiment.Status? {
            collector.report(
                "\"winner\" is only for \"status\": \"concluded\"; this experiment is \(status)", at: path.appending("winner"), winner!)
            return nil
        }
        if let enabledValue = object.value("enabled") {
            if object.contains("status") {
                collector.report(
                    "give \"status\" or \"enabled\", not both (\"enabled\": false is the older spelling of \"status\": \"paused\")",
                    at: path.appending("enabled"), enabledValue)
                return nil
            }
            guard let enabled = object.bool("enabled") else { return nil }
            return winner != nil ? refuseWinner(enabled ? "running" : "paused") : enabled ? .running : .paused
        }
        guard object.contains("status") else { return winner != nil ? refuseWinner("running") : .running }
        guard let name = object.string("status") else { return nil }
        switch name {
        case "running": return winner != nil ? refuseWinner(name) : .running
        case "paused": return winner != nil ? refuseWinner(name) : .paused
        case "concluded":
            guard let winner else {
                collector.report(
                    "missing required key \"winner\": a concluded experiment names the variant everyone gets", at: path, object.location)
                return nil
            }
            let winnerPath = path.appending("winner")
            guard let name = RuleExpression.identifier(winner, at: winnerPath, collector), let variants else { return nil }
            if let problem = Experiment.unknownVariant(name, "winner", among: variants) {
                collector.report(problem, at: winnerPath, winner)
                return nil
            }
            return .concluded(winner: name)
        default:
            object.report("unknown status \"\(name)\"; expected running, paused or concluded", atMember: "status")
            return nil
        }
    }

    /// `{"user id": "variant", …}`; nil after reporting every bad entry.
    private static func decodeOverrides(
        _ value: JSONValue, at path: JSONPath, _ variants: [Experiment.Variant]?, _ collector: DiagnosticsCollector
    ) -> [String: String]? {
        guard let members = value.objectValue else {
            collector.report("expected an object of user id → variant name, found \(value.typeName)", at: path, value)
            return nil
        }
        guard members.count <= Limits.maximumOverrides else {
            collector.report("an experiment has at most \(Limits.maximumOverrides) overrides, found \(members.count)", at: path, value)
            return nil
        }
        var overrides: [String: String] = [:]
        var complete = true
        for member in members {
            let memberPath = path.appending(member.key)
            var problem = Experiment.userIDProblem(member.key)
            if problem == nil, overrides[member.key] != nil {
                // JSON text cannot get here (the parser refuses it); a document built in code can.
                problem = "the same user id as an earlier override, up to Unicode normalisation; give each user once"
            }
            if let problem {
                collector.report(problem, at: memberPath, member.keyLocation)
                complete = false
                continue
            }
            guard let name = member.value.stringValue else {
                collector.report("expected a variant name, found \(member.value.typeName)", at: memberPath, member.value)
                complete = false
                continue
            }
            if let variants, let problem = Experiment.unknownVariant(name, "variant", among: variants) {
                collector.report(problem, at: memberPath, member.value)
                complete = false
                continue
            }
            overrides[member.key] = name
        }
        return complete ? overrides : nil
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
            if member.value.objectValue != nil {
                if let variant = decodeTypedVariant(member.key, member.value, at: path.appending(member.key), collector) {
                    variants.append(variant)
                }
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

    /// `{"weight": 50, "value": …}`: a variant with the typed value apps read through OFREP; nil
    /// after reporting what is wrong.
    private static func decodeTypedVariant(
        _ name: String, _ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector
    ) -> Experiment.Variant? {
        guard let object = collector.object(value, at: path, allowedKeys: ["weight", "value"]) else { return nil }
        let weight = object.integer("weight", in: 0...Limits.maximumWeight, required: true)
        guard let typed = object.value("value", required: true), let weight else { return nil }
        guard !typed.isNull else {
            object.report("a variant's value must not be null; write the weight alone and its name is its value", atMember: "value")
            return nil
        }
        return Experiment.Variant(name: name, weight: weight, value: typed)
    }
}

extension TargetingConfiguration.Experiment {
    /// What is wrong with `userID` as an override's user id, or nil: empty, longer than
    /// ``TargetingConfiguration/Limits/maximumUserIDBytes``, or with control characters — ids no
    /// request can carry (``UserContext/parse(_:)`` refuses them).
    static func userIDProblem(_ userID: String) -> String? {
        let limit = TargetingConfiguration.Limits.maximumUserIDBytes
        if userID.isEmpty { return "a user id must not be empty" }
        if userID.utf8.count > limit { return "a user id is at most \(limit) bytes, this one has \(userID.utf8.count)" }
        if userID.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "a user id must not contain control characters" }
        return nil
    }

    /// A metric both a goal and a guardrail: one the experiment is run to move is not also one that
    /// must merely not get worse. Reported at the guardrail (in an update, at the name it gives).
    public static func goalAndGuardrailProblem(_ name: String) -> String {
        "\"\(name)\" is both a goal and a guardrail; a metric is one or the other"
    }

    static func repeatedMetricProblem(_ name: String) -> String { "\"\(name)\" is named twice; name each metric once" }

    static func tooManyMetricsProblem(_ field: String, _ count: Int) -> String {
        "an experiment has at most \(TargetingConfiguration.Limits.maximumMetricNames) \(field), found \(count)"
    }

    /// *unknown winner "x"; the variants are: a, b* when `name` is not one of `variants`, else nil.
    static func unknownVariant(_ name: String, _ role: String, among variants: [Variant]) -> String? {
        variants.contains { $0.name == name }
            ? nil : "unknown \(role) \"\(name)\"; the variants are: \(variants.map(\.name).joined(separator: ", "))"
    }
}
