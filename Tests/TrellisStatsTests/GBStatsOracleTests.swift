import Foundation
@testable import TrellisStats
import XCTest

/// Every figure of Fixtures/stats/gbstats-0.8.0.jsonl.gz — what GrowthBook's gbstats 0.8.0 computed
/// for 10,000 random comparisons and 2,000 sample-ratio checks (scripts/stats-oracle) — must come
/// out of TrellisStats within 1e-9 relative, or 1e-12 absolute where gbstats' figure is within
/// 1e-12 of zero; each error must be where gbstats has one.
final class GBStatsOracleTests: XCTestCase {
    static let relativeTolerance = 1e-9
    static let absoluteTolerance = 1e-12

    func testEveryFigureMatchesGBStats() throws {
        let lines = try fixtureLines()
        XCTAssertTrue(lines.first?.contains("\"gbstats\":\"0.8.0\"") ?? false, "line 1 is the provenance")
        let decoder = JSONDecoder()
        var check = Check()
        var comparisons = 0
        var srmCases = 0
        for (index, line) in lines.enumerated().dropFirst() {
            let case_ = try decoder.decode(OracleCase.self, from: Data(line.utf8))
            check.line = index + 1
            if let input = case_.compare, let results = case_.results {
                let control = input.variants[0]
                let inputs = line.prefix(while: { $0 != "]" }) + "]}"  // the settings and variants, not the results
                for (i, expected) in results.enumerated() {
                    check.label = "variant \(i + 1) against 0 of \(inputs)"
                    let got = compare(input.type, control: control, treatment: input.variants[i + 1], settings: input.settings)
                    check.compare(got, expected)
                    comparisons += 1
                }
            } else if let srm = case_.srm, let p = case_.p {
                check.label = "srm \(line)"
                check.figure("srm", sampleRatioMismatch(users: srm.users, weights: srm.weights), p.value)
                srmCases += 1
            } else {
                XCTFail("line \(index + 1) is neither a comparison nor an SRM case")
            }
        }
        XCTAssertGreaterThanOrEqual(lines.count - 1, 12_000)
        print("gbstats oracle: \(comparisons) comparisons in \(lines.count - 1 - srmCases) cases, \(srmCases) SRM cases, \(check.figures) figures")
        for (name, worst) in check.worst.sorted(by: { $0.key < $1.key }) {
            print("  worst relative error \(name): \(worst)")
        }
        XCTAssertEqual(check.failures.count, 0, "figures off:\n" + check.failures.prefix(8).joined(separator: "\n"))
    }

    private func fixtureLines() throws -> [String] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Fixtures/stats/gbstats-0.8.0.jsonl.gz"
        ).standardizedFileURL.path
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

/// Compares figures, keeping the worst relative error of each kind and the first failures.
private struct Check {
    var line = 0
    var label = ""
    var figures = 0
    var worst: [String: Double] = [:]
    var failures: [String] = []

    /// gbstats' error codes and our wording of them.
    static let errors = [
        "ZERO_NEGATIVE_BASELINE_VARIATION": ComparisonError.zeroBaseline,
        "ZERO_NEGATIVE_VARIANCE": ComparisonError.zeroVariance,
        "NO_UNITS_IN_VARIATION": ComparisonError.noUsers,
    ]

    mutating func compare(_ got: Comparison, _ expected: OracleResult) {
        summary("control", got.control, expected.control)
        summary("treatment", got.treatment, expected.treatment)
        if let theta = expected.cupedTheta {
            if let gotTheta = got.cupedTheta { figure("cupedTheta", gotTheta, theta.value) } else { fail("cupedTheta", "nil", "\(theta.value)") }
        } else if let gotTheta = got.cupedTheta {
            fail("cupedTheta", "\(gotTheta)", "nil")
        }
        frequentist("relative", got.relative, expected.relative)
        frequentist("absolute", got.absolute, expected.absolute)
        frequentist("sequential", got.sequential, expected.sequential)
        let b = expected.bayesian
        figure("bayesian.chanceToWin", got.bayesian.chanceToWin, b.chanceToWin.value)
        figure("bayesian.expected", got.bayesian.expected, b.expected.value)
        figure("bayesian.ci", got.bayesian.ci.lower, b.lower.value)
        figure("bayesian.ci", got.bayesian.ci.upper, b.upper.value)
        figure("bayesian.risk", got.bayesian.risk.control, b.riskControl.value)
        figure("bayesian.risk", got.bayesian.risk.treatment, b.riskTreatment.value)
        error("bayesian.error", got.bayesian.error, b.error)
    }

    mutating func summary(_ name: String, _ got: Summary, _ expected: OracleSummary) {
        figure("summary.mean", got.mean, expected.mean.value)
        figure("summary.unadjustedMean", got.unadjustedMean, expected.unadjustedMean.value)
        figure("summary.stddev", got.stddev, expected.stddev.value)
    }

    mutating func frequentist(_ name: String, _ got: FrequentistResult, _ expected: OracleFrequentist) {
        figure("\(name).expected", got.expected, expected.expected.value)
        figure("\(name).ci", got.ci.lower, expected.lower.value)
        figure("\(name).ci", got.ci.upper, expected.upper.value)
        figure("\(name).pValue", got.pValue, expected.pValue.value)
        error("\(name).error", got.error, expected.error)
    }

    mutating func error(_ name: String, _ got: String?, _ expected: String?) {
        let want = expected.map { Self.errors[$0] ?? "unknown gbstats error \($0)" }
        if got != want { fail(name, got ?? "nil", want ?? "nil") }
    }

    mutating func figure(_ name: String, _ got: Double, _ expected: Double) {
        figures += 1
        let ok: Bool
        if expected.isNaN {
            ok = got.isNaN
        } else if expected.isInfinite || abs(expected) <= GBStatsOracleTests.absoluteTolerance {
            ok = got == expected || abs(got - expected) <= GBStatsOracleTests.absoluteTolerance
        } else {
            let relative = abs(got - expected) / abs(expected)
            worst[name] = max(worst[name] ?? 0, relative)
            ok = relative <= GBStatsOracleTests.relativeTolerance
        }
        if !ok { fail(name, "\(got)", "\(expected)") }
    }

    mutating func fail(_ name: String, _ got: String, _ expected: String) {
        if failures.count < 50 { failures.append("line \(line) \(name): got \(got), gbstats \(expected) — \(label)") }
        else { failures.append("") }
    }
}

// MARK: - The fixture's shape (scripts/stats-oracle.py)

/// A number, or "inf", "-inf", "nan" (which JSON cannot hold).
struct Figure: Decodable {
    var value: Double

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            value = number
        } else {
            switch try container.decode(String.self) {
            case "inf": value = .infinity
            case "-inf": value = -.infinity
            default: value = .nan
            }
        }
    }
}

struct OracleCase: Decodable {
    var compare: OracleInput?
    var results: [OracleResult]?
    var srm: OracleSRM?
    var p: Figure?
}

struct OracleInput: Decodable {
    var type: MetricType
    var settings: AnalysisSettings
    var variants: [SufficientStatistics]
}

struct OracleSRM: Decodable {
    var users: [Int]
    var weights: [Double]
}

struct OracleSummary: Decodable {
    var mean: Figure
    var unadjustedMean: Figure
    var stddev: Figure
}

struct OracleFrequentist: Decodable {
    var expected: Figure
    var lower: Figure
    var upper: Figure
    var pValue: Figure
    var error: String?
}

struct OracleBayesian: Decodable {
    var chanceToWin: Figure
    var expected: Figure
    var lower: Figure
    var upper: Figure
    var riskControl: Figure
    var riskTreatment: Figure
    var error: String?
}

struct OracleResult: Decodable {
    var control: OracleSummary
    var treatment: OracleSummary
    var cupedTheta: Figure?
    var relative: OracleFrequentist
    var absolute: OracleFrequentist
    var sequential: OracleFrequentist
    var bayesian: OracleBayesian
}

// The library's types decode from the fixture's keys here, so that the library itself needs no Codable.

private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private extension KeyedDecodingContainer where Key == TrellisStatsTests.Key {
    func callAsFunction<T: Decodable>(_ key: String) throws -> T { try decode(T.self, forKey: Key(stringValue: key)) }
    func optional<T: Decodable>(_ key: String) throws -> T? { try decodeIfPresent(T.self, forKey: Key(stringValue: key)) }
}

extension MetricType: Decodable {
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        guard let type = MetricType(rawValue: raw) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "metric type \(raw)"))
        }
        self = type
    }
}

extension Moments: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        self.init(sum: try c("sum"), sumSquares: try c("sumSquares"), sumProducts: try c("sumProducts"))
    }
}

extension SufficientStatistics: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        self.init(
            users: try c("users"), sum: try c("sum"), sumSquares: try c("sumSquares"),
            denominator: try c.optional("denominator"), covariate: try c.optional("covariate"))
    }
}

extension Prior: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        self.init(mean: try c("mean"), stddev: try c("stddev"), proper: try c("proper"))
    }
}

extension AnalysisSettings: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        self.init(
            alpha: try c("alpha"), sequentialTuning: try c("sequentialTuning"), prior: try c("prior"),
            higherIsBetter: try c("higherIsBetter"))
    }
}
