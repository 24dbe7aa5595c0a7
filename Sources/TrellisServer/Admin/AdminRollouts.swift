import TrellisHTTP
import TrellisJSON
import TrellisStore
import TrellisTargeting

/// `/admin/rollouts`: read every rollout; create one, change its percentage, schedule a ramp,
/// enable or kill it, retire it, hand it back to targeting.json.
extension AdminEndpoints {
    func registerRollouts(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/rollouts") { request, _, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let list = snapshot.targeting.rollouts.keys.sorted().map { Self.rollout($0, in: snapshot) }
            return Self.resource(.object([("rollouts", .array(list))]))
        }
        routes.add(.get, "/admin/rollouts/{key}") { request, parameters, context, actor throws(Problem) in
            let key = parameters["key"] ?? ""
            let value = try Self.existingRollout(key, in: state.published.snapshot)
            return Self.resource(value, etag: Self.etag(of: value))
        }
        routes.add(.post, "/admin/rollouts", replying: { request, _, context, actor throws(Problem) in
            try createRollout(request, context, actor)
        })
        routes.add(.put, "/admin/rollouts/{key}", replying: { request, parameters, context, actor throws(Problem) in
            let key = parameters["key"] ?? ""
            let patch = try RolloutPatch(request)
            return write(request, context, actor) { snapshot, actor throws(Problem) in
                try planRollout(key, request, snapshot, actor, action: "rollout.update") { patch.applied(to: $0, schedule: $1) }
            }
        })
        routes.add(.delete, "/admin/rollouts/{key}", replying: { request, parameters, context, actor throws(Problem) in
            let key = parameters["key"] ?? ""
            return write(request, context, actor) { snapshot, actor throws(Problem) in
                let rollout = try rolloutInForce(key, request, snapshot)
                return planRetirement(
                    .rollout(RolloutValue(form: .retired)), key: key, before: Self.auditForm(rollout, Self.schedule(key, snapshot)),
                    in: snapshot, actor: actor)
            }
        })
        routes.add(.post, "/admin/rollouts/{key}/kill", replying: { request, parameters, context, actor throws(Problem) in
            let key = parameters["key"] ?? ""
            return write(request, context, actor) { snapshot, actor throws(Problem) in
                try planRollout(key, request, snapshot, actor, action: "rollout.kill") { rollout, _ in
                    var killed = rollout
                    killed.enabled = false  // the percentage stays, for a later revive; the schedule does not
                    return (killed, [])
                }
            }
        })
        routes.add(.post, "/admin/rollouts/{key}/reset", replying: { request, parameters, context, actor throws(Problem) in
            let key = parameters["key"] ?? ""
            try Self.checkMediaType(request)
            return write(request, context, actor) { snapshot, actor throws(Problem) in
                try planEntryReset(
                    .rollout(nil), key: key, in: snapshot, request: request, actor: actor,
                    inForce: snapshot.targeting.rollouts[key].map { Self.auditForm($0, Self.schedule(key, snapshot)) },
                    configured: snapshot.baselineTargeting.rollouts[key].map { Self.auditForm($0, []) },
                    etag: Self.etag(of: Self.rollout(key, in: snapshot))
                ) { Self.rollout(key, in: $0) }
            }
        })
    }

    /// `POST /admin/rollouts`: a new rollout, `{"key": …, "percentage": …}` with optionally
    /// `groupId` (the key by default), `enabled`, `description` and `schedule`; 201 with its
    /// `Location`, 409 for a key in force already.
    private func createRollout(_ request: HTTPRequest, _ context: HTTPRequestContext, _ actor: String) throws(Problem) -> HTTPReply {
        let (key, rollout, schedule) = try Self.newEntry(
            request, entryKeys: ["percentage", "groupId", "enabled", "description"], extraKeys: ["schedule"]) { key, definition, collector in
            TargetingConfiguration.decodeRollout(key, definition, at: .root, collector)
        } extra: { object, collector in
            object.value("schedule").flatMap { ScheduledStep.decodeList($0, at: .root.appending("schedule"), collector) } ?? []
        }
        return write(request, context, actor) { snapshot, actor throws(Problem) in
            try checkFuture(schedule)
            guard snapshot.targeting.rollouts[key] == nil else {
                throw Problem(.conflict, "rollout \"\(key)\" exists; change it with PUT /admin/rollouts/\(key)")
            }
            let audit = targetingAudit("rollout.create", "rollouts/\(key)", actor: actor, before: nil, after: Self.auditForm(rollout, schedule))
            var plan = planTargeting(
                [TargetingWrite(key: key, value: .rollout(RolloutValue(form: .defined(rollout), schedule: schedule)))], in: snapshot,
                actor: actor, audit: [audit], status: .created
            ) { Self.rollout(key, in: $0) }
            plan.locate("/admin/rollouts/\(key)")
            return plan
        }
    }

    /// The change that gives rollout `key` what `update` makes of the rollout in force and its
    /// schedule. A rollout of targeting.json keeps its group id there (its runtime document holds
    /// the settings ops change); one created or redefined at run time is stored whole.
    private func planRollout(
        _ key: String, _ request: HTTPRequest, _ snapshot: Snapshot, _ actor: String, action: String,
        _ update: (TargetingConfiguration.Rollout, [ScheduledStep]) -> (TargetingConfiguration.Rollout, [ScheduledStep])
    ) throws(Problem) -> Plan {
        let old = try rolloutInForce(key, request, snapshot)
        let oldSchedule = Self.schedule(key, snapshot)
        let (new, schedule) = update(old, oldSchedule)
        if schedule != oldSchedule { try checkFuture(schedule) }
        return planRollout(key, old: (old, oldSchedule), new: (new, schedule), in: snapshot, actor: actor, action: action)
    }

    /// The change from `old` to `new` (a rollout and its schedule), audited as `action`.
    private func planRollout(
        _ key: String, old: (TargetingConfiguration.Rollout, [ScheduledStep]), new: (TargetingConfiguration.Rollout, [ScheduledStep]),
        in snapshot: Snapshot, actor: String, action: String
    ) -> Plan {
        let (new, schedule) = new
        let form: TargetingEntryForm<RolloutSettings, TargetingConfiguration.Rollout>
        if case .defined = snapshot.runtime.rollouts[key]?.settings?.form {
            form = .defined(new)
        } else {
            form = .settings(RolloutSettings(new))
        }
        let audit = targetingAudit(action, "rollouts/\(key)", actor: actor, before: Self.auditForm(old.0, old.1), after: Self.auditForm(new, schedule))
        return planTargeting(
            [TargetingWrite(key: key, value: .rollout(RolloutValue(form: form, schedule: schedule)))], in: snapshot, actor: actor, audit: [audit]
        ) { Self.rollout(key, in: $0) }
    }

    /// The change that applies the steps of rollout `key`'s schedule due at `now` (the last one
    /// sets the percentage; a server that was down for a step applies it late, once), audited as
    /// `rollout.schedule` by the scheduler; nil when none is due.
    func planScheduledSteps(_ key: String, in snapshot: Snapshot, now: Double) -> Plan? {
        guard let rollout = snapshot.targeting.rollouts[key] else { return nil }
        let schedule = Self.schedule(key, snapshot)
        let due = schedule.prefix { $0.at <= now }
        guard let last = due.last else { return nil }
        var new = rollout
        new.percentage = last.percentage
        return planRollout(
            key, old: (rollout, schedule), new: (new, Array(schedule.dropFirst(due.count))), in: snapshot, actor: Self.schedulerActor,
            action: "rollout.schedule")
    }

    /// 422 for a schedule step that is not in the future.
    private func checkFuture(_ schedule: [ScheduledStep]) throws(Problem) {
        let now = state.clock()
        let past = schedule.enumerated().filter { $0.element.at <= now }
        guard past.isEmpty else {
            throw Problem.invalid(
                "a schedule step is not in the future; nothing changed",
                past.map { Diagnostic(path: JSONPath.root.appending("schedule").appending($0.offset).appending("at"), location: .unknown, message: "\(RFC3339.string(fromSeconds: $0.element.at)) is not after now") },
                source: "body", status: .unprocessableContent)
        }
    }

    /// Rollout `key` as in force, once `If-Match` (if any) names its current version.
    private func rolloutInForce(_ key: String, _ request: HTTPRequest, _ snapshot: Snapshot) throws(Problem) -> TargetingConfiguration.Rollout {
        guard let rollout = snapshot.targeting.rollouts[key] else { throw Self.notFound("rollout", key, known: snapshot.targeting.rollouts.keys) }
        try checkPrecondition(request, etag: Self.etag(of: Self.rollout(key, in: snapshot)))
        return rollout
    }

    /// The steps still to come of rollout `key`'s schedule.
    static func schedule(_ key: String, _ snapshot: Snapshot) -> [ScheduledStep] {
        snapshot.runtime.rollouts[key]?.settings?.schedule ?? []
    }

    /// A rollout as the audit log records it: as targeting.json writes it, and its schedule.
    static func auditForm(_ rollout: TargetingConfiguration.Rollout, _ schedule: [ScheduledStep]) -> JSONValue {
        var members = (rollout.jsonValue.objectValue ?? []).map { ($0.key, $0.value) }
        if !schedule.isEmpty { members.append(("schedule", .array(schedule.map(\.jsonValue)))) }
        return .object(members)
    }

    static func existingRollout(_ key: String, in snapshot: Snapshot) throws(Problem) -> JSONValue {
        guard snapshot.targeting.rollouts[key] != nil else { throw notFound("rollout", key, known: snapshot.targeting.rollouts.keys) }
        return rollout(key, in: snapshot)
    }

    /// A rollout as ops see it: the values in force, its schedule, where they come from, and the
    /// configuration's values when a runtime value overrides them.
    static func rollout(_ key: String, in snapshot: Snapshot) -> JSONValue {
        guard let rollout = snapshot.targeting.rollouts[key] else { return .null }
        var members: [(String, JSONValue)] = [
            ("key", .string(key)), ("percentage", rollout.percentage.jsonValue), ("enabled", .bool(rollout.enabled)),
            ("groupId", .string(rollout.groupID)), ("description", rollout.description.map(JSONValue.string) ?? .null),
            ("schedule", .array(schedule(key, snapshot).map(\.jsonValue))),
        ]
        members += provenance(snapshot.runtime.rollouts[key]?.document)
        if snapshot.runtime.hasOverride(kind: RolloutValue.kind, key: key), let baseline = snapshot.baselineTargeting.rollouts[key] {
            members.append(("config", RolloutSettings(baseline).jsonValue))
        }
        return .object(members)
    }

    /// `source`, `revision`, `updatedAt`, `updatedBy` of a value that may have a runtime document
    /// (a reset one says `config`, with who reset it and when).
    static func provenance(_ document: StoredDocument?) -> [(String, JSONValue)] {
        guard let document else {
            return [("source", .string("config")), ("revision", .number(0)), ("updatedAt", .null), ("updatedBy", .null)]
        }
        return [
            ("source", .string(document.body == RuntimeState.resetBody ? "config" : "runtime")), ("revision", .number(document.revision)),
            ("updatedAt", .string(RFC3339.string(fromSeconds: document.updatedAt))), ("updatedBy", .string(document.updatedBy)),
        ]
    }

    /// The body of a `POST` that creates a targeting entry: `key` and the entry's members as
    /// targeting.json writes them (plus `extraKeys`), every mistake reported with its line.
    static func newEntry<Entry, Extra>(
        _ request: HTTPRequest, entryKeys: Set<String>, extraKeys: Set<String> = [],
        _ decode: (String, JSONValue, DiagnosticsCollector) -> Entry?, extra: (JSONObjectReader, DiagnosticsCollector) -> Extra?
    ) throws(Problem) -> (String, Entry, Extra) {
        let document = try jsonBody(request)
        let collector = DiagnosticsCollector()
        var result: (String, Entry, Extra)?
        if let object = collector.object(document, at: .root, allowedKeys: entryKeys.union(extraKeys).union(["key"])) {
            let key = object.string("key", required: true)
            if let key, !RuleExpression.isIdentifier(key) {
                object.report("invalid key \"\(key)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.'", atMember: "key")
            }
            let rest = object.members.filter { $0.key != "key" && !extraKeys.contains($0.key) }
            let entry = decode(key ?? "-", JSONValue(.object(rest), at: document.location), collector)
            let extras = extra(object, collector)
            if let key, let entry, let extras { result = (key, entry, extras) }
        }
        guard let result, collector.isEmpty else {
            throw Problem.invalid("the body is not a valid definition; nothing changed", collector.diagnostics, source: "body", status: .unprocessableContent)
        }
        return result
    }
}

extension AdminEndpoints.Plan {
    /// Answers with `Location: path` (a created resource).
    mutating func locate(_ path: String) {
        let answer = self.answer
        self.answer = { published in
            var response = answer(published)
            response.headers.add(name: "Location", value: path)
            return response
        }
    }
}

/// A `PUT /admin/rollouts/{key}` body: any of `percentage`, `enabled`, `description` (null
/// removes it), `schedule` (the steps to come; `[]` cancels them).
struct RolloutPatch: Sendable {
    var percentage: RolloutPercentage?
    var enabled: Bool?
    var description: String??
    var schedule: [ScheduledStep]?

    init(_ request: HTTPRequest) throws(Problem) {
        var patch = (percentage: RolloutPercentage?.none, enabled: Bool?.none, description: String??.none, schedule: [ScheduledStep]?.none)
        try AdminEndpoints.payload(request, allowed: ["percentage", "enabled", "description", "schedule"]) { object, collector in
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
        (percentage, enabled, description, schedule) = patch
    }

    func applied(
        to rollout: TargetingConfiguration.Rollout, schedule steps: [ScheduledStep]
    ) -> (TargetingConfiguration.Rollout, [ScheduledStep]) {
        var result = rollout
        if let percentage { result.percentage = percentage }
        if let enabled { result.enabled = enabled }
        if let description { result.description = description }
        return (result, schedule ?? steps)
    }
}
