import TrellisAnswers
import TrellisJSON
import TrellisRoutes
import TrellisStore
import TrellisStringsJSON
import TrellisTargeting

/// Screen and route table commands: documents published in immutable revisions, with a head naming
/// the revision served (and, for a screen, one staged to a share of users).
extension Runtime {
    package func planScreen(_ command: ScreenCommand, in snapshot: Snapshot, actor: String, ifMatch: VersionCondition?) throws(Refusal) -> PlannedChange {
        let id = command.id
        switch command {
        case .publish(_, let document, let stage): return try planPublish(id, document, stage: stage, in: snapshot, actor: actor, ifMatch: ifMatch)
        case .rollback(_, let number):
            guard let existing = snapshot.runtime.screens[id] else { throw Self.notFound("screen", id, known: snapshot.runtime.screens.keys) }
            return try planRollback(.screen(id), existing, to: number, actor: actor, ifMatch: ifMatch)
        case .stage(_, let percentage):
            return try planHeadChange(id, in: snapshot, actor: actor, ifMatch: ifMatch, action: "screen.stage") { head throws(Refusal) in
                guard head.staged != nil else { throw .conflict("screen \(id) has no staged revision; publish one with ?stage=P") }
                head.stagedBasisPoints = percentage.basisPoints
            }
        case .promote:
            return try planHeadChange(id, in: snapshot, actor: actor, ifMatch: ifMatch, action: "screen.promote") { head throws(Refusal) in
                guard let staged = head.staged else { throw .conflict("screen \(id) has no staged revision to promote") }
                head.current = staged
                head.staged = nil
                head.stagedBasisPoints = nil
            }
        case .abandon:
            return try planHeadChange(id, in: snapshot, actor: actor, ifMatch: ifMatch, action: "screen.abandon") { head throws(Refusal) in
                guard head.staged != nil else { throw .conflict("screen \(id) has no staged revision to abandon") }
                head.staged = nil
                head.stagedBasisPoints = nil
            }
        }
    }

    package func planRouteTable(_ command: RouteTableCommand, in snapshot: Snapshot, actor: String, ifMatch: VersionCondition?) throws(Refusal) -> PlannedChange {
        switch command {
        case .publish(let document):
            let existing = snapshot.runtime.routes
            try checkVersion(ifMatch, current: existing.map { Revisioned.routeTable.version($0.head) })
            let table: RouteTable
            switch control.builder.loader.checkRoutes(document, source: "body", targeting: snapshot.targeting) {
            case .success(let checked): table = checked
            case .failure(let error): throw .invalid("the route table does not validate; nothing was published", error.diagnostics, source: "body")
            }
            let now = state.clock()
            let number = (existing?.latestRevision ?? 0) + 1
            let revision = DocumentRevision(
                key: .routeTable, number: number, document: document, fingerprint: RouteTableEntry.fingerprint(of: document),
                origin: .publish, createdAt: now, createdBy: actor)
            var head = existing?.head ?? DocumentHead(key: .routeTable, current: number, version: 0, updatedAt: now, updatedBy: actor)
            head.current = number
            var plan = planHead(head, existing: existing, revisions: [revision], actor: actor, now: now, action: "routes.publish", resource: .routeTable)
            plan.checkedRoutes = [revision.fingerprint: table]
            return plan
        case .rollback(let number):
            guard let existing = snapshot.runtime.routes else { throw Self.noRouteTable }
            return try planRollback(.routeTable, existing, to: number, actor: actor, ifMatch: ifMatch)
        }
    }

    /// A locale's string table: published whole (checked as a file is, then with every screen by
    /// the snapshot it leads to), or rolled back to an earlier revision.
    package func planStrings(_ command: StringsCommand, in snapshot: Snapshot, actor: String, ifMatch: VersionCondition?) throws(Refusal) -> PlannedChange {
        let locale = command.locale
        let existing = snapshot.runtime.strings[locale]
        switch command {
        case .publish(_, let document):
            guard StringTableFile.isLocaleTag(locale) else {
                throw .malformed(
                    "\"\(locale)\" is not a locale tag as BCP 47 writes it, such as de, de-AT or pt-BR", [], source: nil)
            }
            try checkVersion(ifMatch, current: existing.map { Revisioned.strings(locale).version($0.head) })
            if case .failure(let error) = StringTableFile.decode(document, source: "body") {
                throw .invalid("the string table does not validate; nothing was published", error.diagnostics, source: "body")
            }
            let now = state.clock()
            let number = (existing?.latestRevision ?? 0) + 1
            let revision = DocumentRevision(
                key: .strings(locale), number: number, document: document, fingerprint: EncodedBody.fingerprint(document), origin: .publish,
                createdAt: now, createdBy: actor)
            var head = existing?.head ?? DocumentHead(key: .strings(locale), current: number, version: 0, updatedAt: now, updatedBy: actor)
            head.current = number
            return planHead(head, existing: existing, revisions: [revision], actor: actor, now: now, action: "strings.publish", resource: .strings(locale))
        case .rollback(_, let number):
            guard let existing else { throw Self.notFound("string table", locale, known: snapshot.runtime.strings.keys) }
            return try planRollback(.strings(locale), existing, to: number, actor: actor, ifMatch: ifMatch)
        }
    }

    package static let noRouteTable = Refusal.notFound(
        "there is no route table: add routes.json to the configuration directory, or publish one with PUT /admin/routes")

    /// A new revision of screen `id`, checked as `trellis validate` checks a file, served to
    /// everybody, or to `stage` of users (replacing any staged revision).
    private func planPublish(
        _ id: String, _ document: [UInt8], stage: RolloutPercentage?, in snapshot: Snapshot, actor: String, ifMatch: VersionCondition?
    ) throws(Refusal) -> PlannedChange {
        let existing = snapshot.runtime.screens[id]
        try checkVersion(ifMatch, current: existing.map { Revisioned.screen(id).version($0.head) })
        let screen: CheckedScreen
        switch control.builder.loader.checkedScreen(
            document, source: "body", id: id, targeting: snapshot.targeting, templates: control.currentBaseline.templates) {
        case .success(let checked): screen = checked
        case .failure(let error): throw .invalid("the screen does not validate; nothing was published", error.diagnostics, source: "body")
        }
        let now = state.clock()
        let number = (existing?.latestRevision ?? 0) + 1
        let revision = DocumentRevision(
            key: .screen(id), number: number, document: document, fingerprint: screen.fingerprint, origin: .publish, createdAt: now, createdBy: actor)
        var head = existing?.head ?? DocumentHead(key: .screen(id), current: number, version: 0, updatedAt: now, updatedBy: actor)
        if let stage {
            guard existing != nil else { throw .conflict("screen \(id) is new; publish it whole before staging a revision") }
            head.staged = number
            head.stagedBasisPoints = stage.basisPoints
        } else {
            head.current = number
        }
        let warnings = try publishWarnings(screen, in: snapshot)
        var plan = planHead(
            head, existing: existing, revisions: [revision], actor: actor, now: now, action: stage == nil ? "screen.publish" : "screen.stage",
            resource: .screen(id))
        plan.checked = [revision.fingerprint: screen]
        plan.warnings = warnings
        return plan
    }

    /// A new revision of `resource` with revision `number`'s document, served to everybody (a
    /// staged revision is abandoned).
    package func planRollback(
        _ resource: Revisioned, _ existing: RevisionedDocument, to number: Int, actor: String, ifMatch: VersionCondition?
    ) throws(Refusal) -> PlannedChange {
        try checkVersion(ifMatch, current: resource.version(existing.head))
        let source: DocumentRevision?
        do { source = try control.store.revision(of: resource.key, number: number) } catch {
            throw .storeUnreadable("cannot read revision \(number): \(error)")
        }
        guard let source else { throw .notFound("\(resource.label) has no revision \(number); it has 1 to \(existing.latestRevision)") }
        let now = state.clock()
        let copy = DocumentRevision(
            key: resource.key, number: existing.latestRevision + 1, document: source.document, fingerprint: source.fingerprint,
            origin: .rollback, copiedFrom: number, createdAt: now, createdBy: actor)
        var head = existing.head
        head.current = copy.number
        head.staged = nil
        head.stagedBasisPoints = nil
        return planHead(head, existing: existing, revisions: [copy], actor: actor, now: now, action: resource.action("rollback"), resource: resource)
    }

    /// A change of which revisions of screen `id` are served (stage percentage, promote, abandon).
    private func planHeadChange(
        _ id: String, in snapshot: Snapshot, actor: String, ifMatch: VersionCondition?, action: String,
        _ update: (inout DocumentHead) throws(Refusal) -> Void
    ) throws(Refusal) -> PlannedChange {
        guard let existing = snapshot.runtime.screens[id], SnapshotBuilder.isServed(existing, baseline: control.currentBaseline) else {
            throw Self.notFound("screen", id, known: snapshot.screens.keys)
        }
        try checkVersion(ifMatch, current: Revisioned.screen(id).version(existing.head))
        var head = existing.head
        try update(&head)
        return planHead(head, existing: existing, revisions: [], actor: actor, now: state.clock(), action: action, resource: .screen(id))
    }

    /// The change that makes `head` the resource's head, audited.
    private func planHead(
        _ head: DocumentHead, existing: RevisionedDocument?, revisions: [DocumentRevision], actor: String, now: Double, action: String,
        resource: Revisioned
    ) -> PlannedChange {
        var next = head
        next.version = (existing?.head.version ?? 0) + 1
        next.updatedAt = now
        next.updatedBy = actor
        let audit = AuditDraft(
            at: now, actor: actor, action: action, resource: resource.auditResource,
            before: existing.map { ScreenAudit.encode($0.head) }, after: ScreenAudit.encode(next))
        var plan = PlannedChange(change: StoreChange(revisions: revisions, heads: [next], audit: [audit]))
        if existing == nil { plan.effect = .created }
        return plan
    }
}
