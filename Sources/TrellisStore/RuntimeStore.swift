/// Where the state ops change at run time lives: rollout and experiment settings, screen
/// revisions and which one is served, and the audit log.
///
/// A store knows nothing of screens, targeting or HTTP: documents are JSON bytes the server
/// encodes and validates before they get here. What a store promises:
/// - ``commit(_:)`` is atomic and durable: when it returns, the change survives a crash or power
///   loss; when it throws, nothing of it was written.
/// - Revisions are compare-and-set: a write names the revision it replaces, and a store that finds
///   another one refuses the whole change with ``StoreError/conflict(_:)``.
/// - Screen revisions and audit entries are immutable once committed.
///
/// The embedded implementation is ``SQLiteStore``; a shared one (PostgreSQL) implements the same
/// protocol so that handlers never change.
public protocol RuntimeStore: Sendable {
    /// Everything needed to build the served state: every document, and for every screen its head
    /// with the revisions it serves.
    func load() throws(StoreError) -> StoredState

    /// Writes `change` in one transaction, durably, or nothing of it.
    func commit(_ change: StoreChange) throws(StoreError)

    /// One revision of one screen, or nil when there is no such revision.
    func revision(screen: String, number: Int) throws(StoreError) -> ScreenRevision?

    /// Every revision of `screen`, oldest first, without their documents.
    func revisions(screen: String) throws(StoreError) -> [ScreenRevisionSummary]

    /// Audit entries matching `query`, in the order they were written.
    func audit(_ query: AuditQuery) throws(StoreError) -> [AuditEntry]

    /// A consistent copy of the whole store at `path`, taken while the store stays in use.
    func backup(to path: String) throws(StoreError)
}

/// Why a store refused or failed.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another writer changed what this change expected to replace; nothing was written.
    case conflict(String)
    /// The store could not be opened, read or written (disk full, permissions, corruption).
    case failure(String)

    public var description: String {
        switch self {
        case .conflict(let detail): "conflicting change: \(detail)"
        case .failure(let detail): detail
        }
    }
}
