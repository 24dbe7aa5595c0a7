import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisScreens
import TrellisStore
import TrellisTargeting

/// `/admin/screens`: the screens ops publish, their heads and their history (their writes are
/// commands: ``AdminWrites``).
extension AdminEndpoints {
    func registerScreens(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/screens") { request, _, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let list = snapshot.runtime.screens.keys.sorted().compactMap { ResourceView.screenHeadMembers($0, in: snapshot).map(JSONValue.object) }
            return Self.resource(.object([("screens", .array(list))]))
        }
        routes.add(.get, "/admin/screens/{id}") { request, parameters, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let id = parameters["id"] ?? ""
            let (head, etag) = try Self.existingScreen(id, in: snapshot)
            guard let stored = snapshot.runtime.screens[id], let document = try? JSONParser.parse(stored.current.document) else {
                throw Self.notFound("screen", id, known: snapshot.runtime.screens.keys)
            }
            return Self.resource(.object(head + [("screen", document)]), etag: etag)
        }
        routes.add(.get, "/admin/screens/{id}/revisions", replying: { request, parameters, context, actor throws(Problem) in
            try revisions(request, context, id: parameters["id"] ?? "")
        })
        routes.add(.post, "/admin/screens/{id}/revisions/{revision}/preview-grant", role: .read) { request, parameters, _, _ throws(Problem) in
            let id = parameters["id"] ?? ""
            let text = parameters["revision"] ?? ""
            _ = try Self.existingScreen(id, in: state.published.snapshot)
            guard let number = Int(text), number >= 1, String(number) == text else {
                throw Problem(.badRequest, "revision \"\(text)\" is not a revision number (1, 2, …)")
            }
            let until = state.clock() + AdminAccess.previewGrantSeconds
            let grant = access.previewGrant(screen: id, revision: number, until: until)
            return Self.resource(.object([("grant", .string(grant)), ("expiresAt", .string(RFC3339.string(fromSeconds: until)))]))
        }
        routes.add(.get, "/admin/screens/{id}/revisions/{revision}", replying: { request, parameters, context, actor throws(Problem) in
            try revisionDocument(request, context, id: parameters["id"] ?? "", revision: parameters["revision"] ?? "")
        })
    }

    // MARK: - Reads from the store

    private func revisions(_ request: HTTPRequest, _ context: HTTPRequestContext, id: String) throws(Problem) -> HTTPReply {
        let (head, _) = try Self.existingScreen(id, in: state.published.snapshot)
        return revisions(request, context, .screen(id), head: head)
    }

    /// Every revision of `resource`, newest last, after its head.
    func revisions(
        _ request: HTTPRequest, _ context: HTTPRequestContext, _ resource: Revisioned, head: [(String, JSONValue)]
    ) -> HTTPReply {
        let store = control.store
        return .deferred(on: control.readQueue, for: request, context) { () throws(Problem) in
            let list: [DocumentRevisionSummary]
            do { list = try store.revisions(of: resource.key) } catch { throw Problem(.serviceUnavailable, "cannot read revisions: \(error)") }
            let items: [JSONValue] = list.map { r in
                var members: [(String, JSONValue)] = [
                    ("revision", .number(r.number)), ("origin", .string(r.origin.rawValue)),
                    ("createdAt", .string(RFC3339.string(fromSeconds: r.createdAt))), ("createdBy", .string(r.createdBy)),
                    ("bytes", .number(r.bytes)), ("fingerprint", .string(r.fingerprint)),
                ]
                if let from = r.copiedFrom { members.append(("copiedFrom", .number(from))) }
                return .object(members)
            }
            return Self.resource(.object(head + [("revisions", .array(items))]))
        }
    }

    private func revisionDocument(
        _ request: HTTPRequest, _ context: HTTPRequestContext, id: String, revision text: String
    ) throws(Problem) -> HTTPReply {
        _ = try Self.existingScreen(id, in: state.published.snapshot)
        return try revisionDocument(request, context, .screen(id), revision: text)
    }

    /// One stored revision of `resource`, as it was published.
    func revisionDocument(
        _ request: HTTPRequest, _ context: HTTPRequestContext, _ resource: Revisioned, revision text: String
    ) throws(Problem) -> HTTPReply {
        guard let number = Int(text), number >= 1, String(number) == text else {
            throw Problem(.badRequest, "revision \"\(text)\" is not a revision number (1, 2, …)")
        }
        let store = control.store
        return .deferred(on: control.readQueue, for: request, context) { () throws(Problem) in
            let revision: DocumentRevision?
            do { revision = try store.revision(of: resource.key, number: number) } catch {
                throw Problem(.serviceUnavailable, "cannot read revision \(number): \(error)")
            }
            guard let revision else { throw Problem(.notFound, "\(resource.label) has no revision \(number)") }
            return HTTPResponse(
                headers: [
                    "Content-Type": "application/json", "Cache-Control": "no-store", "X-Trellis-Revision": String(number),
                    "X-Trellis-Origin": revision.origin.rawValue,
                ], body: revision.document)
        }
    }

    // MARK: - Representations

    /// Screen `id`'s head members and ETag; 404 when ops have none.
    static func existingScreen(_ id: String, in snapshot: Snapshot) throws(Problem) -> ([(String, JSONValue)], String) {
        guard let stored = snapshot.runtime.screens[id], let value = ResourceView.screenHeadMembers(id, in: snapshot) else {
            throw notFound("screen", id, known: snapshot.runtime.screens.keys)
        }
        return (value, Revisioned.screen(id).version(stored.head))
    }
}
