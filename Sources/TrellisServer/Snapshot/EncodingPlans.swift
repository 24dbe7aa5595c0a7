import Atomics
import Synchronization
import TrellisJSON
import TrellisScreens

/// The ``ScreenEncodingPlan``s of one screen's content, one per client schema version, each made
/// once: by the first answer-cache miss that needs it, or, for the screen's own version, by the
/// ``ScreenPreparation`` after the snapshot that serves it is published.
final class EncodingPlans: Sendable {
    final class Made: Sendable {
        let plan: ScreenEncodingPlan?
        init(_ plan: ScreenEncodingPlan?) { self.plan = plan }

        /// The answer from the plan, used where it lies: a copy of the plan retained each of its
        /// arrays, lines from memory for a screen a miss meets for the first time in a while.
        /// Nil when there is no plan.
        func encode(_ outcomes: Outcomes, revision: Int, parameters: [String: JSONValue]) throws(ParameterError) -> EncodedBody? {
            try plan?.encode(outcomes, revision: revision, parameters: parameters) { count, write in
                EncodedBody(count: count, writing: write)
            }
        }
    }
    /// Slot *v − 1* holds version *v*'s plan once made.
    private let slots: [ManagedAtomicLazyReference<Made>]

    init(schemaVersions: Int) { slots = (0..<max(schemaVersions, 1)).map { _ in ManagedAtomicLazyReference() } }

    /// Whether the plan for `schemaVersion` is made (or known not to exist).
    func isMade(for schemaVersion: Int) -> Bool {
        !slots.indices.contains(schemaVersion - 1) || slots[schemaVersion - 1].load() != nil
    }

    /// The plan for `schemaVersion`, made by `make` the first time (two first misses racing may
    /// both make it; one is kept), in its box (whose plan is nil when the screen has none for it).
    func plan(for schemaVersion: Int, make: () -> ScreenEncodingPlan?) -> Made {
        guard slots.indices.contains(schemaVersion - 1) else { return Made(make()) }
        let slot = slots[schemaVersion - 1]
        if let made = slot.load() { return made }
        return slot.storeIfNilThenLoad(Made(make()))
    }
}

extension ScreenEntry {
    /// This screen's plan for clients of `schemaVersion` (``EncodingPlans``), in its box; made
    /// from the screen's model, decoded again, the first time an older client asks. The box's plan
    /// is nil when the screen has none, or the model cannot be had. The plan of the screen's own
    /// version is kept in the entry too, once made (``planOfItsVersion``).
    func encodingPlan(for schemaVersion: Int, in snapshot: Snapshot) -> EncodingPlans.Made {
        guard schemaVersion == self.schemaVersion else { return plans(for: schemaVersion, in: snapshot) }
        if let made = planOfItsVersion.load() { return made }
        return planOfItsVersion.storeIfNil(plans(for: schemaVersion, in: snapshot))
    }

    private func plans(for schemaVersion: Int, in snapshot: Snapshot) -> EncodingPlans.Made {
        checked.plans.plan(for: schemaVersion) {
            guard let screen = try? snapshot.screen(of: self) else { return nil }
            return ScreenEncodingPlan.make(screen, decisions: decisions, clientSchemaVersion: schemaVersion, resolver: snapshot.resolver)
        }
    }

    /// Prepares the checked screen (``CheckedScreen/prepare(resolver:)``) and keeps the plan it
    /// made for the screen's own version in the entry.
    func prepare(in snapshot: Snapshot) {
        checked.prepare(resolver: snapshot.resolver)
        _ = encodingPlan(for: schemaVersion, in: snapshot)
    }
}
