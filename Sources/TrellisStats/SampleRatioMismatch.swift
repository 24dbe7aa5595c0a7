import Glibc

/// The p-value of a sample ratio mismatch: Pearson's chi-square test of the users each variant
/// got against the split its weights ask for, on (variants − 1) degrees of freedom, as
/// gbstats.utils.check_srm. A small p-value means the assignment is broken (a bug in bucketing or
/// in logging exposures), and every other figure of the experiment is suspect.
///
/// A variant whose weight is not positive adds nothing to the statistic, though its users count in
/// the total and it keeps its degree of freedom (as gbstats has it). No users at all: 1. The
/// weights are summed left to right, as Python's `sum` did before 3.12.
///
/// - Parameters:
///   - users: users per variant.
///   - weights: each variant's share of traffic, in any unit (they need not add up to 1); as many as `users`.
public func sampleRatioMismatch(users: [Int], weights: [Double]) -> Double {
    precondition(users.count == weights.count, "one weight per variant")
    let total = users.reduce(0, +)
    if total == 0 { return 1 }
    let totalWeight = weights.reduce(0, +)
    var chiSquare = 0.0
    for (observed, weight) in zip(users, weights) where weight > 0 {
        let expected = weight / totalWeight * Double(total)
        chiSquare = chiSquare + pow(Double(observed) - expected, 2) / expected
    }
    return ChiSquare.sf(chiSquare, dof: Double(users.count - 1))
}

/// The chi-square distribution.
enum ChiSquare {
    /// P(X > x) with k degrees of freedom: Q(k/2, x/2), the upper regularized incomplete gamma.
    static func sf(_ x: Double, dof k: Double) -> Double {
        Gamma.upperRegularized(a: k / 2, x: x / 2)
    }
}
