import TrellisHTTP
import TrellisRuntime

/// The admin writes a change request may hold, each the route of one command: its path
/// parameters and query become the command's arguments, its body the command's body
/// (``CommandForm``). The same table reads a `POST /admin/changes` body's `method` and `path`, and
/// shows a held command as the write that makes it.
struct AdminWrites: Sendable {
    let method: HTTPMethod
    let pattern: String
    let command: String
    /// The query parameters the route takes.
    var query: Set<String> = []

    static let all: [AdminWrites] = [
        AdminWrites(method: .post, pattern: "/admin/rollouts", command: "rollout.create"),
        AdminWrites(method: .put, pattern: "/admin/rollouts/{key}", command: "rollout.update"),
        AdminWrites(method: .delete, pattern: "/admin/rollouts/{key}", command: "rollout.retire"),
        AdminWrites(method: .post, pattern: "/admin/rollouts/{key}/kill", command: "rollout.kill"),
        AdminWrites(method: .post, pattern: "/admin/rollouts/{key}/reset", command: "rollout.reset"),
        AdminWrites(method: .post, pattern: "/admin/experiments", command: "experiment.create"),
        AdminWrites(method: .put, pattern: "/admin/experiments/{key}", command: "experiment.update"),
        AdminWrites(method: .delete, pattern: "/admin/experiments/{key}", command: "experiment.retire"),
        AdminWrites(method: .post, pattern: "/admin/experiments/{key}/reset", command: "experiment.reset"),
        AdminWrites(method: .put, pattern: "/admin/rules/{name}", command: "rule.define"),
        AdminWrites(method: .delete, pattern: "/admin/rules/{name}", command: "rule.retire"),
        AdminWrites(method: .post, pattern: "/admin/rules/{name}/reset", command: "rule.reset"),
        AdminWrites(method: .put, pattern: "/admin/targeting", command: "targeting.replace"),
        AdminWrites(method: .post, pattern: "/admin/targeting/rollback", command: "targeting.rollback"),
        AdminWrites(method: .put, pattern: "/admin/screens/{id}", command: "screen.publish", query: ["stage"]),
        AdminWrites(method: .post, pattern: "/admin/screens/{id}/rollback", command: "screen.rollback"),
        AdminWrites(method: .put, pattern: "/admin/screens/{id}/stage", command: "screen.stage"),
        AdminWrites(method: .post, pattern: "/admin/screens/{id}/promote", command: "screen.promote"),
        AdminWrites(method: .post, pattern: "/admin/screens/{id}/abandon", command: "screen.abandon"),
        AdminWrites(method: .put, pattern: "/admin/routes", command: "routes.publish"),
        AdminWrites(method: .post, pattern: "/admin/routes/rollback", command: "routes.rollback"),
        AdminWrites(method: .put, pattern: "/admin/strings/{locale}", command: "strings.publish"),
        AdminWrites(method: .post, pattern: "/admin/strings/{locale}/rollback", command: "strings.rollback"),
        AdminWrites(method: .put, pattern: "/admin/metrics/{name}", command: "metric.define"),
        AdminWrites(method: .delete, pattern: "/admin/metrics/{name}", command: "metric.delete"),
        AdminWrites(method: .put, pattern: "/admin/rollouts/{key}/guard", command: "rollout.guard.set"),
        AdminWrites(method: .delete, pattern: "/admin/rollouts/{key}/guard", command: "rollout.guard.remove"),
        AdminWrites(method: .put, pattern: "/admin/screens/{id}/guard", command: "screen.guard.set"),
        AdminWrites(method: .delete, pattern: "/admin/screens/{id}/guard", command: "screen.guard.remove"),
    ]

    /// The routes of ``all``, to find which one a `method` and `path` name (their handlers are
    /// never called: the live routes are registered by the admin API).
    static let router: EndpointRouter = {
        var router = EndpointRouter()
        for write in all { router.add(write.method, write.pattern, replying: { _, _, _ throws(Problem) in .response(HTTPResponse(status: .ok)) }) }
        return router
    }()

    /// The names of the pattern's path parameters, in order.
    var parameterNames: [String] {
        pattern.split(separator: "/").compactMap { $0.hasPrefix("{") ? String($0.dropFirst().dropLast()) : nil }
    }

    /// The command a request to this route makes.
    func form(_ parameters: PathParameters, query: [(String, String)], body: [UInt8]) -> CommandForm {
        var arguments: [String: String] = [:]
        for name in parameterNames { arguments[name] = parameters[name] ?? "" }
        for (name, value) in query { arguments[name] = value }
        return CommandForm(name: command, arguments: arguments, body: body)
    }

    /// The write that makes `form`: method, path, and the arguments that are not in the path.
    static func request(of form: CommandForm) -> (method: String, path: String, query: [(String, String)]) {
        guard let write = all.first(where: { $0.command == form.name }) else {
            // A version 0 request this version cannot read keeps the write it named.
            let parts = form.name.split(separator: " ", maxSplits: 1).map(String.init)
            return (parts.first ?? "", parts.count > 1 ? parts[1] : "", [])
        }
        let names = Set(write.parameterNames)
        let path = write.pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix("{") ? form.arguments[String(segment.dropFirst().dropLast())] ?? "" : String(segment)
        }.joined(separator: "/")
        let query = form.arguments.filter { !names.contains($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return (write.method.rawValue, path, query)
    }
}
