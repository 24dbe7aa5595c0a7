import TrellisJSON
import TrellisStore
import TrellisTargeting

/// Guard commands: a guard is a document like a metric (set and removed by people, against its
/// version); a halt is the guard's own write — the rollout's kill or the staged revision's
/// abandonment, made as `guard`, with an audit entry `guard.halt` that carries the figures.
extension Runtime {
    package func planGuard(_ command: GuardCommand, in snapshot: Snapshot, actor: String, ifMatch: VersionCondition?) throws(Refusal) -> PlannedChange {
        let subject = command.subject
        let existing = snapshot.runtime.operations.guards[subject]
        switch command {
        case .set(let guarded):
            try checkVersion(ifMatch, current: ResourceView.version(of: .guardrail(subject), in: snapshot))
            try Self.checkGuarded(subject, in: snapshot)
            let unknown = guarded.checks.enumerated().filter { guarded.definition(of: $0.element, metrics: snapshot.runtime.operations.metrics) == nil }
            if !unknown.isEmpty {
                throw .invalid(
                    "the guard names metrics that are not defined; define them first (PUT /admin/metrics/{name}); nothing changed",
                    unknown.map {
                        Diagnostic(path: JSONPath.root.appending("checks").appending($0.offset).appending("metric"), location: .unknown, message: "no metric \"\($0.element.metric)\"")
                    }, source: "body")
            }
            if existing == guarded { throw .conflict("\(subject.resource) is already guarded so; nothing to change") }
            var plan = planOperational(
                kind: Guard.kind, key: subject.resource, body: guarded.body, in: snapshot, now: state.clock(), actor: actor,
                action: existing == nil ? "guard.create" : "guard.update", before: existing?.jsonValue, after: guarded.jsonValue)
            plan.effect = existing == nil ? .created : .changed
            return plan
        case .remove:
            try checkVersion(ifMatch, current: ResourceView.version(of: .guardrail(subject), in: snapshot))
            guard let existing else { throw .notFound("\(subject.resource) has no guard") }
            var plan = planOperational(
                kind: Guard.kind, key: subject.resource, body: RuntimeState.resetBody, in: snapshot, now: state.clock(), actor: actor,
                action: "guard.delete", before: existing.jsonValue, after: nil)
            plan.effect = .removed
            return plan
        case .halt(_, let evidence):
            // Made against what the guard looked at: a person's change since (a kill, a promote)
            // refuses it, and two replicas deciding the same halt make it once.
            var plan: PlannedChange
            switch subject {
            case .rollout(let key): plan = try planRollout(.kill(key: key), in: snapshot, actor: actor, ifMatch: ifMatch)
            case .screen(let id): plan = try planScreen(.abandon(id: id), in: snapshot, actor: actor, ifMatch: ifMatch)
            }
            plan.change.audit.append(
                AuditDraft(at: state.clock(), actor: actor, action: "guard.halt", resource: subject.resource, before: nil, after: JSONWriter.encode(evidence)))
            return plan
        }
    }

    /// A guard watches a rollout or a screen that exists.
    private static func checkGuarded(_ subject: Guard.Subject, in snapshot: Snapshot) throws(Refusal) {
        switch subject {
        case .rollout(let key):
            if snapshot.targeting.rollouts[key] == nil { throw notFound("rollout", key, known: snapshot.targeting.rollouts.keys) }
        case .screen(let id):
            if snapshot.screens[id] == nil { throw notFound("screen", id, known: snapshot.screens.keys) }
        }
    }
}

extension CommandBody {
    /// A guard's body, for what it guards.
    package static func guarding(_ subject: Guard.Subject, _ bytes: [UInt8]) throws(Refusal) -> Guard {
        let document = try json(bytes)
        let collector = DiagnosticsCollector()
        guard let guarded = Guard.decode(document, subject: subject, at: .root, collector), collector.isEmpty else {
            throw .invalid("the body is not a guard; nothing changed", collector.diagnostics, source: "body")
        }
        return guarded
    }
}
