import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisStore

/// `/admin/routes`: the route table in force and its history (its writes are commands:
/// ``AdminWrites``). A table is checked whole before it is stored, and with every screen.
extension AdminEndpoints {
    func registerRouteTable(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/routes") { request, _, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let (head, stored) = try Self.existingRouteTable(in: snapshot)
            let document = (try? JSONParser.parse(stored.current.document)) ?? .null
            return Self.resource(.object(head + [("table", document)]), etag: Revisioned.routeTable.version(stored.head))
        }
        routes.add(.get, "/admin/routes/revisions", replying: { request, _, context, actor throws(Problem) in
            let (head, _) = try Self.existingRouteTable(in: state.published.snapshot)
            return revisions(request, context, .routeTable, head: head)
        })
        routes.add(.get, "/admin/routes/revisions/{revision}", replying: { request, parameters, context, actor throws(Problem) in
            _ = try Self.existingRouteTable(in: state.published.snapshot)
            return try revisionDocument(request, context, .routeTable, revision: parameters["revision"] ?? "")
        })
    }

    /// The route table's head members and stored state; 404 without one.
    static func existingRouteTable(in snapshot: Snapshot) throws(Problem) -> ([(String, JSONValue)], RevisionedDocument) {
        guard let stored = snapshot.runtime.routes, let head = ResourceView.routeTableHeadMembers(in: snapshot) else {
            throw Problem(Runtime.noRouteTable)
        }
        return (head, stored)
    }
}
