import Glibc

/// An interval [lower, upper].
public struct Interval: Sendable, Equatable {
    public var lower: Double
    public var upper: Double

    public init(lower: Double, upper: Double) {
        self.lower = lower
        self.upper = upper
    }
}

/// A frequentist comparison of a treatment with control.
public struct FrequentistResult: Sendable, Equatable {
    /// The estimated effect: (treatment − control)/control for a relative result, the difference
    /// for an absolute one.
    public var expected: Double
    /// The 1 − α confidence interval of the effect (always valid, for the sequential test).
    public var ci: Interval
    /// The two-sided p-value of "no effect".
    public var pValue: Double
    /// Why the test could not be run, when it could not; then the figures are gbstats' defaults
    /// (expected 0, interval [0, 0], p-value 1).
    public var error: String?

    public init(expected: Double, ci: Interval, pValue: Double, error: String? = nil) {
        self.expected = expected
        self.ci = ci
        self.pValue = pValue
        self.error = error
    }

    static func failed(_ error: String) -> FrequentistResult {
        FrequentistResult(expected: 0, ci: Interval(lower: 0, upper: 0), pValue: 1, error: error)
    }
}

/// Why a comparison has no result. Our wording; gbstats' codes are in the comments.
enum ComparisonError {
    /// ZERO_NEGATIVE_BASELINE_VARIATION: a relative effect needs a control mean to divide by.
    static let zeroBaseline = "control mean is zero"
    /// ZERO_NEGATIVE_VARIANCE.
    static let zeroVariance = "a variant has no variance"
    /// NO_UNITS_IN_VARIATION.
    static let noUsers = "a variant has no users"
}

/// The effect's estimate and its variance, shared by every test (gbstats' `frequentist_diff` and
/// `frequentist_variance`). Relative effects use the delta method: Var(B̄/Ā − 1) ≈
/// Var(B̄)/Ā² + B̄² Var(Ā)/Ā⁴, with the unadjusted means in it even under CUPED.
struct Effect {
    var estimate: Double
    var variance: Double

    init(control a: VariantStatistic, treatment b: VariantStatistic, relative: Bool) {
        let meanA = a.unadjustedMean
        let meanB = b.unadjustedMean
        if relative {
            estimate = (b.mean - a.mean) / meanA
            variance = b.variance / (pow(meanA, 2) * Double(b.n)) + a.variance * pow(meanB, 2) / (pow(meanA, 4) * Double(a.n))
        } else {
            estimate = b.mean - a.mean
            variance = b.variance / Double(b.n) + a.variance / Double(a.n)
        }
    }
}

enum Frequentist {
    /// The precondition every test shares (gbstats' `TTest.compute_result`): a control mean to
    /// divide by — checked for absolute effects too, as gbstats does — and variance on both sides.
    static func refusal(control a: VariantStatistic, treatment b: VariantStatistic) -> String? {
        if a.mean == 0 || a.unadjustedMean == 0 { return ComparisonError.zeroBaseline }
        if a.variance <= 0 || b.variance <= 0 { return ComparisonError.zeroVariance }
        return nil
    }

    /// Welch's two-sided t-test: t = effect/√variance on Welch–Satterthwaite degrees of freedom,
    /// p = 2(1 − F(|t|)), interval effect ± F⁻¹(1 − α/2)·√variance.
    static func welch(control a: VariantStatistic, treatment b: VariantStatistic, relative: Bool, alpha: Double) -> FrequentistResult {
        if let error = refusal(control: a, treatment: b) { return .failed(error) }
        let effect = Effect(control: a, treatment: b, relative: relative)
        let dof = welchDegreesOfFreedom(a, b)
        let t = effect.estimate / effect.variance.squareRoot()
        let p = 2 * (1 - StudentT.cdf(abs(t), dof: dof))
        let width = StudentT.quantile(1 - alpha / 2, dof: dof) * effect.variance.squareRoot()
        return FrequentistResult(
            expected: effect.estimate, ci: Interval(lower: effect.estimate - width, upper: effect.estimate + width), pValue: p)
    }

    /// ν = (s²_b/n_b + s²_a/n_a)² / (s⁴_b/(n_b²(n_b − 1)) + s⁴_a/(n_a²(n_a − 1))) — on the per-user
    /// variances, so under CUPED and for ratios on the adjusted or linearised ones. gbstats forms
    /// n²(n − 1) in exact integers; so do we (it passes 2⁵³ from n ≈ 2·10⁵).
    static func welchDegreesOfFreedom(_ a: VariantStatistic, _ b: VariantStatistic) -> Double {
        func cube(_ n: Int) -> Double { Double(Int128(n) * Int128(n) * Int128(n - 1)) }
        return pow(b.variance / Double(b.n) + a.variance / Double(a.n), 2)
            / (pow(b.variance, 2) / cube(b.n) + pow(a.variance, 2) / cube(a.n))
    }

    /// The always-valid test of Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas, "Time-uniform
    /// central limit theory and asymptotic confidence sequences" (arXiv:2103.06476v7), with the
    /// relative (or absolute) effect and its variance as the fixed-horizon test has them and
    /// N = n_a + n_b. ρ² = (−2 log α + log(1 − 2 log α))/tuning (eq. 161); the interval's half width
    /// is √(N·variance) · √(2(Nρ² + 1)/(N²ρ²) · log(√(Nρ² + 1)/α)) (eq. 9); the p-value is
    /// min(1, 1/E) with E = exp(ρ² S²/(2(Nρ² + 1)))/√(Nρ² + 1), S² = N·effect²/variance (eq. 155).
    static func sequential(
        control a: VariantStatistic, treatment b: VariantStatistic, alpha: Double, tuning: Double
    ) -> FrequentistResult {
        if let error = refusal(control: a, treatment: b) { return .failed(error) }
        let effect = Effect(control: a, treatment: b, relative: true)
        let n = Double(a.n + b.n)
        let rho = ((-2 * log(alpha) + log(-2 * log(alpha) + 1)) / tuning).squareRoot()
        let rho2 = pow(rho, 2)
        let s2 = effect.variance * n
        let width = s2.squareRoot() * ((2 * (n * rho2 + 1)) * log((n * rho2 + 1).squareRoot() / alpha) / pow(n * rho, 2)).squareRoot()
        let st2 = pow(effect.estimate, 2) * n / effect.variance
        let tr2p1 = n * rho2 + 1
        let evidence = exp(rho2 * st2 / (2 * tr2p1)) / tr2p1.squareRoot()
        return FrequentistResult(
            expected: effect.estimate, ci: Interval(lower: effect.estimate - width, upper: effect.estimate + width),
            pValue: min(1 / evidence, 1))
    }
}
