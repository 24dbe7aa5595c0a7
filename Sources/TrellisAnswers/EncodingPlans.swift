import Atomics
import TrellisJSON
import TrellisScreens
import TrellisStrings

/// The ``ScreenEncodingPlan``s of one screen's content, one per client schema version, each made
/// once: by the first answer-cache miss that needs it, or, for the screen's own version, when
/// the server prepares the screen after the snapshot that serves it is published.
public final class EncodingPlans: Sendable {
    /// One version's plan once made, nil when the screen has none for that version.
    public final class Made: Sendable {
        let plan: ScreenEncodingPlan?
        public init(_ plan: ScreenEncodingPlan?) { self.plan = plan }

        /// The answer from the plan, used where it lies: a copy of the plan retained each of its
        /// arrays, lines from memory for a screen a miss meets for the first time in a while.
        /// Nil when there is no plan.
        func encode(
            _ outcomes: Outcomes, revision: Int, parameters: [String: JSONValue], strings: LocalizedStrings?,
            compression: EncodedBody.Compression
        ) throws(ParameterError) -> EncodedBody? {
            try plan?.encode(outcomes, revision: revision, parameters: parameters, strings: strings) { count, write in
                EncodedBody(count: count, compression: compression, writing: write)
            }
        }
    }
    /// Slot *v − 1* holds version *v*'s plan once made.
    private let slots: [ManagedAtomicLazyReference<Made>]

    public init(schemaVersions: Int) { slots = (0..<max(schemaVersions, 1)).map { _ in ManagedAtomicLazyReference() } }

    /// Whether the plan for `schemaVersion` is made (or known not to exist).
    public func isMade(for schemaVersion: Int) -> Bool {
        !slots.indices.contains(schemaVersion - 1) || slots[schemaVersion - 1].load() != nil
    }

    /// The plan for `schemaVersion`, made by `make` the first time (two first misses racing may
    /// both make it; one is kept), in its box (whose plan is nil when the screen has none for it).
    public func plan(for schemaVersion: Int, make: () -> ScreenEncodingPlan?) -> Made {
        guard slots.indices.contains(schemaVersion - 1) else { return Made(make()) }
        let slot = slots[schemaVersion - 1]
        if let made = slot.load() { return made }
        return slot.storeIfNilThenLoad(Made(make()))
    }
}
