import Synchronization
import TrellisAnswers
import TrellisScreens

extension ScreenEntry {
    /// This screen's plan for clients of `schemaVersion` (``EncodingPlans``), in its box; made
    /// from the screen's model, decoded again, the first time an older client asks. The box's plan
    /// is nil when the screen has none, or the model cannot be had. The plan of the screen's own
    /// version is kept in the entry too, once made (``planOfItsVersion``).
    package func encodingPlan(for schemaVersion: Int, in snapshot: Snapshot) -> EncodingPlans.Made {
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
    package func prepare(in snapshot: Snapshot) {
        checked.prepare(resolver: snapshot.resolver)
        _ = encodingPlan(for: schemaVersion, in: snapshot)
    }
}
