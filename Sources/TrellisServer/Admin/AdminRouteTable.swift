import TrellisHTTP
import TrellisJSON
import TrellisRoutes
import TrellisStore
import TrellisTargeting

/// `/admin/routes`: publish the route table in revisions, roll it back, and read its history. A
/// table is checked whole before it is stored, and with every screen: a table that would leave a
/// link in any screen leading nowhere, or a screen without a parameter it needs, is refused.
extension AdminEndpoints {
    static let routeTable = RevisionedResource(
        name: RuntimeState.routeTableName, auditResource: "routes", label: "the route table", actionPrefix: "routes",
        tagPrefix: "routes", representation: { AdminEndpoints.routeTableHead(in: $0) })

    func registerRouteTable(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/routes") { request, _, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let (head, stored) = try Self.existingRouteTable(in: snapshot)
            let document = (try? JSONParser.parse(stored.current.document)) ?? .null
            return Self.resource(.object(head + [("table", document)]), etag: Self.routeTable.etag(stored.head))
        }
        routes.add(.put, "/admin/routes", replying: { request, _, context, actor throws(Problem) in
            try publishRouteTable(request, context, actor)
        })
        routes.add(.get, "/admin/routes/revisions", replying: { request, _, context, actor throws(Problem) in
            let (head, _) = try Self.existingRouteTable(in: state.published.snapshot)
            return revisions(request, context, Self.routeTable, head: head)
        })
        routes.add(.get, "/admin/routes/revisions/{revision}", replying: { request, parameters, context, actor throws(Problem) in
            _ = try Self.existingRouteTable(in: state.published.snapshot)
            return try revisionDocument(request, context, Self.routeTable, revision: parameters["revision"] ?? "")
        })
        routes.add(.post, "/admin/routes/rollback", replying: { request, _, context, actor throws(Problem) in
            try rollback(request, context, actor, Self.routeTable) { snapshot throws(Problem) in try Self.existingRouteTable(in: snapshot).1 }
        })
    }

    /// `PUT /admin/routes`: the body is the whole table, as `routes.json` holds it; it becomes the
    /// next revision, served at once, if it validates on its own and with every screen served.
    private func publishRouteTable(_ request: HTTPRequest, _ context: HTTPRequestContext, _ actor: String) throws(Problem) -> HTTPReply {
        try Self.checkMediaType(request)
        let body = request.body
        return write(request, context, actor) { snapshot, actor throws(Problem) in
            let existing = snapshot.runtime.routes
            try checkPrecondition(request, etag: existing.map { Self.routeTable.etag($0.head) })
            let table: RouteTable
            switch control.builder.loader.checkRoutes(body, source: "body", targeting: snapshot.targeting) {
            case .success(let checked): table = checked
            case .failure(let error):
                throw Problem.invalid("the route table does not validate; nothing was published", error.diagnostics, source: "body", status: .unprocessableContent)
            }
            let now = state.clock()
            let number = (existing?.latestRevision ?? 0) + 1
            let revision = ScreenRevision(
                screen: RuntimeState.routeTableName, number: number, document: body, fingerprint: RouteTableEntry.fingerprint(of: body),
                origin: .publish, createdAt: now, createdBy: actor)
            var head = existing?.head ?? ScreenHead(screen: RuntimeState.routeTableName, current: number, version: 0, updatedAt: now, updatedBy: actor)
            head.current = number
            var plan = planHead(head, existing: existing, revisions: [revision], actor: actor, now: now, action: "routes.publish", resource: Self.routeTable)
            plan.checkedRoutes = [revision.fingerprint: table]
            return plan
        }
    }

    /// The route table's head members (``routeTableHeadMembers(in:)``) and stored state; 404 without one.
    static func existingRouteTable(in snapshot: Snapshot) throws(Problem) -> ([(String, JSONValue)], StoredScreen) {
        guard let stored = snapshot.runtime.routes, let head = routeTableHeadMembers(in: snapshot) else {
            throw Problem(.notFound, "there is no route table: add routes.json to the configuration directory, or publish one with PUT /admin/routes")
        }
        return (head, stored)
    }

    /// The route table's head as ops see it: the revision served, where it came from, who changed it.
    static func routeTableHead(in snapshot: Snapshot) -> JSONValue? { routeTableHeadMembers(in: snapshot).map(JSONValue.object) }

    /// The members of ``routeTableHead(in:)``, for answers that add their own.
    static func routeTableHeadMembers(in snapshot: Snapshot) -> [(String, JSONValue)]? {
        guard let stored = snapshot.runtime.routes else { return nil }
        let head = stored.head
        return [
            ("revision", .number(head.current)), ("source", .string(stored.current.origin == .config ? "config" : "runtime")),
            ("origin", .string(stored.current.origin.rawValue)), ("served", .bool(snapshot.routes?.revision == head.current)),
            ("routes", .number(snapshot.routes?.table.routes.count ?? 0)), ("latestRevision", .number(stored.latestRevision)),
            ("updatedAt", .string(RFC3339.string(fromSeconds: head.updatedAt))), ("updatedBy", .string(head.updatedBy)),
        ]
    }
}
