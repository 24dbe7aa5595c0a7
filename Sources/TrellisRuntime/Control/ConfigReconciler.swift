import TrellisAnswers
import TrellisJSON
import TrellisStore

/// What the store must record so that it agrees with the configuration directory: a screen file
/// (`routes.json`, a string table) the store has never seen becomes revision 1, a file whose content changed since the store last
/// recorded it becomes the next revision and is served. A file unchanged since leaves whatever
/// ops published in force. Both are audited, by the actor `config`. A targeting in force that
/// differs from the last one recorded (targeting.json changed) becomes the next revision of the
/// targeting history.
package enum ConfigReconciler {
    package static let actor = "config"

    package static func change(baseline: ConfigBaseline, runtime: RuntimeState, now: Double) -> StoreChange {
        var change = StoreChange()
        for (id, file) in baseline.screens.sorted(by: { $0.key < $1.key }) {
            record(file.checked.document, fingerprint: file.fingerprint, as: .screen(id), resource: "screens/\(id)", action: "screen", runtime, now, &change)
        }
        for (locale, bytes) in baseline.stringFiles.sorted(by: { $0.key < $1.key }) {
            record(DocumentBytes(bytes), fingerprint: EncodedBody.fingerprint(bytes), as: .strings(locale), resource: "strings/\(locale)", action: "strings", runtime, now, &change)
        }
        if let routes = baseline.routes {
            record(DocumentBytes(routes.bytes), fingerprint: routes.fingerprint, as: .routeTable, resource: "routes", action: "routes", runtime, now, &change)
        }
        TargetingHistory.record(baseline: baseline.targeting, runtime: runtime, origin: .config, actor: actor, now: now, into: &change)
        return change
    }

    /// Adds the file of `key` as its next revision, served, unless the store already
    /// recorded this very content from the configuration.
    private static func record(
        _ document: DocumentBytes, fingerprint: String, as key: RevisionedKey, resource: String, action: String, _ runtime: RuntimeState,
        _ now: Double, _ change: inout StoreChange
    ) {
        let stored = runtime.revisioned(key)
        guard stored?.latestConfigFingerprint != fingerprint else { return }
        let number = (stored?.latestRevision ?? 0) + 1
        change.revisions.append(
            DocumentRevision(
                key: key, number: number, held: document, fingerprint: fingerprint, origin: .config, createdAt: now, createdBy: actor))
        var head = stored?.head ?? DocumentHead(key: key, current: number, version: 0, updatedAt: now, updatedBy: actor)
        head.current = number
        head.version += 1
        head.updatedAt = now
        head.updatedBy = actor
        change.heads.append(head)
        change.audit.append(
            AuditDraft(
                at: now, actor: actor, action: action + (stored == nil ? ".import" : ".config"), resource: resource,
                before: stored.map { ScreenAudit.encode($0.head) }, after: ScreenAudit.encode(head)))
    }
}

/// The audit form of a screen's head: which revisions are served, not the documents themselves
/// (those are in the revision history).
package enum ScreenAudit {
    package static func encode(_ head: DocumentHead) -> [UInt8] {
        var members: [(String, JSONValue)] = [("revision", .number(head.current))]
        if let staged = head.staged, let basisPoints = head.stagedBasisPoints {
            members.append(("staged", .object([("revision", .number(staged)), ("percentage", .number(Double(basisPoints) / 100))])))
        }
        return JSONWriter.encode(.object(members))
    }
}
