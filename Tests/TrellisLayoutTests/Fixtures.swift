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
    /// How far a frame value may be from the expected one (Chromium's unrounded frames: 0.6).
    let tolerance: Double
    /// Directions in which the engine is known to differ from the expected frames, with the reason
    /// (Chromium fixtures only): such a case must still differ, so the list stays honest.
    let expectedToDiffer: [String: String]

    var testDescription: String { name }

    init(_ json: JSONValue) {
        func strings(_ value: JSONValue?) -> [String] { value?.arrayValue?.compactMap(\.stringValue) ?? [] }
        file = json["file"]?.stringValue ?? ""
        name = json["name"]?.stringValue ?? ""
        disabled = json["disabled"]?.boolValue ?? false
        experiments = strings(json["experiments"])
        config = json["config"]?.objectValue ?? []
        unsupported = strings(json["unsupported"])
        tree = json["tree"] ?? .null
        expectedLTR = json["expected"]?["ltr"] ?? .null
        expectedRTL = json["expected"]?["rtl"] ?? .null
        tolerance = json["tolerance"]?.numberValue ?? 0.01
        var differ: [String: String] = [:]
        for member in json["expectedToDiffer"]?.objectValue ?? [] { differ[member.key] = member.value.stringValue ?? "" }
        expectedToDiffer = differ
        if let sizes = json["available"]?.arrayValue, sizes.count == 2 {
            available = (sizes[0].numberValue.map(Float.init), sizes[1].numberValue.map(Float.init))
        } else {
            available = (nil, nil)
        }
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

    /// Lays the tree out in `direction` and compares every frame; returns the differences.
    func run(mode: LayoutMode, direction: Direction) -> [String] {
        let root: LayoutNode
        do {
            root = try LayoutTree.build(tree, mode: mode)
        } catch {
            return ["cannot build tree: \(error)"]
        }
        root.calculateLayout(availableWidth: available.width, availableHeight: available.height,
                             direction: direction, config: layoutConfig(mode: mode))
        var differences: [String] = []
        compare(root, direction == .rtl ? expectedRTL : expectedLTR, path: "root", into: &differences)
        return differences
    }

    private func compare(_ node: LayoutNode, _ expected: JSONValue, path: String, into differences: inout [String]) {
        let frame = node.frame
        for (key, actual) in [("left", frame.left), ("top", frame.top), ("width", frame.width), ("height", frame.height)] {
            guard let value = expected[key]?.numberValue else { continue }
            if !(abs(Double(actual) - value) <= tolerance) {
                differences.append("\(path).\(key): expected \(value), got \(actual)")
            }
        }
        guard let children = expected["children"]?.arrayValue else { return }
        if children.count != node.children.count {
            differences.append("\(path): expected \(children.count) children, got \(node.children.count)")
            return
        }
        for (index, child) in node.children.enumerated() {
            compare(child, children[index], path: "\(path).\(index)", into: &differences)
        }
    }
}

/// Reads the fixture files from the repository (found from this file's path).
enum Fixtures {
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/layout")

    static func load(_ name: String) -> [FixtureCase] {
        let url = directory.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: url), let items = (try? JSONParser.parse([UInt8](data)))?.arrayValue else {
            return []
        }
        return items.map(FixtureCase.init)
    }

    /// Every `*.json` case in a directory of one-case files, sorted by file name.
    static func loadDirectory(_ name: String) -> [FixtureCase] {
        let url = directory.appendingPathComponent(name)
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        return files.compactMap { file in
            guard let data = try? Data(contentsOf: url.appendingPathComponent(file)),
                  let json = try? JSONParser.parse([UInt8](data)) else { return nil }
            return FixtureCase(json)
        }
    }

    static let yoga: [FixtureCase] = load("yoga_cases.json")
    static let taffy: [FixtureCase] = load("taffy_flex_cases.json")
    /// Random trees shrunk by `scripts/layout-vs-chromium`, with Chromium's frames.
    static let chromium: [FixtureCase] = loadDirectory("chromium")
    /// The number of files in `chromium/`, so that one that fails to parse is noticed.
    static var chromiumFileCount: Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("chromium").path)) ?? [])
            .filter { $0.hasSuffix(".json") }.count
    }

    /// Yoga cases that Yoga itself runs (including those with the sizing keywords `max-content`,
    /// `fit-content` and `stretch`, which are beyond Yoga 3.2 but implemented here).
    static var yogaEnabled: [FixtureCase] { yoga.filter { !$0.disabled } }
    /// Cases Yoga disables that use sizing keywords: run for information only.
    static var yogaDisabledSizingKeywords: [FixtureCase] { yoga.filter { $0.disabled && !$0.unsupported.isEmpty } }
}
