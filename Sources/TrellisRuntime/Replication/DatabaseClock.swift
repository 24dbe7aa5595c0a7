import Synchronization
import TrellisStore

/// The clock every replica of a shared store agrees on: this machine's, corrected by how far it is
/// from the database's. Schedules, `applyAt`, leases, retention and token expiry are decided by it,
/// so a replica whose clock is minutes off applies nothing early or late.
///
/// The offset is read with the store's newest sequence (each poll of the follower, and once at
/// start): the database's time against the midpoint of the round trip, as NTP does, so its error
/// is at most half the round trip. Until the first reading the offset is 0 and
/// ``hasReading`` is false: timed work waits for it.
package final class DatabaseClock: Sendable {
    private let local: @Sendable () -> Double
    /// Microseconds the database's clock is ahead of this machine's; `Int64.min` before a reading.
    private let offset = Atomic<Int64>(.min)

    /// - Parameter local: this machine's clock, seconds since 1970 (tests give their own).
    package init(local: @escaping @Sendable () -> Double) {
        self.local = local
    }

    /// Seconds since 1970 by the database's clock. One atomic load beside the local clock: fit for
    /// the request path.
    package func now() -> Double {
        let offset = offset.load(ordering: .relaxed)
        return local() + (offset == .min ? 0 : Double(offset) / 1e6)
    }

    /// Whether an offset has been read: until then ``now()`` is this machine's clock.
    package var hasReading: Bool { offset.load(ordering: .relaxed) != .min }

    /// How far this machine's clock is from the database's, in seconds: positive when it is ahead;
    /// nil before the first reading.
    package var localAheadSeconds: Double? {
        let offset = offset.load(ordering: .relaxed)
        return offset == .min ? nil : -Double(offset) / 1e6
    }

    /// Reads the store's newest sequence with the database's clock, and notes the offset.
    package func latestSequence(of store: any RuntimeStore) throws(StoreError) -> Int64 {
        let sent = local()
        let latest = try store.latestSequenceAndTime()
        if let databaseTime = latest.databaseTime { note(databaseTime: databaseTime, sent: sent, answered: local()) }
        return latest.sequence
    }

    /// Notes a reading of the database's clock taken between `sent` and `answered` (this machine's clock).
    package func note(databaseTime: Double, sent: Double, answered: Double) {
        let midpoint = sent + (answered - sent) / 2
        offset.store(Int64(((databaseTime - midpoint) * 1e6).rounded()), ordering: .relaxed)
    }
}
