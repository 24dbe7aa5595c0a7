import Foundation
import Testing
import TrellisText

/// Single-line widths against HarfBuzz (Fixtures/text/*.json, written by scripts/text-oracle).
@Suite struct OracleTests {
    struct OracleFile: Decodable {
        struct Font: Decodable {
            var file: String
            var crc32: UInt32
            var unitsPerEm: Int
            var ascender: Int
            var descender: Int
            var lineGap: Int
        }
        struct Fallback: Decodable {
            var file: String
            var pack: String
            var crc32: UInt32
        }
        struct Case: Decodable {
            var category: String
            var text: String
            var widths: [String: Double]
            var defaultWidths: [String: Double]
        }
        var sizes: [Int]
        var font: Font
        var fallbacks: [Fallback]
        var cases: [Case]
    }

    static let files = [
        "Roboto-Regular", "Roboto-Bold", "Inter-Regular", "Inter-SemiBold", "DejaVuSans", "TrellisKernTest",
    ]

    static func load(_ name: String) throws -> OracleFile {
        try JSONDecoder().decode(OracleFile.self, from: Data(Fixture.bytes("Fixtures/text/\(name).json")))
    }

    /// The measuring chain the oracle describes: the font (through a pack round trip), then the
    /// emoji and CJK fallback packs.
    static func chain(_ oracle: OracleFile) throws -> FontChain {
        let bytes = try Fixture.bytes("Fixtures/fonts/\(oracle.font.file)")
        #expect(crc32(bytes) == oracle.font.crc32, "\(oracle.font.file) changed since the oracle ran: rerun scripts/text-oracle")
        let face = try MetricsPack.decode(MetricsPack.encode(FontFace(font: OpenTypeFont(bytes: bytes))))
        var faces = [face]
        for fallback in oracle.fallbacks {
            let pack = try MetricsPack.decode(Fixture.bytes(fallback.pack))
            #expect(pack.sourceChecksum == fallback.crc32, "\(fallback.pack) was built from another \(fallback.file)")
            faces.append(pack)
        }
        return FontChain(faces: faces)
    }

    /// How far a width may be from HarfBuzz's: the fixtures round to 4 decimals (±0.00005 pt), and
    /// the engine agrees to that rounding (docs/text.md). A lost kerning pair is off by tenths.
    static let tolerance = 0.001

    @Test(arguments: files)
    func singleLineWidthsMatchHarfBuzz(_ name: String) throws {
        let oracle = try Self.load(name)
        let chain = try Self.chain(oracle)
        var worst = 0.0
        for c in oracle.cases {
            for size in oracle.sizes {
                let expected = try #require(c.widths[String(size)])
                let got = chain.singleLineWidth(c.text, size: Double(size))
                worst = max(worst, abs(got - expected))
                #expect(abs(got - expected) <= Self.tolerance, "\(name) \(size)pt [\(c.category)] \"\(c.text)\": \(got) vs HarfBuzz \(expected)")
                // Without trailing spaces or hard breaks, the measured box is the single-line width.
                let measured = chain.measure(c.text, size: Double(size)).width
                #expect(abs(measured - got) < 1e-9)
            }
        }
        print("oracle \(name): \(oracle.cases.count) strings × \(oracle.sizes.count) sizes, max deviation \(worst) pt")
    }

    @Test(arguments: files)
    func lineMetricsMatchHarfBuzz(_ name: String) throws {
        let oracle = try Self.load(name)
        let face = try Fixture.face(oracle.font.file)
        #expect(face.unitsPerEm == oracle.font.unitsPerEm)
        #expect(face.ascender == oracle.font.ascender)
        #expect(face.descender == oracle.font.descender)
        #expect(face.lineGap == oracle.font.lineGap)
    }

    /// The full-shaping maxima docs/text.md reports (pt, to two decimals), by file: ligatures and
    /// contextual alternates are not modelled, and the table says how far that goes.
    static let documentedFullShapingMaxima: [String: Double] = [
        "Roboto-Regular": 1.44, "Roboto-Bold": 0.90, "Inter-Regular": 0, "Inter-SemiBold": 0, "DejaVuSans": 0.26, "TrellisKernTest": 0,
    ]

    /// Deviation figures for docs/text.md (`swift test --filter OracleTests.deviationSummary` prints
    /// them): against kerning-only shaping (at the fixtures' rounding) and against HarfBuzz's full
    /// default shaping, which must stay what the table says.
    @Test func deviationSummary() throws {
        var lines: [String] = []
        for name in Self.files {
            let oracle = try Self.load(name)
            let chain = try Self.chain(oracle)
            var maxModel = 0.0, sumModel = 0.0, maxFull = 0.0, sumFull = 0.0, n = 0.0
            var worstFull = ""
            for c in oracle.cases {
                for size in oracle.sizes {
                    let got = chain.singleLineWidth(c.text, size: Double(size))
                    let model = abs(got - (try #require(c.widths[String(size)])))
                    let full = abs(got - (try #require(c.defaultWidths[String(size)])))
                    maxModel = max(maxModel, model)
                    sumModel += model
                    if full > maxFull { worstFull = "\(size)pt \"\(c.text)\"" }
                    maxFull = max(maxFull, full)
                    sumFull += full
                    n += 1
                }
            }
            #expect(maxModel <= 0.0001, "\(name): kerning-only maximum \(maxModel) pt; docs/text.md says 0.00005")
            if let documented = Self.documentedFullShapingMaxima[name] {
                #expect(abs(maxFull - documented) < 0.006, "\(name): full-shaping maximum \(maxFull) pt; docs/text.md says \(documented)")
            }
            lines.append(
                "\(name): n=\(Int(n)) kerning-only max \(maxModel) mean \(sumModel / n); full shaping max \(maxFull) mean \(sumFull / n) (worst \(worstFull))")
        }
        print("ORACLE SUMMARY\n" + lines.joined(separator: "\n"))
    }
}
