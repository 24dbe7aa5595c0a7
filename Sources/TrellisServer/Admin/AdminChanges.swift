import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisStore
import TrellisTargeting

/// `/admin/changes`: change requests, the runtime's held commands (``Runtime`` makes, approves
/// and checks them). A request is shown as the write that makes its command (`method`, `path`,
/// `query`, `body`), and `POST /admin/changes` takes one in that shape.
extension AdminEndpoints {
    func registerChanges(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/changes", query: ["status"]) { request, _, context, actor throws(Problem) in
            let status = try Self.statusFilter(request)
            let snapshot = state.published.snapshot
            let list = Runtime.changeRequests(in: snapshot).filter { status == nil || $0.status == status }
            return Self.resource(.object([("changes", .array(list.map { Self.changeView($0, in: snapshot) }))]))
        }
        routes.add(.get, "/admin/changes/{id}") { request, parameters, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let id = try Self.changeRequestNumber(parameters["id"] ?? "")
            let change: ChangeRequest
            do throws(Refusal) { change = try Runtime.changeRequest(id, in: snapshot) } catch { throw Problem(error) }
            return Self.resource(Self.changeView(change, in: snapshot), etag: ResourceView.version(of: .changeRequest(id), in: snapshot))
        }
        routes.add(.post, "/admin/changes", replying: { request, _, context, actor throws(Problem) in
            let (command, applyAt, comment) = try proposal(request)
            return execute(.changeRequest(.propose(command, applyAt: applyAt, comment: comment)), request, context, actor)
        })
        routes.add(.put, "/admin/changes/{id}", replying: { request, parameters, context, actor throws(Problem) in
            let id = try Self.changeRequestNumber(parameters["id"] ?? "")
            let edit = try Self.changeEdit(request, now: state.clock())
            return execute(.changeRequest(.edit(id: id, edit)), request, context, actor)
        })
        routes.add(.delete, "/admin/changes/{id}", replying: { request, parameters, context, actor throws(Problem) in
            execute(.changeRequest(.withdraw(id: try Self.changeRequestNumber(parameters["id"] ?? ""))), request, context, actor)
        })
        routes.add(.post, "/admin/changes/{id}/approve", role: .approve, replying: { request, parameters, context, actor throws(Problem) in
            let id = try Self.changeRequestNumber(parameters["id"] ?? "")
            return execute(.changeRequest(.approve(id: id, comment: try Self.reviewComment(request))), request, context, actor)
        })
        routes.add(.post, "/admin/changes/{id}/reject", role: .approve, replying: { request, parameters, context, actor throws(Problem) in
            let id = try Self.changeRequestNumber(parameters["id"] ?? "")
            return execute(.changeRequest(.reject(id: id, comment: try Self.reviewComment(request))), request, context, actor)
        })
    }

    /// A change request as ops see it: its command as the write that makes it, and its `version`
    /// (its ETag), which an approval or rejection names (`If-Match`) so that it decides what the
    /// reviewer read.
    static func changeView(_ change: ChangeRequest, in snapshot: Snapshot) -> JSONValue {
        let (method, path, query) = AdminWrites.request(of: change.command)
        let (head, tail) = change.commonMembers
        let write: [(String, JSONValue)] = [
            ("command", .string(change.command.name)), ("method", .string(method)), ("path", .string(path)),
            ("query", .object(query.map { ($0.0, .string($0.1)) })), ("body", .string(String(decoding: change.command.body, as: UTF8.self))),
            ("boundETag", change.boundVersion.map(JSONValue.string) ?? .null),
            ("version", ResourceView.version(of: .changeRequest(change.id), in: snapshot).map(JSONValue.string) ?? .null),
        ]
        return .object(head + write + tail)
    }

    /// A `POST /admin/changes` body: `method`, `path`, optionally `query` (name → value), `body`
    /// (the write's JSON body), `applyAt` (RFC 3339, in the future) and `comment`; the command it
    /// names, read as the write's own route reads it.
    private func proposal(_ request: HTTPRequest) throws(Problem) -> (Command, Double?, String?) {
        var method = "", path = "", query: [(String, String)] = [], body: [UInt8] = []
        var applyAt: Double?, comment: String?
        let now = state.clock()
        try Self.payload(request, allowed: ["method", "path", "query", "body", "applyAt", "comment"]) { object, collector in
            method = object.string("method", required: true) ?? ""
            path = object.string("path", required: true) ?? ""
            if let value = object.value("query") {
                if let members = value.objectValue, members.allSatisfy({ $0.value.stringValue != nil }) {
                    query = members.map { ($0.key, $0.value.stringValue ?? "") }
                } else {
                    object.report("expected an object of parameter → string value", atMember: "query")
                }
            }
            if let value = object.value("body") { body = value.stringValue.map { Array($0.utf8) } ?? JSONWriter.encode(value) }
            applyAt = Self.applyAt(object, now: now)
            comment = object.string("comment")
        }
        let write = try Self.heldWrite(method: method, path: path)
        let command: Command
        do throws(Refusal) { command = try Command(write.route.form(write.parameters, query: query, body: body)) } catch { throw Problem(error) }
        return (command, applyAt, comment)
    }

    /// The route of the write `method` `path` names, when a change request may hold it.
    private static func heldWrite(method: String, path: String) throws(Problem) -> (route: AdminWrites, parameters: PathParameters) {
        func refuse(_ why: String) -> Problem { Problem(.unprocessableContent, "cannot hold this as a change request: \(why)") }
        guard method != "GET", method != "HEAD" else { throw refuse("\(method) is a read; a change request holds a write (PUT, POST or DELETE)") }
        guard path.hasPrefix("/admin/"), !path.hasPrefix("/admin/changes") else {
            throw refuse("a change request holds a write to an admin resource under /admin/ (not /admin/changes)")
        }
        switch AdminWrites.router.match(HTTPMethod(rawValue: method), path) {
        case .found(let pattern, let parameters, _):
            guard let route = AdminWrites.all.first(where: { $0.pattern == pattern && $0.method.rawValue == method }) else { throw refuse("no admin resource at \(path)") }
            return (route, parameters)
        case .methodNotAllowed(_, let allowed):
            throw refuse("\(path) does not take \(method); it takes \(allowed.map(\.rawValue).joined(separator: ", "))")
        case .notFound:
            if path.hasPrefix("/admin/tokens") || path.hasPrefix("/admin/webhooks") {
                throw Problem(.forbidden, "\(method) \(path) needs the admin role; a change request cannot hold it")
            }
            throw refuse("no admin resource at \(path)")
        }
    }

    /// A `PUT /admin/changes/{id}` body: any of `body`, `applyAt`, `comment` (null takes the last two away).
    private static func changeEdit(_ request: HTTPRequest, now: Double) throws(Problem) -> ChangeRequestEdit {
        var edit = ChangeRequestEdit()
        try payload(request, allowed: ["body", "applyAt", "comment"]) { object, collector in
            if let value = object.value("body") { edit.body = value.stringValue.map { Array($0.utf8) } ?? JSONWriter.encode(value) }
            // null takes applyAt or the comment away.
            if let value = object.value("applyAt") { edit.applyAt = value.isNull ? .some(nil) : applyAt(object, now: now).map { .some($0) } }
            if let value = object.value("comment") { edit.comment = value.isNull ? .some(nil) : object.string("comment").map { .some($0) } }
            if object.members.isEmpty { collector.report("nothing to change: give body, applyAt or comment", at: .root, object.location) }
        }
        return edit
    }

    /// `applyAt` of `object`: an RFC 3339 time after `now`.
    private static func applyAt(_ object: JSONObjectReader, now: Double) -> Double? {
        guard let text = object.string("applyAt") else { return nil }
        guard let at = RFC3339.seconds(from: text) else {
            object.report("expected a time such as 2026-12-01T09:00:00Z (RFC 3339), found \"\(text)\"", atMember: "applyAt")
            return nil
        }
        guard at > now else {
            object.report("\(text) is not in the future; leave applyAt out to apply the change once approved", atMember: "applyAt")
            return nil
        }
        return at
    }

    private static func changeRequestNumber(_ id: String) throws(Problem) -> Int {
        guard let number = Int(id), number >= 1, String(number) == id else {
            throw Problem(.badRequest, "change request \"\(id)\" is not a change request number (1, 2, …)")
        }
        return number
    }

    private static func statusFilter(_ request: HTTPRequest) throws(Problem) -> ChangeRequest.Status? {
        guard let text = request.query["status"] else { return nil }
        guard let status = ChangeRequest.Status(rawValue: text) else {
            throw Problem(.badRequest, "unknown status \"\(text)\"; use one of: \(ChangeRequest.Status.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return status
    }

    private static func reviewComment(_ request: HTTPRequest) throws(Problem) -> String? {
        guard !request.body.isEmpty else { return nil }
        var comment: String?
        try payload(request, allowed: ["comment"]) { object, _ in comment = object.string("comment") }
        return comment
    }
}
