/// Measure functions for text set in the Ahem test font, where every glyph is a 1em square,
/// the baseline is 0.8em down, and a line is 1em high. Used by the conformance fixtures and
/// by `trellis layout`, so no font file is needed.
public enum AhemText {
    /// Browser-like Ahem text: breaks at spaces (1em wide) and zero-width spaces (U+200B); a
    /// fit-content width is the content's size clamped between its min-content width (the widest
    /// word) and its max-content width (one line) — as Chrome lays out a text leaf.
    ///
    /// - Parameter keepsWidestWord: whether the lines are never narrower than the widest word, even
    ///   in a narrower box (see ``keepsWidestWord(_:)``); the box's width stays the one it is given.
    public static func measure(_ text: String, fontSize: Float = 10, keepsWidestWord: Bool = false) -> MeasureFunction {
        let words = AhemWords(text)
        return { width, widthMode, height, heightMode in
            let maxContent = Float(words.maxContentEms) * fontSize
            let minContent = Float(words.minContentEms) * fontSize
            let usedWidth: Float
            switch widthMode {
            case .exactly: usedWidth = width
            case .atMost: usedWidth = max(min(width, maxContent), minContent)
            case .undefined: usedWidth = maxContent
            }
            let lineWidth = keepsWidestWord ? max(usedWidth, minContent) : usedWidth
            // Text is never shorter than its lines: under an `atMost` height it reports its own
            // height and the engine decides the overflow, as a browser does (only `exactly` wins).
            // (A line may overflow its box by up to 1/64 px, Chromium's LayoutUnit, before the text
            // breaks: a 100-wide text stays on one line in a box 33 % of 303 wide, 99.984375 in
            // LayoutUnits, as a flex line does within a rounding error, CSS Flexbox §9.3 step 5.)
            let lines = Float(words.lineCount(maxEms: Int(max(0, (lineWidth + 1.0 / 64) / fontSize + 0.0001)))) * fontSize
            return Size(width: usedWidth, height: heightMode == .exactly ? height : lines)
        }
    }

    /// Whether the text of a box with `style`'s container properties keeps its widest word on
    /// one line however narrow the box is. In HTML the text of a flex container is an anonymous
    /// flex item ([CSS Flexbox §4](https://www.w3.org/TR/css-flexbox-1/#flex-items)) whose
    /// automatic minimum size is its min-content size, the widest word ([§4.5](https://www.w3.org/TR/css-flexbox-1/#min-size-auto)):
    /// in a row it shrinks no further. In a column it is stretched across the box, so its lines
    /// break at the box's width whatever it is, unless it is not stretched (`align-items` other
    /// than `stretch`) or the column wraps (its line is as wide as the item's fit-content width):
    /// then it is sized fit-content, never narrower than its min-content width
    /// ([CSS Sizing 3 §5](https://www.w3.org/TR/css-sizing-3/#fit-content-size)).
    public static func keepsWidestWord(_ style: Style) -> Bool {
        style.flexDirection.isRow || style.flexWrap != .noWrap || style.alignItems != .stretch
    }

    /// How far below the top of a text box's content box its first line starts, when the
    /// content box is `freeHeight` taller than the lines (negative: shorter). The text is the
    /// box's anonymous flex item ([CSS Flexbox §4](https://www.w3.org/TR/css-flexbox-1/#flex-items)),
    /// so the box's container properties place it: `justify-content` in a column (from the
    /// bottom in `column-reverse`), `align-items` in a row, and `align-content` first in a
    /// wrapping row, whose one line is as tall as the text (from the bottom in `wrap-reverse`).
    /// Distributed alignments fall back to `safe center`, to the start when the lines overflow
    /// ([CSS Align §4.3](https://www.w3.org/TR/css-align-3/#distribution-values)).
    public static func firstLineOffset(_ style: Style, freeHeight free: Float) -> Float {
        guard free != 0 else { return 0 }
        if style.flexDirection.isColumn {
            let fromBottom = style.flexDirection == .columnReverse
            switch style.justifyContent {
            case .flexStart, .spaceBetween: return fromBottom ? free : 0
            case .flexEnd: return fromBottom ? 0 : free
            case .center: return free / 2
            case .spaceAround, .spaceEvenly: return max(0, free / 2)
            }
        }
        let fromBottom = style.flexWrap == .wrapReverse
        func place(_ align: Align) -> Float {
            switch align {
            case .flexEnd: return fromBottom ? 0 : free
            case .center, .spaceAround, .spaceEvenly: return free / 2
            default: return fromBottom ? free : 0
            }
        }
        guard style.flexWrap != .noWrap else { return place(style.alignItems) }
        switch style.alignContent {
        case .stretch: return free > 0 ? place(style.alignItems) : place(.flexStart)
        case .spaceAround, .spaceEvenly: return max(0, free / 2)
        case .spaceBetween: return place(.flexStart)
        default: return place(style.alignContent)
        }
    }

    /// Ahem's baseline: 0.8em below the top of the first line.
    public static func baseline(fontSize: Float = 10) -> BaselineFunction {
        { _, _ in 0.8 * fontSize }
    }

    /// Yoga's test measure function (`IntrinsicSizeMeasure` in Yoga's tests): 10 points per
    /// character, words separated by spaces, lines 10 points high. A text node in a row wraps at
    /// no less than its longest word.
    public static func yogaIntrinsicMeasure(_ text: String, flexDirection: FlexDirection) -> MeasureFunction {
        let characters = Array(text.unicodeScalars)
        let wordLengths = text.split(separator: " ", omittingEmptySubsequences: false).map { $0.unicodeScalars.count }
        let widthPerChar: Float = 10, heightPerChar: Float = 10
        let textWidth = Float(characters.count) * widthPerChar
        let longestWord = Float(wordLengths.max() ?? 0) * widthPerChar
        func calculateHeight(_ measuredWidth: Float) -> Float {
            if textWidth <= measuredWidth { return heightPerChar }
            let maxLineWidth = flexDirection == .column ? measuredWidth : max(longestWord, measuredWidth)
            var lines: Float = 1
            var currentLineLength: Float = 0
            for length in wordLengths {
                let wordWidth = Float(length) * widthPerChar
                if wordWidth > maxLineWidth {
                    if currentLineLength > 0 { lines += 1 }
                    lines += 1
                    currentLineLength = 0
                } else if currentLineLength + wordWidth <= maxLineWidth {
                    currentLineLength += widthPerChar + wordWidth
                } else {
                    lines += 1
                    currentLineLength = widthPerChar + wordWidth
                }
            }
            return (currentLineLength == 0 ? lines - 1 : lines) * heightPerChar
        }
        return { width, widthMode, height, heightMode in
            let measuredWidth: Float
            switch widthMode {
            case .exactly: measuredWidth = width
            case .atMost: measuredWidth = min(width, textWidth)
            case .undefined: measuredWidth = textWidth
            }
            let measuredHeight: Float
            switch heightMode {
            case .exactly: measuredHeight = height
            case .atMost: measuredHeight = min(height, calculateHeight(measuredWidth))
            case .undefined: measuredHeight = calculateHeight(measuredWidth)
            }
            return Size(width: measuredWidth, height: measuredHeight)
        }
    }
}

/// Text split into words at break opportunities, with word lengths in ems.
struct AhemWords: Sendable {
    /// Each word's length and whether a space (true) or a zero-width space (false) follows it.
    let words: [(length: Int, spaceAfter: Bool)]
    let maxContentEms: Int
    let minContentEms: Int

    init(_ text: String) {
        var words: [(length: Int, spaceAfter: Bool)] = []
        var current = 0
        for scalar in text.unicodeScalars {
            if scalar == " " || scalar == "\u{200B}" {
                words.append((current, scalar == " "))
                current = 0
            } else if scalar != "\n" {
                current += 1
            }
        }
        words.append((current, false))
        self.words = words
        var total = 0
        for (index, word) in words.enumerated() {
            total += word.length
            if word.spaceAfter && index != words.count - 1 { total += 1 }
        }
        // A trailing space hangs and is not part of the width.
        if let last = words.last, last.length == 0, words.count > 1, words[words.count - 2].spaceAfter { total -= 1 }
        maxContentEms = total
        minContentEms = words.map(\.length).max() ?? 0
    }

    /// The number of lines when lines hold at most `maxEms` glyphs (greedy breaking).
    func lineCount(maxEms: Int) -> Int {
        var lines = 1
        var lineLength = 0
        var pendingSpace = 0
        for word in words {
            if lineLength > 0 && lineLength + pendingSpace + word.length > maxEms {
                lines += 1
                lineLength = word.length
            } else {
                lineLength += pendingSpace + word.length
            }
            pendingSpace = word.spaceAfter ? 1 : 0
        }
        return lines
    }
}
