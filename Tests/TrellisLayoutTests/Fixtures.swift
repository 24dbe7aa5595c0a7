import Foundation
import Testing
import TrellisJSON
import TrellisLayout
import TrellisLayoutJSON

/// One conformance case from `Fixtures/layout/*.json`.
struct FixtureCase: Sendable, CustomTestStringConvertible {
    let file: String
    let name: String
    let disabled: Bool
    let experiments: [String]
    let config: [JSONMember]
    let unsupported: [String]
    let tree: JSONValue
    let expectedLTR: JSONValue
    let expectedRTL: JSONValue
    let available: (width: Float?, height: Float?)
    /// How far a frame value may be from the expected one, as the file gives it (0.01 when it gives
    /// none: Yoga's and Taffy's frames are whole pixels). `ChromiumConformanceTests` compares at
    /// its own tolerance instead (`ChromiumConformanceTests.tolerance`).
    let tolerance: Double
    /// Directions in which the engine is known to differ from the expected frames, with the reason
    /// (Chromium fixtures only): such a case must still differ, so the list stays honest.
    let expectedToDiffer: [String: String]
    /// What is wrong with the case as read (no name, no tree, no expected frames): every test that
    /// runs the case fails with these.
    let problems: [String]

    var testDescription: String { name }

    init(_ json: JSONValue, source: String) {
        func strings(_ value: JSONValue?) -> [String] { value?.arrayValue?.compactMap(\.stringValue) ?? [] }
        var problems: [String] = []
        file = json["file"]?.stringValue ?? ""
        name = json["name"]?.stringValue ?? ""
        if name.isEmpty { problems.append("\(source): a case has no name") }
        disabled = json["disabled"]?.boolValue ?? false
        experiments = strings(json["experiments"])
        config = json["config"]?.objectValue ?? []
        unsupported = strings(json["unsupported"])
        tree = json["tree"] ?? .null
        if tree.objectValue == nil { problems.append("\(source)/\(name): no tree") }
        expectedLTR = json["expected"]?["ltr"] ?? .null
        expectedRTL = json["expected"]?["rtl"] ?? .null
        if expectedLTR.objectValue == nil { problems.append("\(source)/\(name): no expected.ltr") }
        if expectedRTL.objectValue == nil { problems.append("\(source)/\(name): no expected.rtl") }
        tolerance = json["tolerance"]?.numberValue ?? 0.01
        var differ: [String: String] = [:]
        for member in json["expectedToDiffer"]?.objectValue ?? [] { differ[member.key] = member.value.stringValue ?? "" }
        expectedToDiffer = differ
        if let sizes = json["available"]?.arrayValue, sizes.count == 2 {
            available = (sizes[0].numberValue.map(Float.init), sizes[1].numberValue.map(Float.init))
        } else {
            available = (nil, nil)
        }
        self.problems = problems
    }

    func layoutConfig(mode: LayoutMode) -> LayoutConfig {
        var config = LayoutConfig(mode: mode)
        for experiment in experiments {
            switch experiment {
            case "WebFlexBasis": config.experiments.insert(.webFlexBasis)
            case "FixFlexBasisFitContent": config.experiments.insert(.fixFlexBasisFitContent)
            default: break
            }
        }
        for member in self.config {
            if member.key == "pointScaleFactor", let scale = member.value.numberValue { config.pointScaleFactor = Float(scale) }
            if member.key == "errata", let errata = member.value.stringValue {
                switch errata {
                case "all": config.errata = .all
                case "classic": config.errata = .classic
                case "stretch-flex-basis": config.errata = .stretchFlexBasis
                default: break
                }
            }
        }
        return config
    }

    /// Lays the tree out in `direction` and compares every frame value at `tolerance` (the file's
    /// when nil). A case that cannot be compared — a problem reading it, an expected node without
    /// `left`, `top`, `width` or `height` — records an issue in the running test: it is never
    /// counted as a match, nor as an expected difference. A tree the engine refuses to build (a
    /// value it does not support) does not match, and counts as differing.
    func run(mode: LayoutMode, direction: Direction, tolerance: Double? = nil,
             sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Comparison {
        var comparison = Comparison(tolerance: tolerance ?? self.tolerance)
        for problem in problems { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
        let root: LayoutNode
        do {
            root = try LayoutTree.build(tree, mode: mode)
        } catch {
            comparison.buildError = "cannot build the tree: \(error)"
            return comparison
        }
        root.calculateLayout(availableWidth: available.width, availableHeight: available.height,
                             direction: direction, config: layoutConfig(mode: mode))
        compare(root, direction == .rtl ? expectedRTL : expectedLTR, path: "root", into: &comparison)
        for problem in comparison.problems {
            Issue.record("\(file)/\(name) \(direction == .rtl ? "RTL" : "LTR"): \(problem)", sourceLocation: sourceLocation)
        }
        return comparison
    }

    private func compare(_ node: LayoutNode, _ expected: JSONValue, path: String, into comparison: inout Comparison) {
        guard expected.objectValue != nil else {
            comparison.problems.append("\(path): no expected frame")
            return
        }
        let frame = node.frame
        for (key, actual) in [("left", frame.left), ("top", frame.top), ("width", frame.width), ("height", frame.height)] {
            guard let value = expected[key]?.numberValue, value.isFinite else {
                comparison.problems.append("\(path): the expected frame has no number \(key)")
                continue
            }
            let deviation = abs(Double(actual) - value)
            if deviation <= comparison.tolerance {
                comparison.maximumDeviation = max(comparison.maximumDeviation, deviation)
            } else {
                // NaN lands here too.
                comparison.differences.append("\(path).\(key): expected \(value), got \(actual)")
            }
        }
        let children = expected["children"]?.arrayValue ?? []
        if children.count != node.children.count {
            comparison.differences.append("\(path): expected \(children.count) children, got \(node.children.count)")
            return
        }
        for (index, child) in node.children.enumerated() {
            compare(child, children[index], path: "\(path).\(index)", into: &comparison)
        }
    }
}

/// One case laid out and compared with its expected frames.
struct Comparison: Sendable {
    let tolerance: Double
    /// Frame values further than `tolerance` from the expected ones, and children counts that differ.
    var differences: [String] = []
    /// Why the case could not be compared (each is also recorded as an issue).
    var problems: [String] = []
    /// Why the engine refused the tree (a style value it does not support), if it did.
    var buildError: String?
    /// The largest distance of a value within `tolerance` from the expected one.
    var maximumDeviation: Double = 0

    /// Every value within the tolerance, and nothing kept the case from being compared.
    var matches: Bool { differences.isEmpty && problems.isEmpty && buildError == nil }
    /// At least one value differs, or the engine refused the tree, and the fixture could be read.
    var differs: Bool { (!differences.isEmpty || buildError != nil) && problems.isEmpty }
    var summary: String { (problems + (buildError.map { [$0] } ?? []) + differences).prefix(4).joined(separator: "; ") }
}

/// A fixture file (or directory) as read: its cases, and what went wrong reading it.
struct FixtureFile: Sendable {
    var cases: [FixtureCase] = []
    /// A file missing, unreadable or not JSON of the expected shape; a directory without cases.
    var problems: [String] = []
}

/// A list of cases expected to differ (`*_expected_failures.json`): `{"about": "…", "cases":
/// {"name": {"ltr": "reason", "rtl": "reason"}}}`, a direction with a reason each.
struct ExpectedFailures: Sendable {
    var cases: [String: [String: String]] = [:]
    var problems: [String] = []

    func reason(_ name: String, _ direction: Direction) -> String? {
        cases[name]?[direction == .rtl ? "rtl" : "ltr"]
    }
}

/// Reads the fixture files from the repository (found from this file's path).
enum Fixtures {
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/layout")

    private static func read(_ url: URL) -> Result<JSONValue, FixtureError> {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            return .failure(FixtureError("\(url.path): cannot read: \(error.localizedDescription)"))
        }
        do {
            return .success(try JSONParser.parse([UInt8](data)))
        } catch {
            return .failure(FixtureError("\(url.path): not JSON: \(error)"))
        }
    }

    /// The cases of a file holding an array of them.
    static func load(_ name: String) -> FixtureFile {
        var file = FixtureFile()
        switch read(directory.appendingPathComponent(name)) {
        case .failure(let error): file.problems.append(error.message)
        case .success(let json):
            guard let items = json.arrayValue, !items.isEmpty else {
                file.problems.append("\(name): not a non-empty array of cases")
                return file
            }
            file.cases = items.map { FixtureCase($0, source: name) }
        }
        return file
    }

    /// Every `*.json` case in a directory of one-case files, sorted by file name.
    static func loadDirectory(_ name: String) -> FixtureFile {
        var file = FixtureFile()
        let url = directory.appendingPathComponent(name)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".json") }.sorted()
        } catch {
            file.problems.append("\(url.path): cannot list: \(error.localizedDescription)")
            return file
        }
        if names.isEmpty { file.problems.append("\(url.path): no *.json cases") }
        for item in names {
            switch read(url.appendingPathComponent(item)) {
            case .failure(let error): file.problems.append(error.message)
            case .success(let json):
                if json.objectValue == nil {
                    file.problems.append("\(name)/\(item): not a JSON object")
                } else {
                    file.cases.append(FixtureCase(json, source: "\(name)/\(item)"))
                }
            }
        }
        return file
    }

    /// An expected-failure list; see `ExpectedFailures`.
    static func loadExpectedFailures(_ name: String) -> ExpectedFailures {
        var list = ExpectedFailures()
        switch read(directory.appendingPathComponent(name)) {
        case .failure(let error): list.problems.append(error.message)
        case .success(let json):
            guard let cases = json["cases"]?.objectValue else {
                list.problems.append("\(name): no \"cases\" object")
                return list
            }
            for member in cases {
                var directions: [String: String] = [:]
                for direction in member.value.objectValue ?? [] {
                    let reason = direction.value.stringValue ?? ""
                    if !["ltr", "rtl"].contains(direction.key) || reason.isEmpty {
                        list.problems.append("\(name): \(member.key): \(direction.key) needs a direction (ltr, rtl) and a reason")
                    }
                    directions[direction.key] = reason
                }
                if directions.isEmpty { list.problems.append("\(name): \(member.key) names no direction") }
                if list.cases[member.key] != nil { list.problems.append("\(name): \(member.key) is listed twice") }
                list.cases[member.key] = directions
            }
        }
        return list
    }

    static let yogaFile = load("yoga_cases.json")
    static let taffyFile = load("taffy_flex_cases.json")
    /// Random trees shrunk by `scripts/layout-vs-chromium`, with Chromium's frames.
    static let chromiumFile = loadDirectory("chromium")

    static var yoga: [FixtureCase] { yogaFile.cases }
    static var taffy: [FixtureCase] { taffyFile.cases }
    static var chromium: [FixtureCase] { chromiumFile.cases }

    /// The Taffy cases the engine does not lay out as Chrome did (web mode, LTR), each with why.
    static let taffyExpectedFailures = loadExpectedFailures("taffy_expected_failures.json")
    /// The cases Yoga disables that the engine does not lay out as Chrome did, each with why.
    static let yogaExpectedFailures = loadExpectedFailures("yoga_expected_failures.json")

    /// Yoga cases that Yoga itself runs (including those with the sizing keywords `max-content`,
    /// `fit-content` and `stretch`, which are beyond Yoga 3.2 but implemented here).
    static var yogaEnabled: [FixtureCase] { yoga.filter { !$0.disabled } }
    /// Cases Yoga disables: each must match, unless `yoga_expected_failures.json` lists it.
    static var yogaDisabled: [FixtureCase] { yoga.filter(\.disabled) }
}

struct FixtureError: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}
