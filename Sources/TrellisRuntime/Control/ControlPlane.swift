import Dispatch
import CoreMetrics
import Metrics
import Logging
import Synchronization
import TrellisJSON
import TrellisRoutes
import TrellisScreens
import TrellisStore

/// Every runtime change goes through here, one at a time, on its own queue: admin writes and
/// configuration reloads. A change is planned from the snapshot in force, the snapshot it leads to
/// is built and checked, the change is committed durably, and only then is the new snapshot
/// published and the change acknowledged. Requests never wait for any of it; they keep reading
/// the snapshot they started with.
public final class ControlPlane: Sendable {
    public let store: any RuntimeStore
    package let state: any RuntimeHost
    package let builder: SnapshotBuilder
    package let logger: Logger
    /// Admin writes and reloads, serially, off the event loops (their responses are sent from here).
    public let writeQueue = DispatchQueue(label: "trellis.control.write")
    /// Admin reads that need the store (revision documents, the audit log), off the event loops.
    public let readQueue = DispatchQueue(label: "trellis.control.read", attributes: .concurrent)
    /// The configuration the current snapshot was built on; replaced only on `writeQueue`.
    private let baseline: Mutex<ConfigBaseline>
    /// A replica's copy of the shared store's rows (ControlPlane+Replication.swift); nil with an
    /// embedded store.
    package let localCopy: SQLiteStore?
    /// The store change the local copy holds everything up to.
    package let copiedSequence: Atomic<Int64>
    /// Whether several replicas share the store, so that changes can come from elsewhere.
    package var isReplicated: Bool { localCopy != nil }
    /// The shared store's clock, read with its newest sequence; nil with an embedded store (whose
    /// clock is this machine's).
    package let databaseClock: DatabaseClock?
    /// Whether timed work (schedules, `applyAt`) may run: the clock it is decided by is known.
    package var knowsTheTime: Bool { databaseClock?.hasReading ?? true }
    private let committed: Counter
    /// Changes refused before the store: invalid, stale `If-Match`, nothing to promote, …
    package let refused: Counter
    private let failed: Counter
    /// How long a durable commit takes (the fsync a write's answer waits for).
    private let commitTime: Timer
    /// How long building and checking the snapshot a change leads to takes (CPU, before the commit).
    private let buildTime: Timer

    /// The configuration the current snapshot was built on.
    package var currentBaseline: ConfigBaseline { baseline.withLock { $0 } }

    /// Loads the configuration, brings the store up to date with it (new or changed screen files
    /// become revisions) and builds the first snapshot.
    package static func start(
        loader: ConfigLoader, store: any RuntimeStore, now: Double
    ) throws(StartError) -> (baseline: ConfigBaseline, snapshot: Snapshot, sequence: Int64) {
        // The store first: a file whose bytes are its stored revision's takes that revision's fingerprint.
        let stored = try load(store)
        let baseline = try loadBaseline(loader, stored: stored)
        let (change, snapshot, _) = try plan(baseline, loader: loader, stored: stored, now: now)
        do { return (baseline, snapshot, try store.commit(change)) } catch { throw .store(error) }
    }

    /// What starting would serve, without writing anything: the configuration and the runtime
    /// state over it, checked together (`trellis validate --data-dir`).
    public static func check(loader: ConfigLoader, store: any RuntimeStore, now: Double) throws(StartError) -> Snapshot {
        let stored = try load(store)
        return try plan(try loadBaseline(loader, stored: stored), loader: loader, stored: stored, now: now).snapshot
    }

    /// - Parameter stored: the store's rows, whose current revisions' fingerprints serve the files
    ///   with the same bytes (``ConfigLoader/loadBaseline(previous:stored:)``).
    package static func loadBaseline(_ loader: ConfigLoader, stored: StoredState? = nil) throws(StartError) -> ConfigBaseline {
        switch loader.loadBaseline(stored: stored) {
        case .success(let loaded): return loaded
        case .failure(let error): throw .config(error)
        }
    }

    package static func load(_ store: any RuntimeStore) throws(StartError) -> StoredState {
        do { return try store.load() } catch { throw .store(error) }
    }

    /// The change that records the configuration's files in `stored`, and the snapshot it leads to.
    package static func plan(
        _ baseline: ConfigBaseline, loader: ConfigLoader, stored: StoredState, now: Double
    ) throws(StartError) -> (change: StoreChange, snapshot: Snapshot, sequence: Int64) {
        let runtime = RuntimeState(stored)
        let change = ConfigReconciler.change(baseline: baseline, runtime: runtime, now: now)
        switch SnapshotBuilder(loader: loader).build(baseline: baseline, runtime: runtime.applying(change), previous: nil) {
        case .failure(let error): throw .config(error)
        case .success(let snapshot): return (change, snapshot, stored.sequence)
        }
    }

    /// - Parameter localCopy: a replica's copy of the shared store's rows, in its data directory,
    ///   to start from while the database is down; nil with an embedded store.
    /// - Parameter appliedSequence: the store change the first snapshot includes.
    package init(
        store: any RuntimeStore, state: any RuntimeHost, loader: ConfigLoader, baseline: ConfigBaseline, logger: Logger,
        localCopy: SQLiteStore? = nil, databaseClock: DatabaseClock? = nil, appliedSequence: Int64 = 0
    ) {
        self.store = store
        self.localCopy = localCopy
        self.databaseClock = databaseClock
        copiedSequence = Atomic((try? localCopy?.latestSequence()) ?? 0)
        state.storeHealth.update { $0.appliedSequence = appliedSequence }
        self.state = state
        self.builder = SnapshotBuilder(loader: loader)
        self.baseline = Mutex(baseline)
        self.logger = logger
        let factory = state.metricsFactory
        func changes(_ result: String) -> Counter {
            Counter(label: "trellis_runtime_changes_total", dimensions: [("result", result)], factory: factory)
        }
        committed = changes("committed")
        refused = changes("refused")
        failed = changes("failed")
        commitTime = Timer(label: "trellis_runtime_commit_seconds", factory: factory)
        buildTime = Timer(label: "trellis_snapshot_build_seconds", factory: factory)
    }

    /// Re-reads the configuration directory; publishes it (with new revisions for changed screen
    /// files) only if it and the runtime values over it are valid. Runs on `writeQueue`.
    package func reload() -> Result<Snapshot, ConfigLoadError> {
        writeQueue.sync {
            builder.loader.loadBaseline(previous: currentBaseline).map { $0.sharingScreens(with: currentBaseline) }.flatMap { fresh in
                var current = state.published.snapshot
                var change = ConfigReconciler.change(baseline: fresh, runtime: current.runtime, now: state.clock())
                var result = commit(change, baseline: fresh, over: current)
                if case .failure(.store(.conflict)) = result, isReplicated {
                    // Another replica recorded the same files first: read its rows, then find what is left.
                    follow()
                    current = state.published.snapshot
                    change = ConfigReconciler.change(baseline: fresh, runtime: current.runtime, now: state.clock())
                    result = commit(change, baseline: fresh, over: current)
                }
                if case .failure(.invalid) = result { refused.increment() }
                return result.mapError { failure in
                    switch failure {
                    case .invalid(let error): error
                    case .store(let error):
                        ConfigLoadError(errors: [DiagnosticsError(source: "runtime store", diagnostics: [
                            Diagnostic(path: .root, location: .unknown, message: error.description)
                        ])])
                    }
                }
            }
        }
    }

    package enum CommitFailure: Error {
        /// The change leads to a snapshot that does not validate; nothing was written.
        case invalid(ConfigLoadError)
        /// The store refused or failed; nothing was written.
        case store(StoreError)
    }

    /// Checks, commits and publishes `change` over `current` — or, with `commit` false, only builds
    /// and checks the snapshot it leads to. Call on `writeQueue` only.
    /// - Parameter planned: the settings of the change's documents as the write planned them.
    /// - Parameter checked: screens the change adds, already decoded and checked, by fingerprint.
    /// - Parameter checkedRoutes: the same for a route table.
    package func commit(
        _ change: StoreChange, baseline fresh: ConfigBaseline? = nil, over current: Snapshot,
        planned: [String: PlannedSettings] = [:], checked: [String: CheckedScreen] = [:],
        checkedRoutes: [String: RouteTable] = [:], commit: Bool = true
    ) -> Result<Snapshot, CommitFailure> {
        dispatchPrecondition(condition: .onQueue(writeQueue))
        let base = fresh ?? baseline.withLock { $0 }
        let candidate: Snapshot
        let building = ContinuousClock.now
        let runtime = current.runtime.applying(change, planned: planned)
        let built =
            fresh == nil
            ? builder.apply(
                SnapshotBuilder.Touched(change), baseline: base, runtime: runtime, over: current, checked: checked,
                checkedRoutes: checkedRoutes)
            : builder.build(baseline: base, runtime: runtime, previous: current, checked: checked, checkedRoutes: checkedRoutes)
        buildTime.record(duration: ContinuousClock.now - building)
        switch built {
        case .failure(let error):
            return .failure(.invalid(error))
        case .success(let built): candidate = built
        }
        guard commit else { return .success(candidate) }
        let started = ContinuousClock.now
        let sequence: Int64
        do {
            sequence = try store.commit(change)
        } catch {
            failed.increment()
            logger.error("runtime change not committed", metadata: ["error": "\(error)"])
            noteStoreFailure(error)
            return .failure(.store(error))
        }
        commitTime.record(duration: ContinuousClock.now - started)
        committed.increment()
        if isReplicated {
            applyOwnCommit(change, sequence: sequence, runtime: candidate.runtime)
        } else {
            state.storeHealth.update { $0.appliedSequence = sequence }
        }
        if let fresh { baseline.withLock { $0 = fresh } }
        state.publish(candidate, sequence: sequence, screens: fresh == nil ? SnapshotBuilder.Touched(change).screens : nil)
        return .success(candidate)
    }
}
