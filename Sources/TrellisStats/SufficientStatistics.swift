import Glibc

/// How a metric's per-user values are summarised (gbstats' `binomial`, `count` and `ratio`).
public enum MetricType: String, Sendable {
    /// Each user converted or not: `sum` counts the users who did.
    case proportion
    /// A number per user (revenue, sessions): `sum` and `sumSquares` over users.
    case mean
    /// A numerator and a denominator per user (revenue per order): the ratio of their sums, both
    /// summarised as means (gbstats' `count`), with the sum of their products.
    case ratio
}

/// The summable statistics of one variant for one metric, as SQL sums them over users.
public struct SufficientStatistics: Sendable, Equatable {
    /// Users exposed to the variant (gbstats' `users`, also its `count`).
    public var users: Int
    /// The main value summed over users (proportion: users who converted).
    public var sum: Double
    /// The main value squared, summed over users (proportion: ignored, as it equals `sum`).
    public var sumSquares: Double
    /// Ratio metrics: the denominator's sum, sum of squares, and sum of main × denominator products.
    public var denominator: Moments?
    /// CUPED: the pre-exposure covariate's sum, sum of squares, and sum of main × covariate
    /// products. Summarised like the main value (a proportion's covariate is a proportion).
    public var covariate: Moments?

    public init(users: Int, sum: Double, sumSquares: Double, denominator: Moments? = nil, covariate: Moments? = nil) {
        self.users = users
        self.sum = sum
        self.sumSquares = sumSquares
        self.denominator = denominator
        self.covariate = covariate
    }
}

/// A second variable's sums over the same users: its sum, its sum of squares, and the sum of its
/// products with the main value.
public struct Moments: Sendable, Equatable {
    public var sum: Double
    public var sumSquares: Double
    public var sumProducts: Double

    public init(sum: Double, sumSquares: Double, sumProducts: Double) {
        self.sum = sum
        self.sumSquares = sumSquares
        self.sumProducts = sumProducts
    }
}

/// One variable over n users, as gbstats' `ProportionStatistic` or `SampleMeanStatistic`.
///
/// Every formula keeps gbstats' order of operations (and `pow` where it calls `pow`), so that the
/// cancellation in a variance computed from sums is the same cancellation, bit for bit.
struct Sample: Equatable {
    var n: Int
    var sum: Double
    var sumSquares: Double
    var isProportion: Bool

    var mean: Double { n == 0 ? 0 : sum / Double(n) }

    /// A proportion's variance is p(1 − p), with no Bessel correction; a mean's is the sample
    /// variance, 0 below two users.
    var variance: Double {
        if isProportion { return mean * (1 - mean) }
        if n <= 1 { return 0 }
        return (sumSquares - pow(sum, 2) / Double(n)) / Double(n - 1)
    }

    /// The pooled sample of two variants (gbstats' `create_joint_statistic`).
    static func + (a: Sample, b: Sample) -> Sample {
        Sample(n: a.n + b.n, sum: a.sum + b.sum, sumSquares: a.sumSquares + b.sumSquares, isProportion: a.isProportion)
    }
}

/// A variant's statistic as the tests see it (gbstats' `TestStatistic`): a plain sample, a ratio
/// of two samples (delta method), or a sample adjusted by a pre-exposure covariate (CUPED).
enum VariantStatistic: Equatable {
    case sample(Sample)
    case ratio(numerator: Sample, denominator: Sample, sumProducts: Double)
    case adjusted(post: Sample, pre: Sample, sumProducts: Double, theta: Double)

    var n: Int {
        switch self {
        case .sample(let s): s.n
        case .ratio(let m, _, _): m.n
        case .adjusted(let post, _, _, _): post.n
        }
    }

    /// The estimate the tests compare: a CUPED statistic's is adjusted by θ.
    var mean: Double {
        switch self {
        case .sample(let s): return s.mean
        case .ratio(let m, let d, _): return d.sum == 0 ? 0 : m.sum / d.sum
        case .adjusted(let post, let pre, _, let theta): return post.mean - theta * pre.mean
        }
    }

    /// The mean before any CUPED adjustment; relative effects are relative to it.
    var unadjustedMean: Double {
        if case .adjusted(let post, _, _, _) = self { return post.mean }
        return mean
    }

    /// The per-user variance: the delta method's for a ratio (m/d linearised about the means),
    /// Var(Y − θX) for CUPED.
    var variance: Double {
        switch self {
        case .sample(let s):
            return s.variance
        case .ratio(let m, let d, let sumProducts):
            if d.mean == 0 || m.n <= 1 { return 0 }
            let covariance = Self.covariance(m, d, sumProducts)
            return m.variance / pow(d.mean, 2) - 2 * covariance * m.mean / pow(d.mean, 3)
                + pow(m.mean, 2) * d.variance / pow(d.mean, 4)
        case .adjusted(let post, let pre, let sumProducts, let theta):
            if post.n <= 1 { return 0 }
            return post.variance + pow(theta, 2) * pre.variance - 2 * theta * Self.covariance(post, pre, sumProducts)
        }
    }

    /// As gbstats' `Statistic.stddev`: 0 when the variance is not positive.
    var stddev: Double { variance <= 0 ? 0 : variance.squareRoot() }

    /// The sample covariance of two variables over the same users.
    static func covariance(_ a: Sample, _ b: Sample, _ sumProducts: Double) -> Double {
        if a.n <= 1 { return 0 }
        return (sumProducts - a.sum * b.sum / Double(a.n)) / Double(a.n - 1)
    }
}
