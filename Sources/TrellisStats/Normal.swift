import Glibc

/// The standard normal distribution, computed the way scipy computes it, so that gbstats' figures
/// come out the same to the last bits.
///
/// `cdf` is scipy's `ndtr`, `logCDF` its `log_ndtr`, `quantile` its `ndtri` (to 1 ulp: Wichura's
/// AS 241), and `truncatedMean` the mean `scipy.stats.truncnorm.stats` gives.
enum Normal {
    static let sqrtHalf = 0.70710678118654752440
    /// log √(2π), the normal density's log normalising constant.
    static let logSqrt2Pi = log(sqrt(2 * Double.pi))

    /// Φ(a) = P(Z ≤ a). As scipy (Cephes `ndtr`): ½ + ½ erf(a/√2) near zero, where erf is exact
    /// enough; ½ erfc(|a|/√2) beyond, subtracted from 1 above zero — so, as in scipy, a cdf close to
    /// 1 carries the absolute rounding of `1 - tail`.
    static func cdf(_ a: Double) -> Double {
        let x = a * sqrtHalf
        let z = abs(x)
        if z < sqrtHalf { return 0.5 + 0.5 * erf(x) }
        let tail = 0.5 * erfc(z)
        return x > 0 ? 1 - tail : tail
    }

    /// log Φ(a), accurate far into the left tail (scipy's `log_ndtr`): `log1p(-Φ(-a))` from −1 up;
    /// below, log(½ erfc(|a|/√2)), continued by the asymptotic fraction once erfc underflows.
    static func logCDF(_ a: Double) -> Double {
        let t = a * sqrtHalf
        if a >= -1 { return log1p(-erfc(t) / 2) }
        let y = -t
        if y < 26 { return log(0.5 * erfc(y)) }
        if y == .infinity { return -.infinity }
        return log(scaledErfcTail(y) / 2) - y * y
    }

    /// erfcx(y) = e^{y²} erfc(y) for y ≥ 26, by Laplace's continued fraction
    /// erfc(y) = e^{−y²}/√π · 1/(y + ½/(y + 1/(y + 3⁄2/(y + …)))) (Abramowitz & Stegun 7.1.15),
    /// which at this y converges to double precision within 20 levels.
    private static func scaledErfcTail(_ y: Double) -> Double {
        var fraction = y
        for k in stride(from: 20, through: 1, by: -1) {
            fraction = y + (Double(k) / 2) / fraction
        }
        return 1 / (fraction * sqrt(Double.pi))
    }

    /// The p-quantile of the standard normal, z with Φ(z) = p: Wichura's AS 241 (PPND16),
    /// Applied Statistics 37 (1988) 477–484, accurate to about 1e-16 relative.
    static func quantile(_ p: Double) -> Double {
        if p.isNaN || p < 0 || p > 1 { return .nan }
        if p == 0 { return -.infinity }
        if p == 1 { return .infinity }
        let q = p - 0.5
        if abs(q) <= 0.425 {
            let r = 0.180625 - q * q
            return q * rational(r, as241Central.numerator, as241Central.denominator)
        }
        var r = q < 0 ? p : 1 - p
        r = sqrt(-log(r))
        let z: Double
        if r <= 5 {
            z = rational(r - 1.6, as241Intermediate.numerator, as241Intermediate.denominator)
        } else {
            z = rational(r - 5, as241Tail.numerator, as241Tail.denominator)
        }
        return q < 0 ? -z : z
    }

    /// The mean of a normal N(mu, sigma²) truncated to [lower, upper], as scipy's
    /// `truncnorm.stats(α, β, loc: mu, scale: sigma)` gives it: mu + sigma (φ(α) − φ(β)) / Z with
    /// α, β the bounds in standard units and Z = Φ(β) − Φ(α), the densities divided by the mass in
    /// log space (`logGaussianMass`) so that a bound far in a tail keeps its digits.
    static func truncatedMean(mu: Double, sigma: Double, lower: Double, upper: Double) -> Double {
        let alpha = (lower - mu) / sigma
        let beta = (upper - mu) / sigma
        let logMass = logGaussianMass(alpha, beta)
        let densityAtAlpha = exp(-alpha * alpha / 2.0 - logSqrt2Pi - logMass)
        let densityAtBeta = exp(-beta * beta / 2.0 - logSqrt2Pi - logMass)
        return (densityAtAlpha - densityAtBeta) * sigma + mu
    }

    /// log(Φ(β) − Φ(α)), as scipy's `_log_gauss_mass`: an interval left of zero from the log cdfs
    /// (the difference taken in log space); one right of zero mirrored to the left; one holding
    /// zero as log1p(−Φ(α) − Φ(−β)), which keeps a mass near 1 exact.
    static func logGaussianMass(_ alpha: Double, _ beta: Double) -> Double {
        if beta <= 0 { return logDifference(logCDF(beta), logCDF(alpha)) }
        if alpha > 0 { return logDifference(logCDF(-alpha), logCDF(-beta)) }
        return log1p(-cdf(alpha) - cdf(-beta))
    }

    /// log(e^p − e^q) for p ≥ q.
    private static func logDifference(_ p: Double, _ q: Double) -> Double {
        p + log1p(-exp(q - p))
    }

    private static func rational(_ x: Double, _ numerator: [Double], _ denominator: [Double]) -> Double {
        var n = 0.0
        for c in numerator.reversed() { n = n * x + c }
        var d = 0.0
        for c in denominator.reversed() { d = d * x + c }
        return n / d
    }

    // AS 241's coefficients, lowest degree first; each denominator's constant term is 1.
    private static let as241Central = (
        numerator: [
            3.387132872796366608, 133.14166789178437745, 1971.5909503065514427, 13731.693765509461125,
            45921.953931549871457, 67265.770927008700853, 33430.575583588128105, 2509.0809287301226727,
        ],
        denominator: [
            1.0, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077,
            21213.794301586595867, 39307.89580009271061, 28729.085735721942674, 5226.495278852545925,
        ])
    private static let as241Intermediate = (
        numerator: [
            1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055, 3.64784832476320460504,
            1.27045825245236838258, 0.24178072517745061177, 0.0227238449892691845833, 7.7454501427834140764e-4,
        ],
        denominator: [
            1.0, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455,
            0.14810397642748007459, 0.0151986665636164571966, 5.475938084995344946e-4, 1.05075007164441684324e-9,
        ])
    private static let as241Tail = (
        numerator: [
            6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358, 0.29656057182850489123,
            0.026532189526576123093, 0.0012426609473880784386, 2.71155556874348757815e-5, 2.01033439929228813265e-7,
        ],
        denominator: [
            1.0, 0.59983220655588793769, 0.13692988092273580531, 0.0148753612908506148525,
            7.868691311456132591e-4, 1.8463183175100546818e-5, 1.4215117583164458887e-7, 2.04426310338993978564e-15,
        ])
}
