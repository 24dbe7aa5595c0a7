import TrellisHTTP
import TrellisJSON
import TrellisStore
import TrellisTargeting

/// `/admin/targeting`: the whole targeting document in force (targeting.json with every runtime
/// value applied) — read it, replace it, list and read its revisions, roll it back — and the
/// stale-flag report. Every targeting write, whole or per entry, goes through ``planTargeting``.
extension AdminEndpoints {
    static let targetingHistory = RevisionedResource(
        name: RuntimeState.targetingName, auditResource: "targeting", label: "the targeting document", actionPrefix: "targeting",
        tagPrefix: "targeting", representation: { AdminEndpoints.targetingHead(in: $0) })

    func registerTargeting(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/targeting") { request, _, context, actor throws(Problem) in
            let document = state.published.snapshot.targeting.jsonValue
            return Self.resource(document, etag: Self.etag(of: document))
        }
        routes.add(.put, "/admin/targeting", replying: { request, _, context, actor throws(Problem) in
            try replaceTargeting(request, context, actor)
        })
        routes.add(.get, "/admin/targeting/revisions", replying: { request, _, context, actor throws(Problem) in
            revisions(request, context, Self.targetingHistory, head: Self.targetingHeadMembers(in: state.published.snapshot))
        })
        routes.add(.get, "/admin/targeting/revisions/{revision}", replying: { request, parameters, context, actor throws(Problem) in
            try revisionDocument(request, context, Self.targetingHistory, revision: parameters["revision"] ?? "")
        })
        routes.add(.post, "/admin/targeting/rollback", replying: { request, _, context, actor throws(Problem) in
            try rollbackTargeting(request, context, actor)
        })
        routes.add(.get, "/admin/targeting/stale", query: ["days"], replying: { request, _, context, actor throws(Problem) in
            try staleReport(request, context)
        })
    }

    // MARK: - Planning a targeting change

    /// One entry a targeting write sets: the value for `key` of its kind (a nil value hands the
    /// entry back to the configuration).
    struct TargetingWrite {
        var key: String
        var value: PlannedSettings
    }

    /// The change that stores each of `writes` as the next revision of its document and records
    /// the targeting it leads to in the history, audited with `audit`; answered with `render` of
    /// the snapshot it leads to.
    func planTargeting(
        _ writes: [TargetingWrite], in snapshot: Snapshot, actor: String, audit: [AuditDraft], origin: RevisionOrigin = .publish,
        copiedFrom: Int? = nil, invalidStatus: HTTPStatus = .unprocessableContent, status: HTTPStatus = .ok, tagged: Bool = true,
        render: @escaping @Sendable (Snapshot) -> JSONValue
    ) -> Plan {
        let now = state.clock()
        var planned: [String: PlannedSettings] = [:]
        let documents = writes.map { write in
            let kind = write.value.kind
            planned[PlannedSettings.id(kind: kind, key: write.key)] = write.value
            let revision = (snapshot.runtime.document(kind: kind, key: write.key)?.revision ?? 0) + 1
            return StoredDocument(kind: kind, key: write.key, body: write.value.body, revision: revision, updatedAt: now, updatedBy: actor)
        }
        var change = StoreChange(documents: documents, audit: audit)
        TargetingHistory.record(
            baseline: snapshot.baselineTargeting, runtime: snapshot.runtime.applying(change, planned: planned), origin: origin,
            copiedFrom: copiedFrom, actor: actor, now: now, into: &change)
        return Plan(change: change, planned: planned, invalidStatus: invalidStatus) { published in
            let value = render(published)
            return Self.resource(value, etag: tagged ? Self.etag(of: value) : nil, status: status)
        }
    }

    /// The change that retires `kind` `key` (`before`, as in force): 409 naming whatever still
    /// refers to it.
    func planRetirement(_ retired: PlannedSettings, key: String, before: JSONValue, in snapshot: Snapshot, actor: String) -> Plan {
        let kind = retired.kind
        let audit = targetingAudit("\(kind).retire", "\(kind)s/\(key)", actor: actor, before: before, after: nil)
        let name = kind == RuleValue.kind ? "name" : "key"
        return planTargeting(
            [TargetingWrite(key: key, value: retired)], in: snapshot, actor: actor, audit: [audit], invalidStatus: .conflict, tagged: false
        ) { _ in
            .object([(name, .string(key)), ("retired", .bool(true))])
        }
    }

    /// An audit record of one targeting entry, before and after as targeting.json writes them.
    func targetingAudit(_ action: String, _ resource: String, actor: String, before: JSONValue?, after: JSONValue?) -> AuditDraft {
        AuditDraft(
            at: state.clock(), actor: actor, action: action, resource: resource, before: before.map { JSONWriter.encode($0) },
            after: after.map { JSONWriter.encode($0) })
    }

    // MARK: - The whole document

    /// `PUT /admin/targeting`: the body is a whole targeting document, as targeting.json holds it;
    /// every entry that differs from the one in force is stored, in one change.
    private func replaceTargeting(_ request: HTTPRequest, _ context: HTTPRequestContext, _ actor: String) throws(Problem) -> HTTPReply {
        let desired: TargetingConfiguration
        switch TargetingConfiguration.decode(try Self.jsonBody(request), source: "body") {
        case .success(let decoded): desired = decoded
        case .failure(let error):
            throw Problem.invalid("the targeting document does not validate; nothing changed", error.diagnostics, source: "body", status: .unprocessableContent)
        }
        return write(request, context, actor) { snapshot, actor throws(Problem) in
            let current = snapshot.targeting.jsonValue
            try checkPrecondition(request, etag: Self.etag(of: current))
            return planReplacement(desired, in: snapshot, actor: actor, action: "targeting.replace", origin: .publish)
        }
    }

    /// The change that makes `desired` the targeting in force: for each entry that differs, its
    /// configuration's value back (when that is `desired`'s), else `desired`'s definition; each
    /// entry `desired` lacks, retired.
    private func planReplacement(
        _ desired: TargetingConfiguration, in snapshot: Snapshot, actor: String, action: String, origin: RevisionOrigin, copiedFrom: Int? = nil
    ) -> Plan {
        var writes: [TargetingWrite] = []
        func entries<Entry: Equatable>(
            _ inForce: [String: Entry], _ wanted: [String: Entry], _ configured: [String: Entry], kind: String,
            defined: (String, Entry) -> PlannedSettings, retired: PlannedSettings
        ) {
            for key in Set(inForce.keys).union(wanted.keys).sorted() where inForce[key] != wanted[key] {
                if let entry = wanted[key] {
                    let backToConfig = configured[key] == entry && snapshot.runtime.hasOverride(kind: kind, key: key)
                    writes.append(TargetingWrite(key: key, value: backToConfig ? retired.reset : defined(key, entry)))
                } else {
                    writes.append(TargetingWrite(key: key, value: retired))
                }
            }
        }
        let base = snapshot.baselineTargeting
        let now = snapshot.targeting
        entries(now.rules, desired.rules, base.rules, kind: RuleValue.kind,
            defined: { .rule(RuleValue(form: .defined($1))) }, retired: .rule(RuleValue(form: .retired)))
        entries(now.rollouts, desired.rollouts, base.rollouts, kind: RolloutValue.kind,
            defined: { key, rollout in
                // A whole document has no schedules: the one a rollout has stays.
                .rollout(RolloutValue(form: .defined(rollout), schedule: snapshot.runtime.rollouts[key]?.settings?.schedule ?? []))
            }, retired: .rollout(RolloutValue(form: .retired)))
        entries(now.experiments, desired.experiments, base.experiments, kind: ExperimentValue.kind,
            defined: { .experiment(ExperimentValue(form: .defined($1))) }, retired: .experiment(ExperimentValue(form: .retired)))
        let audit = targetingAudit(action, "targeting", actor: actor, before: now.jsonValue, after: desired.jsonValue)
        guard !writes.isEmpty else {
            // Already in force: nothing to store, nothing to audit.
            return Plan(change: StoreChange()) { published in Self.resource(published.targeting.jsonValue, etag: Self.etag(of: published.targeting.jsonValue)) }
        }
        return planTargeting(
            writes, in: snapshot, actor: actor, audit: [audit], origin: origin, copiedFrom: copiedFrom, invalidStatus: .conflict
        ) { $0.targeting.jsonValue }
    }

    /// `POST /admin/targeting/rollback` `{"revision": n}`: revision n of the history becomes the
    /// targeting in force again (as the next revision, which says what it copies).
    private func rollbackTargeting(_ request: HTTPRequest, _ context: HTTPRequestContext, _ actor: String) throws(Problem) -> HTTPReply {
        var target = 0
        try Self.payload(request, allowed: ["revision"]) { object, _ in
            target = object.integer("revision", in: 1...Int(Int32.max), required: true) ?? 0
        }
        let number = target
        return write(request, context, actor) { snapshot, actor throws(Problem) in
            try checkPrecondition(request, etag: Self.etag(of: snapshot.targeting.jsonValue))
            let revision: ScreenRevision?
            do { revision = try control.store.revision(screen: RuntimeState.targetingName, number: number) } catch {
                throw Problem(.serviceUnavailable, "cannot read revision \(number): \(error)")
            }
            guard let revision else {
                let latest = snapshot.runtime.targetingHistory?.latestRevision ?? 0
                throw Problem(.notFound, "the targeting document has no revision \(number); it has 1 to \(latest)")
            }
            let desired: TargetingConfiguration
            switch TargetingConfiguration.decode(revision.document, source: "targeting revision \(number)") {
            case .success(let decoded): desired = decoded
            case .failure(let error):
                throw Problem.invalid("revision \(number) no longer reads as a targeting document", error.diagnostics, status: .conflict)
            }
            return planReplacement(desired, in: snapshot, actor: actor, action: "targeting.rollback", origin: .rollback, copiedFrom: number)
        }
    }

    /// The targeting history's head as ops see it.
    static func targetingHead(in snapshot: Snapshot) -> JSONValue? { .object(targetingHeadMembers(in: snapshot)) }

    static func targetingHeadMembers(in snapshot: Snapshot) -> [(String, JSONValue)] {
        guard let stored = snapshot.runtime.targetingHistory else {
            return [("revision", .number(0)), ("latestRevision", .number(0)), ("updatedAt", .null), ("updatedBy", .null)]
        }
        return [
            ("revision", .number(stored.head.current)), ("origin", .string(stored.current.origin.rawValue)),
            ("latestRevision", .number(stored.latestRevision)), ("updatedAt", .string(RFC3339.string(fromSeconds: stored.head.updatedAt))),
            ("updatedBy", .string(stored.head.updatedBy)),
        ]
    }
}

extension PlannedSettings {
    /// The value of the same kind that hands the entry back to the configuration.
    var reset: PlannedSettings {
        switch self {
        case .rollout: .rollout(nil)
        case .experiment: .experiment(nil)
        case .rule: .rule(nil)
        }
    }
}
