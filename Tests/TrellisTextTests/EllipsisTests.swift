import Testing
@testable import TrellisText

/// A line limit that cuts text ends its last line in "…", measured: the line takes the rest of its
/// paragraph and drops scalars from its end until it and the ellipsis fit, as UIKit's and
/// Android's tail truncation do.
@Suite struct EllipsisTests {
    let grid = LineBreakingTests.chain

    func shown(_ text: String, _ width: Double, limit: Int) -> (lines: [String], measurement: TextMeasurement) {
        let m = grid.measure(text, size: 10, lineLimit: limit, availableWidth: width)
        return (m.lineTexts(of: text), m)
    }

    @Test func theLastLineTakesTheRestAndEndsInAnEllipsis() {
        let (lines, m) = shown("aaa bbbbb cc", 5, limit: 2)
        #expect(lines == ["aaa", "bbbb…"])
        #expect(m.isTruncated)
        #expect(m.lines.map(\.isEllipsized) == [false, true])
        #expect(m.lines[1].range == 4..<8)
        #expect(m.lines[1].width == 5)  // four letters and the ellipsis, 1 pt each
        #expect(m.width == 5)
        #expect(m.height == 24)
        // The rest of the paragraph, cut by characters, not only at break opportunities.
        #expect(shown("aaa bb cccccc", 6, limit: 1).lines == ["aaa b…"])
    }

    @Test func spacesBeforeTheCutAreDropped() {
        // "aaaa b…" is 6.5 pt; "aaaa …" would end in a space: "aaaa…", 5 pt.
        let (lines, m) = shown("aaaa bbbb", 6, limit: 1)
        #expect(lines == ["aaaa…"])
        #expect(m.lines[0].range == 0..<4)
        #expect(m.width == 5)
    }

    @Test func textThatFitsHasNoEllipsis() {
        let (lines, m) = shown("aaa bbb", 5, limit: 2)
        #expect(lines == ["aaa", "bbb"])
        #expect(!m.isTruncated)
        #expect(m.lines.allSatisfy { !$0.isEllipsized })
        #expect(shown("aaa", .infinity, limit: 1).lines == ["aaa"])
    }

    @Test func hardBreaksEndTheParagraphTheEllipsisCloses() {
        // Unbounded: each hard line is a line; the second of two shown gets the ellipsis.
        let (lines, m) = shown("a\nb\nc", .infinity, limit: 2)
        #expect(lines == ["a", "b…"])
        #expect(m.width == 2)
        // The last line never reaches past its own paragraph.
        #expect(shown("aaa bbb\nccc", 5, limit: 1).lines == ["aaa…"])
    }

    @Test func neverCutsBetweenACharacterAndItsMark() {
        // e + U+0301 is one grapheme: cutting before the mark would drop the accent.
        let (lines, _) = shown("aae\u{301}e\u{301}", 3.5, limit: 1)
        #expect(lines == ["aa…"])
        #expect(shown("aae\u{301}e\u{301}a", 4.2, limit: 1).lines == ["aae\u{301}…"])
    }

    @Test func anEllipsisAloneWhenNothingElseFits() {
        let (lines, m) = shown("abc", 0.5, limit: 1)
        #expect(lines == ["…"])
        #expect(m.lines[0].range == 0..<0)
        #expect(m.width == 1)
    }

    /// With a real font, at every width: the line (ellipsis included) fits and measures what a
    /// single-line measurement of the drawn string gives (so the ellipsis's kerning counts), and
    /// showing one more character would not have fitted.
    @Test func realFontEllipsisFitsAndIsTheLongestThatFits() throws {
        let roboto = FontChain(faces: [try Fixture.pack("Roboto-Regular")])
        let text = "Recommended for you, Today's deals"
        let scalars = Array(text.unicodeScalars)
        var checked = 0
        for width in stride(from: 20.0, through: 300, by: 3.7) {
            let m = roboto.measure(text, size: 17, lineLimit: 1, availableWidth: width)
            let full = roboto.singleLineWidth(text, size: 17)
            guard full > width else {
                #expect(!m.isTruncated)
                continue
            }
            let line = try #require(m.lines.first)
            let drawn = try #require(m.lineTexts(of: text).first)
            #expect(line.isEllipsized && drawn.hasSuffix("…"))
            #expect(line.width <= width + 1e-9, "\(drawn) is \(line.width) pt in \(width) pt")
            #expect(abs(line.width - roboto.singleLineWidth(drawn, size: 17)) < 1e-9, "\(drawn)")
            // The next cut that shows more: through the next character that is not a space.
            var next = line.range.upperBound
            while scalars[next] == " " { next += 1 }
            var longer = String.UnicodeScalarView()
            longer.append(contentsOf: scalars[0...next])
            longer.append("…")
            #expect(roboto.singleLineWidth(String(longer), size: 17) > width, "\(String(longer)) fits \(width) pt too")
            checked += 1
        }
        #expect(checked > 50)
    }
}
