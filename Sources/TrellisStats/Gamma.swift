import Glibc

/// The gamma function's ratios and the regularized incomplete gamma function.
enum Gamma {
    /// Γ(a + ½)/Γ(a) for a > 0, to a few ulps: the asymptotic series of its logarithm,
    /// ½ log a + Σ_k −B_{2k}(2 − 2^{1−2k}) / (2k(2k−1)) a^{1−2k} (Stirling's series of each log Γ,
    /// subtracted; NIST DLMF 5.11.8 with the Bernoulli polynomials at ½ and 0), for a ≥ 15, and the
    /// recurrence Γ(a + 3⁄2)/Γ(a + 1) = Γ(a + ½)/Γ(a) · (a + ½)/a to reach 15 from below. A
    /// difference of `lgamma`s would lose about log a digits' worth: a million is 6e6, whose ulp is
    /// 1e-9.
    static func halfStepRatio(_ a: Double) -> Double {
        var a = a
        var factor = 1.0
        while a < 15 {
            factor *= a / (a + 0.5)
            a += 1
        }
        let r = 1 / a
        let r2 = r * r
        // −1/8, 1/192, −1/640, 17/14336, −31/18432, 691/180224 (a^{−1}, a^{−3}, …, a^{−11}).
        var series = 691.0 / 180_224
        series = series * r2 - 31.0 / 18_432
        series = series * r2 + 17.0 / 14_336
        series = series * r2 - 1.0 / 640
        series = series * r2 + 1.0 / 192
        series = series * r2 - 1.0 / 8
        series *= r
        return factor * a.squareRoot() * exp(series)
    }

    /// Q(a, x) = Γ(a, x)/Γ(a), the upper regularized incomplete gamma function, for a > 0 and x ≥ 0:
    /// 1 − P(a, x) by P's power series where x < a + 1 (Q is not small there), else Legendre's
    /// continued fraction for Q itself (Numerical Recipes §6.2, modified Lentz), accurate relative
    /// to Q however small — until x^a e^{−x} underflows, near x = 745.
    static func upperRegularized(a: Double, x: Double) -> Double {
        if x.isNaN || !(a > 0) { return .nan }
        if x <= 0 { return 1 }
        if x == .infinity { return 0 }
        // lgamma_r: glibc's lgamma writes the global signgam, a data race between callers.
        var sign: Int32 = 0
        let logPrefix = a * log(x) - x - lgamma_r(a, &sign)
        if x < a + 1 {
            var term = 1 / a
            var sum = term
            var n = a
            for _ in 0..<10_000 {
                n += 1
                term *= x / n
                sum += term
                if abs(term) < abs(sum) * 1e-17 { break }
            }
            return 1 - sum * exp(logPrefix)
        }
        let tiny = 1e-300
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var fraction = d
        for i in 1...10_000 {
            let step = -Double(i) * (Double(i) - a)
            b += 2
            d = step * d + b
            if abs(d) < tiny { d = tiny }
            c = b + step / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            fraction *= delta
            if abs(delta - 1) < 1e-16 { break }
        }
        return exp(logPrefix) * fraction
    }
}
