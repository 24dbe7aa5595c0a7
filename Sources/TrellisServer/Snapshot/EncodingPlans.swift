import Atomics
import TrellisScreens

/// The ``ScreenEncodingPlan``s of one screen's content, one per client schema version, each made
/// once: by the first answer-cache miss that needs it, or, for the screen's own version, by the
/// ``ScreenPreparation`` after the snapshot that serves it is published.
final class EncodingPlans: Sendable {
    final class Made: Sendable {
        let plan: ScreenEncodingPlan?
        init(_ plan: ScreenEncodingPlan?) { self.plan = plan }
    }
    /// Slot *v − 1* holds version *v*'s plan once made.
    private let slots: [ManagedAtomicLazyReference<Made>]

    init(schemaVersions: Int) { slots = (0..<max(schemaVersions, 1)).map { _ in ManagedAtomicLazyReference() } }

    /// Whether the plan for `schemaVersion` is made (or known not to exist).
    func isMade(for schemaVersion: Int) -> Bool {
        !slots.indices.contains(schemaVersion - 1) || slots[schemaVersion - 1].load() != nil
    }

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
    /// This screen's plan for clients of `schemaVersion` (``EncodingPlans``); made from the
    /// screen's model, decoded again, the first time an older client asks. Nil when the screen
    /// has none, or the model cannot be had.
    func encodingPlan(for schemaVersion: Int, in snapshot: Snapshot) -> ScreenEncodingPlan? {
        checked.plans.plan(for: schemaVersion) {
            guard let screen = try? snapshot.screen(of: self) else { return nil }
            return ScreenEncodingPlan.make(screen, decisions: decisions, clientSchemaVersion: schemaVersion, resolver: snapshot.resolver)
        }
    }
}
