import Synchronization

/// What this process knows of its runtime store, for `/readyz` and `/metrics`: which store, whether
/// it answers, which change the served snapshot includes, and since when that is known to be the
/// newest. Written by the control plane and the replica's follower; read by readiness and metrics
/// (never by a screen request).
public final class StoreHealth: Sendable {
    /// Where the state served at start came from.
    public enum Origin: String, Sendable {
        /// The store itself.
        case store
        /// The copy this replica keeps in its data directory: the database was down at start.
        case localCopy = "local copy"
        /// Nothing but the configuration directory: the database was down and there was no copy.
        case configuration
    }

    public struct Report: Sendable, Equatable {
        /// `sqlite` or `postgres`.
        public var kind: String
        public var origin: Origin = .store
        /// Whether the last statement sent to the store was answered.
        public var reachable = true
        /// The sequence of the newest store change the served snapshot includes.
        public var appliedSequence: Int64 = 0
        /// When (the server's clock) the replica last knew it had every change: an embedded store
        /// always does; a shared one when its newest sequence was the applied one.
        public var upToDateAt: Double
        /// Why the last attempt to reach or follow the store failed; nil once it works again.
        public var problem: String?
        /// How far this machine's clock is ahead of the shared database's, in seconds (negative:
        /// behind), as last read; nil for an embedded store, or before the first reading.
        public var clockAheadSeconds: Double?
    }

    private let report: Mutex<Report>
    private let clock: @Sendable () -> Double

    package init(kind: String, clock: @escaping @Sendable () -> Double) {
        self.clock = clock
        report = Mutex(Report(kind: kind, upToDateAt: clock()))
    }

    public var current: Report { report.withLock { $0 } }

    package func update(_ body: (inout Report) -> Void) { report.withLock { body(&$0) } }

    /// Seconds since the replica last knew it served the newest change; 0 for an embedded store.
    public var stalenessSeconds: Double {
        let report = current
        return report.kind == "sqlite" ? 0 : max(0, clock() - report.upToDateAt)
    }
}
