import Atomics
import Dispatch
import TrellisScreens

/// The ``ScreenEncodingPlan``s of one screen revision, one per client schema version, each made
/// once: by ``PlanWarmer`` for the screen's own version, or by the first answer-cache miss that
/// needs another.
final class EncodingPlans: Sendable {
    final class Made: Sendable {
        let plan: ScreenEncodingPlan?
        init(_ plan: ScreenEncodingPlan?) { self.plan = plan }
    }
    /// Slot *v − 1* holds version *v*'s plan once made.
    private let slots: [ManagedAtomicLazyReference<Made>]

    init(schemaVersions: Int) { slots = (0..<max(schemaVersions, 1)).map { _ in ManagedAtomicLazyReference() } }

    /// The plan for `schemaVersion`, made by `make` the first time (two first misses racing may
    /// both make it; one is kept). Nil when the screen has no plan for it.
    func plan(for schemaVersion: Int, make: () -> ScreenEncodingPlan?) -> ScreenEncodingPlan? {
        guard slots.indices.contains(schemaVersion - 1) else { return make() }
        let slot = slots[schemaVersion - 1]
        if let made = slot.load() { return made.plan }
        return slot.storeIfNilThenLoad(Made(make())).plan
    }
}

extension ScreenEntry {
    /// This revision's plan for clients of `schemaVersion` (``EncodingPlans``).
    func encodingPlan(for schemaVersion: Int, resolver: ScreenResolver) -> ScreenEncodingPlan? {
        encodingPlans.plan(for: schemaVersion) {
            ScreenEncodingPlan.make(screen, revision: revision, decisions: decisions, clientSchemaVersion: schemaVersion, resolver: resolver)
        }
    }
}

/// Makes the encoding plans of published screens in the background, at each screen's own schema
/// version (what a current client asks for), so that a screen's first answers are cheap misses
/// too; a start or reload of 10,000 screens does not wait for them. One utility-priority queue:
/// warming never competes with requests for more than one core.
final class PlanWarmer: Sendable {
    private let queue = DispatchQueue(label: "trellis.encoding-plans", qos: .utility)

    /// Warms `screens` of `snapshot` (its current and staged revisions), or every screen when nil.
    func warm(_ snapshot: Snapshot, screens: Set<String>? = nil) {
        queue.async {
            let ids = screens.map(Array.init) ?? Array(snapshot.screens.keys)
            for id in ids {
                for entry in [snapshot.screens[id], snapshot.staged[id]?.entry].compactMap({ $0 }) {
                    _ = entry.encodingPlan(for: entry.screen.schemaVersion, resolver: snapshot.resolver)
                }
            }
        }
    }
}
