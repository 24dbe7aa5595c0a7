@testable import TrellisStats
import XCTest

/// The properties the engine is built on, each with figures scipy 1.17.1 / gbstats 0.8.0 printed.
final class StatisticsTests: XCTestCase {
    private func assertClose(_ got: Double, _ expected: Double, _ tolerance: Double = 1e-12, _ what: String = "",
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThanOrEqual(abs(got - expected), tolerance * abs(expected), "\(what): \(got) vs scipy \(expected)", file: file, line: line)
    }

    // MARK: Distributions

    func testTDistributionTailsMatchScipyToTwelveDigits() {
        // (ν, t, scipy's t.sf): one degree of freedom to a billion, both sides of ν = 30 where the
        // algorithm changes, tails to 1e-12.
        let cases: [(Double, Double, Double)] = [
            (1, 12.706204736174707, 0.024999999999999994),
            (2.5, 30, 0.00014553235457869768),
            (10, 5, 0.00026866680137822634),
            (29.9, 8, 3.209694850661521e-09),
            (30.1, 8, 3.058215488121418e-09),
            (1e3, 6, 1.3776845866887376e-09),
            (1e8, 7, 1.279820536788567e-12),
            (1e9, 3, 0.0013498980648689565),
        ]
        for (dof, t, tail) in cases {
            assertClose(StudentT.upperTail(t, dof: dof), tail, 1e-12, "tail ν=\(dof) t=\(t)")
            assertClose(StudentT.cdf(-t, dof: dof), tail, 1e-12, "cdf ν=\(dof) t=−\(t)")
        }
        XCTAssertEqual(StudentT.cdf(7, dof: 1e8), 0.9999999999987201, "1 − tail rounds as Boost's")
    }

    func testTQuantilesMatchScipy() {
        let cases: [(Double, Double, Double)] = [  // (ν, t.ppf(0.975), t.ppf(0.9995))
            (1, 12.706204736174694, 636.6192487687897),
            (2.5, 3.5746548420036817, 18.277893528131457),
            (30, 2.0422724563012378, 3.6459586350420627),
            (1e3, 1.9623390808264083, 3.300282648423944),
            (1e8, 1.9599640082627663, 3.290526828789235),
        ]
        for (dof, q975, q9995) in cases {
            assertClose(StudentT.quantile(0.975, dof: dof), q975, 1e-13, "ν=\(dof)")
            assertClose(StudentT.quantile(1 - 0.001 / 2, dof: dof), q9995, 1e-13, "ν=\(dof)")
        }
    }

    func testNormalQuantileMatchesScipyDownTo1e300() {
        assertClose(Normal.quantile(0.025), -1.9599639845400545, 1e-15)
        assertClose(Normal.quantile(0.975), 1.959963984540054, 1e-15)
        assertClose(Normal.quantile(1e-10), -6.361340902404056, 1e-15)
        assertClose(Normal.quantile(1e-300), -37.0470962993612, 1e-15)
    }

    func testChiSquareTailMatchesScipyDownTo1e300() {
        assertClose(ChiSquare.sf(3, dof: 1), 0.08326451666355042)
        assertClose(ChiSquare.sf(100, dof: 2), 1.9287498479639183e-22)
        assertClose(ChiSquare.sf(1400, dof: 3), 2.945619361016289e-303)
        assertClose(ChiSquare.sf(0.01, dof: 3), 0.9997348349413444)
    }

    func testTruncatedNormalMeanMatchesScipy() {
        assertClose(Normal.truncatedMean(mu: 0.02, sigma: 0.01, lower: 0, upper: .infinity), 0.0205524786267899)
        assertClose(Normal.truncatedMean(mu: 0.02, sigma: 0.01, lower: -.infinity, upper: 0), -0.0037321553282284)
        // Five standard deviations out, where 1 − Φ alone would keep no digit.
        assertClose(Normal.truncatedMean(mu: -0.05, sigma: 0.01, lower: -.infinity, upper: 0), -0.05000001486719941)
    }

    // MARK: Sample ratio mismatch

    func testSRMOfAnExactSplitIsOne() {
        XCTAssertEqual(sampleRatioMismatch(users: [500, 500], weights: [0.5, 0.5]), 1)
        XCTAssertEqual(sampleRatioMismatch(users: [0, 0], weights: [0.5, 0.5]), 1, "no users: no evidence")
    }

    func testSRMMatchesGBStats() {
        assertClose(sampleRatioMismatch(users: [5000, 5300], weights: [0.5, 0.5]), 0.003116693839866867)
        // A variant with no users at all against an even three-way split.
        assertClose(sampleRatioMismatch(users: [100, 0, 100], weights: [1 / 3, 1 / 3, 1 / 3]), 1.9287498479638903e-22, 1e-12)
    }

    // MARK: Comparisons

    private let settings = AnalysisSettings()

    func testThetaZeroFallsBackToUnadjusted() {
        // A covariate with no variance explains nothing: θ = 0, and every figure is the unadjusted one.
        let constant = Moments(sum: 100, sumSquares: 100, sumProducts: 30)
        var control = SufficientStatistics(users: 100, sum: 30, sumSquares: 30, covariate: constant)
        var treatment = SufficientStatistics(users: 100, sum: 36, sumSquares: 36, covariate: Moments(sum: 100, sumSquares: 100, sumProducts: 36))
        let adjusted = compare(.proportion, control: control, treatment: treatment, settings: settings)
        control.covariate = nil
        treatment.covariate = nil
        let plain = compare(.proportion, control: control, treatment: treatment, settings: settings)
        XCTAssertNil(adjusted.cupedTheta)
        XCTAssertEqual(adjusted, plain)
    }

    func testCUPEDNarrowsTheIntervalItExplains() {
        // Post = pre + noise: θ near 1, and the adjusted interval is far narrower.
        let control = SufficientStatistics(
            users: 1000, sum: 10_000, sumSquares: 10_000 * 10 + 999 * 26,
            covariate: Moments(sum: 10_000, sumSquares: 10_000 * 10 + 999 * 25, sumProducts: 10_000 * 10 + 999 * 25))
        let treatment = SufficientStatistics(
            users: 1000, sum: 10_300, sumSquares: 10_300 * 10.3 + 999 * 26,
            covariate: Moments(sum: 10_000, sumSquares: 10_000 * 10 + 999 * 25, sumProducts: 10_300 * 10 + 999 * 25))
        let adjusted = compare(.mean, control: control, treatment: treatment, settings: settings)
        var plainControl = control
        var plainTreatment = treatment
        plainControl.covariate = nil
        plainTreatment.covariate = nil
        let plain = compare(.mean, control: plainControl, treatment: plainTreatment, settings: settings)
        let theta = try? XCTUnwrap(adjusted.cupedTheta)
        XCTAssertEqual(theta ?? 0, 1, accuracy: 0.05)
        XCTAssertLessThan(adjusted.relative.ci.upper - adjusted.relative.ci.lower, (plain.relative.ci.upper - plain.relative.ci.lower) / 3)
    }

    func testAZeroBaselineGivesDefaults() {
        let control = SufficientStatistics(users: 100, sum: 0, sumSquares: 0)
        let treatment = SufficientStatistics(users: 100, sum: 10, sumSquares: 10)
        let result = compare(.proportion, control: control, treatment: treatment, settings: settings)
        XCTAssertEqual(result.relative, FrequentistResult(expected: 0, ci: Interval(lower: 0, upper: 0), pValue: 1, error: ComparisonError.zeroBaseline))
        XCTAssertEqual(result.absolute.error, ComparisonError.zeroBaseline, "gbstats refuses absolute effects too")
        XCTAssertEqual(result.bayesian.chanceToWin, 0.5)
        XCTAssertEqual(result.bayesian.error, ComparisonError.zeroBaseline)
    }

    func testAnEmptyTreatmentHasNoUsers() {
        let control = SufficientStatistics(users: 100, sum: 10, sumSquares: 10)
        let treatment = SufficientStatistics(users: 0, sum: 0, sumSquares: 0)
        let result = compare(.proportion, control: control, treatment: treatment, settings: settings)
        XCTAssertEqual(result.bayesian.error, ComparisonError.noUsers)
        XCTAssertEqual(result.relative.error, ComparisonError.zeroVariance, "the t-test sees no variance first, as gbstats")
    }

    func testLowerIsBetterSwapsChanceAndRisks() {
        let control = SufficientStatistics(users: 1000, sum: 100, sumSquares: 100)
        let treatment = SufficientStatistics(users: 1000, sum: 120, sumSquares: 120)
        let higher = compare(.proportion, control: control, treatment: treatment, settings: settings)
        let lower = compare(.proportion, control: control, treatment: treatment, settings: AnalysisSettings(higherIsBetter: false))
        XCTAssertEqual(lower.bayesian.chanceToWin, 1 - higher.bayesian.chanceToWin)
        XCTAssertEqual(lower.bayesian.risk, Risk(control: higher.bayesian.risk.treatment, treatment: higher.bayesian.risk.control))
        XCTAssertEqual(lower.relative, higher.relative, "frequentist figures do not depend on the direction")
    }

    func testAProperPriorShrinksTowardsItsMean() {
        let control = SufficientStatistics(users: 200, sum: 20, sumSquares: 20)
        let treatment = SufficientStatistics(users: 200, sum: 30, sumSquares: 30)
        let flat = compare(.proportion, control: control, treatment: treatment, settings: settings)
        let proper = compare(.proportion, control: control, treatment: treatment, settings: AnalysisSettings(prior: Prior(proper: true)))
        XCTAssertEqual(flat.bayesian.expected, flat.relative.expected, "an improper prior leaves the data's estimate")
        XCTAssertLessThan(proper.bayesian.expected, flat.bayesian.expected)
        XCTAssertGreaterThan(proper.bayesian.expected, 0)
    }
}
