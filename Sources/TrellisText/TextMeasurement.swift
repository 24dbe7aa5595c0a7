/// How tall one line is.
public enum LineHeight: Hashable, Sendable {
    /// The font's own: (ascender − descender + lineGap) × size / unitsPerEm, from `hhea`, or from
    /// `OS/2` typo metrics when the font sets USE_TYPO_METRICS.
    case font
    /// A multiple of the font's own line height (iOS `lineHeightMultiple`, Android `lineSpacingMultiplier`).
    case multiple(Double)
    /// A fixed height in points (iOS `minimumLineHeight = maximumLineHeight`, Android `lineHeight`).
    case points(Double)
}

/// What to measure text with.
public struct TextAttributes: Hashable, Sendable {
    public var family: String
    /// 100 (thin) … 900 (black); 400 regular, 500 medium, 600 semibold, 700 bold.
    public var weight: Int
    public var italic: Bool
    /// Font size in points (already multiplied by any font scale).
    public var size: Double
    public var lineHeight: LineHeight
    /// At most this many lines; 0 for no limit.
    public var lineLimit: Int

    public init(
        family: String, weight: Int = 400, italic: Bool = false, size: Double,
        lineHeight: LineHeight = .font, lineLimit: Int = 0
    ) {
        self.family = family
        self.weight = weight
        self.italic = italic
        self.size = size
        self.lineHeight = lineHeight
        self.lineLimit = lineLimit
    }
}

/// One laid-out line.
public struct TextLine: Equatable, Sendable {
    /// Unicode scalar offsets into the measured string: the line's text including its trailing
    /// spaces, excluding a hard line break that ended it.
    public var range: Range<Int>
    /// Width in points, trailing spaces not counted; with the ellipsis when ``isEllipsized``.
    public var width: Double
    /// The last line of truncated text: "…" is drawn after `range` (its trailing spaces dropped).
    public var isEllipsized: Bool

    public init(range: Range<Int>, width: Double, isEllipsized: Bool = false) {
        self.range = range
        self.width = width
        self.isEllipsized = isEllipsized
    }
}

/// The size of measured text.
public struct TextMeasurement: Equatable, Sendable {
    /// The widest line shown, in points (not rounded).
    public var width: Double
    /// Lines shown × line height, in points.
    public var height: Double
    /// The height of one line, in points.
    public var lineHeight: Double
    /// The lines shown (at most the line limit).
    public var lines: [TextLine]
    /// Whether the line limit hid some text.
    public var isTruncated: Bool

    public var lineCount: Int { lines.count }

    /// What each line shows of `text` (the string that was measured): its scalars without the
    /// trailing spaces, which hang, and with "…" at the end of an ellipsized line. What a
    /// renderer draws line by line.
    public func lineTexts(of text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        return lines.map { line in
            var end = min(scalars.count, line.range.upperBound)
            let start = min(max(0, line.range.lowerBound), end)
            while end > start && CharacterClass.isBreakingSpace(scalars[end - 1].value) { end -= 1 }
            var shown = String.UnicodeScalarView()
            shown.append(contentsOf: scalars[start..<end])
            if line.isEllipsized { shown.append(FontChain.ellipsisScalar) }
            return String(shown)
        }
    }

    public init(width: Double, height: Double, lineHeight: Double, lines: [TextLine], isTruncated: Bool) {
        self.width = width
        self.height = height
        self.lineHeight = lineHeight
        self.lines = lines
        self.isTruncated = isTruncated
    }
}
