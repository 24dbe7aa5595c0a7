import TrellisJSON
import TrellisStore
import TrellisTargeting

/// Targeting commands: rollouts, experiments, named rules and the whole targeting document. Every
/// one is a set of entry writes (``TargetingWrite``) stored as the next revision of each entry's
/// document, with the targeting it leads to recorded in the history.
extension Runtime {
    // MARK: - Rollouts

    package func planRollout(_ command: RolloutCommand, in snapshot: Snapshot, actor: String, ifMatch: VersionCondition?) throws(Refusal) -> PlannedChange {
        switch command {
        case .create(let key, let rollout, let schedule):
            try checkFuture(schedule)
            guard snapshot.targeting.rollouts[key] == nil else {
                throw .conflict("rollout \"\(key)\" exists; change it with PUT /admin/rollouts/\(key)")
            }
            let audit = targetingAudit("rollout.create", "rollouts/\(key)", actor: actor, before: nil, after: ResourceView.auditForm(rollout, schedule))
            var plan = planWrites(
                [TargetingWrite(key: key, value: .rollout(RolloutValue(form: .defined(rollout), schedule: schedule)))], in: snapshot,
                actor: actor, audit: [audit])
            plan.effect = .created
            return plan
        case .update(let key, let patch):
            return try planRollout(key, in: snapshot, actor: actor, ifMatch: ifMatch, action: "rollout.update") { patch.applied(to: $0, schedule: $1) }
        case .kill(let key):
            return try planRollout(key, in: snapshot, actor: actor, ifMatch: ifMatch, action: "rollout.kill") { rollout, _ in
                var killed = rollout
                killed.enabled = false  // the percentage stays, for a later revive; the schedule does not
                return (killed, [])
            }
        case .retire(let key):
            let rollout = try rolloutInForce(key, snapshot, ifMatch)
            return planRetirement(
                .rollout(RolloutValue(form: .retired)), key: key, before: ResourceView.auditForm(rollout, ResourceView.schedule(key, snapshot)),
                in: snapshot, actor: actor)
        case .reset(let key):
            return try planEntryReset(
                .rollout(nil), key: key, in: snapshot, ifMatch: ifMatch, actor: actor,
                inForce: snapshot.targeting.rollouts[key].map { ResourceView.auditForm($0, ResourceView.schedule(key, snapshot)) },
                configured: snapshot.baselineTargeting.rollouts[key].map { ResourceView.auditForm($0, []) })
        case .advanceSchedule(let key):
            return try planScheduledSteps(key, in: snapshot, now: state.clock())
        }
    }

    /// The change that gives rollout `key` what `update` makes of the rollout in force and its
    /// schedule. A rollout of targeting.json keeps its group id there (its runtime document holds
    /// the settings ops change); one created or redefined at run time is stored whole.
    private func planRollout(
        _ key: String, in snapshot: Snapshot, actor: String, ifMatch: VersionCondition?, action: String,
        _ update: (TargetingConfiguration.Rollout, [ScheduledStep]) -> (TargetingConfiguration.Rollout, [ScheduledStep])
    ) throws(Refusal) -> PlannedChange {
        let old = try rolloutInForce(key, snapshot, ifMatch)
        let oldSchedule = ResourceView.schedule(key, snapshot)
        let (new, schedule) = update(old, oldSchedule)
        if schedule != oldSchedule { try checkFuture(schedule) }
        return planRollout(key, old: (old, oldSchedule), new: (new, schedule), in: snapshot, actor: actor, action: action)
    }

    /// The change from `old` to `new` (a rollout and its schedule), audited as `action`.
    private func planRollout(
        _ key: String, old: (TargetingConfiguration.Rollout, [ScheduledStep]), new: (TargetingConfiguration.Rollout, [ScheduledStep]),
        in snapshot: Snapshot, actor: String, action: String
    ) -> PlannedChange {
        let (new, schedule) = new
        let form: TargetingEntryForm<RolloutSettings, TargetingConfiguration.Rollout>
        if case .defined = snapshot.runtime.rollouts[key]?.settings?.form {
            form = .defined(new)
        } else {
            form = .settings(RolloutSettings(new))
        }
        let audit = targetingAudit(
            action, "rollouts/\(key)", actor: actor, before: ResourceView.auditForm(old.0, old.1), after: ResourceView.auditForm(new, schedule))
        return planWrites([TargetingWrite(key: key, value: .rollout(RolloutValue(form: form, schedule: schedule)))], in: snapshot, actor: actor, audit: [audit])
    }

    /// The change that applies the steps of rollout `key`'s schedule due at `now` (the last one
    /// sets the percentage; a server that was down for a step applies it late, once), audited as
    /// `rollout.schedule`; a conflict when none is due.
    private func planScheduledSteps(_ key: String, in snapshot: Snapshot, now: Double) throws(Refusal) -> PlannedChange {
        guard let rollout = snapshot.targeting.rollouts[key] else { throw Self.notFound("rollout", key, known: snapshot.targeting.rollouts.keys) }
        let schedule = ResourceView.schedule(key, snapshot)
        let due = schedule.prefix { $0.at <= now }
        guard let last = due.last else { throw .conflict("rollout \(key) has no schedule step due") }
        var new = rollout
        new.percentage = last.percentage
        return planRollout(
            key, old: (rollout, schedule), new: (new, Array(schedule.dropFirst(due.count))), in: snapshot, actor: Actor.scheduler.name,
            action: "rollout.schedule")
    }

    /// Invalid for a schedule step that is not in the future.
    private func checkFuture(_ schedule: [ScheduledStep]) throws(Refusal) {
        let now = state.clock()
        let past = schedule.enumerated().filter { $0.element.at <= now }
        guard past.isEmpty else {
            throw .invalid(
                "a schedule step is not in the future; nothing changed",
                past.map { Diagnostic(path: JSONPath.root.appending("schedule").appending($0.offset).appending("at"), location: .unknown, message: "\(RFC3339.string(fromSeconds: $0.element.at)) is not after now") },
                source: "body")
        }
    }

    /// Rollout `key` as in force, once the condition accepts its current version.
    private func rolloutInForce(_ key: String, _ snapshot: Snapshot, _ ifMatch: VersionCondition?) throws(Refusal) -> TargetingConfiguration.Rollout {
        guard let rollout = snapshot.targeting.rollouts[key] else { throw Self.notFound("rollout", key, known: snapshot.targeting.rollouts.keys) }
        try checkVersion(ifMatch, current: ResourceView.version(of: .rollout(key), in: snapshot))
        return rollout
    }

    // MARK: - Experiments

    package func planExperiment(
        _ command: ExperimentCommand, in snapshot: Snapshot, actor: String, ifMatch: VersionCondition?
    ) throws(Refusal) -> PlannedChange {
        switch command {
        case .create(let key, let experiment):
            guard snapshot.targeting.experiments[key] == nil else {
                throw .conflict("experiment \"\(key)\" exists; change it with PUT /admin/experiments/\(key)")
            }
            let audit = targetingAudit("experiment.create", "experiments/\(key)", actor: actor, before: nil, after: experiment.jsonValue)
            var plan = planWrites(
                [TargetingWrite(key: key, value: .experiment(ExperimentValue(form: .defined(experiment))))], in: snapshot, actor: actor, audit: [audit])
            plan.effect = .created
            return plan
        case .update(let key, let patch):
            // An experiment of targeting.json keeps its variants and default there (its runtime
            // document holds the settings ops change); one created or redefined at run time is stored whole.
            let experiment = try experimentInForce(key, snapshot, ifMatch)
            let new = try patch.applied(to: ExperimentSettings(experiment), variants: experiment.variants.map(\.name))
            let form: TargetingEntryForm<ExperimentSettings, TargetingConfiguration.Experiment>
            if case .defined = snapshot.runtime.experiments[key]?.settings?.form {
                form = .defined(new.applied(to: experiment))
            } else {
                form = .settings(new)
            }
            let audit = targetingAudit(
                "experiment.update", "experiments/\(key)", actor: actor, before: experiment.jsonValue, after: new.applied(to: experiment).jsonValue)
            return planWrites([TargetingWrite(key: key, value: .experiment(ExperimentValue(form: form)))], in: snapshot, actor: actor, audit: [audit])
        case .retire(let key):
            let experiment = try experimentInForce(key, snapshot, ifMatch)
            return planRetirement(.experiment(ExperimentValue(form: .retired)), key: key, before: experiment.jsonValue, in: snapshot, actor: actor)
        case .reset(let key):
            return try planEntryReset(
                .experiment(nil), key: key, in: snapshot, ifMatch: ifMatch, actor: actor,
                inForce: snapshot.targeting.experiments[key]?.jsonValue, configured: snapshot.baselineTargeting.experiments[key]?.jsonValue)
        }
    }

    private func experimentInForce(
        _ key: String, _ snapshot: Snapshot, _ ifMatch: VersionCondition?
    ) throws(Refusal) -> TargetingConfiguration.Experiment {
        guard let experiment = snapshot.targeting.experiments[key] else {
            throw Self.notFound("experiment", key, known: snapshot.targeting.experiments.keys)
        }
        try checkVersion(ifMatch, current: ResourceView.version(of: .experiment(key), in: snapshot))
        return experiment
    }

    // MARK: - Named rules

    /// A rule is checked with every rule, screen and route that refers to it, in the same build:
    /// a cycle between rules is invalid, retiring a rule something still uses is refused naming where.
    package func planRule(_ command: RuleCommand, in snapshot: Snapshot, actor: String, ifMatch: VersionCondition?) throws(Refusal) -> PlannedChange {
        let name = command.name
        switch command {
        case .define(_, let expression):
            guard RuleExpression.isIdentifier(name) else {
                throw .malformed("invalid rule name \"\(name)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots", [], source: nil)
            }
            let existing = snapshot.targeting.rules[name]
            if existing != nil { try checkVersion(ifMatch, current: ResourceView.version(of: .rule(name), in: snapshot)) }
            let audit = targetingAudit(
                existing == nil ? "rule.create" : "rule.update", "rules/\(name)", actor: actor, before: existing?.jsonValue, after: expression.jsonValue)
            var plan = planWrites([TargetingWrite(key: name, value: .rule(RuleValue(form: .defined(expression))))], in: snapshot, actor: actor, audit: [audit])
            if existing == nil { plan.effect = .created }
            return plan
        case .retire:
            guard let rule = snapshot.targeting.rules[name] else { throw Self.notFound("rule", name, known: snapshot.targeting.rules.keys) }
            try checkVersion(ifMatch, current: ResourceView.version(of: .rule(name), in: snapshot))
            return planRetirement(.rule(RuleValue(form: .retired)), key: name, before: rule.jsonValue, in: snapshot, actor: actor)
        case .reset:
            return try planEntryReset(
                .rule(nil), key: name, in: snapshot, ifMatch: ifMatch, actor: actor, inForce: snapshot.targeting.rules[name]?.jsonValue,
                configured: snapshot.baselineTargeting.rules[name]?.jsonValue)
        }
    }

    // MARK: - The whole document

    package func planTargeting(_ command: TargetingCommand, in snapshot: Snapshot, actor: String, ifMatch: VersionCondition?) throws(Refusal) -> PlannedChange {
        try checkVersion(ifMatch, current: ResourceView.version(of: .targeting, in: snapshot))
        switch command {
        case .replace(let desired):
            return planReplacement(desired, in: snapshot, actor: actor, action: "targeting.replace", origin: .publish)
        case .rollback(let number):
            let revision: DocumentRevision?
            do { revision = try control.store.revision(of: .targeting, number: number) } catch {
                throw .storeUnreadable("cannot read revision \(number): \(error)")
            }
            guard let revision else {
                let latest = snapshot.runtime.targetingHistory?.latestRevision ?? 0
                throw .notFound("the targeting document has no revision \(number); it has 1 to \(latest)")
            }
            let desired: TargetingConfiguration
            switch TargetingConfiguration.decode(revision.document, source: "targeting revision \(number)") {
            case .success(let decoded): desired = decoded
            case .failure(let error):
                throw .invalid("revision \(number) no longer reads as a targeting document", error.diagnostics, source: nil)
            }
            return planReplacement(desired, in: snapshot, actor: actor, action: "targeting.rollback", origin: .rollback, copiedFrom: number)
        }
    }

    /// The change that makes `desired` the targeting in force: for each entry that differs, its
    /// configuration's value back (when that is `desired`'s), else `desired`'s definition; each
    /// entry `desired` lacks, retired.
    private func planReplacement(
        _ desired: TargetingConfiguration, in snapshot: Snapshot, actor: String, action: String, origin: RevisionOrigin, copiedFrom: Int? = nil
    ) -> PlannedChange {
        var writes: [TargetingWrite] = []
        func entries<Entry: Equatable>(
            _ inForce: [String: Entry], _ wanted: [String: Entry], _ configured: [String: Entry], kind: String,
            defined: (String, Entry) -> PlannedSettings, retired: PlannedSettings
        ) {
            for key in Set(inForce.keys).union(wanted.keys).sorted() where inForce[key] != wanted[key] {
                if let entry = wanted[key] {
                    let backToConfig = configured[key] == entry && snapshot.runtime.hasOverride(kind: kind, key: key)
                    writes.append(TargetingWrite(key: key, value: backToConfig ? retired.reset : defined(key, entry)))
                } else {
                    writes.append(TargetingWrite(key: key, value: retired))
                }
            }
        }
        let base = snapshot.baselineTargeting
        let now = snapshot.targeting
        entries(now.rules, desired.rules, base.rules, kind: RuleValue.kind,
            defined: { .rule(RuleValue(form: .defined($1))) }, retired: .rule(RuleValue(form: .retired)))
        entries(now.rollouts, desired.rollouts, base.rollouts, kind: RolloutValue.kind,
            defined: { key, rollout in
                // A whole document has no schedules: the one a rollout has stays.
                .rollout(RolloutValue(form: .defined(rollout), schedule: snapshot.runtime.rollouts[key]?.settings?.schedule ?? []))
            }, retired: .rollout(RolloutValue(form: .retired)))
        entries(now.experiments, desired.experiments, base.experiments, kind: ExperimentValue.kind,
            defined: { .experiment(ExperimentValue(form: .defined($1))) }, retired: .experiment(ExperimentValue(form: .retired)))
        // Already in force: nothing to store, nothing to audit.
        guard !writes.isEmpty else { return PlannedChange(change: StoreChange()) }
        let audit = targetingAudit(action, "targeting", actor: actor, before: now.jsonValue, after: desired.jsonValue)
        var plan = planWrites(writes, in: snapshot, actor: actor, audit: [audit], origin: origin, copiedFrom: copiedFrom)
        plan.invalidIsInUse = true
        return plan
    }

    // MARK: - Entry writes

    /// One entry a targeting command sets: the value for `key` of its kind (a nil value hands the
    /// entry back to the configuration).
    package struct TargetingWrite {
        package var key: String
        package var value: PlannedSettings
    }

    /// The change that stores each of `writes` as the next revision of its document and records
    /// the targeting it leads to in the history, audited with `audit`.
    package func planWrites(
        _ writes: [TargetingWrite], in snapshot: Snapshot, actor: String, audit: [AuditDraft], origin: RevisionOrigin = .publish,
        copiedFrom: Int? = nil
    ) -> PlannedChange {
        let now = state.clock()
        var planned: [String: PlannedSettings] = [:]
        let documents = writes.map { write in
            let kind = write.value.kind
            planned[PlannedSettings.id(kind: kind, key: write.key)] = write.value
            let revision = (snapshot.runtime.document(kind: kind, key: write.key)?.revision ?? 0) + 1
            return StoredDocument(kind: kind, key: write.key, body: write.value.body, revision: revision, updatedAt: now, updatedBy: actor)
        }
        var change = StoreChange(documents: documents, audit: audit)
        TargetingHistory.record(
            baseline: snapshot.baselineTargeting, runtime: snapshot.runtime.applying(change, planned: planned), origin: origin,
            copiedFrom: copiedFrom, actor: actor, now: now, into: &change)
        return PlannedChange(change: change, planned: planned)
    }

    /// The change that retires `kind` `key` (`before`, as in force): refused naming whatever still
    /// refers to it.
    private func planRetirement(_ retired: PlannedSettings, key: String, before: JSONValue, in snapshot: Snapshot, actor: String) -> PlannedChange {
        let kind = retired.kind
        let audit = targetingAudit("\(kind).retire", "\(kind)s/\(key)", actor: actor, before: before, after: nil)
        var plan = planWrites([TargetingWrite(key: key, value: retired)], in: snapshot, actor: actor, audit: [audit])
        plan.invalidIsInUse = true
        plan.effect = .removed
        return plan
    }

    /// The change that hands `key` back to the configuration's entry (`configured`): not found when
    /// it is not in force and the configuration has none, a conflict when the configuration's is in
    /// force already.
    private func planEntryReset(
        _ reset: PlannedSettings, key: String, in snapshot: Snapshot, ifMatch: VersionCondition?, actor: String, inForce: JSONValue?,
        configured: JSONValue?
    ) throws(Refusal) -> PlannedChange {
        let kind = reset.kind
        guard inForce != nil || configured != nil else { throw .notFound("no \(kind) \"\(key)\" in force or in targeting.json") }
        if inForce != nil {
            let target: Target = kind == RuleValue.kind ? .rule(key) : kind == RolloutValue.kind ? .rollout(key) : .experiment(key)
            try checkVersion(ifMatch, current: ResourceView.version(of: target, in: snapshot))
        }
        guard snapshot.runtime.hasOverride(kind: kind, key: key), let configured else {
            let reason = configured == nil ? "targeting.json has no \(kind) \"\(key)\" to hand it back to" : "the configuration's value is in force already"
            throw .conflict("\(kind) \(key) has no runtime value to reset: \(reason)")
        }
        let audit = targetingAudit("\(kind).reset", "\(kind)s/\(key)", actor: actor, before: inForce, after: configured)
        return planWrites([TargetingWrite(key: key, value: reset)], in: snapshot, actor: actor, audit: [audit])
    }

    /// An audit record of one targeting entry, before and after as targeting.json writes them.
    package func targetingAudit(_ action: String, _ resource: String, actor: String, before: JSONValue?, after: JSONValue?) -> AuditDraft {
        AuditDraft(
            at: state.clock(), actor: actor, action: action, resource: resource, before: before.map { JSONWriter.encode($0) },
            after: after.map { JSONWriter.encode($0) })
    }

    /// Not found, naming what exists.
    package static func notFound(_ kind: String, _ key: String, known: some Sequence<String>) -> Refusal {
        let list = known.sorted().joined(separator: ", ")
        return .notFound("no \(kind) \"\(key)\"; \(kind)s: \(list.isEmpty ? "none" : list)")
    }
}

extension PlannedSettings {
    /// The value of the same kind that hands the entry back to the configuration.
    package var reset: PlannedSettings {
        switch self {
        case .rollout: .rollout(nil)
        case .experiment: .experiment(nil)
        case .rule: .rule(nil)
        }
    }
}
