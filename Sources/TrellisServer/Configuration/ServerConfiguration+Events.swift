import TrellisRuntime

extension ServerConfiguration {
    /// Apps' events (`POST /v1/events`): how big a batch and an event may be, and how far an
    /// event's time may be from the server's (docs/experiments.md). Named as `limits` are.
    ///
    /// ```json
    /// "events": {"maxBatchEvents": 1000, "maxEventBytes": 8192, "maxClockSkewSeconds": 300, "maxAgeSeconds": 604800}
    /// ```
    public struct Events: Sendable, Equatable {
        /// Events in one batch; a larger batch is answered 413.
        public var maxBatchEvents = 1_000
        /// Bytes of one event's JSON; a larger event is refused (422, with its index).
        public var maxEventBytes = 8_192
        /// How far ahead of the server's clock an event's `timestamp` may be.
        public var maxClockSkewSeconds = 300.0
        /// How old an event may be when it arrives: a week, within which ids deduplicate.
        public var maxAgeSeconds = 604_800.0
        /// How often the exposures the server records are written (what a crash can lose).
        public var exposureFlushSeconds = 1.0
        /// How often guards look at their rollouts and staged revisions (one replica at a time).
        public var guardIntervalSeconds = 10.0
        public init() {}

        var readerLimits: EventBatchReader.Limits {
            var limits = EventBatchReader.Limits()
            limits.maxEvents = maxBatchEvents
            limits.maxEventBytes = maxEventBytes
            limits.maxFutureSeconds = maxClockSkewSeconds
            limits.maxAgeSeconds = maxAgeSeconds
            return limits
        }
    }
}
