import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTargeting

/// `/admin/targeting`: the whole targeting document in force (targeting.json with every runtime
/// value applied), its revisions, and the stale-flag report (its writes are commands:
/// ``AdminWrites``).
extension AdminEndpoints {
    func registerTargeting(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/targeting") { request, _, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            return Self.resource(snapshot.targeting.jsonValue, etag: ResourceView.version(of: .targeting, in: snapshot))
        }
        routes.add(.get, "/admin/targeting/revisions", replying: { request, _, context, actor throws(Problem) in
            revisions(request, context, .targeting, head: ResourceView.targetingHeadMembers(in: state.published.snapshot))
        })
        routes.add(.get, "/admin/targeting/revisions/{revision}", replying: { request, parameters, context, actor throws(Problem) in
            try revisionDocument(request, context, .targeting, revision: parameters["revision"] ?? "")
        })
        routes.add(.get, "/admin/targeting/stale", query: ["days"], replying: { request, _, context, actor throws(Problem) in
            try staleReport(request, context)
        })
    }
}
