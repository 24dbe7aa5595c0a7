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
    /// This revision's plan for clients of `schemaVersion` (``EncodingPlans``), made from the
    /// screen's model; nil when it has none, or the model cannot be had.
    func encodingPlan(for schemaVersion: Int, in snapshot: Snapshot) -> ScreenEncodingPlan? {
        encodingPlans.plan(for: schemaVersion) {
            guard let screen = try? snapshot.screen(of: self) else { return nil }
            return ScreenEncodingPlan.make(screen, revision: revision, decisions: decisions, clientSchemaVersion: schemaVersion, resolver: snapshot.resolver)
        }
    }
}

/// Makes the encoding plans of published screens in the background, at each screen's own schema
/// version (what a current client asks for), so that a screen's first answers are cheap misses
/// too; a start or reload of 10,000 screens does not wait for them. Once a screen's plan is made
/// its model goes (``CheckedScreen/releaseModel()``), and the memory the models took is handed
/// back to the system when the queue runs dry. One utility-priority queue: warming never competes
/// with requests for more than one core.
final class PlanWarmer: Sendable {
    private let queue = DispatchQueue(label: "trellis.encoding-plans", qos: .utility)
    private let pending = ManagedAtomic<Int>(0)

    /// Warms `screens` of `snapshot` (its current and staged revisions), or every screen when nil.
    func warm(_ snapshot: Snapshot, screens: Set<String>? = nil) {
        pending.wrappingIncrement(ordering: .relaxed)
        queue.async { [pending] in
            let ids = screens.map(Array.init) ?? Array(snapshot.screens.keys)
            for id in ids {
                for entry in [snapshot.screens[id], snapshot.staged[id]?.entry].compactMap({ $0 }) {
                    _ = entry.encodingPlan(for: entry.schemaVersion, in: snapshot)
                    entry.checked.releaseModel()
                }
            }
            // The models were most of the heap; glibc keeps freed memory unless asked.
            if pending.wrappingDecrementThenLoad(ordering: .relaxed) == 0 { Application.returnFreedMemory() }
        }
    }

    /// Returns once every warm-up asked for so far is done.
    func waitUntilIdle() { queue.sync {} }
}
