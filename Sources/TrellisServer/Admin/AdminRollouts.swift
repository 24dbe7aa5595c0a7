import TrellisHTTP
import TrellisJSON
import TrellisStore
import TrellisTargeting

/// `/admin/rollouts`: read every rollout, change its percentage, enable or kill it.
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
        routes.add(.put, "/admin/rollouts/{key}", replying: { request, parameters, context, actor throws(Problem) in
            let key = parameters["key"] ?? ""
            let patch = try RolloutPatch(request)
            return write(request, context, actor) { snapshot, actor throws(Problem) in
                try planRollout(key, request, snapshot, actor, action: "rollout.update") { patch.applied(to: $0) }
            }
        })
        routes.add(.delete, "/admin/rollouts/{key}", replying: { request, parameters, context, actor throws(Problem) in
            let key = parameters["key"] ?? ""
            return write(request, context, actor) { snapshot, actor throws(Problem) in
                let rollout = try rolloutInForce(key, request, snapshot)
                return try planReset(
                    .rollout(nil), key: key, in: snapshot, actor: actor, before: RolloutSettings(rollout).jsonValue,
                    baseline: snapshot.baselineTargeting.rollouts[key].map { RolloutSettings($0).jsonValue }
                ) { Self.rollout(key, in: $0) }
            }
        })
        routes.add(.post, "/admin/rollouts/{key}/kill", replying: { request, parameters, context, actor throws(Problem) in
            let key = parameters["key"] ?? ""
            return write(request, context, actor) { snapshot, actor throws(Problem) in
                try planRollout(key, request, snapshot, actor, action: "rollout.kill") { settings in
                    var killed = settings
                    killed.enabled = false  // the percentage stays, for a later revive
                    return killed
                }
            }
        })
    }

    /// The change that gives rollout `key` the settings `update` makes of the ones in force.
    private func planRollout(
        _ key: String, _ request: HTTPRequest, _ snapshot: Snapshot, _ actor: String, action: String,
        _ update: (RolloutSettings) -> RolloutSettings
    ) throws(Problem) -> Plan {
        let old = RolloutSettings(try rolloutInForce(key, request, snapshot))
        let new = update(old)
        return planDocument(
            .rollout(new), key: key, in: snapshot, resource: "rollouts/\(key)",
            action: action, actor: actor, before: old.jsonValue, after: new.jsonValue
        ) { Self.rollout(key, in: $0) }
    }

    /// Rollout `key` as in force, once `If-Match` (if any) names its current version.
    private func rolloutInForce(_ key: String, _ request: HTTPRequest, _ snapshot: Snapshot) throws(Problem) -> TargetingConfiguration.Rollout {
        guard let rollout = snapshot.targeting.rollouts[key] else { throw Self.notFound("rollout", key, known: snapshot.targeting.rollouts.keys) }
        try checkPrecondition(request, etag: Self.etag(of: Self.rollout(key, in: snapshot)))
        return rollout
    }

    /// The change that hands `kind` `key` back to the configuration's value (`baseline`); 409 when
    /// that value is in force already.
    /// - Parameter reset: the kind's settings, nil.
    func planReset(
        _ reset: PlannedSettings, key: String, in snapshot: Snapshot, actor: String, before: JSONValue, baseline: JSONValue?,
        render: @escaping @Sendable (Snapshot) -> JSONValue
    ) throws(Problem) -> Plan {
        let kind = reset.kind
        guard snapshot.runtime.hasOverride(kind: kind, key: key), let baseline else {
            throw Problem(.conflict, "\(kind) \(key) has no runtime value; the configuration's is in force already")
        }
        return planDocument(
            reset, key: key, in: snapshot, resource: "\(kind)s/\(key)", action: "\(kind).reset",
            actor: actor, before: before, after: baseline, render: render)
    }

    /// The change that stores `settings` as the next revision of the runtime document of their
    /// kind and `key` (nil settings hand the value back to the configuration), audited with
    /// `before` and `after`; answered with `render` of the snapshot it leads to. The settings are
    /// encoded once, for the store; the snapshot applies them as they are.
    func planDocument(
        _ settings: PlannedSettings, key: String, in snapshot: Snapshot, resource: String, action: String, actor: String,
        before: JSONValue, after: JSONValue, render: @escaping @Sendable (Snapshot) -> JSONValue
    ) -> Plan {
        let now = state.clock()
        let revision = (snapshot.runtime.document(kind: settings.kind, key: key)?.revision ?? 0) + 1
        let document = StoredDocument(
            kind: settings.kind, key: key, body: settings.body, revision: revision, updatedAt: now, updatedBy: actor)
        let audit = AuditDraft(
            at: now, actor: actor, action: action, resource: resource, before: JSONWriter.encode(before), after: JSONWriter.encode(after))
        return Plan(change: StoreChange(documents: [document], audit: [audit]), planned: [key: settings]) { published in
            let value = render(published)
            return Self.resource(value, etag: Self.etag(of: value))
        }
    }

    static func existingRollout(_ key: String, in snapshot: Snapshot) throws(Problem) -> JSONValue {
        guard snapshot.targeting.rollouts[key] != nil else { throw notFound("rollout", key, known: snapshot.targeting.rollouts.keys) }
        return rollout(key, in: snapshot)
    }

    /// A rollout as ops see it: the values in force, where they come from, and the configuration's
    /// values when a runtime value overrides them.
    static func rollout(_ key: String, in snapshot: Snapshot) -> JSONValue {
        guard let rollout = snapshot.targeting.rollouts[key] else { return .null }
        var members: [(String, JSONValue)] = [
            ("key", .string(key)), ("percentage", rollout.percentage.jsonValue), ("enabled", .bool(rollout.enabled)),
            ("groupId", .string(rollout.groupID)), ("description", rollout.description.map(JSONValue.string) ?? .null),
        ]
        members += provenance(snapshot.runtime.rollouts[key]?.document)
        if snapshot.runtime.hasOverride(kind: RolloutSettings.kind, key: key), let baseline = snapshot.baselineTargeting.rollouts[key] {
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
}

/// A `PUT /admin/rollouts/{key}` body: any of `percentage`, `enabled`, `description` (null removes it).
struct RolloutPatch: Sendable {
    var percentage: RolloutPercentage?
    var enabled: Bool?
    var description: String??

    init(_ request: HTTPRequest) throws(Problem) {
        var patch = (percentage: RolloutPercentage?.none, enabled: Bool?.none, description: String??.none)
        try AdminEndpoints.payload(request, allowed: ["percentage", "enabled", "description"]) { object, collector in
            if let value = object.value("percentage") {
                patch.percentage = RolloutPercentage.decode(value, at: .root.appending("percentage"), collector)
            }
            patch.enabled = object.bool("enabled")
            if let value = object.value("description") {
                if value.isNull { patch.description = .some(nil) } else { patch.description = object.string("description").map { .some($0) } }
            }
            if object.members.isEmpty {
                collector.report("nothing to change: give percentage, enabled or description", at: .root, object.location)
            }
        }
        (percentage, enabled, description) = patch
    }

    func applied(to settings: RolloutSettings) -> RolloutSettings {
        var result = settings
        if let percentage { result.percentage = percentage }
        if let enabled { result.enabled = enabled }
        if let description { result.description = description }
        return result
    }
}
