import TrellisHTTP
import TrellisJSON
import TrellisScreens
import TrellisStore
import TrellisTargeting

/// `/admin/screens`: publish revisions (at once or staged to a share of users), promote or abandon
/// a staged one, roll back, and read the history.
extension AdminEndpoints {
    func registerScreens(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/screens") { request, _, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let list = snapshot.runtime.screens.keys.sorted().compactMap { Self.screenHead($0, in: snapshot) }
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
        routes.add(.put, "/admin/screens/{id}", query: nil, replying: { request, parameters, context, actor throws(Problem) in
            try publish(request, context, actor, id: parameters["id"] ?? "")
        })
        routes.add(.get, "/admin/screens/{id}/revisions", replying: { request, parameters, context, actor throws(Problem) in
            try revisions(request, context, id: parameters["id"] ?? "")
        })
        routes.add(.get, "/admin/screens/{id}/revisions/{revision}", replying: { request, parameters, context, actor throws(Problem) in
            try revisionDocument(request, context, id: parameters["id"] ?? "", revision: parameters["revision"] ?? "")
        })
        routes.add(.post, "/admin/screens/{id}/rollback", replying: { request, parameters, context, actor throws(Problem) in
            try rollback(request, context, actor, id: parameters["id"] ?? "")
        })
        routes.add(.put, "/admin/screens/{id}/stage", replying: { request, parameters, context, actor throws(Problem) in
            let percentage = try Self.stagePercentage(request)
            return try changeHead(request, context, actor, id: parameters["id"] ?? "", action: "screen.stage") { head throws(Problem) in
                guard head.staged != nil else { throw Problem(.conflict, "screen \(head.screen) has no staged revision; publish one with ?stage=P") }
                head.stagedBasisPoints = percentage.basisPoints
            }
        })
        routes.add(.post, "/admin/screens/{id}/promote", replying: { request, parameters, context, actor throws(Problem) in
            try changeHead(request, context, actor, id: parameters["id"] ?? "", action: "screen.promote") { head throws(Problem) in
                guard let staged = head.staged else { throw Problem(.conflict, "screen \(head.screen) has no staged revision to promote") }
                head.current = staged
                head.staged = nil
                head.stagedBasisPoints = nil
            }
        })
        routes.add(.post, "/admin/screens/{id}/abandon", replying: { request, parameters, context, actor throws(Problem) in
            try changeHead(request, context, actor, id: parameters["id"] ?? "", action: "screen.abandon") { head throws(Problem) in
                guard head.staged != nil else { throw Problem(.conflict, "screen \(head.screen) has no staged revision to abandon") }
                head.staged = nil
                head.stagedBasisPoints = nil
            }
        })
    }

    // MARK: - Writes

    /// `PUT /admin/screens/{id}[?stage=P]`: the body is the authored screen, checked as
    /// `trellis validate` checks a file; it becomes a new revision, served to everybody, or with
    /// `stage` to P percent of users (replacing any staged revision).
    private func publish(_ request: HTTPRequest, _ context: HTTPRequestContext, _ actor: String, id: String) throws(Problem) -> HTTPReply {
        let query = try QueryParameters(request.query, allowed: ["stage"])
        var stage: RolloutPercentage?
        if let text = query["stage"] {
            do { stage = try RolloutPercentage(parsing: text) } catch {
                throw Problem(.badRequest, "query parameter \"stage\": \(error.reason)")
            }
        }
        let staging = stage
        try Self.checkMediaType(request)
        let body = request.body
        return write(request, context, actor) { snapshot, actor throws(Problem) in
            let existing = snapshot.runtime.screens[id]
            try checkPrecondition(request, etag: existing.map { RevisionedResource.screen(id).etag($0.head) })
            let screen: CheckedScreen
            switch control.builder.loader.checkedScreen(
                body, source: "body", id: id, targeting: snapshot.targeting, templates: control.currentBaseline.templates) {
            case .success(let checked): screen = checked
            case .failure(let error):
                throw Problem.invalid("the screen does not validate; nothing was published", error.diagnostics, source: "body", status: .unprocessableContent)
            }
            let now = state.clock()
            let number = (existing?.latestRevision ?? 0) + 1
            let revision = ScreenRevision(
                screen: id, number: number, document: body, fingerprint: screen.fingerprint, origin: .publish,
                createdAt: now, createdBy: actor)
            var head = existing?.head ?? ScreenHead(screen: id, current: number, version: 0, updatedAt: now, updatedBy: actor)
            if let stage = staging {
                guard existing != nil else { throw Problem(.conflict, "screen \(id) is new; publish it whole before staging a revision") }
                head.staged = number
                head.stagedBasisPoints = stage.basisPoints
            } else {
                head.current = number
            }
            var plan = planHead(
                head, existing: existing, revisions: [revision], actor: actor, now: now, action: staging == nil ? "screen.publish" : "screen.stage",
                resource: .screen(id))
            plan.checked = [revision.fingerprint: screen]
            return plan
        }
    }

    /// `POST /admin/screens/{id}/rollback {"revision": N}`: a new revision with revision N's
    /// document, served to everybody (a staged revision is abandoned).
    private func rollback(_ request: HTTPRequest, _ context: HTTPRequestContext, _ actor: String, id: String) throws(Problem) -> HTTPReply {
        try rollback(request, context, actor, .screen(id)) { snapshot throws(Problem) in
            guard let existing = snapshot.runtime.screens[id] else { throw Self.notFound("screen", id, known: snapshot.runtime.screens.keys) }
            return existing
        }
    }

    /// A rollback of `resource`, whose stored state `existing` finds in the snapshot in force.
    func rollback(
        _ request: HTTPRequest, _ context: HTTPRequestContext, _ actor: String, _ resource: RevisionedResource,
        existing find: @escaping @Sendable (Snapshot) throws(Problem) -> StoredScreen
    ) throws(Problem) -> HTTPReply {
        var target = 0
        try Self.payload(request, allowed: ["revision"]) { object, _ in
            target = object.integer("revision", in: 1...Int(Int32.max), required: true) ?? 0
        }
        let number = target
        return write(request, context, actor) { snapshot, actor throws(Problem) in
            let existing = try find(snapshot)
            try checkPrecondition(request, etag: resource.etag(existing.head))
            let source: ScreenRevision?
            do { source = try control.store.revision(screen: resource.name, number: number) } catch {
                throw Problem(.serviceUnavailable, "cannot read revision \(number): \(error)")
            }
            guard let source else { throw Problem(.notFound, "\(resource.label) has no revision \(number); it has 1 to \(existing.latestRevision)") }
            let now = state.clock()
            let copy = ScreenRevision(
                screen: resource.name, number: existing.latestRevision + 1, document: source.document, fingerprint: source.fingerprint,
                origin: .rollback, copiedFrom: number, createdAt: now, createdBy: actor)
            var head = existing.head
            head.current = copy.number
            head.staged = nil
            head.stagedBasisPoints = nil
            return planHead(head, existing: existing, revisions: [copy], actor: actor, now: now, action: resource.action("rollback"), resource: resource)
        }
    }

    /// A change of which revisions are served (stage percentage, promote, abandon).
    private func changeHead(
        _ request: HTTPRequest, _ context: HTTPRequestContext, _ actor: String, id: String, action: String,
        _ update: @escaping @Sendable (inout ScreenHead) throws(Problem) -> Void
    ) throws(Problem) -> HTTPReply {
        if action != "screen.stage" { try Self.checkMediaType(request) }
        return write(request, context, actor) { snapshot, actor throws(Problem) in
            guard let existing = snapshot.runtime.screens[id], SnapshotBuilder.isServed(existing, baseline: control.currentBaseline) else {
                throw Self.notFound("screen", id, known: snapshot.screens.keys)
            }
            try checkPrecondition(request, etag: RevisionedResource.screen(id).etag(existing.head))
            var head = existing.head
            try update(&head)
            return planHead(head, existing: existing, revisions: [], actor: actor, now: state.clock(), action: action, resource: .screen(id))
        }
    }

    /// The change that makes `head` the resource's head, audited, answered with the new head.
    func planHead(
        _ head: ScreenHead, existing: StoredScreen?, revisions: [ScreenRevision], actor: String, now: Double, action: String,
        resource: RevisionedResource
    ) -> Plan {
        var next = head
        next.version = (existing?.head.version ?? 0) + 1
        next.updatedAt = now
        next.updatedBy = actor
        let audit = AuditDraft(
            at: now, actor: actor, action: action, resource: resource.auditResource,
            before: existing.map { ScreenAudit.encode($0.head) }, after: ScreenAudit.encode(next))
        let created = existing == nil
        return Plan(change: StoreChange(revisions: revisions, heads: [next], audit: [audit])) { published in
            guard let stored = published.runtime.revisioned(resource.name), let value = resource.representation(published) else {
                return Self.resource(.null)
            }
            return Self.resource(value, etag: resource.etag(stored.head), status: created ? .created : .ok)
        }
    }

    static func stagePercentage(_ request: HTTPRequest) throws(Problem) -> RolloutPercentage {
        var percentage: RolloutPercentage?
        try payload(request, allowed: ["percentage"]) { object, collector in
            if let value = object.value("percentage", required: true) {
                percentage = RolloutPercentage.decode(value, at: .root.appending("percentage"), collector)
            }
        }
        return percentage ?? .none
    }

    // MARK: - Reads from the store

    private func revisions(_ request: HTTPRequest, _ context: HTTPRequestContext, id: String) throws(Problem) -> HTTPReply {
        let (head, _) = try Self.existingScreen(id, in: state.published.snapshot)
        return revisions(request, context, .screen(id), head: head)
    }

    /// Every revision of `resource`, newest last, after its head.
    func revisions(
        _ request: HTTPRequest, _ context: HTTPRequestContext, _ resource: RevisionedResource, head: [(String, JSONValue)]
    ) -> HTTPReply {
        let store = control.store
        return .deferred(on: control.readQueue, for: request, context) { () throws(Problem) in
            let list: [ScreenRevisionSummary]
            do { list = try store.revisions(screen: resource.name) } catch { throw Problem(.serviceUnavailable, "cannot read revisions: \(error)") }
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
        _ request: HTTPRequest, _ context: HTTPRequestContext, _ resource: RevisionedResource, revision text: String
    ) throws(Problem) -> HTTPReply {
        guard let number = Int(text), number >= 1, String(number) == text else {
            throw Problem(.badRequest, "revision \"\(text)\" is not a revision number (1, 2, …)")
        }
        let store = control.store
        return .deferred(on: control.readQueue, for: request, context) { () throws(Problem) in
            let revision: ScreenRevision?
            do { revision = try store.revision(screen: resource.name, number: number) } catch {
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

    /// Screen `id`'s head members (``screenHeadMembers(_:in:)``) and ETag; 404 when ops have none.
    static func existingScreen(_ id: String, in snapshot: Snapshot) throws(Problem) -> ([(String, JSONValue)], String) {
        guard let stored = snapshot.runtime.screens[id], let value = screenHeadMembers(id, in: snapshot) else {
            throw notFound("screen", id, known: snapshot.runtime.screens.keys)
        }
        return (value, RevisionedResource.screen(id).etag(stored.head))
    }

    /// A screen's head as ops see it: the revision served, a staged one, who changed it and when.
    static func screenHead(_ id: String, in snapshot: Snapshot) -> JSONValue? { screenHeadMembers(id, in: snapshot).map(JSONValue.object) }

    /// The members of ``screenHead(_:in:)``, for answers that add their own.
    static func screenHeadMembers(_ id: String, in snapshot: Snapshot) -> [(String, JSONValue)]? {
        guard let stored = snapshot.runtime.screens[id] else { return nil }
        let head = stored.head
        var staged: JSONValue = .null
        if let number = head.staged, let basisPoints = head.stagedBasisPoints {
            staged = .object([
                ("revision", .number(number)), ("percentage", .number(Double(basisPoints) / 100)),
                ("origin", .string(stored.staged?.origin.rawValue ?? "publish")),
            ])
        }
        return [
            ("id", .string(id)), ("revision", .number(head.current)),
            ("source", .string(stored.current.origin == .config ? "config" : "runtime")),
            ("origin", .string(stored.current.origin.rawValue)),
            ("served", .bool(snapshot.screens[id] != nil)), ("staged", staged), ("latestRevision", .number(stored.latestRevision)),
            ("updatedAt", .string(RFC3339.string(fromSeconds: head.updatedAt))), ("updatedBy", .string(head.updatedBy)),
        ]
    }
}

/// A document ops publish in immutable revisions with a head naming the one served: a screen, or
/// the route table. The store keeps both alike, by ``name``.
struct RevisionedResource: Sendable {
    /// The name the store keeps its revisions under.
    let name: String
    /// Its name in the audit log: `screens/home`, `routes`.
    let auditResource: String
    /// How messages name it: `screen home`, `the route table`.
    let label: String
    /// What audit actions start with: `screen`, `routes`.
    let actionPrefix: String
    /// What its entity tags start with: `screen-home`, `routes`.
    let tagPrefix: String
    /// Its head as ops see it, from a snapshot.
    let representation: @Sendable (Snapshot) -> JSONValue?

    static func screen(_ id: String) -> RevisionedResource {
        RevisionedResource(
            name: id, auditResource: "screens/\(id)", label: "screen \(id)", actionPrefix: "screen", tagPrefix: "screen-\(id)",
            representation: { AdminEndpoints.screenHead(id, in: $0) })
    }

    func action(_ verb: String) -> String { actionPrefix + "." + verb }

    /// The head's version as an entity tag, for If-Match.
    func etag(_ head: ScreenHead) -> String { "\"\(tagPrefix)-v\(head.version)\"" }
}
