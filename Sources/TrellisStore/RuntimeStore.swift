/// Where the state ops change at run time lives: documents (rollout and experiment settings,
/// tokens, …), revisioned documents (``RevisionedKey``: a screen, the route table, the targeting
/// history) with the revision in force, and the audit log.
///
/// A store knows nothing of what documents mean, nor of HTTP: they are JSON bytes the runtime
/// encodes and validates before they get here. What a store promises:
/// - ``commit(_:)`` is atomic and durable: when it returns, the change survives a crash or power
///   loss; when it throws, nothing of it was written — except ``StoreError/unknownOutcome(_:)``,
///   which says the answer to the commit itself was lost.
/// - Revisions are compare-and-set: a write names the revision it replaces, and a store that finds
///   another one refuses the whole change with ``StoreError/conflict(_:)``.
/// - Revisions and audit entries are immutable once committed.
///
/// - Every committed change gets a sequence number, strictly increasing in commit order, and every
///   document and screen row it writes is stamped with it: a reader that applied everything up to
///   sequence N reads on with ``changes(after:)`` and misses nothing committed before what it saw.
///
/// The embedded implementation is ``SQLiteStore``; the shared one, for several replicas, is
/// ``PostgresStore``. Handlers see only this protocol.
public protocol RuntimeStore: Sendable {
    /// Everything needed to build the served state: every document, and for every revisioned document its head
    /// with the revisions it serves, and the sequence of the newest change included — all read from
    /// one consistent snapshot.
    func load() throws(StoreError) -> StoredState

    /// Writes `change` in one transaction, durably, or nothing of it.
    /// - Returns: the change's sequence number; for an empty change (which writes nothing) the
    ///   latest sequence.
    @discardableResult
    func commit(_ change: StoreChange) throws(StoreError) -> Int64

    /// The current rows of every document and every screen written by a change committed after
    /// `sequence`, read from one consistent snapshot. Its cost follows what changed, not the size of
    /// the store.
    func changes(after sequence: Int64) throws(StoreError) -> StoredChanges

    /// The sequence of the newest committed change (0 for a store that never had one).
    func latestSequence() throws(StoreError) -> Int64

    /// ``latestSequence()``, and the database's own clock as it answered (seconds since 1970) —
    /// the clock every replica of a shared store agrees on; nil for a store in this process, whose
    /// clock is this machine's.
    func latestSequenceAndTime() throws(StoreError) -> (sequence: Int64, databaseTime: Double?)

    /// One revision of a revisioned document, or nil when there is no such revision.
    func revision(of key: RevisionedKey, number: Int) throws(StoreError) -> DocumentRevision?

    /// Every revision of `key`, oldest first, without their documents.
    func revisions(of key: RevisionedKey) throws(StoreError) -> [DocumentRevisionSummary]

    /// Audit entries matching `query`, in the order they were written.
    func audit(_ query: AuditQuery) throws(StoreError) -> [AuditEntry]

    /// A consistent copy of the whole store at `path`, taken while the store stays in use.
    func backup(to path: String) throws(StoreError)

    // MARK: Operations: leases, webhook deliveries, retention

    // None of these take a change sequence: they are not runtime state that replicas follow.

    /// Claims the lease `name` for `holder` until `expiresAt` when nobody holds it, its holder's
    /// time ran out before `now`, or `holder` holds it already (a renewal) — one compare-and-set.
    /// - Returns: whether `holder` holds the lease now.
    func claimLease(_ name: String, holder: String, now: Double, expiresAt: Double) throws(StoreError) -> Bool

    /// Gives up `name` if `holder` holds it, so that another replica may claim it at once.
    func releaseLease(_ name: String, holder: String) throws(StoreError)

    /// The cursor of `webhook`; one is started first, when it has none, at the newest audit entry
    /// written before `startingBefore` (so a new webhook gets what happens from its creation on).
    func webhookCursor(_ webhook: String, startingBefore: Double) throws(StoreError) -> WebhookCursor

    /// Records `attempt` in the delivery log (which keeps the newest ``DeliveryAttempt/logLimit``
    /// attempts of each webhook) and sets the webhook's cursor to `cursor`, in one transaction.
    /// Without an attempt, only the cursor moves (past entries the webhook does not want).
    func recordDelivery(_ attempt: DeliveryAttempt?, cursor: WebhookCursor) throws(StoreError)

    /// Delivery attempts matching `query`, newest first.
    func deliveries(_ query: DeliveryQuery) throws(StoreError) -> [DeliveryAttempt]

    /// Drops the cursors and delivery log of every webhook not in `webhooks` (deleted ones), so
    /// that they no longer hold back audit retention.
    func forgetWebhooks(except webhooks: Set<String>) throws(StoreError)

    /// Removes what `policy` lets go, in one transaction that no commit interleaves with; never a
    /// revision a head serves. Revisions and audit entries are the only rows it removes.
    @discardableResult
    func prune(_ policy: RetentionPolicy) throws(StoreError) -> PruneReport
}

/// Why a store refused or failed.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another writer changed what this change expected to replace; nothing was written.
    case conflict(String)
    /// The store could not be opened, read or written (disk full, permissions, corruption).
    case failure(String)
    /// The store cannot be reached: connection refused or lost, or a timeout, before anything was
    /// committed. A write that gets this was not made.
    case unavailable(String)
    /// The connection was lost (or timed out) after the commit was sent and before its answer came:
    /// the change may or may not be in the store. The next read tells; compare-and-set keeps a
    /// retry from applying it twice.
    case unknownOutcome(String)

    public var description: String {
        switch self {
        case .conflict(let detail): "conflicting change: \(detail)"
        case .failure(let detail): detail
        case .unavailable(let detail): "store unavailable: \(detail)"
        case .unknownOutcome(let detail): "the store's answer to a commit was lost: \(detail)"
        }
    }

    /// Whether the store could not be reached (the change made or not): what readiness reports.
    public var isUnreachable: Bool {
        switch self {
        case .unavailable, .unknownOutcome: true
        case .conflict, .failure: false
        }
    }
}

extension RuntimeStore {
    public func latestSequenceAndTime() throws(StoreError) -> (sequence: Int64, databaseTime: Double?) {
        (try latestSequence(), nil)
    }
}
