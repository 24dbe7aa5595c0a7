import Foundation
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
@testable import TrellisServer

/// The repository's Config/ directory (fonts, sample screens), found from this file.
enum RepositoryConfig {
    static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config")
}

extension TemporaryConfig {
    /// A temporary configuration with the shipped font metrics packs and one screen per entry,
    /// each `root` given as JSON text.
    static func withFonts(roots: [String: String], schemaVersion: Int = 2) throws -> TemporaryConfig {
        let screens = roots.mapValues { root in #"{"id": "ID", "schemaVersion": \#(schemaVersion), "root": \#(root)}"# }
        let config = try TemporaryConfig(screens: [:])
        for (id, text) in screens { try config.write(screen: id, text.replacingOccurrences(of: "\"ID\"", with: "\"\(id)\"")) }
        try config.copyFonts()
        return config
    }

    func copyFonts() throws {
        let fonts = url.appendingPathComponent("fonts")
        try FileManager.default.createDirectory(at: fonts, withIntermediateDirectories: true)
        let shipped = RepositoryConfig.url.appendingPathComponent("fonts")
        for file in try FileManager.default.contentsOfDirectory(atPath: shipped.path) where file.hasSuffix(".trfm") {
            try FileManager.default.copyItem(at: shipped.appendingPathComponent(file), to: fonts.appendingPathComponent(file))
        }
    }
}

/// A frame read back from a layout answer.
struct ReadFrame: Equatable, CustomStringConvertible {
    var x: Double, y: Double, width: Double, height: Double
    init(_ x: Double, _ y: Double, _ width: Double, _ height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    init?(_ value: JSONValue?) {
        guard let v = value, let x = v["x"]?.numberValue, let y = v["y"]?.numberValue, let w = v["width"]?.numberValue,
            let h = v["height"]?.numberValue
        else { return nil }
        self.init(x, y, w, h)
    }
    var description: String { "(\(x), \(y), \(width), \(height))" }

    func isClose(to other: ReadFrame, tolerance: Double = 0.001) -> Bool {
        abs(x - other.x) <= tolerance && abs(y - other.y) <= tolerance && abs(width - other.width) <= tolerance
            && abs(height - other.height) <= tolerance
    }
}

/// A layout answer, with components found by layout id.
struct LayoutAnswer {
    let json: JSONValue

    init(_ response: HTTPResponse) throws {
        guard response.status == .ok, let json = response.json else {
            throw LayoutAnswerError(description: "status \(response.status.code): \(response.text)")
        }
        self.json = json
    }

    /// Every component by layout id, with its frame relative to the parent and absolute.
    var components: [String: (component: JSONValue, frame: ReadFrame, absolute: ReadFrame)] {
        var out: [String: (JSONValue, ReadFrame, ReadFrame)] = [:]
        func visit(_ node: JSONValue, _ originX: Double, _ originY: Double) {
            guard let id = node["layoutId"]?.stringValue, let frame = ReadFrame(node["frame"]) else { return }
            let absolute = ReadFrame(originX + frame.x, originY + frame.y, frame.width, frame.height)
            out[id] = (node, frame, absolute)
            for part in (node["bar"].map { [$0] } ?? []) + (node["separators"]?.arrayValue ?? []) {
                if let partID = part["layoutId"]?.stringValue, let f = ReadFrame(part) {
                    out[partID] = (part, f, ReadFrame(absolute.x + f.x, absolute.y + f.y, f.width, f.height))
                }
            }
            for child in node["subviews"]?.arrayValue ?? [] { visit(child, absolute.x, absolute.y) }
        }
        if let root = json["root"] { visit(root, 0, 0) }
        return out
    }

    func frame(_ id: String) -> ReadFrame? { components[id]?.frame }
    func absolute(_ id: String) -> ReadFrame? { components[id]?.absolute }
}

struct LayoutAnswerError: Error, CustomStringConvertible { var description: String }
