import Glibc

/// Which way a guardrail metric moves when the treatment is worse: a render-failure rate rises,
/// a conversion rate falls.
public enum BadDirection: String, Sendable {
    case rise
    case fall
}

/// What a guardrail check decided.
public enum GuardVerdict: String, Sendable {
    /// The test could not be made: an arm has fewer users than the minimum, the control mean is 0
    /// (no relative change to speak of), or an arm has no variance. `GuardrailResult.reason` says which.
    case insufficient
    /// The one-sided bound does not exclude the tolerated change: no evidence of a regression (yet).
    case noRegression
    /// The one-sided bound excludes the tolerated change: the treatment is worse than control by more
    /// than the tolerance, at level α, however often the guard has looked.
    case regression
}

/// A one-sided, always-valid test of a guardrail metric: is the treatment worse than control by
/// more than a tolerated relative change? Made to be asked every few seconds while a rollout runs.
///
/// The test is the one-sided asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy
/// and Ramdas, "Time-uniform central limit theory and asymptotic confidence sequences"
/// (arXiv:2103.06476v7), on the relative lift Δ = (B̄ − Ā)/Ā, as GrowthBook's
/// `SequentialOneSidedTreatmentLesserTTest` and `…GreaterTTest` compute it for safe rollouts
/// (gbstats after 0.8.0). With N = n_a + n_b users and V the delta method's variance of Δ
/// (`Effect`: Var(B̄)/Ā² + B̄² Var(Ā)/Ā⁴):
///
///     ρ² = (−2 log 2α + log(1 − 2 log 2α)) / τ                       (eq. 161, at 2α: one side)
///     w  = √( N·V · 2(Nρ² + 1)/(N²ρ²) · log(1 + √(Nρ² + 1)/(2α)) )   (eq. 134)
///
/// For a rise that is bad the bound is the lower one, Δ − w, and a regression is declared when it
/// is above +tolerance; for a fall that is bad it is the upper one, Δ + w, below −tolerance. Under
/// the null (true Δ at the tolerance or better) the chance that the bound ever crosses, over the
/// whole unbounded sequence of looks, is at most α asymptotically. τ is the N at which the
/// sequence is tightest.
///
/// The statistics are built as `compare` builds them (so CUPED applies when both arms carry a
/// covariate, and ratio metrics use the delta method); the oracle (scripts/guard-oracle) covers
/// proportions and means. Pure: no state, no I/O.
public struct GuardrailTest: Sendable, Equatable {
    public let metric: MetricType
    public let badDirection: BadDirection
    /// The relative change tolerated in the bad direction, ≥ 0: 0.10 lets a failure rate rise 10 %.
    public let tolerance: Double
    /// The chance, over the whole rollout, of halting one that is within the tolerance. 0 < α < ½.
    public let alpha: Double
    /// τ, the total users (both arms) at which the confidence sequence is tightest. GrowthBook's
    /// safe rollouts use the organisation's sequential tuning parameter, 5000 by default
    /// (`DEFAULT_SEQUENTIAL_TESTING_TUNING_PARAMETER`); so do we. A guard decides a doubled
    /// failure rate near 0.5 % within about 10⁴ users an arm, where τ = 5000 is within 6 % of the
    /// best τ (docs/statistics.md).
    public let sequentialTuning: Double
    /// Fewer users than this in either arm and the verdict is `insufficient`, whatever the rates.
    public let minimumUsers: Int
    /// ρ², eq. 161 of arXiv:2103.06476v7 at 2α (the one-sided sequence spends all of α on one side).
    public let rhoSquared: Double

    public init(
        _ metric: MetricType, badDirection: BadDirection, tolerance: Double = 0.10, alpha: Double = 0.05,
        sequentialTuning: Double = 5000, minimumUsers: Int = 100
    ) {
        precondition(tolerance >= 0, "the tolerance is a size: ≥ 0")
        precondition(alpha > 0 && alpha < 0.5, "a one-sided sequential test needs 0 < α < ½")
        precondition(sequentialTuning > 0, "τ > 0")
        self.metric = metric
        self.badDirection = badDirection
        self.tolerance = tolerance
        self.alpha = alpha
        self.sequentialTuning = sequentialTuning
        self.minimumUsers = max(minimumUsers, 2)
        let l = log(2 * alpha)
        self.rhoSquared = (-2 * l + log(-2 * l + 1)) / sequentialTuning
    }

    /// The signed threshold the bound is compared with: +tolerance for a bad rise, −tolerance for a
    /// bad fall.
    public var threshold: Double { badDirection == .rise ? tolerance : -tolerance }

    /// The half width w of eq. 134 for N users in all with V·N = `scaledVariance`.
    public func halfWidth(scaledVariance s2: Double, users n: Double) -> Double {
        let nr2p1 = n * rhoSquared + 1
        return (s2 * (2 * nr2p1 / (n * n * rhoSquared)) * log(1 + nr2p1.squareRoot() / (2 * alpha))).squareRoot()
    }

    /// The guardrail's verdict on the two arms' sums as they stand now.
    public func decide(control: SufficientStatistics, treatment: SufficientStatistics) -> GuardrailResult {
        let (a, b, _) = statistics(metric, control: control, treatment: treatment)
        var result = GuardrailResult(
            verdict: .insufficient, controlUsers: a.n, treatmentUsers: b.n, controlMean: a.mean, treatmentMean: b.mean,
            lift: nil, bound: nil, threshold: threshold, alpha: alpha, reason: nil)
        if a.n < minimumUsers || b.n < minimumUsers {
            result.reason = GuardrailResult.tooFewUsers
            return result
        }
        if let refusal = Frequentist.refusal(control: a, treatment: b) {
            result.reason = refusal
            return result
        }
        let effect = Effect(control: a, treatment: b, relative: true)
        let n = Double(a.n + b.n)
        let w = halfWidth(scaledVariance: effect.variance * n, users: n)
        result.lift = effect.estimate
        switch badDirection {
        case .rise:
            let lower = effect.estimate - w
            result.bound = lower
            result.verdict = lower > tolerance ? .regression : .noRegression
        case .fall:
            let upper = effect.estimate + w
            result.bound = upper
            result.verdict = upper < -tolerance ? .regression : .noRegression
        }
        return result
    }
}

/// A guardrail check and the figures that decided it.
public struct GuardrailResult: Sendable, Equatable {
    public var verdict: GuardVerdict
    public var controlUsers: Int
    public var treatmentUsers: Int
    /// The arms' means (a proportion's rate; CUPED's adjusted mean when it applies).
    public var controlMean: Double
    public var treatmentMean: Double
    /// The relative lift Δ = (B̄ − Ā)/Ā; nil when the test could not be made.
    public var lift: Double?
    /// The one-sided always-valid bound on Δ: the lower one when a rise is bad, the upper one when
    /// a fall is; nil when the test could not be made.
    public var bound: Double?
    /// +tolerance (a rise is bad) or −tolerance (a fall is): a regression is a bound beyond it.
    public var threshold: Double
    public var alpha: Double
    /// Why the verdict is `insufficient`: `tooFewUsers`, or the comparison's refusal ("control
    /// mean is zero", "a variant has no variance").
    public var reason: String?

    public static let tooFewUsers = "fewer users than the minimum in an arm"

    public init(
        verdict: GuardVerdict, controlUsers: Int, treatmentUsers: Int, controlMean: Double, treatmentMean: Double,
        lift: Double?, bound: Double?, threshold: Double, alpha: Double, reason: String?
    ) {
        self.verdict = verdict
        self.controlUsers = controlUsers
        self.treatmentUsers = treatmentUsers
        self.controlMean = controlMean
        self.treatmentMean = treatmentMean
        self.lift = lift
        self.bound = bound
        self.threshold = threshold
        self.alpha = alpha
        self.reason = reason
    }
}
