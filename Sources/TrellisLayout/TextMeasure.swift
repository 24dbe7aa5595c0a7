/// Measure functions for text set in the Ahem test font, where every glyph is a 1em square,
/// the baseline is 0.8em down, and a line is 1em high. Used by the conformance fixtures and
/// by `trellis layout`, so no font file is needed.
public enum AhemText {
    /// Browser-like Ahem text: breaks at spaces (1em wide) and zero-width spaces (U+200B); a
    /// fit-content width is the content's size clamped between its min-content width (the widest
    /// word) and its max-content width (one line) — as Chrome lays out a text leaf.
    public static func measure(_ text: String, fontSize: Float = 10) -> MeasureFunction {
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
            // Text is never shorter than its lines: under an `atMost` height it reports its own
            // height and the engine decides the overflow, as a browser does (only `exactly` wins).
            let lines = Float(words.lineCount(maxEms: Int(max(0, usedWidth / fontSize + 0.0001)))) * fontSize
            return Size(width: usedWidth, height: heightMode == .exactly ? height : lines)
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
