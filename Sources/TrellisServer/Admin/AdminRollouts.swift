import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTargeting

/// `/admin/rollouts`: every rollout and one rollout as in force (its writes are commands:
/// ``AdminWrites``).
extension AdminEndpoints {
    func registerRollouts(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/rollouts") { request, _, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let list = snapshot.targeting.rollouts.keys.sorted().map { ResourceView.rollout($0, in: snapshot) }
            return Self.resource(.object([("rollouts", .array(list))]))
        }
        routes.add(.get, "/admin/rollouts/{key}") { request, parameters, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let key = parameters["key"] ?? ""
            guard snapshot.targeting.rollouts[key] != nil else { throw Self.notFound("rollout", key, known: snapshot.targeting.rollouts.keys) }
            return Self.resource(ResourceView.rollout(key, in: snapshot), etag: ResourceView.version(of: .rollout(key), in: snapshot))
        }
    }
}
