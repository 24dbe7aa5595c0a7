import TrellisHTTP
import TrellisJSON
import TrellisStore
import TrellisTargeting

/// `/admin/experiments`: read every experiment; create one; change weights, status (pause,
/// conclude with a winner, resume) and per-user overrides; retire one; hand one back to targeting.json.
extension AdminEndpoints {
    func registerExperiments(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/experiments") { request, _, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let list = snapshot.targeting.experiments.keys.sorted().map { Self.experiment($0, in: snapshot) }
            return Self.resource(.object([("experiments", .array(list))]))
        }
        routes.add(.get, "/admin/experiments/{key}") { request, parameters, context, actor throws(Problem) in
            let value = try Self.existingExperiment(parameters["key"] ?? "", in: state.published.snapshot)
            return Self.resource(value, etag: Self.etag(of: value))
        }
        routes.add(.put, "/admin/experiments/{key}", replying: { request, parameters, context, actor throws(Problem) in
            let key = parameters["key"] ?? ""
            let patch = try ExperimentPatch(request)
            return write(request, context, actor) { snapshot, actor throws(Problem) in
                try planExperiment(key, patch, request, snapshot, actor)
            }
        })
        routes.add(.post, "/admin/experiments", replying: { request, _, context, actor throws(Problem) in
            try createExperiment(request, context, actor)
        })
        routes.add(.delete, "/admin/experiments/{key}", replying: { request, parameters, context, actor throws(Problem) in
            let key = parameters["key"] ?? ""
            return write(request, context, actor) { snapshot, actor throws(Problem) in
                let experiment = try experimentInForce(key, request, snapshot)
                return planRetirement(.experiment(ExperimentValue(form: .retired)), key: key, before: experiment.jsonValue, in: snapshot, actor: actor)
            }
        })
        routes.add(.post, "/admin/experiments/{key}/reset", replying: { request, parameters, context, actor throws(Problem) in
            let key = parameters["key"] ?? ""
            try Self.checkMediaType(request)
            return write(request, context, actor) { snapshot, actor throws(Problem) in
                try planEntryReset(
                    .experiment(nil), key: key, in: snapshot, request: request, actor: actor,
                    inForce: snapshot.targeting.experiments[key]?.jsonValue, configured: snapshot.baselineTargeting.experiments[key]?.jsonValue,
                    etag: Self.etag(of: Self.experiment(key, in: snapshot))
                ) { Self.experiment(key, in: $0) }
            }
        })
    }

    /// `POST /admin/experiments`: a new experiment, `{"key": …, "variants": {…}}` with optionally
    /// `status`, `winner`, `defaultVariant`, `overrides`, `description` as targeting.json writes
    /// them; 201 with its `Location`, 409 for a key in force already.
    private func createExperiment(_ request: HTTPRequest, _ context: HTTPRequestContext, _ actor: String) throws(Problem) -> HTTPReply {
        let (key, experiment, _) = try Self.newEntry(
            request, entryKeys: ["variants", "status", "winner", "enabled", "defaultVariant", "overrides", "description"]
        ) { _, definition, collector in
            TargetingConfiguration.decodeExperiment(definition, at: .root, collector)
        } extra: { _, _ in () }
        return write(request, context, actor) { snapshot, actor throws(Problem) in
            guard snapshot.targeting.experiments[key] == nil else {
                throw Problem(.conflict, "experiment \"\(key)\" exists; change it with PUT /admin/experiments/\(key)")
            }
            let audit = targetingAudit("experiment.create", "experiments/\(key)", actor: actor, before: nil, after: experiment.jsonValue)
            var plan = planTargeting(
                [TargetingWrite(key: key, value: .experiment(ExperimentValue(form: .defined(experiment))))], in: snapshot, actor: actor,
                audit: [audit], status: .created
            ) { Self.experiment(key, in: $0) }
            plan.locate("/admin/experiments/\(key)")
            return plan
        }
    }

    /// The change a `PUT` patch makes. An experiment of targeting.json keeps its variants and
    /// default there (its runtime document holds the settings ops change); one created or
    /// redefined at run time is stored whole.
    private func planExperiment(
        _ key: String, _ patch: ExperimentPatch, _ request: HTTPRequest, _ snapshot: Snapshot, _ actor: String
    ) throws(Problem) -> Plan {
        let experiment = try experimentInForce(key, request, snapshot)
        let new = try patch.applied(to: ExperimentSettings(experiment), variants: experiment.variants.map(\.name))
        let form: TargetingEntryForm<ExperimentSettings, TargetingConfiguration.Experiment>
        if case .defined = snapshot.runtime.experiments[key]?.settings?.form {
            form = .defined(new.applied(to: experiment))
        } else {
            form = .settings(new)
        }
        let audit = targetingAudit(
            "experiment.update", "experiments/\(key)", actor: actor, before: experiment.jsonValue, after: new.applied(to: experiment).jsonValue)
        return planTargeting(
            [TargetingWrite(key: key, value: .experiment(ExperimentValue(form: form)))], in: snapshot, actor: actor, audit: [audit]
        ) { Self.experiment(key, in: $0) }
    }

    /// Experiment `key` as in force, once `If-Match` (if any) names its current version.
    private func experimentInForce(
        _ key: String, _ request: HTTPRequest, _ snapshot: Snapshot
    ) throws(Problem) -> TargetingConfiguration.Experiment {
        guard let experiment = snapshot.targeting.experiments[key] else {
            throw Self.notFound("experiment", key, known: snapshot.targeting.experiments.keys)
        }
        try checkPrecondition(request, etag: Self.etag(of: Self.experiment(key, in: snapshot)))
        return experiment
    }

    static func existingExperiment(_ key: String, in snapshot: Snapshot) throws(Problem) -> JSONValue {
        guard snapshot.targeting.experiments[key] != nil else {
            throw notFound("experiment", key, known: snapshot.targeting.experiments.keys)
        }
        return experiment(key, in: snapshot)
    }

    /// An experiment as ops see it: variants and weights, status, overrides, and where they come from.
    static func experiment(_ key: String, in snapshot: Snapshot) -> JSONValue {
        guard let experiment = snapshot.targeting.experiments[key] else { return .null }
        var members: [(String, JSONValue)] = [
            ("key", .string(key)),
            ("variants", .array(experiment.variants.map { .object([("name", .string($0.name)), ("weight", .number($0.weight))]) })),
            ("defaultVariant", .string(experiment.defaultVariant)), ("status", .string(experiment.status.description)),
        ]
        if case .concluded(let winner) = experiment.status { members.append(("winner", .string(winner))) }
        members.append(
            ("overrides", .object(experiment.overrides.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        members.append(("description", experiment.description.map(JSONValue.string) ?? .null))
        members += provenance(snapshot.runtime.experiments[key]?.document)
        if snapshot.runtime.hasOverride(kind: ExperimentValue.kind, key: key), let baseline = snapshot.baselineTargeting.experiments[key] {
            members.append(("config", ExperimentSettings(baseline).jsonValue))
        }
        return .object(members)
    }
}

/// A `PUT /admin/experiments/{key}` body: any of `weights` (variant → weight; unnamed variants keep
/// theirs), `status` (`running`, `paused`, `concluded` with `winner`), `overrides` (user → variant,
/// merged; `null` removes a user), `description`. Variant names are checked against the experiment
/// when the change is planned, with the line of each.
struct ExperimentPatch: Sendable {
    struct Named: Sendable {
        var name: String
        var path: JSONPath
        var location: SourceLocation
    }

    var weights: [(variant: Named, weight: Int)] = []
    var status: String?
    var winner: Named?
    var overrides: [(user: String, variant: Named?)] = []
    var description: String??

    static let statuses = ["running", "paused", "concluded"]

    init(_ request: HTTPRequest) throws(Problem) {
        var patch = ExperimentPatch()
        try AdminEndpoints.payload(request, allowed: ["weights", "status", "winner", "overrides", "description"]) { object, collector in
            patch.read(object, collector)
        }
        self = patch
    }

    private init() {}

    private mutating func read(_ object: JSONObjectReader, _ collector: DiagnosticsCollector) {
        if object.members.isEmpty {
            collector.report("nothing to change: give weights, status, winner, overrides or description", at: .root, object.location)
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

    /// The settings after this patch; 422 naming every variant the experiment does not have.
    func applied(to settings: ExperimentSettings, variants: [String]) throws(Problem) -> ExperimentSettings {
        let named = weights.map(\.variant) + [winner].compactMap { $0 } + overrides.compactMap(\.variant)
        let unknown = named.filter { !variants.contains($0.name) }
        guard unknown.isEmpty else {
            throw Problem.invalid(
                "the body names variants this experiment does not have; nothing changed",
                unknown.map {
                    Diagnostic(path: $0.path, location: $0.location, message: "unknown variant \"\($0.name)\"; variants: \(variants.joined(separator: ", "))")
                }, source: "body", status: .unprocessableContent)
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
        return result
    }
}
