/// How results are computed: the same for every metric of an analysis.
public struct AnalysisSettings: Sendable, Equatable {
    /// 1 − the confidence (and credible) level: 0.05 gives 95 % intervals.
    public var alpha: Double = 0.05
    /// The sequential test's tuning parameter: the sample size (both variants) at which its
    /// intervals are tightest. GrowthBook's default is 5000.
    public var sequentialTuning: Double = 5000
    /// The prior on the relative effect for the Bayesian result.
    public var prior = Prior()
    /// False for metrics where lower is better (bounce rate, latency): the chance to win counts
    /// effects below zero, and the two risks trade places.
    public var higherIsBetter = true

    public init(alpha: Double = 0.05, sequentialTuning: Double = 5000, prior: Prior = Prior(), higherIsBetter: Bool = true) {
        self.alpha = alpha
        self.sequentialTuning = sequentialTuning
        self.prior = prior
        self.higherIsBetter = higherIsBetter
    }
}

/// One variant's metric as the comparison used it.
public struct Summary: Sendable, Equatable {
    public var users: Int
    /// The mean the tests compared: adjusted by θ when CUPED applies; for a ratio, the ratio of sums.
    public var mean: Double
    /// The mean before CUPED's adjustment.
    public var unadjustedMean: Double
    /// The per-user standard deviation (CUPED's adjusted one; the delta method's for a ratio), 0
    /// when the variance is not positive.
    public var stddev: Double

    public init(users: Int, mean: Double, unadjustedMean: Double, stddev: Double) {
        self.users = users
        self.mean = mean
        self.unadjustedMean = unadjustedMean
        self.stddev = stddev
    }
}

/// One treatment variant against control, every way GrowthBook reports it.
public struct Comparison: Sendable, Equatable {
    public var control: Summary
    public var treatment: Summary
    /// Welch's two-sided t-test on the relative lift (delta method).
    public var relative: FrequentistResult
    /// Welch's two-sided t-test on the absolute difference.
    public var absolute: FrequentistResult
    /// The always-valid (sequential) test on the relative lift: its p-value and interval hold
    /// however often the experiment is looked at.
    public var sequential: FrequentistResult
    /// The Bayesian result on the relative lift, with the settings' prior.
    public var bayesian: BayesianResult
    /// CUPED's θ; nil when CUPED did not apply (no covariate on both sides, a ratio metric, or θ 0).
    public var cupedTheta: Double?
}

/// Compares one treatment with control, exactly as GrowthBook's gbstats 0.8.0 does (to 1e-9
/// relative; docs/statistics.md). Pure: no state, no I/O.
///
/// CUPED applies when both variants carry a `covariate` and the metric is not a ratio (gbstats has
/// no adjusted ratios); a ratio needs `denominator` on both (absent, it counts as zeros).
public func compare(
    _ type: MetricType, control: SufficientStatistics, treatment: SufficientStatistics, settings: AnalysisSettings
) -> Comparison {
    let (a, b, theta) = statistics(type, control: control, treatment: treatment)
    return Comparison(
        control: summary(a),
        treatment: summary(b),
        relative: Frequentist.welch(control: a, treatment: b, relative: true, alpha: settings.alpha),
        absolute: Frequentist.welch(control: a, treatment: b, relative: false, alpha: settings.alpha),
        sequential: Frequentist.sequential(control: a, treatment: b, alpha: settings.alpha, tuning: settings.sequentialTuning),
        bayesian: Bayesian.effect(
            control: a, treatment: b, prior: settings.prior, alpha: settings.alpha, higherIsBetter: settings.higherIsBetter),
        cupedTheta: theta)
}

/// The two variants' statistics as gbstats builds them from a row, with `users` as its `count`.
func statistics(
    _ type: MetricType, control: SufficientStatistics, treatment: SufficientStatistics
) -> (control: VariantStatistic, treatment: VariantStatistic, theta: Double?) {
    func sample(_ s: SufficientStatistics) -> Sample {
        Sample(n: s.users, sum: s.sum, sumSquares: s.sumSquares, isProportion: type == .proportion)
    }
    switch type {
    case .ratio:
        func ratio(_ s: SufficientStatistics) -> VariantStatistic {
            let d = s.denominator ?? Moments(sum: 0, sumSquares: 0, sumProducts: 0)
            return .ratio(
                numerator: Sample(n: s.users, sum: s.sum, sumSquares: s.sumSquares, isProportion: false),
                denominator: Sample(n: s.users, sum: d.sum, sumSquares: d.sumSquares, isProportion: false),
                sumProducts: d.sumProducts)
        }
        return (ratio(control), ratio(treatment), nil)
    case .proportion, .mean:
        guard let x = control.covariate, let y = treatment.covariate else {
            return (.sample(sample(control)), .sample(sample(treatment)), nil)
        }
        func pre(_ s: SufficientStatistics, _ m: Moments) -> Sample {
            Sample(n: s.users, sum: m.sum, sumSquares: m.sumSquares, isProportion: type == .proportion)
        }
        return CUPED.statistics(
            control: (sample(control), pre(control, x), x.sumProducts),
            treatment: (sample(treatment), pre(treatment, y), y.sumProducts))
    }
}

private func summary(_ s: VariantStatistic) -> Summary {
    Summary(users: s.n, mean: s.mean, unadjustedMean: s.unadjustedMean, stddev: s.stddev)
}
