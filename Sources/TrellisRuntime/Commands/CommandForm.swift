import TrellisJSON
import TrellisTargeting

/// A command as a change request keeps it: its name (`rollout.update`), its arguments (`key` →
/// `banner`) and its body, read back with the same decoders the admin API reads bodies with, so a
/// stored command means exactly what it meant when it was proposed. Commands a change request
/// cannot hold (tokens, webhooks, the scheduler's own) have no form.
package struct CommandForm: Sendable, Equatable {
    /// The version of this encoding; a stored request without one is of version 0
    /// (``init(version0Method:path:query:body:)``).
    package static let version = 1

    package var name: String
    package var arguments: [String: String]
    package var body: [UInt8]

    package init(name: String, arguments: [String: String] = [:], body: [UInt8] = []) {
        self.name = name
        self.arguments = arguments
        self.body = body
    }

    package init(name: String, arguments: [String: String] = [:], json: JSONValue) {
        self.init(name: name, arguments: arguments, body: JSONWriter.encode(json))
    }

    package var jsonValue: JSONValue {
        .object([
            ("version", .number(Self.version)), ("name", .string(name)),
            ("arguments", .object(arguments.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
            ("body", .string(String(decoding: body, as: UTF8.self))),
        ])
    }

    /// The argument `name`; invalid when the form lacks it.
    package func argument(_ name: String) throws(Refusal) -> String {
        guard let value = arguments[name] else {
            throw .invalid("command \(self.name) needs the argument \"\(name)\"", [], source: nil)
        }
        return value
    }
}

extension Command {
    /// Reads `form` into the command it names; invalid (or malformed) with every mistake of its body.
    package init(_ form: CommandForm) throws(Refusal) {
        let body = form.body
        switch form.name {
        case "rollout.create": self = .rollout(try CommandBody.newRollout(body))
        case "rollout.update": self = .rollout(.update(key: try form.argument("key"), try RolloutPatch(body: body)))
        case "rollout.kill": self = .rollout(.kill(key: try form.argument("key")))
        case "rollout.retire": self = .rollout(.retire(key: try form.argument("key")))
        case "rollout.reset": self = .rollout(.reset(key: try form.argument("key")))
        case "experiment.create": self = .experiment(try CommandBody.newExperiment(body))
        case "experiment.update": self = .experiment(.update(key: try form.argument("key"), try ExperimentPatch(body: body)))
        case "experiment.retire": self = .experiment(.retire(key: try form.argument("key")))
        case "experiment.reset": self = .experiment(.reset(key: try form.argument("key")))
        case "rule.define": self = .rule(.define(name: try form.argument("name"), try CommandBody.expression(body)))
        case "rule.retire": self = .rule(.retire(name: try form.argument("name")))
        case "rule.reset": self = .rule(.reset(name: try form.argument("name")))
        case "targeting.replace": self = .targeting(.replace(try CommandBody.targeting(body)))
        case "targeting.rollback": self = .targeting(.rollback(revision: try CommandBody.revision(body)))
        case "screen.publish":
            self = .screen(.publish(id: try form.argument("id"), document: body, stage: try form.arguments["stage"].map(Self.stage)))
        case "screen.rollback": self = .screen(.rollback(id: try form.argument("id"), revision: try CommandBody.revision(body)))
        case "screen.stage": self = .screen(.stage(id: try form.argument("id"), try CommandBody.stagePercentage(body)))
        case "screen.promote": self = .screen(.promote(id: try form.argument("id")))
        case "screen.abandon": self = .screen(.abandon(id: try form.argument("id")))
        case "routes.publish": self = .routeTable(.publish(document: body))
        case "routes.rollback": self = .routeTable(.rollback(revision: try CommandBody.revision(body)))
        case "strings.publish": self = .strings(.publish(locale: try form.argument("locale"), document: body))
        case "strings.rollback": self = .strings(.rollback(locale: try form.argument("locale"), revision: try CommandBody.revision(body)))
        case "metric.define": self = .metric(.define(try CommandBody.metric(body, name: try form.argument("name"))))
        case "metric.delete": self = .metric(.delete(name: try form.argument("name")))
        case "rollout.guard.set": self = .guardrail(.set(try CommandBody.guarding(.rollout(try form.argument("key")), body)))
        case "rollout.guard.remove": self = .guardrail(.remove(.rollout(try form.argument("key"))))
        case "screen.guard.set": self = .guardrail(.set(try CommandBody.guarding(.screen(try form.argument("id")), body)))
        case "screen.guard.remove": self = .guardrail(.remove(.screen(try form.argument("id"))))
        default: throw .invalid("no command \"\(form.name)\" a change request can hold", [], source: nil)
        }
    }

    /// `rollout.guard.set`, `screen.guard.remove`: a guard's command is named by what it guards.
    static func guardForm(_ subject: Guard.Subject, _ verb: String) -> String {
        switch subject {
        case .rollout: "rollout.guard." + verb
        case .screen: "screen.guard." + verb
        }
    }

    /// A staged share of users written as text (`12.5`).
    package static func stage(_ text: String) throws(Refusal) -> RolloutPercentage {
        do { return try RolloutPercentage(parsing: text) } catch {
            throw .malformed("query parameter \"stage\": \(error.reason)", [], source: nil)
        }
    }

    /// The command as a change request keeps it; nil for one it cannot hold.
    package var form: CommandForm? {
        switch self {
        case .rollout(let command): command.form
        case .experiment(let command): command.form
        case .rule(let command): command.form
        case .targeting(.replace(let targeting)): CommandForm(name: "targeting.replace", json: targeting.jsonValue)
        case .targeting(.rollback(let revision)): CommandForm(name: "targeting.rollback", json: .object([("revision", .number(revision))]))
        case .screen(let command): command.form
        case .routeTable(.publish(let document)): CommandForm(name: "routes.publish", body: document)
        case .routeTable(.rollback(let revision)): CommandForm(name: "routes.rollback", json: .object([("revision", .number(revision))]))
        case .strings(.publish(let locale, let document)): CommandForm(name: "strings.publish", arguments: ["locale": locale], body: document)
        case .strings(.rollback(let locale, let revision)):
            CommandForm(name: "strings.rollback", arguments: ["locale": locale], json: .object([("revision", .number(revision))]))
        case .metric(.define(let metric)): CommandForm(name: "metric.define", arguments: ["name": metric.name], json: metric.jsonValue)
        case .metric(.delete(let name)): CommandForm(name: "metric.delete", arguments: ["name": name])
        case .guardrail(.set(let guarded)): CommandForm(name: Self.guardForm(guarded.subject, "set"), arguments: guarded.subject.argument, json: guarded.jsonValue)
        case .guardrail(.remove(let subject)): CommandForm(name: Self.guardForm(subject, "remove"), arguments: subject.argument)
        case .guardrail(.halt): nil
        case .token, .webhook, .changeRequest: nil
        }
    }
}

extension RolloutCommand {
    package var form: CommandForm? {
        let key = ["key": key]
        switch self {
        case .create(let key, let rollout, let schedule):
            var members: [(String, JSONValue)] = [("key", .string(key))] + (rollout.jsonValue.objectValue ?? []).map { ($0.key, $0.value) }
            if !schedule.isEmpty { members.append(("schedule", .array(schedule.map(\.jsonValue)))) }
            return CommandForm(name: "rollout.create", json: .object(members))
        case .update(_, let patch): return CommandForm(name: "rollout.update", arguments: key, json: patch.jsonValue)
        case .kill: return CommandForm(name: "rollout.kill", arguments: key)
        case .retire: return CommandForm(name: "rollout.retire", arguments: key)
        case .reset: return CommandForm(name: "rollout.reset", arguments: key)
        case .advanceSchedule: return nil
        }
    }
}

extension ExperimentCommand {
    package var form: CommandForm {
        let key = ["key": key]
        switch self {
        case .create(let key, let experiment):
            let members: [(String, JSONValue)] = [("key", .string(key))] + (experiment.jsonValue.objectValue ?? []).map { ($0.key, $0.value) }
            return CommandForm(name: "experiment.create", json: .object(members))
        case .update(_, let patch): return CommandForm(name: "experiment.update", arguments: key, json: patch.jsonValue)
        case .retire: return CommandForm(name: "experiment.retire", arguments: key)
        case .reset: return CommandForm(name: "experiment.reset", arguments: key)
        }
    }
}

extension RuleCommand {
    package var form: CommandForm {
        let name = ["name": name]
        switch self {
        case .define(_, let expression): return CommandForm(name: "rule.define", arguments: name, json: expression.jsonValue)
        case .retire: return CommandForm(name: "rule.retire", arguments: name)
        case .reset: return CommandForm(name: "rule.reset", arguments: name)
        }
    }
}

extension ScreenCommand {
    package var form: CommandForm {
        let id = ["id": id]
        switch self {
        case .publish(_, let document, let stage):
            var arguments = id
            if let stage { arguments["stage"] = stage.description }
            return CommandForm(name: "screen.publish", arguments: arguments, body: document)
        case .rollback(_, let revision): return CommandForm(name: "screen.rollback", arguments: id, json: .object([("revision", .number(revision))]))
        case .stage(_, let percentage): return CommandForm(name: "screen.stage", arguments: id, json: .object([("percentage", percentage.jsonValue)]))
        case .promote: return CommandForm(name: "screen.promote", arguments: id)
        case .abandon: return CommandForm(name: "screen.abandon", arguments: id)
        }
    }
}

extension CommandForm {
    /// How version 0 kept a command: as the admin write that made it (method, path, query, body).
    /// This table is that format's, frozen: it must read what was stored then, whatever the admin
    /// API's paths become.
    package static let version0Writes: [(method: String, pattern: [String], name: String)] = [
        ("POST", ["rollouts"], "rollout.create"), ("PUT", ["rollouts", "{key}"], "rollout.update"),
        ("DELETE", ["rollouts", "{key}"], "rollout.retire"), ("POST", ["rollouts", "{key}", "kill"], "rollout.kill"),
        ("POST", ["rollouts", "{key}", "reset"], "rollout.reset"),
        ("POST", ["experiments"], "experiment.create"), ("PUT", ["experiments", "{key}"], "experiment.update"),
        ("DELETE", ["experiments", "{key}"], "experiment.retire"), ("POST", ["experiments", "{key}", "reset"], "experiment.reset"),
        ("PUT", ["rules", "{name}"], "rule.define"), ("DELETE", ["rules", "{name}"], "rule.retire"),
        ("POST", ["rules", "{name}", "reset"], "rule.reset"),
        ("PUT", ["targeting"], "targeting.replace"), ("POST", ["targeting", "rollback"], "targeting.rollback"),
        ("PUT", ["screens", "{id}"], "screen.publish"), ("POST", ["screens", "{id}", "rollback"], "screen.rollback"),
        ("PUT", ["screens", "{id}", "stage"], "screen.stage"), ("POST", ["screens", "{id}", "promote"], "screen.promote"),
        ("POST", ["screens", "{id}", "abandon"], "screen.abandon"),
        ("PUT", ["routes"], "routes.publish"), ("POST", ["routes", "rollback"], "routes.rollback"),
    ]

    /// The form of a version 0 record; nil when it names no write this table knows.
    package init?(version0Method method: String, path: String, query: [(String, String)], body: [UInt8]) {
        guard path.hasPrefix("/admin/") else { return nil }
        let segments = path.dropFirst("/admin/".count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for write in Self.version0Writes where write.method == method && write.pattern.count == segments.count {
            var arguments: [String: String] = [:]
            let matches = zip(write.pattern, segments).allSatisfy { pattern, segment in
                guard pattern.hasPrefix("{") else { return pattern == segment }
                arguments[String(pattern.dropFirst().dropLast())] = segment
                return !segment.isEmpty
            }
            guard matches else { continue }
            for (name, value) in query { arguments[name] = value }
            self.init(name: write.name, arguments: arguments, body: body)
            return
        }
        return nil
    }
}

extension Guard.Subject {
    /// The path parameter a guard's route names it by: `key` of a rollout, `id` of a screen.
    package var argument: [String: String] {
        switch self {
        case .rollout(let key): ["key": key]
        case .screen(let id): ["id": id]
        }
    }
}
