/// A requested face and its fallbacks, resolved: what text is measured with.
///
/// Each code point takes the first face in the chain that has it; a code point none has takes the
/// first face's `.notdef` advance (what a shaper draws for it). Kerning applies between neighbours
/// from the same face. Measuring allocates one small array per call (the per-scalar advances) and
/// the returned lines; nothing per glyph, nothing global.
public struct FontChain: Sendable {
    public let faces: [FontFace]

    public init(faces: [FontFace]) { self.faces = faces }

    /// The primary face's line height at `size` for `lineHeight`. With no face at all, 1.2 × size.
    public func lineHeight(size: Double, _ lineHeight: LineHeight = .font) -> Double {
        let natural = faces.first.map { $0.naturalLineHeight(size: size) } ?? 1.2 * size
        switch lineHeight {
        case .font: return natural
        case .multiple(let m): return natural * m
        case .points(let p): return p
        }
    }

    /// Width in points of `text` on one line (hard breaks ignored as zero-width), as a shaper that
    /// applies kerning would give. Trailing spaces count.
    public func singleLineWidth(_ text: String, size: Double) -> Double {
        let glyphs = layOut(text, size: size)
        var width = 0.0
        for (i, g) in glyphs.enumerated() { width += g.advance + (i > 0 ? g.kernBefore : 0) }
        return width
    }

    /// Measures `text` at `size` points, breaking lines to fit `availableWidth` points (`.infinity`
    /// or NaN for unbounded: lines end only at hard breaks).
    ///
    /// Lines break at the opportunities of docs/text.md (after spaces, after hyphens and dashes, at
    /// zero-width spaces, around CJK characters), greedily: each line takes as much as fits. A word
    /// wider than the whole line is broken before the character that overflows. Trailing spaces hang
    /// and do not count toward a line's width. With `lineLimit` > 0 at most that many lines are
    /// kept; ``TextMeasurement/isTruncated`` tells whether text was cut, and then the last line
    /// ends in "…" (``TextLine/isEllipsized``, its width measured with the ellipsis).
    public func measure(
        _ text: String, size: Double, lineHeight: LineHeight = .font, lineLimit: Int = 0,
        availableWidth: Double = .infinity
    ) -> TextMeasurement {
        prepare(text, size: size).measure(lineHeight: lineHeight, lineLimit: lineLimit, availableWidth: availableWidth)
    }

    /// `text` at `size` points with every scalar looked up once, to be measured at many widths.
    public func prepare(_ text: String, size: Double) -> PreparedText {
        PreparedText(chain: self, size: size, glyphs: layOut(text, size: size))
    }

    /// The ellipsis U+2026 measured after `previous` (nil at the start of a line): its advance and
    /// the kerning between them, in points, as ``layOut(_:size:)`` measures it in a string.
    func ellipsis(after previous: UInt32?, size: Double) -> (advance: Double, kern: Double) {
        var text = String.UnicodeScalarView()
        if let previous, let scalar = Unicode.Scalar(previous) { text.append(scalar) }
        text.append(FontChain.ellipsisScalar)
        let glyphs = layOut(String(text), size: size)
        return (glyphs[glyphs.count - 1].advance, glyphs.count > 1 ? glyphs[glyphs.count - 1].kernBefore : 0)
    }

    /// The horizontal ellipsis "…" a truncated last line ends in.
    public static let ellipsisScalar: Unicode.Scalar = "\u{2026}"

    /// The last line a line limit keeps, truncated at its tail as UIKit's `byTruncatingTail` and
    /// Android's `TextUtils.TruncateAt.END` do: the line takes the rest of its paragraph (up to the
    /// next hard break), then drops scalars from the end — and the spaces before the cut — until
    /// what is left plus "…" fits `limit`. It never cuts before a scalar without width (a mark, a
    /// joiner, the folded part of an emoji sequence); when not even "…" alone fits, the line is "…".
    static func ellipsized(
        _ glyphs: [Glyph], from start: Int, limit: Double,
        ellipsis: (UInt32?, Double) -> (advance: Double, kern: Double), size: Double
    ) -> TextLine {
        var end = start
        while end < glyphs.count && !CharacterClass.isHardBreak(glyphs[end].codepoint) { end += 1 }
        // widths[k]: the width of glyphs start..<start+k.
        var widths = [0.0]
        widths.reserveCapacity(end - start + 1)
        for j in start..<end { widths.append(widths[widths.count - 1] + (j > start ? glyphs[j].kernBefore : 0) + glyphs[j].advance) }
        let bare = ellipsis(nil, size)
        var cut = end
        while cut > start {
            if cut == end || glyphs[cut].advance > 0 {
                var shown = cut
                while shown > start && CharacterClass.isBreakingSpace(glyphs[shown - 1].codepoint) { shown -= 1 }
                let content = widths[shown - start]
                // Kerning with the last character is small; only a cut that nearly fits needs it.
                if content + bare.advance - 0.5 * size <= limit {
                    let e = shown > start ? ellipsis(glyphs[shown - 1].codepoint, size) : bare
                    if content + e.kern + e.advance <= limit {
                        return TextLine(range: start..<shown, width: content + e.kern + e.advance, isEllipsized: true)
                    }
                }
            }
            cut -= 1
        }
        return TextLine(range: start..<start, width: bare.advance, isEllipsized: true)
    }

    /// One measured scalar: its advance and the kerning between it and the previous scalar, in points.
    struct Glyph {
        var codepoint: UInt32
        var advance: Double
        var kernBefore: Double
        /// Whether a line may break between the previous scalar and this one.
        var breakBefore = false
    }

    func layOut(_ text: String, size: Double) -> [Glyph] {
        var glyphs: [Glyph] = []
        glyphs.reserveCapacity(text.utf8.count)
        let scales = faces.map { size / Double($0.unitsPerEm) }
        let notdef = faces.first.map { Double($0.notdefAdvance) * scales[0] } ?? 0.5 * size
        var previousFace = -1
        var previousRight: UInt16 = 0
        // Emoji sequences: what came before, to fold a sequence into one glyph's width.
        var previousEmoji = false  // the last visible scalar was an emoji
        var joined = false  // a ZWJ came after it
        var openFlag = false  // it was the first regional indicator of a pair
        let faceCount = faces.count
        for scalar in text.unicodeScalars {
            let c = scalar.value
            if CharacterClass.isHardBreak(c) || CharacterClass.isDefaultIgnorable(c) || CharacterClass.isCombiningMark(c) {
                // Zero width. Kerning context carries across ignorables and marks, not line breaks.
                if CharacterClass.isHardBreak(c) {
                    previousFace = -1
                    previousEmoji = false
                }
                if c == 0x200D { joined = true }
                glyphs.append(Glyph(codepoint: c, advance: 0, kernBefore: 0))
                continue
            }
            var found = false
            for index in 0..<faceCount {
                guard let m = faces[index].lookup(c) else { continue }
                var kern = 0.0
                if index == previousFace && previousRight != 0 && m.right != 0 {
                    kern = Double(faces[index].kerning(leftClass: previousRight, rightClass: m.right)) * scales[index]
                }
                var advance = Double(m.advance) * scales[index]
                // A face that has both parts of an emoji sequence draws it as one glyph (its `ccmp`
                // ligature): a skin-tone modifier, an emoji after ZWJ, the second regional
                // indicator of a flag add no width.
                let emoji = CharacterClass.isEmoji(c)
                let regional = CharacterClass.isRegionalIndicator(c)
                if index == previousFace && previousEmoji
                    && ((emoji && joined) || CharacterClass.isEmojiModifier(c) || (regional && openFlag))
                {
                    advance = 0
                }
                openFlag = regional && !(openFlag && index == previousFace)
                glyphs.append(Glyph(codepoint: c, advance: advance, kernBefore: kern))
                previousFace = index
                previousRight = m.left
                found = true
                break
            }
            if !found {
                glyphs.append(Glyph(codepoint: c, advance: notdef, kernBefore: 0))
                previousFace = -1
                openFlag = false
            }
            previousEmoji = CharacterClass.isEmoji(c)
            joined = false
        }
        for j in glyphs.indices.dropFirst() {
            glyphs[j].breakBefore = CharacterClass.canBreak(between: glyphs[j - 1].codepoint, and: glyphs[j].codepoint)
        }
        return glyphs
    }
}

/// Greedy line breaking over measured scalars.
enum LineBreaker {
    struct Line {
        /// End of the line's text (exclusive), trailing spaces included, hard break excluded.
        var end: Int
        /// Where the next line starts.
        var next: Int
        var width: Double
        var endedByHardBreak: Bool
    }

    /// The line starting at `start`: as many scalars as fit in `limit` points, ending at the last
    /// break opportunity that fits, or — when a single word is wider than the line — before the
    /// scalar that overflows (every line takes at least one scalar).
    static func nextLine(_ glyphs: [FontChain.Glyph], from start: Int, limit: Double) -> Line {
        var width = 0.0  // through the current scalar, trailing spaces included
        var content = 0.0  // without trailing spaces
        var breakAt = -1
        var contentAtBreak = 0.0
        var j = start
        while j < glyphs.count {
            let c = glyphs[j].codepoint
            if CharacterClass.isHardBreak(c) {
                var next = j + 1
                if c == 0x0D && next < glyphs.count && glyphs[next].codepoint == 0x0A { next += 1 }
                return Line(end: j, next: next, width: content, endedByHardBreak: true)
            }
            if j > start && glyphs[j].breakBefore {
                breakAt = j
                contentAtBreak = content
            }
            let w = width + (j > start ? glyphs[j].kernBefore : 0) + glyphs[j].advance
            if !CharacterClass.isBreakingSpace(c) {
                // Only a scalar that adds width overflows: marks, joiners and the folded parts of
                // an emoji sequence stay with the character before them.
                if w > limit && j > start && w > width {
                    if breakAt > start {
                        return Line(end: breakAt, next: breakAt, width: contentAtBreak, endedByHardBreak: false)
                    }
                    return Line(end: j, next: j, width: content, endedByHardBreak: false)
                }
                content = w
            }
            width = w
            j += 1
        }
        return Line(end: j, next: j, width: content, endedByHardBreak: false)
    }
}

/// Text whose scalars a ``FontChain`` has looked up at one size (advances, kerning, break
/// opportunities): breaking it into lines at a width is then arithmetic only. A layout offers a
/// text several widths, and a layout answer counts its lines once more.
public struct PreparedText: Sendable {
    public let chain: FontChain
    public let size: Double
    let glyphs: [FontChain.Glyph]

    /// As ``FontChain/measure(_:size:lineHeight:lineLimit:availableWidth:)`` measures the text.
    public func measure(lineHeight: LineHeight = .font, lineLimit: Int = 0, availableWidth: Double = .infinity) -> TextMeasurement {
        let limit = availableWidth.isNaN ? Double.infinity : max(0, availableWidth) + 1e-9
        let oneLine = chain.lineHeight(size: size, lineHeight)
        var lines: [TextLine] = []
        var start = 0
        var truncated = false
        let n = glyphs.count
        var pendingEmptyLine = n > 0  // a line exists after a hard break even when it is empty
        while start < n || pendingEmptyLine {
            if lineLimit > 0 && lines.count == lineLimit {
                truncated = true
                break
            }
            let line = LineBreaker.nextLine(glyphs, from: start, limit: limit)
            lines.append(TextLine(range: start..<line.end, width: line.width))
            start = line.next
            pendingEmptyLine = line.endedByHardBreak
        }
        if truncated, let last = lines.last {
            lines[lines.count - 1] = FontChain.ellipsized(
                glyphs, from: last.range.lowerBound, limit: limit, ellipsis: chain.ellipsis(after:size:), size: size)
        }
        var width = 0.0
        for line in lines { width = max(width, line.width) }
        return TextMeasurement(
            width: width, height: Double(lines.count) * oneLine, lineHeight: oneLine, lines: lines,
            isTruncated: truncated)
    }
}
