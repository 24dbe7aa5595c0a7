import ArgumentParser
import Foundation
import TrellisText

/// `trellis fonts FONT.ttf [...] --output DIR`: turns font files into metrics packs.
struct FontsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fonts",
        abstract: "Build text metrics packs (.trfm) from TrueType/OpenType font files.",
        discussion: """
            Reads each font's cmap, hmtx, hhea, OS/2, head and GPOS/kern tables and writes \
            DIR/<font file name>.trfm: advances per code point, kerning classes, line metrics. \
            Packs in Config/fonts/ are loaded at server start. See docs/text.md.
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
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("cannot read \(path)")
            }
            let bytes = [UInt8](data)
            let font: OpenTypeFont
            do {
                font = try OpenTypeFont(bytes: bytes, fontIndex: index)
            } catch {
                throw ValidationError("\(path): \(error)")
            }
            var face = FontFace(font: font, sourceChecksum: crc32(bytes))
            if let family { face = face.renamed(family) }
            let pack = MetricsPack.encode(face)
            let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            let target = (output as NSString).appendingPathComponent("\(name).\(MetricsPack.fileExtension)")
            try Data(pack).write(to: URL(fileURLWithPath: target))
            let mapped = face.runs.reduce(0) { $0 + Int($1.count) }
            print(
                "\(target): \(face.family) weight \(face.weight)\(face.isItalic ? " italic" : ""), "
                    + "\(mapped) code points in \(face.runs.count) runs, kerning from \(font.kerningSource) "
                    + "in \(face.leftClassCount)×\(face.rightClassCount) classes, \(pack.count) bytes")
        }
    }
}
