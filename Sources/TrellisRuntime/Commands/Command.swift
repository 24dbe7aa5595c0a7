import TrellisJSON
import TrellisTargeting

/// Every write the runtime takes, as a value: whoever makes it — a person with a token through the
/// admin API, the scheduler, an approved change request, a guard — gives one of these to
/// ``Runtime/execute(_:as:ifMatch:)``.
package indirect enum Command: Sendable {
    case rollout(RolloutCommand)
    case experiment(ExperimentCommand)
    case rule(RuleCommand)
    case targeting(TargetingCommand)
    case screen(ScreenCommand)
    case routeTable(RouteTableCommand)
    case strings(StringsCommand)
    case token(TokenCommand)
    case webhook(WebhookCommand)
    case metric(MetricCommand)
    case guardrail(GuardCommand)
    case changeRequest(ChangeRequestCommand)
}

package enum RolloutCommand: Sendable {
    case create(key: String, TargetingConfiguration.Rollout, schedule: [ScheduledStep])
    case update(key: String, RolloutPatch)
    /// Disabled, its percentage kept for a later revive, its schedule dropped.
    case kill(key: String)
    case retire(key: String)
    /// Handed back to targeting.json's entry.
    case reset(key: String)
    /// The steps of its schedule whose time has come (the scheduler's).
    case advanceSchedule(key: String)
}

package enum ExperimentCommand: Sendable {
    case create(key: String, TargetingConfiguration.Experiment)
    case update(key: String, ExperimentPatch)
    case retire(key: String)
    case reset(key: String)
}

package enum RuleCommand: Sendable {
    /// Defines or redefines a named rule.
    case define(name: String, RuleExpression)
    case retire(name: String)
    case reset(name: String)
}

package enum TargetingCommand: Sendable {
    /// Makes a whole targeting document the one in force.
    case replace(TargetingConfiguration)
    /// Makes revision `revision` of the targeting history the one in force again.
    case rollback(revision: Int)
}

package enum ScreenCommand: Sendable {
    /// A new revision of screen `id` (the document as authored), served to everybody, or staged to
    /// `stage` of users.
    case publish(id: String, document: [UInt8], stage: RolloutPercentage?)
    case rollback(id: String, revision: Int)
    /// Changes the share of users a staged revision is served to.
    case stage(id: String, RolloutPercentage)
    case promote(id: String)
    case abandon(id: String)
}

package enum RouteTableCommand: Sendable {
    case publish(document: [UInt8])
    case rollback(revision: Int)
}

/// A locale's string table, published in revisions as the route table is.
package enum StringsCommand: Sendable {
    case publish(locale: String, document: [UInt8])
    case rollback(locale: String, revision: Int)

    package var locale: String {
        switch self {
        case .publish(let locale, _), .rollback(let locale, _): locale
        }
    }
}

package enum TokenCommand: Sendable {
    /// A token known only by its hash from now on.
    case create(name: String, role: AdminRole, sha256: [UInt8])
    case delete(name: String)
}

package enum WebhookCommand: Sendable {
    case create(WebhookSubscription)
    case delete(name: String)
}

package enum MetricCommand: Sendable {
    /// Defines or redefines metric `name`.
    case define(MetricDefinition)
    case delete(name: String)
}

package enum GuardCommand: Sendable {
    /// Guards a rollout or a screen's staged revisions with `guard`, replacing any guard it had.
    case set(Guard)
    case remove(Guard.Subject)
    /// What a guard does on a regression (the guard's own writer): kills the rollout or abandons
    /// the staged revision, with the figures that decided it in the audit log.
    case halt(Guard.Subject, evidence: JSONValue)
}

/// Change requests: commands held for approval or for a time.
package enum ChangeRequestCommand: Sendable {
    /// Holds `command`: pending approval when its target needs it, else approved to apply at
    /// `applyAt` (or made at once without one).
    case propose(Command, applyAt: Double?, comment: String?)
    case edit(id: Int, ChangeRequestEdit)
    case withdraw(id: Int)
    case approve(id: Int, comment: String?)
    case reject(id: Int, comment: String?)
}

/// What an edit of a change request changes: its command's body (read as the command it holds
/// reads one), when it applies, its comment (`.some(nil)` takes the last two away).
package struct ChangeRequestEdit: Sendable {
    package var body: [UInt8]?
    package var applyAt: Double??
    package var comment: String??

    package init(body: [UInt8]? = nil, applyAt: Double?? = nil, comment: String?? = nil) {
        self.body = body
        self.applyAt = applyAt
        self.comment = comment
    }
}

extension Command {
    /// What the command writes to, as `admin.approvalRequiredFor` and the audit log name it:
    /// `rollouts/banner`, `screens/home`, `targeting`, `routes`.
    package var resource: String {
        switch self {
        case .rollout(let command): "rollouts/" + command.key
        case .experiment(let command): "experiments/" + command.key
        case .rule(let command): "rules/" + command.name
        case .targeting: "targeting"
        case .screen(let command): "screens/" + command.id
        case .routeTable: "routes"
        case .strings(let command): "strings/" + command.locale
        case .token(let command): "tokens/" + command.name
        case .webhook(let command): "webhooks/" + command.name
        case .metric(let command): "metrics/" + command.name
        case .guardrail(let command): command.subject.resource + "/guard"
        case .changeRequest(let command): "changes" + (command.id.map { "/\($0)" } ?? "")
        }
    }

    /// The resource whose version the command is made against (``Runtime/version(of:in:)``).
    package var target: Target {
        switch self {
        case .rollout(let command): .rollout(command.key)
        case .experiment(let command): .experiment(command.key)
        case .rule(let command): .rule(command.name)
        case .targeting: .targeting
        case .screen(let command): .screen(command.id)
        case .routeTable: .routeTable
        case .strings(let command): .strings(command.locale)
        case .token(let command): .token(command.name)
        case .webhook(let command): .webhook(command.name)
        case .metric(let command): .metric(command.name)
        case .guardrail(.halt(let subject, _)): subject.target
        case .guardrail(let command): .guardrail(command.subject)
        case .changeRequest(let command): command.id.map(Target.changeRequest) ?? .changeRequests
        }
    }
}

extension RolloutCommand {
    package var key: String {
        switch self {
        case .create(let key, _, _), .update(let key, _), .kill(let key), .retire(let key), .reset(let key), .advanceSchedule(let key): key
        }
    }
}

extension ExperimentCommand {
    package var key: String {
        switch self {
        case .create(let key, _), .update(let key, _), .retire(let key), .reset(let key): key
        }
    }
}

extension RuleCommand {
    package var name: String {
        switch self {
        case .define(let name, _), .retire(let name), .reset(let name): name
        }
    }
}

extension ScreenCommand {
    package var id: String {
        switch self {
        case .publish(let id, _, _), .rollback(let id, _), .stage(let id, _), .promote(let id), .abandon(let id): id
        }
    }
}

extension TokenCommand {
    package var name: String {
        switch self {
        case .create(let name, _, _), .delete(let name): name
        }
    }
}

extension WebhookCommand {
    package var name: String {
        switch self {
        case .create(let webhook): webhook.name
        case .delete(let name): name
        }
    }
}

extension MetricCommand {
    package var name: String {
        switch self {
        case .define(let metric): metric.name
        case .delete(let name): name
        }
    }
}

extension GuardCommand {
    package var subject: Guard.Subject {
        switch self {
        case .set(let guarded): guarded.subject
        case .remove(let subject), .halt(let subject, _): subject
        }
    }
}

extension Guard.Subject {
    /// What a halt writes to.
    package var target: Target {
        switch self {
        case .rollout(let key): .rollout(key)
        case .screen(let id): .screen(id)
        }
    }
}

extension ChangeRequestCommand {
    /// An approval or a rejection: bound to the version of the request the reviewer read.
    package var isReview: Bool {
        switch self {
        case .approve, .reject: true
        case .propose, .edit, .withdraw: false
        }
    }

    package var id: Int? {
        switch self {
        case .propose: nil
        case .edit(let id, _), .withdraw(let id), .approve(let id, _), .reject(let id, _): id
        }
    }
}

/// A resource of the runtime state, as commands and reads name it.
package enum Target: Sendable, Equatable {
    case rollout(String)
    case experiment(String)
    case rule(String)
    case targeting
    case screen(String)
    case routeTable
    case strings(String)
    case token(String)
    case webhook(String)
    case metric(String)
    case guardrail(Guard.Subject)
    case changeRequest(Int)
    /// The change requests as a whole (what a proposal adds to).
    case changeRequests
}
