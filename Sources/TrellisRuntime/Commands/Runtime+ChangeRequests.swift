import Dispatch
import CoreMetrics
import Logging
import TrellisJSON
import TrellisStore
import TrellisTargeting

/// Change requests: a command held (202) bound to the version of its target it was made against;
/// another writer with the approve role — never its author — approves or rejects it. Approval
/// makes the command, as its author, only if the target has not moved since (else the request is
/// stale), in the same commit as the approval. A request may carry `applyAt`: approved, it waits
/// for its time, and the scheduler makes it then. Editing a request takes its approvals back.
/// Everything is audited (`change.*`).
extension Runtime {
    /// A person's write to a resource that needs approval: held, pending, as a new change request.
    package func hold(_ command: Command, form: CommandForm, as actor: Actor, ifMatch: VersionCondition?) -> Result<Outcome, Refusal> {
        refusing { () throws(Refusal) in try propose(command, applyAt: nil, comment: nil, as: actor, ifMatch: ifMatch) }
    }

    package func make(_ command: ChangeRequestCommand, as actor: Actor, ifMatch: VersionCondition?) -> Result<Outcome, Refusal> {
        refusing { () throws(Refusal) in
            switch command {
            case .propose(let held, let applyAt, let comment):
                return try propose(held, applyAt: applyAt, comment: comment, as: actor, ifMatch: ifMatch)
            case .edit(let id, let edit):
                return try self.edit(try existing(id, command, ifMatch), edit, as: actor)
            case .withdraw(let id):
                let change = try existing(id, command, ifMatch)
                guard change.author == actor.name else { throw .forbidden("only its author, \(change.author), can withdraw change request \(change.id)") }
                try Self.checkOpen(change, "withdrawn")
                var cancelled = change
                cancelled.status = .cancelled
                return try record(cancelled, from: change, action: "change.cancel", actor: actor.name)
            case .approve(let id, let comment):
                return try approve(try existing(id, command, ifMatch), comment: comment, as: actor)
            case .reject(let id, let comment):
                let change = try existing(id, command, ifMatch)
                try Self.checkReviewer(change, actor)
                try Self.checkOpen(change, "rejected")  // an approved one waiting for its time too
                var rejected = change
                rejected.reviews.append(.init(by: actor.name, at: state.clock(), approved: false, comment: comment))
                rejected.status = .rejected
                return try record(rejected, from: change, action: "change.reject", actor: actor.name)
            }
        }
    }

    /// Change request `id`, once `ifMatch` accepts its version; a review must name one.
    private func existing(_ id: Int, _ command: ChangeRequestCommand, _ ifMatch: VersionCondition?) throws(Refusal) -> ChangeRequest {
        let change = try Self.changeRequest(id, in: state.published.snapshot)
        if command.isReview, ifMatch == nil || ifMatch?.isMissing == true {
            // What is approved is what the reviewer read: an edit after it makes another version.
            throw .versionRequired("a review names the version of the change request it approves or rejects: send its ETag as If-Match")
        }
        try checkVersion(ifMatch, current: ResourceView.version(of: .changeRequest(id), in: state.published.snapshot))
        return change
    }

    /// Holds `command` as a new change request: checked first — planned and built as if made now,
    /// not committed — so one that could not apply is refused at once with its own refusal.
    private func propose(
        _ command: Command, applyAt: Double?, comment: String?, as actor: Actor, ifMatch: VersionCondition?
    ) throws(Refusal) -> Outcome {
        guard let form = command.form else {
            throw .forbidden("\(command.resource) needs the admin role; a change request cannot hold it")
        }
        let snapshot = state.published.snapshot
        let now = state.clock()
        let bound = ResourceView.version(of: command.target, in: snapshot)
        if let ifMatch, !ifMatch.isMissing, !ifMatch.accepts(bound) { throw .versionMismatch(current: bound) }
        let needsApproval = self.needsApproval(command)
        var change = ChangeRequest(
            id: (Self.changeRequests(in: snapshot).map(\.id).max() ?? 0) + 1, command: form, boundVersion: bound, author: actor.name,
            createdAt: now, updatedAt: now, applyAt: applyAt, comment: comment, status: needsApproval ? .pending : .approved)
        try check(command, bound: bound, author: change.author)
        if !needsApproval, (change.applyAt ?? now) <= now {
            // Nothing to wait for: made now, recorded as applied.
            change.applyAt = nil
            return try apply(change, action: "change.apply", actor: actor.name)
        }
        var outcome = try record(change, from: nil, action: "change.create", actor: actor.name)
        outcome = Outcome(effect: .held, target: outcome.target, snapshot: outcome.snapshot, changeRequest: change)
        return outcome
    }

    /// Its author changes its command, `applyAt` or comment; every approval is taken back and the
    /// request is bound to its target's version now.
    private func edit(_ change: ChangeRequest, _ edit: ChangeRequestEdit, as actor: Actor) throws(Refusal) -> Outcome {
        guard change.author == actor.name else { throw .forbidden("only its author, \(change.author), can edit change request \(change.id)") }
        try Self.checkOpen(change, "edited")
        var form = change.command
        if let body = edit.body { form.body = body }
        let command = try Command(form)
        var edited = change
        edited.command = command.form ?? form
        if let applyAt = edit.applyAt { edited.applyAt = applyAt }
        if let comment = edit.comment { edited.comment = comment }
        edited.reviews = []
        edited.status = needsApproval(command) ? .pending : .approved
        edited.boundVersion = ResourceView.version(of: command.target, in: state.published.snapshot)
        try check(command, bound: edited.boundVersion, author: change.author)
        return try record(edited, from: change, action: "change.edit", actor: actor.name)
    }

    private func approve(_ change: ChangeRequest, comment: String?, as actor: Actor) throws(Refusal) -> Outcome {
        try Self.checkReviewer(change, actor)
        guard change.status == .pending else { throw Self.notOpen(change, "approved") }
        let now = state.clock()
        var approved = change
        approved.reviews.append(.init(by: actor.name, at: now, approved: true, comment: comment))
        approved.updatedAt = now
        if let applyAt = change.applyAt, applyAt > now {
            approved.status = .approved
            return try record(approved, from: change, action: "change.approve", actor: actor.name)
        }
        return try apply(approved, stored: change, action: "change.approve", actor: actor.name)
    }

    /// Plans and builds `command` as its author would make it against `bound`, committing nothing.
    private func check(_ command: Command, bound: String?, author: String) throws(Refusal) {
        if case .failure(let refusal) = make(command, as: .person(author), ifMatch: .version(bound), commit: false) { throw refusal }
    }

    /// Makes the command of `change`, as its author, in the same commit as `change` recorded as
    /// applied (and audited as `action` by `actor`) — if its target is still at the version it is
    /// bound to; else records it stale. A command refused now is recorded as failed, and its
    /// refusal is the answer.
    /// - Parameter stored: the request as the store holds it, when `change` adds to it (an approval).
    package func apply(_ change: ChangeRequest, stored: ChangeRequest? = nil, action: String, actor: String) throws(Refusal) -> Outcome {
        let stored = stored ?? change
        let current = ResourceView.version(of: Self.target(of: change), in: state.published.snapshot)
        guard current == change.boundVersion else { try recordStale(change, stored: stored, current: current, actor: actor) }
        var applied = change
        applied.status = .applied
        applied.updatedAt = state.clock()
        let result: Result<Outcome, Refusal>
        do throws(Refusal) {
            let command = try Command(change.command)
            let extra = StoreChange(
                documents: [document(applied, in: state.published.snapshot, actor: actor)],
                audit: [changeAudit(action, before: stored, after: applied, actor: actor)])
            result = make(command, as: .person(change.author), ifMatch: .version(change.boundVersion), alongside: extra)
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let made): return Outcome(effect: .changed, target: .changeRequest(change.id), snapshot: made.snapshot, changeRequest: applied)
        case .failure(.versionMismatch(let current)): try recordStale(change, stored: stored, current: current, actor: actor)
        case .failure(let refusal):
            var failed = change
            failed.status = .failed
            failed.outcome = "the command was refused: " + refusal.summary
            _ = try record(failed, from: stored, action: "change.fail", actor: actor)
            throw refusal
        }
    }

    private func recordStale(_ change: ChangeRequest, stored: ChangeRequest, current: String?, actor: String) throws(Refusal) -> Never {
        var stale = change
        stale.status = .stale
        let outcome = "its target changed since the request was made (\(change.boundVersion ?? "none") → \(current ?? "none"))"
        stale.outcome = outcome
        _ = try record(stale, from: stored, action: "change.stale", actor: actor)
        throw .conflict("change request \(change.id) is stale: \(outcome). Nothing changed; make a new request against the current version")
    }

    /// Commits `change` as the next revision of its document, audited.
    private func record(_ change: ChangeRequest, from old: ChangeRequest?, action: String, actor: String) throws(Refusal) -> Outcome {
        var change = change
        if old != nil { change.updatedAt = state.clock() }
        let snapshot = state.published.snapshot
        let plan = PlannedChange(
            change: StoreChange(documents: [document(change, in: snapshot, actor: actor)], audit: [changeAudit(action, before: old, after: change, actor: actor)]),
            target: .changeRequest(change.id), changeRequest: change)
        switch commit(plan, target: .changeRequest(change.id), over: snapshot) {
        case .success(let outcome): return outcome
        case .failure(let refusal): throw refusal
        }
    }

    private func document(_ change: ChangeRequest, in snapshot: Snapshot, actor: String) -> StoredDocument {
        let revision = (snapshot.runtime.changeRequests[change.key]?.document.revision ?? 0) + 1
        return StoredDocument(
            kind: ChangeRequest.kind, key: change.key, body: JSONWriter.encode(change.storedValue), revision: revision,
            updatedAt: change.updatedAt, updatedBy: actor)
    }

    private func changeAudit(_ action: String, before: ChangeRequest?, after: ChangeRequest, actor: String) -> AuditDraft {
        AuditDraft(
            at: state.clock(), actor: actor, action: action, resource: "changes/\(after.id)", before: before.map { JSONWriter.encode($0.storedValue) },
            after: JSONWriter.encode(after.storedValue))
    }

    // MARK: - Due work

    /// Makes what is due, as the `scheduler`: each rollout's schedule steps whose time has come,
    /// and approved change requests whose `applyAt` has come. On the write queue (every second,
    /// from the scheduler's timer). With several replicas each step is claimed in the store: the
    /// document's compare-and-set lets one replica make it, the others find it made.
    package func runDueWork() {
        dispatchPrecondition(condition: .onQueue(control.writeQueue))
        // A replica that has not read the database's clock yet would go by its own, maybe minutes off.
        guard control.knowsTheTime else { return }
        let now = state.clock()
        let snapshot = state.published.snapshot
        // A guarded ramp's step waits for a fresh look of its guard that found no regression.
        for key in Self.dueRollouts(in: snapshot, now: now)
        where snapshot.runtime.operations.guards[.rollout(key)] == nil || guardVerdicts.mayAdvance(.rollout(key), now: now) {
            if case .failure(let refusal) = make(.rollout(.advanceSchedule(key: key)), as: .scheduler, ifMatch: nil) {
                noteSchedulerRefusal(refusal, "rollout \(key)")
            }
        }
        for change in Self.changeRequests(in: state.published.snapshot) where change.status == .approved && (change.applyAt ?? 0) <= now {
            do throws(Refusal) {
                _ = try apply(change, action: "change.apply", actor: Actor.scheduler.name)
            } catch {
                noteSchedulerRefusal(error, "change request \(change.id)")
            }
        }
    }

    /// ``runDueWork()`` from any thread but the write queue, once it is done.
    package func runScheduledWork() { control.writeQueue.sync { runDueWork() } }

    private func noteSchedulerRefusal(_ refusal: Refusal, _ what: String) {
        switch refusal {
        case .lostRace, .conflict: if control.isReplicated { control.follow() }  // another replica made it first
        default: break
        }
        control.logger.warning("scheduled change not made", metadata: ["what": "\(what)", "problem": "\(refusal.summary)"])
    }

    /// Rollouts with a schedule step due at `now`.
    package static func dueRollouts(in snapshot: Snapshot, now: Double) -> [String] {
        snapshot.runtime.rollouts.compactMap { key, value in
            guard let first = value.settings?.schedule.first, first.at <= now, snapshot.targeting.rollouts[key] != nil else { return nil }
            return key
        }.sorted()
    }

    // MARK: - Reading

    package static func changeRequests(in snapshot: Snapshot) -> [ChangeRequest] {
        snapshot.runtime.changeRequests.values.compactMap(\.settings).sorted { $0.id < $1.id }
    }

    package static func changeRequest(_ id: Int, in snapshot: Snapshot) throws(Refusal) -> ChangeRequest {
        guard let change = snapshot.runtime.changeRequests[ChangeRequest.key(id)]?.settings else { throw .notFound("no change request \(id)") }
        return change
    }

    /// The target a request's command is bound to; the change requests as a whole when its
    /// command no longer reads.
    package static func target(of change: ChangeRequest) -> Target {
        (try? Command(change.command))?.target ?? .changeRequests
    }

    private static func checkReviewer(_ change: ChangeRequest, _ actor: Actor) throws(Refusal) {
        guard change.author != actor.name else {
            throw .forbidden("\(actor.name) made change request \(change.id); another token with the approve role must review it")
        }
    }

    private static func checkOpen(_ change: ChangeRequest, _ verb: String) throws(Refusal) {
        guard !change.status.isFinal else { throw notOpen(change, verb) }
    }

    private static func notOpen(_ change: ChangeRequest, _ verb: String) -> Refusal {
        .conflict("change request \(change.id) is \(change.status.rawValue); it can no longer be \(verb)")
    }

    /// Runs `body`, counting a refusal.
    private func refusing(_ body: () throws(Refusal) -> Outcome) -> Result<Outcome, Refusal> {
        do throws(Refusal) { return .success(try body()) } catch {
            control.refused.increment()
            return .failure(error)
        }
    }
}
