import TrellisAnswers
import TrellisJSON
import TrellisStore
import TrellisTargeting

/// The targeting in force, kept as revisions under ``RevisionedKey/targeting`` the way the
/// route table's are: every change of it (an admin write, a changed `targeting.json`) adds the
/// whole document as it is after the change, in the same commit. The documents per entry decide
/// what is in force; this history is what ops list, read and roll back to.
package enum TargetingHistory {
    /// Adds `targeting` as the next revision to `change`, unless it is the revision in force.
    package static func record(
        _ targeting: TargetingConfiguration, over runtime: RuntimeState, origin: RevisionOrigin, copiedFrom: Int? = nil, actor: String,
        now: Double, into change: inout StoreChange
    ) {
        let value = targeting.jsonValue
        let fingerprint = EncodedBody.fingerprint(JSONWriter.encode(value))
        let stored = runtime.targetingHistory
        guard stored?.current.fingerprint != fingerprint else { return }
        let number = (stored?.latestRevision ?? 0) + 1
        change.revisions.append(
            DocumentRevision(
                key: .targeting, number: number, document: JSONWriter.encode(value, style: .pretty),
                fingerprint: fingerprint, origin: origin, copiedFrom: copiedFrom, createdAt: now, createdBy: actor))
        var head = stored?.head ?? DocumentHead(key: .targeting, current: number, version: 0, updatedAt: now, updatedBy: actor)
        head.current = number
        head.staged = nil
        head.stagedBasisPoints = nil
        head.version += 1
        head.updatedAt = now
        head.updatedBy = actor
        change.heads.append(head)
    }

    /// Adds the targeting `runtime` leads to over `baseline` (when it is valid) to `change`.
    package static func record(
        baseline: TargetingConfiguration, runtime: RuntimeState, origin: RevisionOrigin, copiedFrom: Int? = nil, actor: String, now: Double,
        into change: inout StoreChange
    ) {
        var ignored: [DiagnosticsError] = []  // an invalid change is refused by the snapshot build, with its reasons
        guard let targeting = SnapshotBuilder.effectiveTargeting(baseline, runtime, &ignored) else { return }
        record(targeting, over: runtime, origin: origin, copiedFrom: copiedFrom, actor: actor, now: now, into: &change)
    }
}
