import Dispatch
import Logging
import Metrics
import TrellisStore
import TrellisTargeting

/// What happened after Trellis decided: apps' events and exposures on their way into the event
/// store (read, group-committed), the exposures the server records itself, and the event store
/// results are computed from. One per process; every replica ingests, the database aggregates.
package final class Tracking: Sendable {
    package let store: any EventStore
    package let ingest: EventIngest
    package let reader: EventBatchReader
    package let serverExposures: ServerExposures
    /// Where results and exports read the store: off the event loops and the write queue, and
    /// concurrent (a results query can take seconds on a large experiment).
    package let queries = DispatchQueue(label: "trellis.events.queries", qos: .userInitiated, attributes: .concurrent)

    package init(
        store: any EventStore, limits: EventBatchReader.Limits, exposureFlushInterval: DispatchTimeInterval = .seconds(1), logger: Logger,
        metricsFactory: any MetricsFactory
    ) {
        self.store = store
        ingest = EventIngest(store: store, logger: logger, metricsFactory: metricsFactory)
        reader = EventBatchReader(limits: limits)
        serverExposures = ServerExposures(ingest: ingest, flushInterval: exposureFlushInterval, metricsFactory: metricsFactory)
    }

    /// Records the variants `context`'s user was assigned of `experiments` (those with server
    /// exposures), as `decide` decides them. Users without an id are not recorded: nobody could
    /// join their events to them.
    package func recordAssignments(
        of experiments: some Sequence<String>, for context: UserContext, in snapshot: Snapshot, now: Double
    ) {
        guard let user = context.userID else { return }
        for key in experiments where snapshot.serverExposedExperiments.contains(key) {
            guard let decision = snapshot.evaluator.variantDecision(of: key, for: context) else { continue }
            serverExposures.record(experiment: key, variant: decision.variant, user: user, dimensions: Self.dimensions(context), now: now)
        }
    }

    /// Records whether `context`'s user was admitted to each of `rollouts` a guard watches.
    package func recordRollouts(_ rollouts: some Sequence<String>, for context: UserContext, in snapshot: Snapshot, now: Double) {
        guard let user = context.userID else { return }
        for key in rollouts where snapshot.guardedRollouts.contains(key) {
            let admitted = snapshot.evaluator.rolloutDecision(key, for: context).admitted
            serverExposures.record(.rollout(key), variant: admitted ? "on" : "off", user: user, dimensions: Self.dimensions(context), now: now)
        }
    }

    /// Records which revision of a screen with a staged revision `context`'s user was served:
    /// the users of each revision are the two arms its health and its guard compare.
    package func recordRevision(_ entry: ScreenEntry, for context: UserContext, now: Double) {
        guard let user = context.userID else { return }
        serverExposures.record(.screen(entry.id), variant: String(entry.revision), user: user, dimensions: Self.dimensions(context), now: now)
    }

    private static func dimensions(_ context: UserContext) -> ExposureDimensions {
        ExposureDimensions(platform: context.platform, appVersion: context.appVersion?.description, country: context.country)
    }
}

extension Refusal {
    /// Why a read of the event store (results, a revision's health) was not answered.
    package init(readingEvents error: StoreError) {
        switch error {
        case .unavailable(let detail), .unknownOutcome(let detail): self = .storeUnreachable("the event store cannot be reached: \(detail)")
        case .failure(let detail), .conflict(let detail): self = .storeUnreadable("the event store could not be read: \(detail)")
        }
    }
}
