import TrellisJSON
import TrellisStats
import TrellisStore
import TrellisTargeting

/// One look at a guard: each check's one-sided sequential test on the arms' statistics as the
/// event store sums them now. Pure but for the store's reads; the runner decides what to do.
package struct GuardEvaluation: Sendable {
    package struct CheckResult: Sendable {
        package var check: Guard.Check
        /// nil when the check could not be made (`problem` says why).
        package var result: GuardrailResult?
        package var problem: String?
    }

    package var guarded: Guard
    /// The arms' variants: the treatment's and the control's (`on`/`off`, or two revisions).
    package var treatment: String
    package var control: String
    package var checks: [CheckResult]
    package var at: Double

    /// The guard's verdict: a regression when any check shows one, insufficient while any has too
    /// few users (or could not be made), else none.
    package var verdict: GuardVerdict {
        if checks.contains(where: { $0.result?.verdict == .regression }) { return .regression }
        if checks.contains(where: { $0.result == nil || $0.result?.verdict == .insufficient }) { return .insufficient }
        return .noRegression
    }

    /// The arms `guarded` compares in `snapshot`; nil when there is nothing to guard (no staged
    /// revision; a rollout killed, retired or at 0 % or 100 %).
    package static func arms(of guarded: Guard, in snapshot: Snapshot) -> (subject: ExposureSubject, treatment: String, control: String)? {
        switch guarded.subject {
        case .rollout(let key):
            guard let rollout = snapshot.targeting.rollouts[key], rollout.enabled,
                rollout.percentage.basisPoints > 0, rollout.percentage.basisPoints < 10_000
            else { return nil }
            return (.rollout(key), "on", "off")
        case .screen(let id):
            guard let staged = snapshot.staged[id], let current = snapshot.screens[id] else { return nil }
            return (.screen(id), String(staged.entry.revision), String(current.revision))
        }
    }

    /// Looks at `guarded` now; nil when there is nothing to guard.
    package static func evaluate(_ guarded: Guard, in snapshot: Snapshot, store: any EventStore, now: Double) throws(StoreError) -> GuardEvaluation? {
        guard let arms = arms(of: guarded, in: snapshot) else { return nil }
        var results: [CheckResult] = []
        for check in guarded.checks {
            guard let metric = guarded.definition(of: check, metrics: snapshot.runtime.operations.metrics) else {
                results.append(CheckResult(check: check, result: nil, problem: "no metric \"\(check.metric)\" is defined"))
                continue
            }
            let statistics = try store.statistics(
                MetricQuery(
                    subject: arms.subject, measure: metric.storeMeasure, window: metric.windowHours.map { $0 * 3600 }, covariateLookback: nil,
                    dimension: nil, asOf: now))
            let arm = { (variant: String) in
                statistics.rows.filter { $0.variant == variant }.reduce(into: SufficientStatistics(users: 0, sum: 0, sumSquares: 0)) { $0.add($1) }
            }
            let test = GuardrailTest(
                metric.type.statsType, badDirection: check.bad ?? (metric.higherIsBetter ? .fall : .rise), tolerance: check.tolerance,
                alpha: guarded.alpha, minimumUsers: guarded.minimumUsers)
            results.append(CheckResult(check: check, result: test.decide(control: arm(arms.control), treatment: arm(arms.treatment)), problem: nil))
        }
        return GuardEvaluation(guarded: guarded, treatment: arms.treatment, control: arms.control, checks: results, at: now)
    }

    /// The figures, as the audit entry of a halt and `GET /admin/guards` show them.
    package var jsonValue: JSONValue {
        .object([
            ("guard", .string(guarded.subject.resource)), ("verdict", .string(verdict.rawValue)),
            ("treatment", .string(treatment)), ("control", .string(control)), ("at", .string(RFC3339.string(fromSeconds: at))),
            ("checks", .array(checks.map { item in
                var members: [(String, JSONValue)] = [("metric", .string(item.check.metric)), ("tolerance", .number(item.check.tolerance))]
                if let problem = item.problem { members.append(("problem", .string(problem))) }
                if let result = item.result {
                    members += [
                        ("verdict", .string(result.verdict.rawValue)),
                        ("treatmentUsers", .number(result.treatmentUsers)), ("controlUsers", .number(result.controlUsers)),
                        ("treatmentMean", .number(result.treatmentMean)), ("controlMean", .number(result.controlMean)),
                        ("lift", result.lift.map(JSONValue.number) ?? .null), ("bound", result.bound.map(JSONValue.number) ?? .null),
                        ("threshold", .number(result.threshold)), ("alpha", .number(result.alpha)),
                    ]
                    if let reason = result.reason { members.append(("reason", .string(reason))) }
                }
                return .object(members)
            })),
        ])
    }
}
