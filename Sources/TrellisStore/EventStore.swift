/// Where apps' events are kept: a separate SQLite file (``SQLiteEventStore``, `events.sqlite` in
/// the data directory, so that ingest never contends with the runtime store's commits or bloats its
/// backups) or tables in the shared PostgreSQL database on connections of its own
/// (``PostgresEventStore``).
///
/// Two kinds of rows: *tracked events* (``TrackedEvent``: a name such as `purchase`, with an
/// optional value) and *exposures* (``Exposure``: this user was shown that variant of that
/// subject). Experiment results are computed from them by SQL in the store (``statistics(_:)``), so
/// every replica over one database gets the same answer.
///
/// Every call may be made from any thread. Writes are serialized: each store has one writing
/// connection, and ``append(_:)`` waits for the one before it. Ingest is therefore meant to be
/// group-committed — many requests' events in one batch — rather than one append per request.
public protocol EventStore: Sendable {
    /// Writes `batch` in one transaction, durably (the SQLite WAL fsynced, the PostgreSQL
    /// transaction committed) before returning, or nothing of it.
    ///
    /// - An event whose id is stored already, or came earlier in the batch, is skipped: events are
    ///   deduplicated by the client's id for as long as the event is kept (``pruneEvents(before:)``).
    /// - An exposure of a (subject, user, variant) stored already keeps the earlier of the two
    ///   times, with the dimensions and source that came with that time; within a batch likewise.
    /// - Throws: ``StoreError/failure(_:)`` for a batch with a time or value that is not finite
    ///   (nothing of it written), or when the store cannot write; ``StoreError/unavailable(_:)``
    ///   when PostgreSQL cannot be reached.
    @discardableResult
    func append(_ batch: EventBatch) throws(StoreError) -> AppendReport

    /// The per-variant sufficient statistics of one metric over one subject's exposed users,
    /// read from one consistent snapshot (see ``MetricQuery`` and ``MetricStatistics``).
    /// - Throws: ``StoreError/failure(_:)`` for a query ``MetricQuery/validate()`` refuses.
    func statistics(_ query: MetricQuery) throws(StoreError) -> MetricStatistics

    /// ``statistics(_:)`` of several queries of one subject, `asOf` and dimension (several metrics
    /// of one experiment), in one scan of its users and their events, in the order given.
    /// - Throws: ``StoreError/failure(_:)`` for an empty list, queries that differ in subject, asOf
    ///   or dimension, or one ``MetricQuery/validate()`` refuses.
    func statistics(_ queries: [MetricQuery]) throws(StoreError) -> [MetricStatistics]

    /// Users first exposed per day (UTC) and variant, at or before `asOf`, for the users-over-time
    /// chart: the users ``statistics(_:)`` counts (those exposed to one variant only), each on the
    /// day of their first exposure, ordered by day then variant. Summed over the days, each
    /// variant's count is its `users` in ``statistics(_:)`` with the same `asOf`.
    func exposuresPerDay(_ subject: ExposureSubject, asOf: Double) throws(StoreError) -> [ExposureDay]

    /// Deletes tracked events whose ``TrackedEvent/at`` is before `cutoff`, in one transaction;
    /// exposures are kept. A deleted event's id is forgotten: the same id appended again is stored.
    /// - Returns: how many events were deleted.
    @discardableResult
    func pruneEvents(before cutoff: Double) throws(StoreError) -> Int

    /// Tracked events in (``TrackedEvent/receivedAt``, ``TrackedEvent/id``) order after `cursor`
    /// (from the first when nil), at most `limit`: the export a warehouse reads. Reading on with
    /// the last event's ``TrackedEvent/cursor`` visits every stored event once, provided events are
    /// appended with `receivedAt` not before those already read.
    func events(after cursor: EventCursor?, limit: Int) throws(StoreError) -> [TrackedEvent]

    /// Exposures of `subject` in (user, variant) order after `cursor` (from the first when nil), at
    /// most `limit`, for export. Paging by key, not time: an exposure whose time moves earlier
    /// keeps its place, so a walk over the pages sees each exposure once.
    func exposures(of subject: ExposureSubject, after cursor: ExposureCursor?, limit: Int) throws(StoreError) -> [Exposure]
}

/// What one ``EventStore/append(_:)`` did.
public struct AppendReport: Sendable, Equatable {
    /// Events stored.
    public var eventsWritten: Int
    /// Events not stored because their id was stored already or came earlier in the batch.
    public var eventsSkipped: Int
    /// Exposures of a (subject, user, variant) not stored before.
    public var exposuresNew: Int
    /// Exposures stored before whose time moved earlier (with their dimensions and source).
    public var exposuresMovedEarlier: Int

    public init(eventsWritten: Int = 0, eventsSkipped: Int = 0, exposuresNew: Int = 0, exposuresMovedEarlier: Int = 0) {
        self.eventsWritten = eventsWritten
        self.eventsSkipped = eventsSkipped
        self.exposuresNew = exposuresNew
        self.exposuresMovedEarlier = exposuresMovedEarlier
    }
}

/// Users first exposed on one day (UTC) to one variant.
public struct ExposureDay: Sendable, Equatable {
    /// Days since 1970-01-01 (UTC): `floor(firstExposure / 86400)`.
    public var day: Int
    public var variant: String
    public var users: Int

    public init(day: Int, variant: String, users: Int) {
        self.day = day
        self.variant = variant
        self.users = users
    }
}

extension EventBatch {
    /// The batch as it is written: events without a duplicate id (the first kept), exposures one
    /// per (subject, user, variant) (the earliest kept, the first of equal times) — both stores
    /// write this, so that they report the same. Throws for a value that is not finite: SQLite
    /// would store NaN as NULL and PostgreSQL as NaN, and either poisons every sum it enters.
    func prepared() throws(StoreError) -> (events: [TrackedEvent], exposures: [Exposure]) {
        var ids = Set<String>(minimumCapacity: events.count)
        var unique: [TrackedEvent] = []
        unique.reserveCapacity(events.count)
        for event in events {
            guard event.at.isFinite, event.receivedAt.isFinite, event.value?.isFinite ?? true else {
                throw StoreError.failure("event \(event.id) has a time or value that is not a finite number")
            }
            if ids.insert(event.id).inserted { unique.append(event) }
        }
        var earliest: [ExposureKey: Int] = [:]
        var kept: [Exposure] = []
        for exposure in exposures {
            guard exposure.at.isFinite else {
                throw StoreError.failure("the exposure of \(exposure.user) to \(exposure.subject) has a time that is not a finite number")
            }
            let key = ExposureKey(subject: exposure.subject, user: exposure.user, variant: exposure.variant)
            if let index = earliest[key] {
                if exposure.at < kept[index].at { kept[index] = exposure }
            } else {
                earliest[key] = kept.count
                kept.append(exposure)
            }
        }
        return (unique, kept)
    }

    private struct ExposureKey: Hashable {
        var subject: ExposureSubject
        var user: String
        var variant: String
    }
}
