import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTargeting

/// `/admin/experiments`: every experiment and one experiment as in force (its writes are
/// commands: ``AdminWrites``).
extension AdminEndpoints {
    func registerExperiments(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/experiments") { request, _, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let list = snapshot.targeting.experiments.keys.sorted().map { ResourceView.experiment($0, in: snapshot) }
            return Self.resource(.object([("experiments", .array(list))]))
        }
        routes.add(.get, "/admin/experiments/{key}") { request, parameters, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let key = parameters["key"] ?? ""
            guard snapshot.targeting.experiments[key] != nil else {
                throw Self.notFound("experiment", key, known: snapshot.targeting.experiments.keys)
            }
            return Self.resource(ResourceView.experiment(key, in: snapshot), etag: ResourceView.version(of: .experiment(key), in: snapshot))
        }
    }
}
