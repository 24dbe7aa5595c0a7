import TrellisJSON
import TrellisStore

/// What the store must record so that it agrees with the configuration directory: a screen file
/// the store has never seen becomes revision 1, a file whose content changed since the store last
/// recorded it becomes the next revision and is served. A file unchanged since leaves whatever
/// ops published in force. Both are audited, by the actor `config`.
enum ConfigReconciler {
    static let actor = "config"

    static func change(baseline: ConfigBaseline, runtime: RuntimeState, now: Double) -> StoreChange {
        var change = StoreChange()
        for (id, file) in baseline.screens.sorted(by: { $0.key < $1.key }) {
            let stored = runtime.screens[id]
            guard stored?.latestConfigFingerprint != file.fingerprint else { continue }
            let number = (stored?.latestRevision ?? 0) + 1
            change.revisions.append(
                ScreenRevision(
                    screen: id, number: number, document: file.bytes, fingerprint: file.fingerprint, origin: .config,
                    createdAt: now, createdBy: actor))
            var head = stored?.head ?? ScreenHead(screen: id, current: number, version: 0, updatedAt: now, updatedBy: actor)
            head.current = number
            head.version += 1
            head.updatedAt = now
            head.updatedBy = actor
            change.heads.append(head)
            change.audit.append(
                AuditDraft(
                    at: now, actor: actor, action: stored == nil ? "screen.import" : "screen.config", resource: "screens/\(id)",
                    before: stored.map { ScreenAudit.encode($0.head) }, after: ScreenAudit.encode(head)))
        }
        return change
    }
}

/// The audit form of a screen's head: which revisions are served, not the documents themselves
/// (those are in the revision history).
enum ScreenAudit {
    static func encode(_ head: ScreenHead) -> [UInt8] {
        var members: [(String, JSONValue)] = [("revision", .number(head.current))]
        if let staged = head.staged, let basisPoints = head.stagedBasisPoints {
            members.append(("staged", .object([("revision", .number(staged)), ("percentage", .number(Double(basisPoints) / 100))])))
        }
        return JSONWriter.encode(.object(members))
    }
}
