import Foundation
import TrellisStats
import XCTest

/// Every case of Fixtures/stats/guardrail-bound.jsonl.gz — the one-sided always-valid bound and
/// verdict computed from the published formula with numpy (scripts/guard-oracle) — must come out of
/// `GuardrailTest` with the same verdict (and reason) and a bound within 1e-9 relative, or 1e-12
/// absolute where the oracle's bound is within 1e-12 of zero.
final class GuardrailOracleTests: XCTestCase {
    func testEveryBoundAndVerdictMatchesThePublishedFormula() throws {
        let lines = try gunzippedLines("../../Fixtures/stats/guardrail-bound.jsonl.gz")
        XCTAssertTrue(lines.first?.contains("\"oracle\": \"scripts/guard-oracle.py\"") ?? false, "line 1 is the provenance")
        XCTAssertGreaterThanOrEqual(lines.count - 1, 1000)
        let reasons = [
            "users": GuardrailResult.tooFewUsers, "baseline": "control mean is zero", "variance": "a variant has no variance",
        ]
        var failures: [String] = []
        var worst = (bound: 0.0, lift: 0.0, mean: 0.0)
        var verdicts: [GuardVerdict: Int] = [:]
        for (index, line) in lines.enumerated().dropFirst() {
            let c = try JSONDecoder().decode(OracleGuardCase.self, from: Data(line.utf8))
            let test = GuardrailTest(
                c.type, badDirection: c.badDirection, tolerance: c.tolerance, alpha: c.alpha,
                sequentialTuning: c.tuning, minimumUsers: c.minimumUsers)
            let got = test.decide(control: c.control.statistics, treatment: c.treatment.statistics)
            verdicts[got.verdict, default: 0] += 1
            func off(_ name: String, _ x: Double?, _ y: Double?) -> Double {
                guard let x, let y else {
                    if (x == nil) != (y == nil) { failures.append("line \(index + 1): \(name) \(String(describing: x)), oracle \(String(describing: y))") }
                    return 0
                }
                let error = abs(y) <= 1e-12 ? (abs(x - y) <= 1e-12 ? 0 : .infinity) : abs(x - y) / abs(y)
                if !(error <= 1e-9) { failures.append("line \(index + 1): \(name) \(x), oracle \(y)") }
                return error
            }
            worst.bound = max(worst.bound, off("bound", got.bound, c.bound))
            worst.lift = max(worst.lift, off("lift", got.lift, c.lift))
            worst.mean = max(worst.mean, off("control mean", got.controlMean, c.controlMean), off("treatment mean", got.treatmentMean, c.treatmentMean))
            if got.verdict != c.verdict || got.reason != c.reason.flatMap({ reasons[$0] }) {
                failures.append("line \(index + 1): \(got.verdict) (\(got.reason ?? "-")), oracle \(c.verdict) (\(c.reason ?? "-"))")
            }
            XCTAssertEqual(got.threshold, c.badDirection == .rise ? c.tolerance : -c.tolerance)
        }
        print("guardrail oracle: \(lines.count - 1) cases, verdicts \(verdicts.sorted { $0.key.rawValue < $1.key.rawValue })")
        print("  worst relative error: bound \(worst.bound), lift \(worst.lift), means \(worst.mean)")
        XCTAssertEqual(failures.count, 0, "\(failures.count) figures off:\n" + failures.prefix(8).joined(separator: "\n"))
    }

    private func gunzippedLines(_ relative: String) throws -> [String] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(relative).standardizedFileURL.path
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-dc", path]
        let pipe = Pipe()
        gzip.standardOutput = pipe
        try gzip.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        gzip.waitUntilExit()
        XCTAssertEqual(gzip.terminationStatus, 0, "gzip -dc \(path)")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

private struct OracleGuardCase: Decodable {
    struct Arm: Decodable {
        var users: Int
        var sum: Double
        var sumSquares: Double
        var statistics: SufficientStatistics { SufficientStatistics(users: users, sum: sum, sumSquares: sumSquares) }
    }
    var type: MetricType
    var badDirection: BadDirection
    var tolerance: Double
    var alpha: Double
    var tuning: Double
    var minimumUsers: Int
    var control: Arm
    var treatment: Arm
    var verdict: GuardVerdict
    var reason: String?
    var controlMean: Double
    var treatmentMean: Double
    var lift: Double?
    var bound: Double?
}

extension BadDirection: Decodable {}
extension GuardVerdict: Decodable {}
