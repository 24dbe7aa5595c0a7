import TrellisStats
import XCTest

/// The guardrail test's properties, by hand; GuardrailOracleTests checks its figures.
final class GuardrailTests: XCTestCase {
    private func rate(_ users: Int, _ p: Double) -> SufficientStatistics {
        let failures = (Double(users) * p).rounded()
        return SufficientStatistics(users: users, sum: failures, sumSquares: failures)
    }

    func testAnAAComparisonWithHugeSamplesNeverDeclaresARegression() {
        for p in [0.001, 0.005, 0.02, 0.05] {
            for users in [100_000, 10_000_000, 1_000_000_000] {
                for direction in [BadDirection.rise, .fall] {
                    for tolerance in [0.0, 0.10] {
                        let test = GuardrailTest(.proportion, badDirection: direction, tolerance: tolerance)
                        let result = test.decide(control: rate(users, p), treatment: rate(users, p))
                        XCTAssertEqual(result.verdict, .noRegression, "\(p) \(users) \(direction) \(tolerance)")
                        XCTAssertEqual(result.lift, 0)
                    }
                }
            }
        }
    }

    func testAChangeWithinTheToleranceIsNeverARegressionHoweverManyUsers() {
        // +5 % with 10 % tolerated: the bound closes on +5 % from below and never passes +10 %.
        let test = GuardrailTest(.proportion, badDirection: .rise, tolerance: 0.10)
        for users in [10_000, 1_000_000, 1_000_000_000] {
            let result = test.decide(control: rate(users, 0.01), treatment: rate(users, 0.0105))
            XCTAssertEqual(result.verdict, .noRegression)
            XCTAssertLessThan(result.bound!, 0.05 + 1e-9)
        }
    }

    func testADoubledFailureRateWithEnoughUsersIsARegression() {
        let test = GuardrailTest(.proportion, badDirection: .rise, tolerance: 0.10)
        let enough = test.decide(control: rate(20_000, 0.005), treatment: rate(20_000, 0.01))
        XCTAssertEqual(enough.verdict, .regression)
        XCTAssertEqual(enough.lift!, 1, accuracy: 1e-12)
        XCTAssertGreaterThan(enough.bound!, 0.10)
        XCTAssertEqual(enough.controlMean, 0.005)
        XCTAssertEqual(enough.treatmentMean, 0.01)
        XCTAssertEqual(enough.threshold, 0.10)
        XCTAssertEqual(enough.alpha, 0.05)
        // The same rates on 2,000 users an arm (10 failures against 20) are not yet evidence.
        let early = test.decide(control: rate(2_000, 0.005), treatment: rate(2_000, 0.01))
        XCTAssertEqual(early.verdict, .noRegression)
        XCTAssertLessThan(early.bound!, 0.10)
    }

    func testFewerUsersThanTheMinimumIsInsufficientWhateverTheRates() {
        for direction in [BadDirection.rise, .fall] {
            let test = GuardrailTest(.proportion, badDirection: direction, minimumUsers: 1000)
            for (a, b) in [(999, 1_000_000), (1_000_000, 999), (999, 999)] {
                for (pa, pb) in [(0.01, 0.9), (0.9, 0.01), (0.1, 0.1)] {
                    let result = test.decide(control: rate(a, pa), treatment: rate(b, pb))
                    XCTAssertEqual(result.verdict, .insufficient)
                    XCTAssertEqual(result.reason, GuardrailResult.tooFewUsers)
                    XCTAssertNil(result.bound)
                    XCTAssertEqual(result.controlUsers, a)
                    XCTAssertEqual(result.treatmentUsers, b)
                }
            }
        }
    }

    func testAFallThatIsBadIsTestedOnTheOtherSide() {
        // A conversion rate halved, 10 % → 5 %, on 10,000 users an arm.
        let control = rate(10_000, 0.10)
        let treatment = rate(10_000, 0.05)
        let fall = GuardrailTest(.proportion, badDirection: .fall, tolerance: 0.10).decide(control: control, treatment: treatment)
        XCTAssertEqual(fall.verdict, .regression)
        XCTAssertEqual(fall.threshold, -0.10)
        XCTAssertGreaterThan(fall.bound!, fall.lift!, "the upper bound")
        XCTAssertLessThan(fall.bound!, -0.10)
        // Where a rise is bad, the same halving is an improvement; the lower bound is far below.
        let rise = GuardrailTest(.proportion, badDirection: .rise, tolerance: 0.10).decide(control: control, treatment: treatment)
        XCTAssertEqual(rise.verdict, .noRegression)
        XCTAssertLessThan(rise.bound!, rise.lift!, "the lower bound")
        // And a doubling where a fall is bad is no regression.
        let doubled = GuardrailTest(.proportion, badDirection: .fall).decide(control: control, treatment: rate(10_000, 0.2))
        XCTAssertEqual(doubled.verdict, .noRegression)
        // The two sides are mirror images: the same half width either way.
        XCTAssertEqual(fall.bound! - fall.lift!, rise.lift! - rise.bound!, accuracy: 1e-15)
    }

    func testOneSideIsNarrowerThanTheTwoSidedSequentialIntervalAtTheSameAlpha() {
        let control = rate(50_000, 0.01)
        let treatment = rate(50_000, 0.012)
        let two = compare(.proportion, control: control, treatment: treatment, settings: AnalysisSettings())
        let one = GuardrailTest(.proportion, badDirection: .rise, tolerance: 0).decide(control: control, treatment: treatment)
        XCTAssertGreaterThan(one.bound!, two.sequential.ci.lower)
        XCTAssertLessThan(one.bound!, two.relative.ci.lower, "but wider than a fixed-horizon interval")
    }

    func testAZeroControlRateOrAnArmWithoutVarianceIsInsufficient() {
        let test = GuardrailTest(.proportion, badDirection: .rise)
        let zero = test.decide(control: rate(10_000, 0), treatment: rate(10_000, 0.01))
        XCTAssertEqual(zero.verdict, .insufficient)
        XCTAssertEqual(zero.reason, "control mean is zero")
        let flat = test.decide(control: rate(10_000, 0.01), treatment: rate(10_000, 0))
        XCTAssertEqual(flat.verdict, .insufficient)
        XCTAssertEqual(flat.reason, "a variant has no variance")
    }

    func testMeansAreTestedOnTheirSampleVariance() {
        // Latency where a rise is bad: 200 ms ± 50 against 260 ms ± 60, 5,000 users an arm.
        func arm(_ n: Int, _ mean: Double, _ sd: Double) -> SufficientStatistics {
            let sum = Double(n) * mean
            return SufficientStatistics(users: n, sum: sum, sumSquares: sd * sd * Double(n - 1) + sum * sum / Double(n))
        }
        let test = GuardrailTest(.mean, badDirection: .rise, tolerance: 0.10)
        let result = test.decide(control: arm(5_000, 200, 50), treatment: arm(5_000, 260, 60))
        XCTAssertEqual(result.verdict, .regression)
        XCTAssertEqual(result.lift!, 0.3, accuracy: 1e-12)
        let within = test.decide(control: arm(5_000, 200, 50), treatment: arm(5_000, 210, 50))
        XCTAssertEqual(within.verdict, .noRegression)
    }
}
