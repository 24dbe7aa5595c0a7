import Foundation
import TrellisText

/// Paths and loaders for the committed fixtures (found from this file, not the working directory).
enum Fixture {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func bytes(_ relative: String) throws -> [UInt8] {
        let url = root.appendingPathComponent(relative)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw FixtureMissing(path: url.path)
        }
        return [UInt8](data)
    }

    static func font(_ name: String) throws -> OpenTypeFont {
        try OpenTypeFont(bytes: bytes("Fixtures/fonts/\(name)"))
    }

    static func face(_ name: String) throws -> FontFace {
        let b = try bytes("Fixtures/fonts/\(name)")
        return FontFace(font: try OpenTypeFont(bytes: b), sourceChecksum: crc32(b))
    }

    static func pack(_ name: String) throws -> FontFace {
        try MetricsPack.decode(bytes("Config/fonts/\(name).trfm"))
    }

    /// Every pack shipped in Config/fonts/, with the emoji and CJK fallbacks configured.
    static func shippedCollection() throws -> FontCollection {
        var collection = FontCollection(fallbackFamilies: FontCollection.shippedFallbackFamilies)
        let dir = root.appendingPathComponent("Config/fonts")
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        where file.hasSuffix(".\(MetricsPack.fileExtension)") {
            try collection.addPack(bytes("Config/fonts/\(file)"))
        }
        return collection
    }
}

struct FixtureMissing: Error, CustomStringConvertible {
    var path: String
    var description: String { "fixture missing: \(path)" }
}
