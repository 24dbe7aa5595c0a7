import TrellisStore

extension RuntimeState {
    /// The state after `change` commits: computed before committing, so that the snapshot it leads
    /// to is built and checked first and an invalid change never reaches the store.
    /// - Parameter planned: the values of the change's documents by ``PlannedSettings/id(kind:key:)``,
    ///   as the write planned them; a document without is decoded.
    package func applying(_ change: StoreChange, planned: [String: PlannedSettings] = [:]) -> RuntimeState {
        var next = self
        for document in change.documents { next.record(document, planned: planned[PlannedSettings.id(kind: document.kind, key: document.key)]) }
        // By key: a start that imports 10,000 screen files has as many heads and revisions.
        let revisionsByKey = Dictionary(grouping: change.revisions, by: \.key)
        for head in change.heads {
            let old = revisioned(head.key)
            let added = revisionsByKey[head.key] ?? []
            func revision(_ number: Int) -> DocumentRevision? {
                added.first { $0.number == number } ?? [old?.current, old?.staged].compactMap { $0 }.first { $0.number == number }
            }
            guard let current = revision(head.current) else { continue }  // the store refuses such a head too
            let newestConfig = added.filter { $0.origin == .config }.max { $0.number < $1.number }
            next.setRevisioned(RevisionedDocument(
                head: head, current: current, staged: head.staged.flatMap(revision),
                latestRevision: max(old?.latestRevision ?? 0, added.map(\.number).max() ?? 0),
                latestConfigFingerprint: newestConfig?.fingerprint ?? old?.latestConfigFingerprint))
        }
        return next
    }
}
