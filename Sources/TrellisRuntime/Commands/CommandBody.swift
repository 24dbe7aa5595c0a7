import TrellisJSON
import TrellisTargeting

/// Reading a command's JSON body: the admin API's request bodies and a change request's stored
/// command go through the same functions, so both say the same of the same mistake.
package enum CommandBody {
    /// `bytes` parsed as JSON; malformed (with line and column) when they are not.
    package static func json(_ bytes: [UInt8]) throws(Refusal) -> JSONValue {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw .malformed("the body is not JSON", [Diagnostic(path: .root, location: error.location, message: error.reason)], source: "body")
        }
    }

    /// `bytes` as a JSON object whose keys are all `allowed`, read by `decode`; invalid, listing
    /// every mistake `decode` reports and every unknown key, with its line.
    package static func object(
        _ bytes: [UInt8], allowed: Set<String>, _ decode: (JSONObjectReader, DiagnosticsCollector) -> Void
    ) throws(Refusal) {
        let document = try json(bytes)
        let collector = DiagnosticsCollector()
        if let object = collector.object(document, at: .root, allowedKeys: allowed) { decode(object, collector) }
        guard collector.isEmpty else { throw .invalid("the body is not a valid change; nothing changed", collector.diagnostics, source: "body") }
    }

    /// `{"revision": n}`: a revision number to roll back to.
    package static func revision(_ bytes: [UInt8]) throws(Refusal) -> Int {
        var revision = 0
        try object(bytes, allowed: ["revision"]) { object, _ in
            revision = object.integer("revision", in: 1...Int(Int32.max), required: true) ?? 0
        }
        return revision
    }

    /// `{"percentage": p}`: the share of users a staged revision is served to.
    package static func stagePercentage(_ bytes: [UInt8]) throws(Refusal) -> RolloutPercentage {
        var percentage: RolloutPercentage?
        try object(bytes, allowed: ["percentage"]) { object, collector in
            if let value = object.value("percentage", required: true) {
                percentage = RolloutPercentage.decode(value, at: .root.appending("percentage"), collector)
            }
        }
        return percentage ?? .none
    }

    /// The body as a rule expression, each mistake with its line and column.
    package static func expression(_ bytes: [UInt8]) throws(Refusal) -> RuleExpression {
        let document = try json(bytes)
        let collector = DiagnosticsCollector()
        guard let expression = RuleExpression.decode(document, at: .root, collector), collector.isEmpty else {
            throw .invalid("the body is not a rule expression; nothing changed", collector.diagnostics, source: "body")
        }
        return expression
    }

    /// The body as a whole targeting document, as targeting.json holds it.
    package static func targeting(_ bytes: [UInt8]) throws(Refusal) -> TargetingConfiguration {
        switch TargetingConfiguration.decode(try json(bytes), source: "body") {
        case .success(let decoded): return decoded
        case .failure(let error): throw .invalid("the targeting document does not validate; nothing changed", error.diagnostics, source: "body")
        }
    }

    /// The body of a command that creates a targeting entry: `key` and the entry's members as
    /// targeting.json writes them (plus `extraKeys`), every mistake reported with its line.
    package static func newEntry<Entry, Extra>(
        _ bytes: [UInt8], entryKeys: Set<String>, extraKeys: Set<String> = [],
        _ decode: (String, JSONValue, DiagnosticsCollector) -> Entry?, extra: (JSONObjectReader, DiagnosticsCollector) -> Extra?
    ) throws(Refusal) -> (String, Entry, Extra) {
        let document = try json(bytes)
        let collector = DiagnosticsCollector()
        var result: (String, Entry, Extra)?
        if let object = collector.object(document, at: .root, allowedKeys: entryKeys.union(extraKeys).union(["key"])) {
            let key = object.string("key", required: true)
            if let key, !RuleExpression.isIdentifier(key) {
                object.report("invalid key \"\(key)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots", atMember: "key")
            }
            let rest = object.members.filter { $0.key != "key" && !extraKeys.contains($0.key) }
            let entry = decode(key ?? "-", JSONValue(.object(rest), at: document.location), collector)
            let extras = extra(object, collector)
            if let key, let entry, let extras { result = (key, entry, extras) }
        }
        guard let result, collector.isEmpty else {
            throw .invalid("the body is not a valid definition; nothing changed", collector.diagnostics, source: "body")
        }
        return result
    }

    /// A new rollout: `{"key": …, "percentage": …}` with optionally `groupId` (the key by
    /// default), `enabled`, `description` and `schedule`.
    package static func newRollout(_ bytes: [UInt8]) throws(Refusal) -> RolloutCommand {
        let (key, rollout, schedule) = try newEntry(
            bytes, entryKeys: ["percentage", "groupId", "enabled", "description"], extraKeys: ["schedule"]) { key, definition, collector in
            TargetingConfiguration.decodeRollout(key, definition, at: .root, collector)
        } extra: { object, collector in
            object.value("schedule").flatMap { ScheduledStep.decodeList($0, at: .root.appending("schedule"), collector) } ?? []
        }
        return .create(key: key, rollout, schedule: schedule)
    }

    /// A new experiment: `{"key": …, "variants": {…}}` with optionally `status`, `winner`,
    /// `defaultVariant`, `overrides`, `description`, `goals`, `guardrails`, `exposures` as
    /// targeting.json writes them.
    package static func newExperiment(_ bytes: [UInt8]) throws(Refusal) -> ExperimentCommand {
        let (key, experiment, _) = try newEntry(
            bytes,
            entryKeys: [
                "variants", "status", "winner", "enabled", "defaultVariant", "overrides", "description", "goals", "guardrails", "exposures",
            ]
        ) { _, definition, collector in
            TargetingConfiguration.decodeExperiment(definition, at: .root, collector)
        } extra: { _, _ in () }
        return .create(key: key, experiment)
    }
}

/// A rollout change: any of `percentage`, `enabled`, `description` (null removes it), `schedule`
/// (the steps to come; `[]` cancels them).
package struct RolloutPatch: Sendable {
    package var percentage: RolloutPercentage?
    package var enabled: Bool?
    package var description: String??
    package var schedule: [ScheduledStep]?

    package init(percentage: RolloutPercentage? = nil, enabled: Bool? = nil, description: String?? = nil, schedule: [ScheduledStep]? = nil) {
        self.percentage = percentage
        self.enabled = enabled
        self.description = description
        self.schedule = schedule
    }

    package init(body bytes: [UInt8]) throws(Refusal) {
        var patch = RolloutPatch()
        try CommandBody.object(bytes, allowed: ["percentage", "enabled", "description", "schedule"]) { object, collector in
            if let value = object.value("percentage") {
                patch.percentage = RolloutPercentage.decode(value, at: .root.appending("percentage"), collector)
            }
            patch.enabled = object.bool("enabled")
            if let value = object.value("description") {
                if value.isNull { patch.description = .some(nil) } else { patch.description = object.string("description").map { .some($0) } }
            }
            if let value = object.value("schedule") {
                patch.schedule = ScheduledStep.decodeList(value, at: .root.appending("schedule"), collector)
            }
            if object.members.isEmpty {
                collector.report("nothing to change: give percentage, enabled, description or schedule", at: .root, object.location)
            }
        }
        self = patch
    }

    /// The body that decodes to this patch.
    package var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = []
        if let percentage { members.append(("percentage", percentage.jsonValue)) }
        if let enabled { members.append(("enabled", .bool(enabled))) }
        if let description { members.append(("description", description.map(JSONValue.string) ?? .null)) }
        if let schedule { members.append(("schedule", .array(schedule.map(\.jsonValue)))) }
        return .object(members)
    }

    package func applied(
        to rollout: TargetingConfiguration.Rollout, schedule steps: [ScheduledStep]
    ) -> (TargetingConfiguration.Rollout, [ScheduledStep]) {
        var result = rollout
        if let percentage { result.percentage = percentage }
        if let enabled { result.enabled = enabled }
        if let description { result.description = description }
        return (result, schedule ?? steps)
    }
}

/// An experiment change: any of `weights` (variant → weight; unnamed variants keep theirs),
/// `status` (`running`, `paused`, `concluded` with `winner`), `overrides` (user → variant, merged;
/// `null` removes a user), `description`, `goals` and `guardrails` (each list replaced whole; `[]`
/// names none), `exposures` (`client` or `server`). Variant names, and a metric that would be both a
/// goal and a guardrail once the change is made, are checked against the experiment when the change
/// is planned, with the line of each.
package struct ExperimentPatch: Sendable {
    package struct Named: Sendable {
        package var name: String
        package var path: JSONPath
        package var location: SourceLocation
    }

    package var weights: [(variant: Named, weight: Int)] = []
    package var status: String?
    package var winner: Named?
    package var overrides: [(user: String, variant: Named?)] = []
    package var description: String??
    package var goals: [Named]?
    package var guardrails: [Named]?
    package var exposures: TargetingConfiguration.Experiment.ExposureRecording?

    package static let statuses = ["running", "paused", "concluded"]

    package init(body bytes: [UInt8]) throws(Refusal) {
        var patch = ExperimentPatch()
        let allowed: Set<String> = ["weights", "status", "winner", "overrides", "description", "goals", "guardrails", "exposures"]
        try CommandBody.object(bytes, allowed: allowed) { object, collector in
            patch.read(object, collector)
        }
        self = patch
    }

    private init() {}

    /// The body that decodes to this patch.
    package var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = []
        if !weights.isEmpty { members.append(("weights", .object(weights.map { ($0.variant.name, .number($0.weight)) }))) }
        if let status { members.append(("status", .string(status))) }
        if let winner { members.append(("winner", .string(winner.name))) }
        if !overrides.isEmpty { members.append(("overrides", .object(overrides.map { ($0.user, $0.variant.map { .string($0.name) } ?? .null) }))) }
        if let description { members.append(("description", description.map(JSONValue.string) ?? .null)) }
        if let goals { members.append(("goals", .array(goals.map { .string($0.name) }))) }
        if let guardrails { members.append(("guardrails", .array(guardrails.map { .string($0.name) }))) }
        if let exposures { members.append(("exposures", .string(exposures.rawValue))) }
        return .object(members)
    }

    private mutating func read(_ object: JSONObjectReader, _ collector: DiagnosticsCollector) {
        if object.members.isEmpty {
            collector.report(
                "nothing to change: give weights, status, winner, overrides, description, goals, guardrails or exposures", at: .root,
                object.location)
        }
        if let value = object.value("weights") {
            guard let members = value.objectValue else {
                return collector.report("expected an object of variant → weight, found \(value.typeName)", at: .root.appending("weights"), value)
            }
            for member in members {
                let path = JSONPath.root.appending("weights").appending(member.key)
                guard let n = member.value.numberValue, n == n.rounded(), n >= 0,
                    n <= Double(TargetingConfiguration.Limits.maximumWeight)
                else {
                    collector.report(
                        "expected an integer weight from 0 to \(TargetingConfiguration.Limits.maximumWeight), found \(JSONWriter.string(member.value))",
                        at: path, member.value)
                    continue
                }
                weights.append((Named(name: member.key, path: path, location: member.keyLocation), Int(n)))
            }
        }
        if let status = object.string("status") {
            if Self.statuses.contains(status) {
                self.status = status
            } else {
                object.report("unknown status \"\(status)\"; use one of: \(Self.statuses.joined(separator: ", "))", atMember: "status")
            }
        }
        if let winner = object.string("winner") {
            self.winner = Named(name: winner, path: .root.appending("winner"), location: object.value("winner")?.location ?? object.location)
            if status != "concluded" {
                object.report("a winner needs \"status\": \"concluded\"", atMember: "winner")
            }
        } else if status == "concluded" {
            object.report("\"status\": \"concluded\" needs a \"winner\": the variant everyone gets", atMember: "status")
        }
        if let value = object.value("overrides") {
            readOverrides(value, collector)
        }
        if let value = object.value("description") {
            if value.isNull { description = .some(nil) } else { description = object.string("description").map { .some($0) } }
        }
        if let value = object.value("goals") { goals = Self.metricNames(value, "goals", collector) }
        if let value = object.value("guardrails") { guardrails = Self.metricNames(value, "guardrails", collector) }
        // Both in the body: refused now, as targeting.json would be; with the experiment's own lists, when planned.
        for guardrail in guardrails ?? [] where goals?.contains(where: { $0.name == guardrail.name }) == true {
            collector.report(TargetingConfiguration.Experiment.goalAndGuardrailProblem(guardrail.name), at: guardrail.path, guardrail.location)
        }
        if let value = object.value("exposures") {
            exposures = TargetingConfiguration.decodeExposures(value, at: .root.appending("exposures"), collector)
        }
    }

    /// `goals` or `guardrails` (`field`) as targeting.json reads them, each name with where it is written.
    private static func metricNames(_ value: JSONValue, _ field: String, _ collector: DiagnosticsCollector) -> [Named]? {
        let path = JSONPath.root.appending(field)
        guard let names = TargetingConfiguration.decodeMetricNames(value, field, at: path, collector), let items = value.arrayValue else {
            return nil
        }
        // Complete lists only: the i-th name is the i-th item.
        return names.enumerated().map { Named(name: $1, path: path.appending($0), location: items[$0].location) }
    }

    private mutating func readOverrides(_ value: JSONValue, _ collector: DiagnosticsCollector) {
        guard let members = value.objectValue else {
            return collector.report("expected an object of user id → variant (or null to remove), found \(value.typeName)", at: .root.appending("overrides"), value)
        }
        for member in members {
            let path = JSONPath.root.appending("overrides").appending(member.key)
            guard !member.key.isEmpty, member.key.utf8.count <= UserContext.Limits.maximumValueBytes else {
                collector.report("a user id is 1 to \(UserContext.Limits.maximumValueBytes) bytes", at: path, member.keyLocation)
                continue
            }
            if member.value.isNull {
                overrides.append((member.key, nil))
            } else if let variant = member.value.stringValue {
                overrides.append((member.key, Named(name: variant, path: path, location: member.value.location)))
            } else {
                collector.report("expected a variant name or null, found \(member.value.typeName)", at: path, member.value)
            }
        }
    }

    /// The settings after this patch; invalid, naming every variant the experiment does not have,
    /// or every metric it would make both a goal and a guardrail.
    package func applied(to settings: ExperimentSettings, variants: [String]) throws(Refusal) -> ExperimentSettings {
        let named = weights.map(\.variant) + [winner].compactMap { $0 } + overrides.compactMap(\.variant)
        let unknown = named.filter { !variants.contains($0.name) }
        guard unknown.isEmpty else {
            throw .invalid(
                "the body names variants this experiment does not have; nothing changed",
                unknown.map {
                    Diagnostic(path: $0.path, location: $0.location, message: "unknown variant \"\($0.name)\"; variants: \(variants.joined(separator: ", "))")
                }, source: "body")
        }
        var result = settings
        for (variant, weight) in weights {
            if let i = result.weights.firstIndex(where: { $0.name == variant.name }) { result.weights[i].weight = weight }
        }
        switch (status, winner) {
        case ("running"?, _): result.status = .running
        case ("paused"?, _): result.status = .paused
        case ("concluded"?, let winner?): result.status = .concluded(winner: winner.name)
        default: break
        }
        for (user, variant) in overrides { result.overrides[user] = variant?.name }
        if let description { result.description = description }
        if let goals { result.goals = goals.map(\.name) }
        if let guardrails { result.guardrails = guardrails.map(\.name) }
        if let exposures { result.exposures = exposures }
        // A goal given now against a guardrail the experiment has (or the reverse): reported at the
        // name this body gives, the guardrail's when it gives both.
        let both = result.guardrails.filter(result.goals.contains)
        guard both.isEmpty else {
            throw .invalid(
                "the body would make a metric both a goal and a guardrail; nothing changed",
                both.map { name in
                    let given = guardrails?.first { $0.name == name } ?? goals?.first { $0.name == name }
                    return Diagnostic(
                        path: given?.path ?? .root, location: given?.location ?? .unknown,
                        message: TargetingConfiguration.Experiment.goalAndGuardrailProblem(name))
                }, source: "body")
        }
        return result
    }
}
