import ArgumentParser
import Foundation
import TrellisRuntime
import TrellisText

/// `trellis fonts`: build text metrics packs from font files, and measure text with them.
struct FontsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fonts",
        abstract: "Build text metrics packs (.trfm) from font files, or measure text with packs.",
        subcommands: [Build.self, Measure.self],
        defaultSubcommand: Build.self)

    /// `trellis fonts [build] FONT.ttf [...] --output DIR`
    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build metrics packs from TrueType/OpenType font files (the default).",
            discussion: """
                Reads each font's cmap, hmtx, hhea, OS/2, head, name and GPOS/kern tables and writes \
                DIR/<font file name>.trfm: advances per code point, kerning classes, line metrics, \
                and the font file's name and CRC-32. Packs in Config/fonts/ are loaded at server \
                start; a .ttf/.otf of that name beside a pack is served to previews as a web font. \
                See docs/text.md.
                """)

        @Argument(help: "Font files (.ttf, .otf, .ttc).")
        var fonts: [String]

        @Option(name: .shortAndLong, help: "Directory to write the packs into (created if missing).")
        var output: String

        @Option(help: "Family name to record instead of the font's own (name ID 16 or 1).")
        var family: String?

        @Option(help: "Font index inside a .ttc collection.")
        var index: Int = 0

        func run() throws {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            for path in fonts {
                let bytes = try readFile(path)
                let font: OpenTypeFont
                do {
                    font = try OpenTypeFont(bytes: bytes, fontIndex: index)
                } catch {
                    throw FontsCommandError("\(path): \(error)")
                }
                let fileName = (path as NSString).lastPathComponent
                var face = FontFace(font: font, sourceChecksum: crc32(bytes), sourceFile: fileName)
                if let family { face = face.renamed(family) }
                let pack = MetricsPack.encode(face)
                let name = (fileName as NSString).deletingPathExtension
                let target = (output as NSString).appendingPathComponent("\(name).\(MetricsPack.fileExtension)")
                try Data(pack).write(to: URL(fileURLWithPath: target))
                let mapped = face.runs.reduce(0) { $0 + Int($1.count) }
                print(
                    "\(target): \(face.family) weight \(face.weight)\(face.isItalic ? " italic" : ""), "
                        + "\(mapped) code points in \(face.runs.count) runs, kerning from \(font.kerningSource) "
                        + "in \(face.leftClassCount)×\(face.rightClassCount) classes, from \(fileName), \(pack.count) bytes")
            }
        }
    }

    /// `trellis fonts measure TEXT --family Roboto --size 17 --width 120`
    struct Measure: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure text with the packs in a directory and print its lines and size.")

        @Argument(help: "The text to measure (\\n in it is a line break).")
        var text: String

        @Option(help: "Directory of .trfm packs.")
        var packs: String = "Config/fonts"

        @Option(help: "Font family.")
        var family: String = "Roboto"

        @Option(help: "Font weight, 100…900.")
        var weight: Int = 400

        @Option(help: "Font size in points.")
        var size: Double = 17

        @Option(help: "Available width in points (omit for unbounded).")
        var width: Double?

        @Option(help: "At most this many lines (0: no limit).")
        var lines: Int = 0

        @Option(help: "Families to fall back to, comma-separated (default: the server's, emoji then CJK).")
        var fallback: String = FontCollection.shippedFallbackFamilies.joined(separator: ",")

        @Option(help: "Measure this many times and print the time per measurement.")
        var repeatCount: Int = 0

        func run() throws {
            var fonts = FontCollection(fallbackFamilies: fallback.split(separator: ",").map(String.init))
            for file in try FileManager.default.contentsOfDirectory(atPath: packs).sorted()
            where file.hasSuffix(".\(MetricsPack.fileExtension)") {
                let path = (packs as NSString).appendingPathComponent(file)
                do { try fonts.addPack(readFile(path)) } catch { throw FontsCommandError("\(path): \(error)") }
            }
            let text = self.text.replacingOccurrences(of: "\\n", with: "\n")
            let attributes = TextAttributes(family: family, weight: weight, size: size, lineLimit: lines)
            let available = width ?? .infinity
            let m = fonts.measure(text, attributes, availableWidth: available)
            let chain = fonts.chain(family: family, weight: weight)
            print("faces: " + chain.faces.map { "\($0.family) \($0.weight)" }.joined(separator: ", "))
            let scalars = Array(text.unicodeScalars)
            for line in m.lines {
                var s = ""
                s.unicodeScalars.append(contentsOf: scalars[line.range])
                print(String(format: "%8.3f  |%@|", line.width, s))
            }
            print(String(format: "size %.3f × %.3f pt, %d lines of %.3f pt%@", m.width, m.height, m.lineCount,
                         m.lineHeight, m.isTruncated ? ", truncated" : ""))
            if repeatCount > 0 {
                let clock = ContinuousClock()
                var sink = 0.0
                let elapsed = clock.measure {
                    for _ in 0..<repeatCount { sink += chain.measure(text, size: size, availableWidth: available).width }
                }
                let ns = Double(elapsed.components.attoseconds) / 1e9 + Double(elapsed.components.seconds) * 1e9
                print(String(format: "%.0f ns per measurement (%d scalars: %.1f ns per scalar) [%.0f]",
                             ns / Double(repeatCount), scalars.count, ns / Double(repeatCount) / Double(max(1, scalars.count)), sink))
            }
        }
    }
}

private func readFile(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else { throw FontsCommandError("cannot read \(path)") }
    return [UInt8](data)
}

/// A failure reading or writing a file: printed as "Error: …", without the usage text.
struct FontsCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
