import Atomics
import Dispatch
import Metrics
import Synchronization
import TrellisStore

/// The exposures the server records where it decided: a screen, route or OFREP answer that
/// assigned a user a variant of an experiment with `"exposures": "server"`, or served them a screen
/// that has a staged revision (which revision they got: a guard's two arms), records it here, and
/// a timer hands what gathered to the ingest every ``flushInterval``.
///
/// The request path takes no lock for a user already recorded: a direct-mapped table of
/// fingerprints of (experiment, variant, user) answers "seen" with one atomic load. Only a first
/// sighting appends to the buffer, under an uncontended lock. Races and evictions only ever
/// record an exposure twice, which the store folds (it keeps the earliest time).
///
/// What a crash loses: the exposures gathered since the last flush (at most ``flushInterval``),
/// and the table with them — so each of those users is recorded again, later, on their next
/// request. A user who never returns is lost.
package final class ServerExposures: Sendable {
    /// Fingerprints of recently recorded exposures; 0 is an empty slot.
    private let seen: [ManagedAtomic<UInt64>]
    private let buffer = Mutex<[Exposure]>([])
    /// Exposures waiting beyond this are dropped (and counted): memory stays bounded while the
    /// store is down. A dropped user is recorded again on their next request.
    package let maxBuffered: Int
    package let flushInterval: DispatchTimeInterval
    private let ingest: EventIngest
    private let timer = Mutex<(any DispatchSourceTimer)?>(nil)
    private let dropped: Counter

    package init(
        ingest: EventIngest, slots: Int = 1 << 16, maxBuffered: Int = 100_000, flushInterval: DispatchTimeInterval = .seconds(1),
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.ingest = ingest
        self.maxBuffered = maxBuffered
        self.flushInterval = flushInterval
        seen = (0..<max(1, slots)).map { _ in ManagedAtomic<UInt64>(0) }
        dropped = Counter(label: "trellis_server_exposures_dropped_total", factory: metricsFactory)
    }

    /// Records that `user` was assigned `variant` of `experiment` at `now`, unless recently recorded.
    package func record(experiment: String, variant: String, user: String, dimensions: ExposureDimensions, now: Double) {
        record(.experiment(experiment), variant: variant, user: user, dimensions: dimensions, now: now)
    }

    /// Records that `user` was shown `variant` of `subject` (an experiment's variant, a screen's
    /// revision) at `now`, unless recently recorded.
    package func record(_ subject: ExposureSubject, variant: String, user: String, dimensions: ExposureDimensions, now: Double) {
        var hasher = Hasher()
        hasher.combine(subject)
        hasher.combine(variant)
        hasher.combine(user)
        let fingerprint = UInt64(bitPattern: Int64(hasher.finalize())) | 1
        let slot = seen[Int((fingerprint >> 1) % UInt64(seen.count))]
        guard slot.load(ordering: .relaxed) != fingerprint else { return }
        slot.store(fingerprint, ordering: .relaxed)
        let exposure = Exposure(subject: subject, user: user, variant: variant, at: now, dimensions: dimensions, source: .server)
        let taken = buffer.withLock { buffer in
            guard buffer.count < maxBuffered else { return false }
            buffer.append(exposure)
            return true
        }
        if !taken {
            slot.store(0, ordering: .relaxed)
            dropped.increment()
        }
    }

    /// Hands what gathered to the ingest and waits until it is durable (or failed, when the
    /// exposures go back to wait for the next flush).
    @discardableResult
    package func flush() -> Int {
        let taken = buffer.withLock { buffer in
            defer { buffer = [] }
            return buffer
        }
        guard !taken.isEmpty else { return 0 }
        if case .failure = ingest.write(EventBatch(exposures: taken)) {
            buffer.withLock { buffer in
                let room = max(0, maxBuffered - buffer.count)
                buffer.insert(contentsOf: taken.prefix(room), at: 0)
                if taken.count > room { dropped.increment(by: Int64(taken.count - room)) }
            }
            return 0
        }
        return taken.count
    }

    package func start() {
        timer.withLock { timer in
            guard timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "trellis.exposures.flush"))
            source.schedule(deadline: .now() + flushInterval, repeating: flushInterval, leeway: .milliseconds(50))
            source.setEventHandler { [weak self] in self?.flush() }
            source.activate()
            timer = source
        }
    }

    /// Stops the timer and flushes what is left (a graceful shutdown loses nothing).
    package func stop() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
        flush()
    }
}
