import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTargeting

/// `/admin/rules`: the named rules in force (their writes are commands: ``AdminWrites``).
extension AdminEndpoints {
    func registerRules(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/rules") { request, _, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            return Self.resource(.object([("rules", .array(snapshot.targeting.rules.keys.sorted().map { ResourceView.rule($0, in: snapshot) }))]))
        }
        routes.add(.get, "/admin/rules/{name}") { request, parameters, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let name = parameters["name"] ?? ""
            guard snapshot.targeting.rules[name] != nil else { throw Self.notFound("rule", name, known: snapshot.targeting.rules.keys) }
            return Self.resource(ResourceView.rule(name, in: snapshot), etag: ResourceView.version(of: .rule(name), in: snapshot))
        }
    }
}
