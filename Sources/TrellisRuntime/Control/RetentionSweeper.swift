import Dispatch
import Synchronization
import Logging
import Metrics
import TrellisStore

/// Applies `storage.retention` in the background: every `intervalSeconds`, on a queue of its own
/// (never the request path or the write queue), the store lets go of revisions beyond the newest
/// `revisionsPerScreen` of each screen and of audit entries older than `auditDays`. The store
/// itself keeps what is served, in one transaction no commit interleaves with; this only says what
/// else to keep. Every replica sweeping a shared store is harmless: a second sweep finds nothing.
package final class RetentionSweeper: Sendable {
    private let store: any RuntimeStore
    /// Apps' events, pruned by ``RetentionSettings/eventDays``; nil without an event store.
    private let events: (any EventStore)?
    private let published: PublishedSnapshot
    private let retention: RetentionSettings
    /// The webhooks of `server.json`: with those made at run time, the ones whose cursors hold
    /// back audit retention; any other cursor is a deleted webhook's.
    private let configuredWebhooks: [WebhookSubscription]
    private let clock: @Sendable () -> Double
    private let logger: Logger
    private let queue = DispatchQueue(label: "trellis.retention", qos: .utility)
    private let stopped = Atomic(false)
    private let pruned: (revisions: Counter, audit: Counter, events: Counter)

    package init(
        store: any RuntimeStore, events: (any EventStore)? = nil, published: PublishedSnapshot, retention: RetentionSettings,
        configuredWebhooks: [WebhookSubscription], clock: @escaping @Sendable () -> Double, metricsFactory: any MetricsFactory,
        logger: Logger
    ) {
        self.store = store
        self.events = events
        self.configuredWebhooks = configuredWebhooks
        self.published = published
        self.retention = retention
        self.clock = clock
        self.logger = logger
        pruned = (
            Counter(label: "trellis_retention_pruned_total", dimensions: [("kind", "revision")], factory: metricsFactory),
            Counter(label: "trellis_retention_pruned_total", dimensions: [("kind", "audit")], factory: metricsFactory),
            Counter(label: "trellis_retention_pruned_total", dimensions: [("kind", "event")], factory: metricsFactory)
        )
    }

    /// The first sweep a minute after start (or one interval, when that is shorter), then one every interval.
    package func start() { schedule(after: min(60, retention.intervalSeconds)) }

    package func stop() { stopped.store(true, ordering: .relaxed) }

    private func schedule(after seconds: Double) {
        queue.asyncAfter(deadline: .now() + seconds) { [self] in
            guard !stopped.load(ordering: .relaxed) else { return }
            sweep()
            schedule(after: retention.intervalSeconds)
        }
    }

    /// One sweep; a store failure is logged and the next sweep tries again.
    package func sweep() {
        let snapshot = published.snapshot
        let policy = RetentionPolicy(
            revisionsPerScreen: retention.revisionsPerScreen,
            auditBefore: retention.auditDays.map { clock() - Double($0) * 86_400 },
            keepRevisions: Self.revisionsToKeep(snapshot))
        do {
            if policy.auditBefore != nil {
                let webhooks = snapshot.runtime.operations.webhooks(configured: configuredWebhooks)
                try store.forgetWebhooks(except: Set(webhooks.map(\.name)))
            }
            let report = try store.prune(policy)
            pruned.revisions.increment(by: report.revisions)
            pruned.audit.increment(by: report.auditEntries)
            if report != PruneReport() {
                logger.info("retention pruned the store", metadata: ["revisions": "\(report.revisions)", "auditEntries": "\(report.auditEntries)"])
            }
        } catch {
            logger.error("retention could not prune the store", metadata: ["error": "\(error)"])
        }
        sweepEvents()
    }

    /// Tracked events older than `eventDays`; exposures stay (they are one row a user and
    /// experiment, and every result starts from them).
    private func sweepEvents() {
        guard let events, let days = retention.eventDays else { return }
        do {
            let count = try events.pruneEvents(before: clock() - Double(days) * 86_400)
            pruned.events.increment(by: count)
            if count > 0 { logger.info("retention pruned events", metadata: ["events": "\(count)"]) }
        } catch {
            logger.error("retention could not prune events", metadata: ["error": "\(error)"])
        }
    }

    /// Revisions kept whatever their age, besides those the heads serve (which the store keeps
    /// itself), by screen. This is where the revisions a pending change request is bound to go,
    /// once change requests exist: nothing else needs keeping yet.
    package static func revisionsToKeep(_ snapshot: Snapshot) -> [String: Set<Int>] { [:] }
}

/// What `storage.retention` keeps; nothing is pruned without one of its limits.
public struct RetentionSettings: Sendable, Equatable {
    /// Keep this many newest revisions of each screen (and of the route table).
    public var revisionsPerScreen: Int? = nil
    /// Keep this many days of audit log.
    public var auditDays: Int? = nil
    /// Keep apps' tracked events this many days (by their time); exposures are kept. A running
    /// experiment's results read its events, so this must outlast the longest experiment.
    public var eventDays: Int? = nil
    /// How often the store is pruned (the first time a minute after start, or sooner when shorter).
    public var intervalSeconds = 3600.0
    public init() {}

    /// Whether anything is ever pruned.
    public var isEnabled: Bool { revisionsPerScreen != nil || auditDays != nil || eventDays != nil }
}
