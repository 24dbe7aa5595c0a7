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
    /// Width in points, trailing spaces not counted.
    public var width: Double

    public init(range: Range<Int>, width: Double) {
        self.range = range
        self.width = width
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

    public init(width: Double, height: Double, lineHeight: Double, lines: [TextLine], isTruncated: Bool) {
        self.width = width
        self.height = height
        self.lineHeight = lineHeight
        self.lines = lines
        self.isTruncated = isTruncated
    }
}
