#if canImport(Glibc)
import Glibc
#endif

/// The clock of the event loops' deadlines, idle lists and request durations: `CLOCK_MONOTONIC`
/// in nanoseconds. The standard library's `ContinuousClock.Instant` is resilient — its layout
/// unknown to this module — so every copy of a struct holding one (a connection's state machine,
/// a request in flight) went through its value witnesses; this instant is a plain integer.
public struct LoopClock: Clock {
    public struct Instant: InstantProtocol, Sendable {
        /// Nanoseconds since an arbitrary start, the same for the whole process.
        public var nanoseconds: Int64

        public static var now: Instant {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return Instant(nanoseconds: Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec))
        }

        public func advanced(by duration: Duration) -> Instant {
            Instant(nanoseconds: nanoseconds &+ Self.nanoseconds(of: duration))
        }

        public func duration(to other: Instant) -> Duration { .nanoseconds(other.nanoseconds &- nanoseconds) }

        public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

        public static func - (a: Instant, b: Instant) -> Duration { b.duration(to: a) }

        /// `duration` in whole nanoseconds, saturating at the ends of `Int64`: a timeout of
        /// centuries is a deadline that never comes, not one that wrapped into the past.
        static func nanoseconds(of duration: Duration) -> Int64 {
            let (seconds, attoseconds) = duration.components
            let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            guard !overflow else { return seconds < 0 ? .min : .max }
            let (sum, overflowed) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
            return overflowed ? (whole < 0 ? .min : .max) : sum
        }
    }

    public init() {}

    public var now: Instant { .now }
    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await Task.sleep(for: now.duration(to: deadline))
    }
}
