import Dispatch
import Logging
import Synchronization
import TrellisStore

/// Following a store that several replicas share: every replica applies the changes the others
/// commit, keeps a copy of the rows in its data directory, and starts from that copy while the
/// database is down.
extension ControlPlane {
    /// Brings the published snapshot up to the store: reads the rows every change after the one
    /// applied last wrote (and after the one the local copy holds), applies those this snapshot
    /// does not have yet — a replica's own writes come back too and are skipped — and copies them
    /// to the data directory. A change that does not validate against this replica's configuration
    /// (replicas deployed with different files) is not applied, and nothing after it: the replica
    /// keeps serving what it has, and its staleness shows it. Call on `writeQueue`.
    package func follow() {
        dispatchPrecondition(condition: .onQueue(writeQueue))
        let health = state.storeHealth
        let applied = health.current.appliedSequence
        let from = min(applied, copiedSequence.load(ordering: .relaxed))
        let asked = state.clock()
        let changes: StoredChanges
        do { changes = try store.changes(after: from) } catch {
            noteStoreFailure(error)
            return
        }
        guard changes.sequence >= from else { return restart(from: changes.sequence) }
        let current = state.published.snapshot
        var runtime = current.runtime
        var touched = SnapshotBuilder.Touched()
        for document in changes.documents where (runtime.document(kind: document.kind, key: document.key)?.revision ?? 0) < document.revision {
            runtime.record(document)
            touched.documents = true
        }
        for screen in changes.revisioned where (runtime.revisioned(screen.head.key)?.head.version ?? 0) < screen.head.version {
            runtime.setRevisioned(screen)
            touched.note(screen.head.key)
        }
        if touched != SnapshotBuilder.Touched() {
            switch builder.apply(touched, baseline: currentBaseline, runtime: runtime, over: current) {
            case .success(let snapshot):
                state.publish(snapshot, sequence: changes.sequence, screens: touched.screens)
            case .failure(let error):
                let problem = "store change \(changes.sequence) does not validate with this replica's configuration: \(error)"
                if health.current.problem != problem { logger.error("not following the store", metadata: ["problem": "\(problem)"]) }
                health.update { $0.problem = problem }
                return
            }
        }
        if changes.sequence > copiedSequence.load(ordering: .relaxed) { copyLocally(changes) }
        noteUpToDate(at: asked, sequence: max(applied, changes.sequence))
    }

    /// Writes `changes` to the local copy; a failure is logged (the copy only serves a start while
    /// the database is down) and the next change's rows are read from where the copy stopped.
    private func copyLocally(_ changes: StoredChanges) {
        guard let localCopy else { return }
        do {
            try localCopy.mirror(changes)
            copiedSequence.store(changes.sequence, ordering: .relaxed)
        } catch {
            logger.error("the local copy of the store was not updated", metadata: ["error": "\(error)"])
        }
    }

    /// The store answered, and the snapshot holds every change up to `sequence`, its newest as of `time`.
    private func noteUpToDate(at time: Double, sequence: Int64) {
        state.storeHealth.update { report in
            if !report.reachable { logger.info("runtime store reachable again") }
            report.appliedSequence = sequence
            report.reachable = true
            report.problem = nil
            report.upToDateAt = time
            report.clockAheadSeconds = databaseClock?.localAheadSeconds
        }
    }

    /// After this replica's own commit: when it directly follows the change applied last, the new
    /// snapshot holds exactly the store's state at `sequence`, so the applied sequence moves on and
    /// the local copy takes the change's rows as written — no read back, and the commit's own
    /// notification finds nothing newer. When another replica committed in between, `follow()`
    /// reads what came between (and this change's rows, skipped as already applied).
    package func applyOwnCommit(_ change: StoreChange, sequence: Int64, runtime: RuntimeState) {
        dispatchPrecondition(condition: .onQueue(writeQueue))
        let applied = state.storeHealth.current.appliedSequence
        guard sequence == applied + 1, copiedSequence.load(ordering: .relaxed) == applied else {
            writeQueue.async { self.follow() }
            return
        }
        noteUpToDate(at: state.clock(), sequence: sequence)
        let screens = change.heads.compactMap { runtime.revisioned($0.key) }
        copyLocally(StoredChanges(sequence: sequence, documents: change.documents, revisioned: screens))
    }

    /// Asks the store for its newest change (one cheap query): follows when there is a newer one
    /// than the snapshot has, else notes that the snapshot is the newest. Call on `writeQueue`.
    package func checkStore() {
        dispatchPrecondition(condition: .onQueue(writeQueue))
        let asked = state.clock()
        do {
            let latest = if let databaseClock { try databaseClock.latestSequence(of: store) } else { try store.latestSequence() }
            if latest != state.storeHealth.current.appliedSequence { return follow() }
            noteUpToDate(at: asked, sequence: latest)
        } catch {
            noteStoreFailure(error)
        }
    }

    /// Records that the store did not answer (or refused), for readiness and the next attempt.
    package func noteStoreFailure(_ error: StoreError) {
        guard error.isUnreachable else { return }
        state.storeHealth.update { report in
            if report.reachable { logger.warning("runtime store unreachable; serving the last snapshot", metadata: ["error": "\(error)"]) }
            report.reachable = false
            report.problem = error.description
        }
    }

    /// The store went back (restored from a backup, or another database): load it whole.
    private func restart(from sequence: Int64) {
        logger.warning("the runtime store is behind this replica (restored?); loading it whole", metadata: ["sequence": "\(sequence)"])
        do {
            let stored = try store.load()
            switch builder.build(baseline: currentBaseline, runtime: RuntimeState(stored), previous: state.published.snapshot) {
            case .success(let snapshot):
                state.publish(snapshot, sequence: stored.sequence, screens: nil)
            case .failure(let error):
                state.storeHealth.update { $0.problem = "the store's state does not validate here: \(error)" }
                return
            }
            try localCopy?.mirror(replacingWith: stored)
            copiedSequence.store(stored.sequence, ordering: .relaxed)
            state.storeHealth.update { $0.appliedSequence = stored.sequence }
        } catch {
            noteStoreFailure(error)
        }
    }

    /// How a replica starts: from the shared store when it answers (recording the configuration's
    /// files there — several replicas starting together race to, and the losers read the winner's
    /// rows and find nothing left to record); else from its local copy; else from the
    /// configuration alone. A store that refuses (a newer schema) stops the start.
    package static func startReplica(
        loader: ConfigLoader, store: any RuntimeStore, localCopy: SQLiteStore, now: Double, logger: Logger
    ) throws(StartError) -> (baseline: ConfigBaseline, snapshot: Snapshot, origin: StoreHealth.Origin, sequence: Int64) {
        // The store first, as a single server's start reads it: a file whose bytes are its current
        // revision's takes that revision's fingerprint.
        var reading = Result { () throws(StoreError) in try store.load() }
        let baseline = try loadBaseline(loader, stored: try? reading.get())
        var attempts = 0
        recording: while true {
            attempts += 1
            let stored: StoredState
            do throws(StoreError) {
                stored = try reading.get()
            } catch .unavailable(let detail) {
                logger.warning("runtime store unreachable at start", metadata: ["error": "\(detail)"])
                break recording
            } catch {
                throw .store(error)
            }
            let (change, snapshot, loaded) = try plan(baseline, loader: loader, stored: stored, now: now)
            do throws(StoreError) {
                let sequence = try store.commit(change)
                // The snapshot includes exactly the loaded rows and this change: the applied sequence
                // may only skip to the change's when nothing came between.
                return (baseline, snapshot, .store, change.isEmpty || sequence != loaded + 1 ? loaded : sequence)
            } catch .conflict(let detail) where attempts < 5 {
                logger.info("another replica recorded the configuration first; reading again", metadata: ["detail": "\(detail)"])
                reading = Result { () throws(StoreError) in try store.load() }
            } catch let error where error.isUnreachable {
                // Made or not, the configuration's files are recorded by the next start or reload.
                logger.warning("runtime store unreachable at start", metadata: ["error": "\(error)"])
                break recording
            } catch {
                throw .store(error)
            }
        }
        let copy: StoredState
        do { copy = try localCopy.load() } catch { throw .store(error) }
        let origin: StoreHealth.Origin = copy.documents.isEmpty && copy.revisioned.isEmpty ? .configuration : .localCopy
        switch SnapshotBuilder(loader: loader).build(baseline: baseline, runtime: RuntimeState(copy), previous: nil) {
        case .failure(let error): throw .config(error)
        case .success(let snapshot):
            logger.warning(
                origin == .localCopy
                    ? "serving this replica's local copy of the store until it answers"
                    : "serving the configuration directory alone until the store answers (no local copy yet)",
                metadata: ["sequence": "\(copy.sequence)"])
            return (baseline, snapshot, origin, copy.sequence)
        }
    }
}
