import Glibc

/// Student's t distribution with ν degrees of freedom (any real ν > 0), as scipy computes it
/// (`scipy.stats.t`, whose cdf and quantile are Boost.Math's `students_t`).
///
/// Everything rests on the upper tail P(T > t) = ½ I_x(ν/2, ½), x = ν/(ν + t²), computed to about
/// 1e-14 relative however small it is: by the continued fraction of the incomplete beta function
/// for ν < 30, by DiDonato and Morris's asymptotic expansion in ν (BGRAT) beyond. The cdf is then
/// `1 - tail` above zero, as Boost forms it, so that gbstats' `2 * (1 - cdf)` rounds as scipy's does.
enum StudentT {
    /// Above this many degrees of freedom Boost (and so scipy) uses the normal distribution.
    static let normalAbove = 1 / Double.ulpOfOne

    /// P(T ≤ t).
    static func cdf(_ t: Double, dof: Double) -> Double {
        if t.isNaN || !(dof > 0) { return .nan }
        if dof > normalAbove { return 0.5 * erfc(-t * Normal.sqrtHalf) }
        let tail = upperTail(abs(t), dof: dof)
        return t > 0 ? 1 - tail : tail
    }

    /// The p-quantile: t with P(T ≤ t) = p. The tail probability q = min(p, 1 − p) is exact in
    /// double precision (Sterbenz), and t solves tail(t) = q by Newton's method on log tail,
    /// safeguarded by bisection, to a relative step of 1e-15.
    static func quantile(_ p: Double, dof: Double) -> Double {
        if p.isNaN || p < 0 || p > 1 || !(dof > 0) { return .nan }
        if p == 0 { return -.infinity }
        if p == 1 { return .infinity }
        if p == 0.5 { return 0 }
        let q = p > 0.5 ? 1 - p : p
        let t = upperQuantile(q, dof: dof)
        return p > 0.5 ? t : -t
    }

    /// The density at t.
    static func density(_ t: Double, dof: Double) -> Double {
        let a = dof / 2
        return Gamma.halfStepRatio(a) / sqrt(dof * Double.pi) * exp(-(a + 0.5) * log1p(t * t / dof))
    }

    /// P(T > t) for t ≥ 0.
    static func upperTail(_ t: Double, dof: Double) -> Double {
        if t == 0 { return 0.5 }
        if t == .infinity { return 0 }
        if dof > normalAbove { return 0.5 * erfc(t * Normal.sqrtHalf) }
        // x = ν/(ν + t²) and y = 1 − x, each formed without cancellation (and without t² overflowing).
        let x: Double
        let y: Double
        if t > 1e150 {
            x = dof / t / t
            y = 1
        } else {
            let t2 = t * t
            x = dof / (dof + t2)
            y = t2 / (dof + t2)
        }
        let a = dof / 2
        // BGRAT is an expansion in 1/a about x = 1: for many degrees of freedom and t² < 3ν/7.
        if a >= 15 && y <= 0.3 { return 0.5 * IncompleteBeta.largeASmallB(a: a, b: 0.5, x: x, y: y) }
        // The fraction for I_x(a, b) converges where x < (a + 1)/(a + b + 2); past that point the
        // tail is large (t² below about 3), and ½(1 − I_y(½, a)) loses no digit that matters.
        if x < (a + 1) / (a + 2.5) {
            return 0.5 * IncompleteBeta.continuedFraction(a: a, b: 0.5, x: x, y: y)
        }
        return 0.5 * (1 - IncompleteBeta.continuedFraction(a: 0.5, b: a, x: y, y: x))
    }

    private static func upperQuantile(_ q: Double, dof: Double) -> Double {
        if dof > normalAbove { return -Normal.quantile(q) }
        // Cornish–Fisher from the normal quantile (Abramowitz & Stegun 26.7.5) as the first guess.
        let z = -Normal.quantile(q)
        let z2 = z * z
        var t = z + z * (z2 + 1) / (4 * dof) + z * ((5 * z2 + 16) * z2 + 3) / (96 * dof * dof)
        if !(t > 0) || !t.isFinite { t = z > 0 ? z : 1 }
        var below = 0.0                // tail(below) > q
        var above = Double.infinity    // tail(above) < q
        let logQ = log(q)
        for _ in 0..<200 {
            let tail = upperTail(t, dof: dof)
            if tail == q { return t }
            if tail > q { below = t } else { above = t }
            // Newton on g(t) = log tail(t) − log q, g′(t) = −density/tail.
            var next = t + (log(tail) - logQ) * tail / density(t, dof: dof)
            if !(next > below && next < above) || !next.isFinite {
                next = above.isFinite ? below + (above - below) / 2 : max(2 * t, below * 2)
            }
            if abs(next - t) <= 1e-15 * t { return next }
            t = next
        }
        return t
    }
}
