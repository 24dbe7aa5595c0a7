import Dispatch
import Logging
import TrellisHTTP
import TrellisJSON
import TrellisStore
import TrellisTargeting

/// `/admin/changes`: change requests. A write to a resource that needs approval is held (202)
/// as a request bound to the version of its target it was made against; another token with the
/// `approve` role — never its author — approves or rejects it. Approval makes the write, as its
/// author, only if the target has not moved since (else the request is stale, 409), in the same
/// commit as the approval. A request may carry `applyAt`: approved, it waits for its time.
/// Editing a request takes its approvals back. Everything is audited (`change.*`).
extension AdminEndpoints {
    func registerChanges(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/changes", query: ["status"]) { request, _, context, actor throws(Problem) in
            let status = try Self.statusFilter(request)
            let list = Self.changeRequests(in: state.published.snapshot).filter { status == nil || $0.status == status }
            return Self.resource(.object([("changes", .array(list.map(\.jsonValue)))]))
        }
        routes.add(.get, "/admin/changes/{id}") { request, parameters, context, actor throws(Problem) in
            let change = try Self.changeRequest(parameters["id"] ?? "", in: state.published.snapshot)
            return Self.resource(change.jsonValue, etag: Self.etag(of: change.jsonValue))
        }
        routes.add(.post, "/admin/changes", replying: { request, _, context, actor throws(Problem) in
            let proposal = try ChangeProposalBody(request, clock: state.clock(), configuration: desk.configuration).proposal
            return propose(proposal, ifMatch: HTTPHeaders(), actor: actor, request, context)
        })
        routes.add(.put, "/admin/changes/{id}", replying: { request, parameters, context, actor throws(Problem) in
            let edit = try ChangeEditBody(request, clock: state.clock())
            return decide(parameters["id"] ?? "", request, context) { change, snapshot throws(Problem) in
                try editChange(change, edit, actor: actor, request, context)
            }
        })
        routes.add(.delete, "/admin/changes/{id}", replying: { request, parameters, context, actor throws(Problem) in
            decide(parameters["id"] ?? "", request, context) { change, _ throws(Problem) in
                guard change.author == actor else { throw Problem(.forbidden, "only its author, \(change.author), can withdraw change request \(change.id)") }
                try Self.checkOpen(change, "withdrawn")
                var cancelled = change
                cancelled.status = .cancelled
                return try record(cancelled, from: change, action: "change.cancel", actor: actor)
            }
        })
        routes.add(.post, "/admin/changes/{id}/approve", role: .approve, replying: { request, parameters, context, actor throws(Problem) in
            let comment = try Self.reviewComment(request)
            return decide(parameters["id"] ?? "", request, context) { change, _ throws(Problem) in
                try approve(change, comment: comment, actor: actor, context)
            }
        })
        routes.add(.post, "/admin/changes/{id}/reject", role: .approve, replying: { request, parameters, context, actor throws(Problem) in
            let comment = try Self.reviewComment(request)
            return decide(parameters["id"] ?? "", request, context) { change, _ throws(Problem) in
                try Self.checkReviewer(change, actor)
                try Self.checkOpen(change, "rejected")  // an approved one waiting for its time too
                var rejected = change
                rejected.reviews.append(.init(by: actor, at: state.clock(), approved: false, comment: comment))
                rejected.status = .rejected
                return try record(rejected, from: change, action: "change.reject", actor: actor)
            }
        })
    }

    // MARK: - Proposing

    /// Holds `proposal` as a new change request (202): the write is checked first — planned and
    /// built as if made now, not committed — so one that could not apply is refused at once with
    /// its own answer (422 with every problem, 404, 409, 412).
    func propose(
        _ proposal: ChangeDesk.Proposal, ifMatch headers: HTTPHeaders, actor: String, _ request: HTTPRequest, _ context: HTTPRequestContext
    ) -> HTTPReply {
        .deferred(on: control.writeQueue, for: request, context) { () throws(Problem) in
            if let problem = desk.writeProblem(method: proposal.method, path: proposal.path) {
                throw Problem(.unprocessableContent, "cannot hold this as a change request: \(problem)")
            }
            let snapshot = state.published.snapshot
            let now = state.clock()
            let bound = currentETag(ChangeRequest.targetPath(of: proposal.path), context)
            if headers.ifMatchMatches(bound) == false {
                throw Problem(.preconditionFailed, "If-Match does not name the current version (\(bound ?? "none")); it changed since you read it. Nothing was held; read it again and retry")
            }
            var change = ChangeRequest(
                id: (Self.changeRequests(in: snapshot).map(\.id).max() ?? 0) + 1, method: proposal.method, path: proposal.path,
                query: proposal.query, body: proposal.body, boundETag: bound, author: actor, createdAt: now, updatedAt: now,
                applyAt: proposal.applyAt, comment: proposal.comment, status: proposal.needsApproval ? .pending : .approved)
            let checked = control.riding(.checkOnly) { desk.replay(replayRequest(change), context: context) }
            guard checked.status.code < 300 else { return checked }
            if !proposal.needsApproval, (change.applyAt ?? now) <= now {
                // Nothing to wait for: made now, recorded as applied.
                change.applyAt = nil
                return try apply(change, action: "change.apply", actor: actor, context)
            }
            var answer = try record(change, from: nil, action: "change.create", actor: actor, status: .accepted)
            answer.headers.add(name: "Location", value: "/admin/changes/\(change.id)")
            return answer
        }
    }

    /// The entity tag of the resource at `path` now, as its `GET` gives it; nil when it does not
    /// exist or has no version of its own (a collection).
    private func currentETag(_ path: String, _ context: HTTPRequestContext) -> String? {
        let read = desk.replay(HTTPRequest(method: .get, target: path, path: path), context: context)
        return read.status == .ok ? read.headers["ETag"] : nil
    }

    /// The request a change request replays: its write as made, bound to its target's version,
    /// made as its author.
    private func replayRequest(_ change: ChangeRequest) -> HTTPRequest {
        var headers: HTTPHeaders = ["Content-Type": "application/json", ChangeDesk.authorHeader: change.author]
        if let bound = change.boundETag { headers.add(name: "If-Match", value: bound) }
        let query = change.query.map { "\(PercentEncoding.encode($0.name))=\(PercentEncoding.encode($0.value))" }
        return HTTPRequest(
            method: HTTPMethod(rawValue: change.method), target: change.path + (query.isEmpty ? "" : "?" + query.joined(separator: "&")),
            path: change.path, query: HTTPQuery(change.query.map { ($0.name, $0.value) }), headers: headers, body: change.body)
    }

    // MARK: - Deciding

    /// Runs `decision` on the write queue with change request `id` as in force.
    private func decide(
        _ id: String, _ request: HTTPRequest, _ context: HTTPRequestContext,
        _ decision: @escaping @Sendable (ChangeRequest, Snapshot) throws(Problem) -> HTTPResponse
    ) -> HTTPReply {
        .deferred(on: control.writeQueue, for: request, context) { () throws(Problem) in
            let snapshot = state.published.snapshot
            let change = try Self.changeRequest(id, in: snapshot)
            if request.method != .get { try checkPrecondition(request, etag: Self.etag(of: change.jsonValue)) }
            return try decision(change, snapshot)
        }
    }

    private func approve(_ change: ChangeRequest, comment: String?, actor: String, _ context: HTTPRequestContext) throws(Problem) -> HTTPResponse {
        try Self.checkReviewer(change, actor)
        guard change.status == .pending else { throw Self.notOpen(change, "approved") }
        let now = state.clock()
        var approved = change
        approved.reviews.append(.init(by: actor, at: now, approved: true, comment: comment))
        approved.updatedAt = now
        if let applyAt = change.applyAt, applyAt > now {
            approved.status = .approved
            return try record(approved, from: change, action: "change.approve", actor: actor)
        }
        return try apply(approved, stored: change, action: "change.approve", actor: actor, context)
    }

    /// Makes the write of `change`, as its author, in the same commit as `change` recorded as
    /// applied (and audited as `action` by `actor`) — if its target is still at the version it is
    /// bound to; else records it stale (409). A write refused now is recorded as failed, with
    /// the write's own answer.
    /// - Parameter stored: the request as the store holds it, when `change` adds to it (an approval).
    func apply(
        _ change: ChangeRequest, stored: ChangeRequest? = nil, action: String, actor: String, _ context: HTTPRequestContext
    ) throws(Problem) -> HTTPResponse {
        let stored = stored ?? change
        let current = currentETag(change.targetPath, context)
        guard current == change.boundETag else { return try recordStale(change, stored: stored, current: current, actor: actor) }
        var applied = change
        applied.status = .applied
        applied.updatedAt = state.clock()
        let extra = StoreChange(
            documents: [document(applied, in: state.published.snapshot, actor: actor)],
            audit: [changeAudit(action, before: stored, after: applied, actor: actor)])
        let answer = control.riding(.attach(extra)) { desk.replay(replayRequest(applied), context: context) }
        if answer.status.code < 300 {
            return Self.resource(applied.jsonValue, etag: Self.etag(of: applied.jsonValue))
        }
        if answer.status == .preconditionFailed {
            return try recordStale(change, stored: stored, current: currentETag(change.targetPath, context), actor: actor)
        }
        var failed = change
        failed.status = .failed
        failed.outcome = "the write was refused with \(answer.status.code): " + (Self.detail(of: answer) ?? answer.status.reasonPhrase)
        _ = try record(failed, from: stored, action: "change.fail", actor: actor)
        return answer
    }

    private func recordStale(_ change: ChangeRequest, stored: ChangeRequest, current: String?, actor: String) throws(Problem) -> HTTPResponse {
        var stale = change
        stale.status = .stale
        stale.outcome = "its target \(change.targetPath) changed since the request was made (\(change.boundETag ?? "none") → \(current ?? "none"))"
        _ = try record(stale, from: stored, action: "change.stale", actor: actor)
        throw Problem(
            .conflict,
            "change request \(change.id) is stale: \(stale.outcome!). Nothing changed; make a new request against the current version")
    }

    /// Commits `change` as the next revision of its document, audited, and answers with it.
    func record(
        _ change: ChangeRequest, from old: ChangeRequest?, action: String, actor: String, status: HTTPStatus = .ok
    ) throws(Problem) -> HTTPResponse {
        var change = change
        if old != nil { change.updatedAt = state.clock() }
        let snapshot = state.published.snapshot
        let plan = Plan(
            change: StoreChange(documents: [document(change, in: snapshot, actor: actor)], audit: [changeAudit(action, before: old, after: change, actor: actor)])
        ) { [change] _ in Self.resource(change.jsonValue, etag: Self.etag(of: change.jsonValue), status: status) }
        return try publish(plan, over: snapshot)
    }

    private func document(_ change: ChangeRequest, in snapshot: Snapshot, actor: String) -> StoredDocument {
        let revision = (snapshot.runtime.changeRequests[change.key]?.document.revision ?? 0) + 1
        return StoredDocument(
            kind: ChangeRequest.kind, key: change.key, body: JSONWriter.encode(change.jsonValue), revision: revision,
            updatedAt: change.updatedAt, updatedBy: actor)
    }

    private func changeAudit(_ action: String, before: ChangeRequest?, after: ChangeRequest, actor: String) -> AuditDraft {
        AuditDraft(
            at: state.clock(), actor: actor, action: action, resource: "changes/\(after.id)", before: before.map { JSONWriter.encode($0.jsonValue) },
            after: JSONWriter.encode(after.jsonValue))
    }

    /// `PUT /admin/changes/{id}`: its author changes the body, `applyAt` or the comment; every
    /// approval is taken back and the request is bound to its target's version now.
    private func editChange(
        _ change: ChangeRequest, _ edit: ChangeEditBody, actor: String, _ request: HTTPRequest, _ context: HTTPRequestContext
    ) throws(Problem) -> HTTPResponse {
        guard change.author == actor else { throw Problem(.forbidden, "only its author, \(change.author), can edit change request \(change.id)") }
        try Self.checkOpen(change, "edited")
        var edited = change
        if let body = edit.body { edited.body = body }
        if let applyAt = edit.applyAt { edited.applyAt = applyAt }
        if let comment = edit.comment { edited.comment = comment }
        edited.reviews = []
        edited.status = desk.configuration.needsApproval(ChangeDesk.resource(of: change.path)) ? .pending : .approved
        edited.boundETag = currentETag(change.targetPath, context)
        edited.updatedAt = state.clock()
        let checked = control.riding(.checkOnly) { desk.replay(replayRequest(edited), context: context) }
        guard checked.status.code < 300 else { return checked }
        return try record(edited, from: change, action: "change.edit", actor: actor)
    }

    // MARK: - Due work

    /// Applies what is due: each rollout's schedule steps whose time has come, and approved change
    /// requests whose `applyAt` has come, as the `scheduler`. Runs on the write queue (every
    /// second, from the scheduler's timer). With several replicas each step is claimed in the
    /// store: the document's compare-and-set lets one replica make it, the others find it made.
    func runDueWork() {
        dispatchPrecondition(condition: .onQueue(control.writeQueue))
        let now = state.clock()
        let context = HTTPRequestContext(requestID: "scheduler", remoteAddress: "-", logger: control.logger)
        for key in Self.dueRollouts(in: state.published.snapshot, now: now) {
            do throws(Problem) {
                let snapshot = state.published.snapshot
                guard let plan = planScheduledSteps(key, in: snapshot, now: now) else { continue }
                _ = try publish(plan, over: snapshot)
            } catch {
                noteSchedulerProblem(error, "rollout \(key)")
            }
        }
        for change in Self.changeRequests(in: state.published.snapshot) where change.status == .approved && (change.applyAt ?? 0) <= now {
            do throws(Problem) {
                _ = try apply(change, action: "change.apply", actor: Self.schedulerActor, context)
            } catch {
                noteSchedulerProblem(error, "change request \(change.id)")
            }
        }
    }

    /// The actor schedule steps and scheduled change requests are audited as.
    static let schedulerActor = "scheduler"

    private func noteSchedulerProblem(_ problem: Problem, _ what: String) {
        if problem.status == .conflict, control.isReplicated { control.follow() }  // another replica made it first
        control.logger.warning("scheduled change not made", metadata: ["what": "\(what)", "problem": "\(problem.detail)"])
    }

    /// Rollouts with a schedule step due at `now`.
    static func dueRollouts(in snapshot: Snapshot, now: Double) -> [String] {
        snapshot.runtime.rollouts.compactMap { key, value in
            guard let first = value.settings?.schedule.first, first.at <= now, snapshot.targeting.rollouts[key] != nil else { return nil }
            return key
        }.sorted()
    }

    // MARK: - Reading

    static func changeRequests(in snapshot: Snapshot) -> [ChangeRequest] {
        snapshot.runtime.changeRequests.values.compactMap(\.settings).sorted { $0.id < $1.id }
    }

    static func changeRequest(_ id: String, in snapshot: Snapshot) throws(Problem) -> ChangeRequest {
        guard let number = Int(id), number >= 1, String(number) == id else {
            throw Problem(.badRequest, "change request \"\(id)\" is not a change request number (1, 2, …)")
        }
        guard let change = snapshot.runtime.changeRequests[ChangeRequest.key(number)]?.settings else {
            throw Problem(.notFound, "no change request \(number)")
        }
        return change
    }

    private static func statusFilter(_ request: HTTPRequest) throws(Problem) -> ChangeRequest.Status? {
        guard let text = request.query["status"] else { return nil }
        guard let status = ChangeRequest.Status(rawValue: text) else {
            throw Problem(.badRequest, "unknown status \"\(text)\"; use one of: \(ChangeRequest.Status.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return status
    }

    private static func checkReviewer(_ change: ChangeRequest, _ actor: String) throws(Problem) {
        guard change.author != actor else {
            throw Problem(.forbidden, "\(actor) made change request \(change.id); another token with the approve role must review it")
        }
    }

    private static func checkOpen(_ change: ChangeRequest, _ verb: String) throws(Problem) {
        guard !change.status.isFinal else { throw notOpen(change, verb) }
    }

    private static func notOpen(_ change: ChangeRequest, _ verb: String) -> Problem {
        Problem(.conflict, "change request \(change.id) is \(change.status.rawValue); it can no longer be \(verb)")
    }

    private static func reviewComment(_ request: HTTPRequest) throws(Problem) -> String? {
        guard !request.body.isEmpty else { return nil }
        var comment: String?
        try payload(request, allowed: ["comment"]) { object, _ in comment = object.string("comment") }
        return comment
    }

    /// The `detail` of a problem answer.
    static func detail(of response: HTTPResponse) -> String? {
        (try? JSONParser.parse(response.body))?.objectValue?.first { $0.key == "detail" }?.value.stringValue
    }
}

/// A `POST /admin/changes` body: `method`, `path`, optionally `query` (name → value), `body`
/// (the write's JSON body), `applyAt` (RFC 3339, in the future) and `comment`.
struct ChangeProposalBody {
    var proposal: ChangeDesk.Proposal

    init(_ request: HTTPRequest, clock now: Double, configuration: ServerConfiguration.Admin) throws(Problem) {
        var proposal = ChangeDesk.Proposal(method: "", path: "", query: [], body: [], applyAt: nil, comment: nil, needsApproval: false)
        try AdminEndpoints.payload(request, allowed: ["method", "path", "query", "body", "applyAt", "comment"]) { object, collector in
            proposal.method = object.string("method", required: true) ?? ""
            proposal.path = object.string("path", required: true) ?? ""
            if let value = object.value("query") {
                if let members = value.objectValue, members.allSatisfy({ $0.value.stringValue != nil }) {
                    proposal.query = members.map { ChangeRequest.QueryItem(name: $0.key, value: $0.value.stringValue!) }
                } else {
                    object.report("expected an object of parameter → string value", atMember: "query")
                }
            }
            if let value = object.value("body") { proposal.body = value.stringValue.map { Array($0.utf8) } ?? JSONWriter.encode(value) }
            proposal.applyAt = ChangeEditBody.applyAt(object, now: now)
            proposal.comment = object.string("comment")
        }
        proposal.needsApproval = configuration.needsApproval(ChangeDesk.resource(of: proposal.path))
        self.proposal = proposal
    }
}

/// A `PUT /admin/changes/{id}` body: any of `body`, `applyAt`, `comment` (null takes the last two away).
struct ChangeEditBody: Sendable {
    var body: [UInt8]?
    var applyAt: Double??
    var comment: String??

    init(_ request: HTTPRequest, clock now: Double) throws(Problem) {
        var edit = (body: [UInt8]?.none, applyAt: Double??.none, comment: String??.none)
        try AdminEndpoints.payload(request, allowed: ["body", "applyAt", "comment"]) { object, collector in
            if let value = object.value("body") { edit.body = value.stringValue.map { Array($0.utf8) } ?? JSONWriter.encode(value) }
            // null takes applyAt or the comment away.
            if let value = object.value("applyAt") { edit.applyAt = value.isNull ? .some(nil) : Self.applyAt(object, now: now).map { .some($0) } }
            if let value = object.value("comment") { edit.comment = value.isNull ? .some(nil) : object.string("comment").map { .some($0) } }
            if object.members.isEmpty { collector.report("nothing to change: give body, applyAt or comment", at: .root, object.location) }
        }
        (body, applyAt, comment) = edit
    }

    /// `applyAt` of `object`: an RFC 3339 time after `now`.
    static func applyAt(_ object: JSONObjectReader, now: Double) -> Double? {
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
}
