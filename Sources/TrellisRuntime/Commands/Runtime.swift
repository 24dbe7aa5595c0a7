import CoreMetrics
import Dispatch
import TrellisJSON
import TrellisLint
import TrellisRoutes
import TrellisStore

/// The one writer of the runtime state. Every write — a person's through the admin API, the
/// scheduler's, an approved change request's, a guard's — is a ``Command`` made here: planned
/// from the snapshot in force, built and checked into the snapshot it leads to, committed durably,
/// and only then published. A command that cannot apply is refused whole with a ``Refusal`` and
/// changes nothing. Commands run one at a time on the control plane's write queue.
package final class Runtime: Sendable {
    package let control: ControlPlane
    package let state: any RuntimeHost
    package let settings: Settings
    /// What guards saw last; a guarded ramp's step waits for a fresh look that found no regression.
    package let guardVerdicts = GuardVerdicts()

    /// What the configuration says about writes.
    package struct Settings: Sendable {
        /// Whether every person's write is held for approval.
        package var requireApproval = false
        /// The resources (and everything under them) a person's write to is held for approval.
        package var approvalRequiredFor: [String] = []
        /// Whether a person's write must name the version it was made against.
        package var requireVersion = false
        /// Tokens of the configuration: listed, never made or deleted by a command.
        package var configuredTokens: Set<String> = []
        /// Webhooks of the configuration: listed, never made or deleted by a command.
        package var configuredWebhooks: [WebhookSubscription] = []
        /// Whether a webhook may be aimed at an internal address (``InternalAddress``).
        package var webhookAllowPrivate = false
        /// The lint's rules whose findings refuse a screen's publish (`lint.errors`); the others'
        /// are the publish answer's warnings.
        package var lintErrors: Set<LintRule> = []

        package func needsApproval(_ resource: String) -> Bool {
            requireApproval || approvalRequiredFor.contains { resource == $0 || resource.hasPrefix($0 + "/") }
        }

        package init() {}

    }

    package init(control: ControlPlane, settings: Settings) {
        self.control = control
        self.state = control.state
        self.settings = settings
    }

    /// Makes `command` as `actor`, if `ifMatch` (when given) accepts the version of its target, and
    /// waits until it is published (or refused). A person's write to a resource that needs approval
    /// is held as a change request instead (``Outcome/Effect/held``). Any thread but the write queue.
    package func execute(_ command: Command, as actor: Actor, ifMatch: VersionCondition? = nil) -> Result<Outcome, Refusal> {
        control.writeQueue.sync { executeOnWriteQueue(command, as: actor, ifMatch: ifMatch) }
    }

    /// Plans and builds `command` as `execute` would, without committing or publishing anything:
    /// the snapshot it would lead to, or why it would be refused.
    package func check(_ command: Command, as actor: Actor, ifMatch: VersionCondition? = nil) -> Result<Outcome, Refusal> {
        control.writeQueue.sync { make(command, as: actor, ifMatch: ifMatch, commit: false) }
    }

    /// ``execute(_:as:ifMatch:)`` for a caller already on the write queue (the admin API answers
    /// from there).
    package func executeOnWriteQueue(_ command: Command, as actor: Actor, ifMatch: VersionCondition?) -> Result<Outcome, Refusal> {
        dispatchPrecondition(condition: .onQueue(control.writeQueue))
        if actor.isPerson, let form = command.form, needsApproval(command) {
            return hold(command, form: form, as: actor, ifMatch: ifMatch)
        }
        return make(command, as: actor, ifMatch: ifMatch)
    }

    /// Whether a person's `command` is held for approval: decided by every resource it would change
    /// — the rollouts, experiments, rules, screens and routes its plan writes — whatever it is
    /// called, so a rollout that needs approval needs it through the whole targeting document too.
    package func needsApproval(_ command: Command) -> Bool {
        guard settings.requireApproval || !settings.approvalRequiredFor.isEmpty else { return false }
        if settings.needsApproval(command.resource) { return true }
        // A command that cannot be planned is refused when it is made; nothing to hold.
        guard let plan = try? plan(command, in: state.published.snapshot, actor: "-", ifMatch: nil) else { return false }
        return Self.resources(changedBy: plan.change).contains(where: settings.needsApproval)
    }

    /// The resources a change writes, as `admin.approvalRequiredFor` names them.
    package static func resources(changedBy change: StoreChange) -> Set<String> {
        var resources = Set(change.documents.map { "\($0.kind)s/\($0.key)" })
        for head in change.heads {
            switch head.key {
            case .screen(let id): resources.insert("screens/" + id)
            case .routeTable: resources.insert("routes")
            case .targeting: resources.insert("targeting")
            case .strings(let locale): resources.insert("strings/" + locale)
            }
        }
        return resources
    }

    /// Plans `command` over the snapshot in force and publishes it (with `alongside` in the same
    /// commit), or with `commit` false only builds it. On the write queue.
    package func make(
        _ command: Command, as actor: Actor, ifMatch: VersionCondition?, alongside: StoreChange = StoreChange(), commit: Bool = true
    ) -> Result<Outcome, Refusal> {
        dispatchPrecondition(condition: .onQueue(control.writeQueue))
        if case .changeRequest(let request) = command { return make(request, as: actor, ifMatch: ifMatch) }
        let ifMatch = ifMatch ?? (actor.isPerson && settings.requireVersion ? VersionCondition.missing : nil)
        let current = state.published.snapshot
        let plan: PlannedChange
        do throws(Refusal) {
            plan = try self.plan(command, in: current, actor: actor.name, ifMatch: ifMatch)
        } catch {
            control.refused.increment()
            return .failure(error)
        }
        return self.commit(plan, target: command.target, over: current, alongside: alongside, publishing: commit)
    }

    /// Commits `plan` over `current` and publishes the snapshot it leads to (with `publishing`
    /// false, only builds it); the outcome names that snapshot.
    package func commit(
        _ plan: PlannedChange, target: Target, over current: Snapshot, alongside: StoreChange = StoreChange(), publishing: Bool = true
    ) -> Result<Outcome, Refusal> {
        var change = plan.change
        change.append(alongside)
        let published = control.commit(
            change, over: current, planned: plan.planned, checked: plan.checked, checkedRoutes: plan.checkedRoutes, commit: publishing)
        switch published {
        case .success(let snapshot): return .success(plan.outcome(snapshot, target: target))
        case .failure(.invalid(let error)):
            control.refused.increment()
            return .failure(plan.invalidIsInUse ? .stillInUse(error) : .rejected(error))
        case .failure(.store(.conflict(let detail))): return .failure(.lostRace(detail))
        case .failure(.store(.failure(let detail))): return .failure(.notStored(detail))
        case .failure(.store(.unavailable(let detail))): return .failure(.storeUnreachable(detail))
        case .failure(.store(.unknownOutcome(let detail))): return .failure(.outcomeUnknown(detail))
        }
    }

    /// The plan of every command but a change request's.
    package func plan(_ command: Command, in snapshot: Snapshot, actor: String, ifMatch: VersionCondition?) throws(Refusal) -> PlannedChange {
        try Self.checkMetricsExist(Self.metricsNamedAnew(by: command, in: snapshot), in: snapshot)
        switch command {
        case .rollout(let command): return try planRollout(command, in: snapshot, actor: actor, ifMatch: ifMatch)
        case .experiment(let command): return try planExperiment(command, in: snapshot, actor: actor, ifMatch: ifMatch)
        case .rule(let command): return try planRule(command, in: snapshot, actor: actor, ifMatch: ifMatch)
        case .targeting(let command): return try planTargeting(command, in: snapshot, actor: actor, ifMatch: ifMatch)
        case .screen(let command): return try planScreen(command, in: snapshot, actor: actor, ifMatch: ifMatch)
        case .routeTable(let command): return try planRouteTable(command, in: snapshot, actor: actor, ifMatch: ifMatch)
        case .strings(let command): return try planStrings(command, in: snapshot, actor: actor, ifMatch: ifMatch)
        case .token(let command): return try planToken(command, in: snapshot, actor: actor)
        case .webhook(let command): return try planWebhook(command, in: snapshot, actor: actor)
        case .metric(let command): return try planMetric(command, in: snapshot, actor: actor, ifMatch: ifMatch)
        case .guardrail(let command): return try planGuard(command, in: snapshot, actor: actor, ifMatch: ifMatch)
        case .changeRequest: throw .conflict("a change request's command is made by make(_:as:ifMatch:)")
        }
    }

    /// Refuses a command whose condition does not accept `current`, the version of its target now
    /// (nil: it does not exist), or — when the server requires one — that names none.
    package func checkVersion(_ ifMatch: VersionCondition?, current: String?) throws(Refusal) {
        guard let ifMatch else { return }
        if ifMatch.isMissing { throw .versionRequired("this server requires If-Match on writes: send the ETag of your last GET") }
        guard ifMatch.accepts(current) else { throw .versionMismatch(current: current) }
    }
}

/// Who makes a command: named in the audit log and on what it changes.
package struct Actor: Sendable, Equatable {
    package let name: String
    /// A person (an admin token): their writes to resources that need approval are held.
    package let isPerson: Bool

    package static func person(_ name: String) -> Actor { Actor(name: name, isPerson: true) }
    /// Schedule steps and change requests due at their time.
    package static let scheduler = Actor(name: "scheduler", isPerson: false)
    /// A guard halting what it guards, on evidence.
    package static let guardian = Actor(name: "guard", isPerson: false)

    /// Names the runtime records its own writers as (the scheduler, the configuration's files):
    /// no token may take one, or its writes would read in the audit log as theirs.
    package static let reservedNames: Set<String> = ["scheduler", "guard", "config", "unknown"]
}

/// Which versions of its target a command may be made against.
package struct VersionCondition: Sendable {
    /// Whether the target's version now (nil: it does not exist) is one the writer made the command against.
    package let accepts: @Sendable (_ current: String?) -> Bool
    /// The writer named no version where the server requires one: refused wherever a version is checked.
    package var isMissing = false

    package init(accepts: @escaping @Sendable (_ current: String?) -> Bool) { self.accepts = accepts }

    /// Exactly `version`.
    package static func version(_ version: String?) -> VersionCondition { VersionCondition { $0 == version } }

    package static let missing: VersionCondition = {
        var condition = VersionCondition { _ in false }
        condition.isMissing = true
        return condition
    }()
}

/// What a command did.
package struct Outcome: Sendable {
    package enum Effect: Sendable, Equatable {
        case changed
        case created
        /// Retired or deleted.
        case removed
        /// Held as a change request (``changeRequest``), not made.
        case held
    }

    package let effect: Effect
    /// What it wrote to: the command's target, or the change request that holds it.
    package let target: Target
    /// The snapshot it led to (for ``Runtime/check(_:as:ifMatch:)``, the one it would lead to).
    package let snapshot: Snapshot
    /// The change request a change-request command, or a held write, left.
    package var changeRequest: ChangeRequest?
    /// What the writer should know and nothing refused: a published screen's lint findings, the
    /// translations its strings lack.
    package var warnings: [JSONValue] = []
}

/// What a command plans from the snapshot in force: the change to store and what it will have done.
package struct PlannedChange {
    package var change: StoreChange
    /// The values of the change's targeting documents, by ``PlannedSettings/id(kind:key:)``, as
    /// planned (not decoded again).
    package var planned: [String: PlannedSettings] = [:]
    /// Screens the change adds, already decoded and checked, by fingerprint (not decoded again).
    package var checked: [String: CheckedScreen] = [:]
    /// The same for a route table the change adds.
    package var checkedRoutes: [String: RouteTable] = [:]
    /// Whether a snapshot that does not validate means the command retires what is still used.
    package var invalidIsInUse = false
    package var effect: Outcome.Effect = .changed
    /// What it writes to, when not the command's own target (a held write's change request).
    package var target: Target?
    package var changeRequest: ChangeRequest?
    /// ``Outcome/warnings``.
    package var warnings: [JSONValue] = []

    package func outcome(_ snapshot: Snapshot, target: Target) -> Outcome {
        Outcome(effect: effect, target: self.target ?? target, snapshot: snapshot, changeRequest: changeRequest, warnings: warnings)
    }
}
