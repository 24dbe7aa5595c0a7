import Testing
@testable import TrellisText

/// Line breaking on a grid face where widths are easy to add up: at 10 pt every ASCII character is
/// 1 pt wide (and "…"), a space 0.5 pt, a CJK character 10 pt; "AV" kerns by −0.2 pt.
@Suite struct LineBreakingTests {
    static let grid: FontFace = {
        func run(_ a: UInt32, _ b: UInt32, _ advance: UInt16, left: UInt16 = 0, right: UInt16 = 0) -> FontFace.Run {
            FontFace.Run(start: a, count: b - a + 1, advance: advance, leftClass: left, rightClass: right)
        }
        return FontFace(
            family: "Grid", weight: 400, isItalic: false, unitsPerEm: 1000, ascender: 800, descender: -200,
            lineGap: 200, notdefAdvance: 700, sourceChecksum: 0,
            runs: [
                run(0x20, 0x20, 50), run(0x21, 0x40, 100), run(0x41, 0x41, 100, left: 1),
                run(0x42, 0x55, 100), run(0x56, 0x56, 100, right: 1), run(0x57, 0x7E, 100),
                run(0xA0, 0xA0, 100), run(0x2010, 0x2014, 100), run(0x2026, 0x2026, 100), run(0x3000, 0x30FF, 1000),
                run(0x4E00, 0x9FFF, 1000), run(0xFF01, 0xFF60, 1000),
            ],
            leftClassCount: 2, rightClassCount: 2, kerningMatrix: [0, 0, 0, -20])
    }()
    static let chain = FontChain(faces: [grid])

    func lines(_ text: String, _ width: Double, limit: Int = 0) -> [String] {
        let m = Self.chain.measure(text, size: 10, lineLimit: limit, availableWidth: width)
        let scalars = Array(text.unicodeScalars)
        return m.lines.map { line in
            var s = ""
            s.unicodeScalars.append(contentsOf: scalars[line.range])
            return s
        }
    }

    func widths(_ text: String, _ width: Double) -> [Double] {
        Self.chain.measure(text, size: 10, availableWidth: width).lines.map(\.width)
    }

    @Test func breaksAfterSpacesAndHangsThem() {
        #expect(lines("aaa bbb ccc", 7) == ["aaa bbb ", "ccc"])
        #expect(widths("aaa bbb ccc", 7) == [6.5, 3])
        #expect(lines("aaa bbb ccc", 6.5) == ["aaa bbb ", "ccc"])  // exactly fits
        #expect(lines("aaa bbb ccc", 6.4) == ["aaa ", "bbb ", "ccc"])
        // Trailing spaces never count and never push a line over.
        #expect(lines("aaa      bbb", 4) == ["aaa      ", "bbb"])
        #expect(widths("aaa      bbb", 4) == [3, 3])
        #expect(Self.chain.measure("aaa   ", size: 10).width == 3)
        #expect(Self.chain.singleLineWidth("aaa   ", size: 10) == 4.5)
    }

    @Test func breaksAfterHyphensAndDashes() {
        #expect(lines("aaa-bbb", 5) == ["aaa-", "bbb"])
        #expect(lines("aaa\u{2014}bbb", 5) == ["aaa\u{2014}", "bbb"])
        #expect(lines("aaa\u{2010}bbb", 5) == ["aaa\u{2010}", "bbb"])
        // Not between a hyphen-minus and a digit (UAX #14 LB25): "-55" stays, the word breaks.
        #expect(lines("a-55", 3) == ["a-5", "5"])
        #expect(lines("ab -55", 4) == ["ab ", "-55"])
    }

    @Test func breaksAtZeroWidthSpaces() {
        #expect(lines("aaa\u{200B}bbb", 4) == ["aaa\u{200B}", "bbb"])
        #expect(widths("aaa\u{200B}bbb", 4) == [3, 3])
        #expect(Self.chain.measure("aaa\u{200B}bbb", size: 10).width == 6)
    }

    @Test func noBreakSpaceGlues() {
        #expect(lines("aa aaa\u{A0}bbb", 7) == ["aa ", "aaa\u{A0}bbb"])
    }

    @Test func breaksBetweenCJKCharacters() {
        #expect(lines("東京大阪", 25) == ["東京", "大阪"])
        #expect(widths("東京大阪", 25) == [20, 20])
        // No line starts with 。 or ー: the break moves one character back.
        #expect(lines("東京。大阪", 25) == ["東", "京。", "大阪"])
        #expect(lines("東京タワー", 25) == ["東京", "タ", "ワー"])
        // Latin next to CJK may break too.
        #expect(lines("abc東京", 12) == ["abc", "東京"] || lines("abc東京", 12) == ["abc", "東", "京"])
        #expect(lines("abc東京", 13) == ["abc東", "京"])
    }

    @Test func breaksOverlongWordsWhereTheyOverflow() {
        #expect(lines("abcdefghij", 3.5) == ["abc", "def", "ghi", "j"])
        #expect(lines("ab abcdefghij", 3.5) == ["ab ", "abc", "def", "ghi", "j"])
        // A line always takes at least one character, even when none fits.
        #expect(lines("東京", 5) == ["東", "京"])
        #expect(Self.chain.measure("東京", size: 10, availableWidth: 5).width == 10)
        #expect(lines("abc", 0) == ["a", "b", "c"])
    }

    @Test func hardBreaks() {
        #expect(lines("aa\nbbb", .infinity) == ["aa", "bbb"])
        #expect(lines("aa\r\nbbb", .infinity) == ["aa", "bbb"])
        #expect(lines("aa\u{2028}bbb", .infinity) == ["aa", "bbb"])
        #expect(lines("aa\n\nbbb", .infinity) == ["aa", "", "bbb"])
        #expect(lines("aa\n", .infinity) == ["aa", ""])
        let m = Self.chain.measure("aa\nbbb bbb", size: 10)
        #expect(m.lineCount == 2)
        #expect(m.width == 6.5)
        // Unbounded, NaN means the same.
        #expect(Self.chain.measure("aa\nbbb bbb", size: 10, availableWidth: .nan) == m)
    }

    @Test func emptyAndBlankText() {
        let empty = Self.chain.measure("", size: 10)
        #expect(empty.lineCount == 0)
        #expect(empty.width == 0 && empty.height == 0)
        let blank = Self.chain.measure("   ", size: 10)
        #expect(blank.lineCount == 1)
        #expect(blank.width == 0)
        #expect(blank.height == 12)
    }

    @Test func lineLimitKeepsTheFirstLines() {
        let m = Self.chain.measure("aaa bbbbb cc", size: 10, lineLimit: 2, availableWidth: 5)
        #expect(m.lineCount == 2)
        #expect(m.isTruncated)
        #expect(m.width == 5)  // widest line shown: "bbbbb", then "bbbb…" (EllipsisTests)
        #expect(m.height == 24)
        let all = Self.chain.measure("aaa bbbbb cc", size: 10, lineLimit: 3, availableWidth: 5)
        #expect(!all.isTruncated)
        #expect(all.lineCount == 3)
        #expect(Self.chain.measure("a\nb\nc", size: 10, lineLimit: 1).isTruncated)
    }

    @Test func lineHeights() {
        // (800 + 200 + 200) / 1000 × 10
        #expect(Self.chain.measure("a", size: 10).lineHeight == 12)
        #expect(Self.chain.measure("a", size: 10, lineHeight: .multiple(1.5)).lineHeight == 18)
        #expect(Self.chain.measure("a\nb", size: 10, lineHeight: .points(20)).height == 40)
    }

    @Test func kerningAppliesWithinALineOnly() {
        #expect(abs(Self.chain.singleLineWidth("AV", size: 10) - 1.8) < 1e-9)
        // Broken between A and V, neither line carries the pair's kerning.
        #expect(widths("AV", 1.5) == [1, 1])
        #expect(abs(Self.chain.measure("xAV", size: 10).width - 2.8) < 1e-9)
    }

    @Test func missingCodePointsUseFallbackThenNotdef() {
        // The grid lacks U+00E9: .notdef (700 units: 7 pt).
        #expect(Self.chain.singleLineWidth("é", size: 10) == 7)
        let accents = FontFace(
            family: "Accents", weight: 400, isItalic: false, unitsPerEm: 2000, ascender: 1600,
            descender: -400, lineGap: 0, notdefAdvance: 0, sourceChecksum: 0,
            runs: [FontFace.Run(start: 0xE9, count: 1, advance: 1200, leftClass: 0, rightClass: 0)],
            leftClassCount: 1, rightClassCount: 1, kerningMatrix: [0])
        let chain = FontChain(faces: [Self.grid, accents])
        #expect(chain.singleLineWidth("é", size: 10) == 6)
        #expect(chain.singleLineWidth("aé😀", size: 10) == 1 + 6 + 7)
        // Zero-width joiners, variation selectors and combining marks take no width.
        #expect(chain.singleLineWidth("a\u{200D}a\u{FE0F}e\u{301}", size: 10) == 3)
    }

    @Test func realFontBreaksWhereTheWidthsSay() throws {
        let roboto = FontChain(faces: [try Fixture.pack("Roboto-Regular")])
        let hello = roboto.singleLineWidth("Hello", size: 17)
        let world = roboto.singleLineWidth("world", size: 17)
        let both = roboto.singleLineWidth("Hello world", size: 17)
        #expect(roboto.measure("Hello world", size: 17, availableWidth: both).lineCount == 1)
        let m = roboto.measure("Hello world", size: 17, availableWidth: both - 0.01)
        #expect(m.lines.map(\.range) == [0..<6, 6..<11])
        #expect(m.lines.map(\.width) == [hello, world])
        #expect(m.width == max(hello, world))
        #expect(abs(m.height - 2 * 17 * 2400 / 2048) < 1e-9)
    }
}
