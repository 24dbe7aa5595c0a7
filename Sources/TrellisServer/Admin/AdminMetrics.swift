import TrellisHTTP
import TrellisJSON
import TrellisRuntime

/// `/admin/metrics`: what experiments measure, as runtime documents (their writes are commands:
/// ``AdminWrites``, `PUT` and `DELETE /admin/metrics/{name}`, made against their ETag).
extension AdminEndpoints {
    func registerMetrics(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/metrics") { _, _, _, _ throws(Problem) in
            let snapshot = state.published.snapshot
            let metrics = snapshot.runtime.operations.metrics
            let list = metrics.keys.sorted().map { ResourceView.metric(metrics[$0]!, in: snapshot) }
            return Self.resource(.object([("metrics", .array(list))]))
        }
        routes.add(.get, "/admin/metrics/{name}") { _, parameters, _, _ throws(Problem) in
            let snapshot = state.published.snapshot
            let name = parameters["name"] ?? ""
            guard let metric = snapshot.runtime.operations.metrics[name] else {
                throw Self.notFound("metric", name, known: snapshot.runtime.operations.metrics.keys)
            }
            return Self.resource(ResourceView.metric(metric, in: snapshot), etag: ResourceView.version(of: .metric(name), in: snapshot))
        }
    }
}
