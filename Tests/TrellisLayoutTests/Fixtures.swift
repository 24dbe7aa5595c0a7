import Foundation
import Testing
import TrellisLayout

/// One conformance case from `Fixtures/layout/*.json`.
struct FixtureCase: Sendable, CustomTestStringConvertible {
    let file: String
    let name: String
    let disabled: Bool
    let experiments: [String]
    let config: [(key: String, value: JSONValue)]
    let unsupported: [String]
    let tree: JSONValue
    let expectedLTR: JSONValue
    let expectedRTL: JSONValue
    let available: (width: Float?, height: Float?)

    var testDescription: String { name }

    init(_ json: JSONValue) {
        func string(_ value: JSONValue?) -> String {
            if case .string(let text)? = value { return text }
            return ""
        }
        func strings(_ value: JSONValue?) -> [String] {
            guard case .array(let items)? = value else { return [] }
            return items.map { string($0) }
        }
        func number(_ value: JSONValue) -> Float? {
            if case .number(let number) = value { return Float(number) }
            return nil
        }
        file = string(json["file"])
        name = string(json["name"])
        if case .bool(let flag)? = json["disabled"] { disabled = flag } else { disabled = false }
        experiments = strings(json["experiments"])
        if case .object(let members)? = json["config"] { config = members } else { config = [] }
        unsupported = strings(json["unsupported"])
        tree = json["tree"] ?? .null
        expectedLTR = json["expected"]?["ltr"] ?? .null
        expectedRTL = json["expected"]?["rtl"] ?? .null
        if case .array(let sizes)? = json["available"], sizes.count == 2 {
            available = (number(sizes[0]), number(sizes[1]))
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
        for (key, value) in self.config {
            if key == "pointScaleFactor", case .number(let scale) = value { config.pointScaleFactor = Float(scale) }
            if key == "errata", case .string(let errata) = value {
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
            guard case .number(let value)? = expected[key] else { continue }
            if !(abs(Double(actual) - value) < 0.01) {
                differences.append("\(path).\(key): expected \(value), got \(actual)")
            }
        }
        guard case .array(let children)? = expected["children"] else { return }
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
        guard let text = try? String(contentsOf: url, encoding: .utf8),
              case .array(let items) = (try? JSONValue.parse(text)) ?? .null else {
            return []
        }
        return items.map(FixtureCase.init)
    }

    static let yoga: [FixtureCase] = load("yoga_cases.json")
    static let taffy: [FixtureCase] = load("taffy_flex_cases.json")

    /// Yoga cases that Yoga itself runs (including those with the sizing keywords `max-content`,
    /// `fit-content` and `stretch`, which are beyond Yoga 3.2 but implemented here).
    static var yogaEnabled: [FixtureCase] { yoga.filter { !$0.disabled } }
    /// Cases Yoga disables that use sizing keywords: run for information only.
    static var yogaDisabledSizingKeywords: [FixtureCase] { yoga.filter { $0.disabled && !$0.unsupported.isEmpty } }
}
