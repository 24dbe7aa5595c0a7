import Glibc

/// A Gaussian prior on the relative effect, as GrowthBook's metric defaults: mean 0, standard
/// deviation 0.1 (a lift within ±20 % is likely), not used (improper) unless `proper`.
public struct Prior: Sendable, Equatable {
    public var mean: Double = 0
    /// Must be positive.
    public var stddev: Double = 0.1
    /// An improper prior is flat: the posterior is the data's likelihood alone.
    public var proper: Bool = false

    public init(mean: Double = 0, stddev: Double = 0.1, proper: Bool = false) {
        self.mean = mean
        self.stddev = stddev
        self.proper = proper
    }
}

/// What the losing side stands to lose, as an expected relative effect.
public struct Risk: Sendable, Equatable {
    /// The expected loss of keeping control: E[max(effect, 0)] for a higher-is-better metric.
    public var control: Double
    /// The expected loss of shipping the treatment: E[max(−effect, 0)] for a higher-is-better metric.
    public var treatment: Double

    public init(control: Double, treatment: Double) {
        self.control = control
        self.treatment = treatment
    }
}

/// A Bayesian comparison of a treatment with control, on the relative effect.
public struct BayesianResult: Sendable, Equatable {
    /// The posterior probability that the treatment is better (its effect above zero, or below for
    /// a lower-is-better metric).
    public var chanceToWin: Double
    /// The posterior mean of the relative effect.
    public var expected: Double
    /// The central 1 − α credible interval of the relative effect.
    public var ci: Interval
    public var risk: Risk
    /// Why there is no result, when there is none; then the figures are gbstats' defaults (chance
    /// 0.5, expected 0, interval [0, 0], risks 0).
    public var error: String?

    public init(chanceToWin: Double, expected: Double, ci: Interval, risk: Risk, error: String? = nil) {
        self.chanceToWin = chanceToWin
        self.expected = expected
        self.ci = ci
        self.risk = risk
        self.error = error
    }

    static func failed(_ error: String) -> BayesianResult {
        BayesianResult(
            chanceToWin: 0.5, expected: 0, ci: Interval(lower: 0, upper: 0), risk: Risk(control: 0, treatment: 0), error: error)
    }
}

enum Bayesian {
    /// gbstats' `EffectBayesianABTest` on the relative effect: the data's effect estimate δ̂ with
    /// variance v (delta method, as the t-test has them) taken as a normal likelihood, combined with
    /// a normal prior N(μ₀, σ₀²) when proper: posterior precision 1/v + 1/σ₀², mean
    /// (δ̂/v + μ₀/σ₀²)/precision. Improper: the posterior is N(δ̂, v).
    static func effect(
        control a: VariantStatistic, treatment b: VariantStatistic, prior: Prior, alpha: Double, higherIsBetter: Bool
    ) -> BayesianResult {
        if a.mean == 0 || a.unadjustedMean == 0 { return .failed(ComparisonError.zeroBaseline) }
        if a.n == 0 || b.n == 0 { return .failed(ComparisonError.noUsers) }
        if a.variance <= 0 || b.variance <= 0 { return .failed(ComparisonError.zeroVariance) }

        let data = Effect(control: a, treatment: b, relative: true)
        let priorVariance = pow(prior.stddev, 2)
        let precision = 1 / data.variance + (prior.proper ? 1 : 0) / priorVariance
        let mean = prior.proper ? (data.estimate / data.variance + prior.mean / priorVariance) / precision : data.estimate
        let stddev = (1 / precision).squareRoot()

        // P(effect > 0) = 1 − Φ(−mean/sd), as scipy's norm.sf(0, mean, sd).
        let aboveZero = Normal.cdf(-((0 - mean) / stddev))
        let ci = Interval(
            lower: Normal.quantile(alpha / 2) * stddev + mean,
            upper: Normal.quantile(1 - alpha / 2) * stddev + mean)
        let risk = risks(mean: mean, stddev: stddev)
        return BayesianResult(
            chanceToWin: higherIsBetter ? aboveZero : 1 - aboveZero,
            expected: mean,
            ci: ci,
            risk: higherIsBetter ? risk : Risk(control: risk.treatment, treatment: risk.control))
    }

    /// The expected losses under the posterior N(mean, sd²) (gbstats' `get_risk`):
    /// control's P(effect > 0)·E[effect | effect > 0], treatment's −P(effect < 0)·E[effect | effect < 0],
    /// the conditional means those of the truncated normal.
    static func risks(mean: Double, stddev: Double) -> Risk {
        let belowZero = Normal.cdf((0 - mean) / stddev)
        let meanBelow = Normal.truncatedMean(mu: mean, sigma: stddev, lower: -.infinity, upper: 0)
        let meanAbove = Normal.truncatedMean(mu: mean, sigma: stddev, lower: 0, upper: .infinity)
        return Risk(control: (1 - belowZero) * meanAbove, treatment: -(belowZero * meanBelow))
    }
}
