import Glibc

/// The regularized incomplete beta function I_x(a, b), in the two regimes Student's t needs.
/// Callers pass y = 1 − x as well, computed without cancellation.
enum IncompleteBeta {
    /// I_x(a, b) = x^a y^b / (a B(a, b)) · K, K the continued fraction of Numerical Recipes §6.4
    /// (modified Lentz evaluation). It converges quickly for x < (a + 1)/(a + b + 2) and is accurate
    /// to a few ulps relative there, however small the result. Only b = ½ or a = ½ are asked of it:
    /// the prefix uses `Gamma.halfStepRatio`.
    static func continuedFraction(a: Double, b: Double, x: Double, y: Double) -> Double {
        if x == 0 { return 0 }
        let tiny = 1e-300
        let ab = a + b
        var c = 1.0
        var d = 1 - ab * x / (a + 1)
        if abs(d) < tiny { d = tiny }
        d = 1 / d
        var fraction = d
        for m in 1...10_000 {
            let m = Double(m)
            let m2 = 2 * m
            var step = m * (b - m) * x / ((a - 1 + m2) * (a + m2))
            d = 1 + step * d
            if abs(d) < tiny { d = tiny }
            c = 1 + step / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            fraction *= d * c
            step = -(a + m) * (ab + m) * x / ((a + m2) * (a + 1 + m2))
            d = 1 + step * d
            if abs(d) < tiny { d = tiny }
            c = 1 + step / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            fraction *= delta
            if abs(delta - 1) < 1e-16 { break }
        }
        return prefix(a: a, b: b, x: x, y: y) * fraction
    }

    /// x^a y^b / (a B(a, b)) with one of a, b equal to ½, where B(a, ½) = √π Γ(a)/Γ(a + ½).
    private static func prefix(a: Double, b: Double, x: Double, y: Double) -> Double {
        let other = b == 0.5 ? a : b
        let beta = Double.pi.squareRoot() / Gamma.halfStepRatio(other)
        return pow(x, a) * pow(y, b) / (a * beta)
    }

    /// I_x(a, b) for large a and b ≤ 1: DiDonato and Morris's BGRAT, ACM TOMS 18 (1992) 360–373,
    /// eq. 9–9.6 (the form Boost.Math's `beta_small_b_large_a_series` takes). With T = a + (b − 1)/2
    /// and u = −T log x it sums Γ(a+b)/Γ(a) T^{−b} Σ pₙ Jₙ, where J₀ = Q(b, u)·Γ(b)e^u u^{−b}; for
    /// b = ½ the leading term is the normal tail erfc(√u), and the rest corrects it in powers of 1/a.
    static func largeASmallB(a: Double, b: Double, x: Double, y: Double) -> Double {
        precondition(b == 0.5, "only b = ½ (Student's t) is implemented")
        let bm1 = b - 1
        let t = a + bm1 / 2
        let lx = y < 0.35 ? log1p(-y) : log(x)
        let u = -t * lx
        // h = u^b e^{−u}/Γ(b); the Jₙ below are Boost's jₙ times h, so nothing underflows alone.
        let h = (u / Double.pi).squareRoot() * exp(-u)
        let scale = Gamma.halfStepRatio(a) / t.squareRoot()
        var j = erfc(u.squareRoot())
        var sum = j
        var p = [Double](repeating: 0, count: 30)
        p[0] = 1
        let lx2 = (lx / 2) * (lx / 2)
        var lxPower = 1.0
        let t4 = 4 * t * t
        var b2n = b
        for n in 1..<p.count {
            var pn = 0.0
            for m in 1..<n {
                pn += (Double(m) * b - Double(n)) * p[n - m] / oddFactorials[m]
            }
            pn /= Double(n)
            pn += bm1 / oddFactorials[n]
            p[n] = pn
            j = (b2n * (b2n + 1) * j + (u + b2n + 1) * lxPower * h) / t4
            lxPower *= lx2
            b2n += 2
            let term = pn * j
            sum += term
            if abs(term) <= 1e-17 * abs(sum) { break }
        }
        return scale * sum
    }

    /// (2k + 1)! for k = 0…29.
    private static let oddFactorials: [Double] = {
        var values: [Double] = []
        var f = 1.0
        for k in 0..<30 {
            if k > 0 { f *= Double(2 * k) * Double(2 * k + 1) }
            values.append(f)
        }
        return values
    }()
}
