import Synchronization
import TrellisStats

/// What each guard saw when this replica last looked, until when it counts: the guard runner
/// writes it, the admin API shows it, and the scheduler reads it before a guarded ramp's step.
package final class GuardVerdicts: Sendable {
    private struct Seen {
        var evaluation: GuardEvaluation
        var validUntil: Double
    }

    private let seen = Mutex<[Guard.Subject: Seen]>([:])

    package init() {}

    package func record(_ evaluation: GuardEvaluation?, of subject: Guard.Subject, validUntil: Double) {
        seen.withLock { $0[subject] = evaluation.map { Seen(evaluation: $0, validUntil: validUntil) } }
    }

    /// The last evaluation of `subject`, however old.
    package func last(of subject: Guard.Subject) -> GuardEvaluation? { seen.withLock { $0[subject]?.evaluation } }

    /// Whether a guarded ramp may take its next step at `now`: its guard's last look, still fresh,
    /// found every check with its minimum users and no regression. A replica that has not looked
    /// (it does not hold the `guards` lease) never advances a guarded ramp; the one that has does.
    package func mayAdvance(_ subject: Guard.Subject, now: Double) -> Bool {
        seen.withLock { seen in
            guard let entry = seen[subject], entry.validUntil >= now else { return false }
            return entry.evaluation.verdict == .noRegression
        }
    }
}
