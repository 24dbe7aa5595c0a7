/// The measuring metrics of one font face: what a metrics pack holds, ready for fast look-ups.
///
/// Built from a font file (``init(font:)``) or a metrics pack (``MetricsPack/decode(_:)``); both
/// give the same face. Code points map to an advance and a left/right kerning class; kerning
/// between two code points is one read from a class matrix. Code points below U+0800 (Latin,
/// Greek, Cyrillic, Hebrew, Arabic) are in flat arrays; the rest are found by binary search in runs
/// of consecutive code points that share their metrics (a CJK font's 20,000 ideographs are a few
/// runs).
public struct FontFace: Equatable, Sendable {
    /// One run of consecutive code points `start..<start+count` with the same metrics.
    public struct Run: Equatable, Sendable {
        public var start: UInt32
        public var count: UInt32
        public var advance: UInt16
        public var leftClass: UInt16
        public var rightClass: UInt16
    }

    public let family: String
    public let weight: Int
    public let isItalic: Bool
    public let unitsPerEm: Int
    public let ascender: Int
    public let descender: Int
    public let lineGap: Int
    /// Advance of glyph 0 (`.notdef`), used for code points no face in a fallback chain has.
    public let notdefAdvance: Int
    /// CRC-32 of the font file the metrics came from (0 when unknown).
    public let sourceChecksum: UInt32
    /// The name (no directory) of the font file the metrics came from, e.g. `Roboto-Regular.ttf`;
    /// empty when unknown (packs of format version 1 do not record it). A preview serves that file
    /// as a web font so the browser draws the face that was measured.
    public let sourceFile: String
    public let runs: [Run]
    public let leftClassCount: Int
    public let rightClassCount: Int
    /// Kerning in font units, `leftClassCount × rightClassCount`, row-major; class 0 never kerns.
    public let kerningMatrix: [Int16]

    static let flatLimit: UInt32 = 0x800
    static let missing: UInt16 = .max
    let flatAdvance: [UInt16]
    let flatLeft: [UInt16]
    let flatRight: [UInt16]
    let runStarts: [UInt32]
    let firstHighRun: Int

    init(
        family: String, weight: Int, isItalic: Bool, unitsPerEm: Int, ascender: Int, descender: Int,
        lineGap: Int, notdefAdvance: Int, sourceChecksum: UInt32, sourceFile: String = "", runs: [Run], leftClassCount: Int,
        rightClassCount: Int, kerningMatrix: [Int16]
    ) {
        self.family = family
        self.weight = weight
        self.isItalic = isItalic
        self.unitsPerEm = unitsPerEm
        self.ascender = ascender
        self.descender = descender
        self.lineGap = lineGap
        self.notdefAdvance = notdefAdvance
        self.sourceChecksum = sourceChecksum
        self.sourceFile = sourceFile
        self.runs = runs
        self.leftClassCount = leftClassCount
        self.rightClassCount = rightClassCount
        self.kerningMatrix = kerningMatrix
        var advance = [UInt16](repeating: Self.missing, count: Int(Self.flatLimit))
        var left = [UInt16](repeating: 0, count: Int(Self.flatLimit))
        var right = [UInt16](repeating: 0, count: Int(Self.flatLimit))
        var firstHigh = runs.count
        for (i, run) in runs.enumerated() {
            if run.start >= Self.flatLimit {
                firstHigh = min(firstHigh, i)
                continue
            }
            for cp in run.start..<min(run.start + run.count, Self.flatLimit) {
                advance[Int(cp)] = run.advance
                left[Int(cp)] = run.leftClass
                right[Int(cp)] = run.rightClass
            }
            if run.start + run.count > Self.flatLimit { firstHigh = min(firstHigh, i) }
        }
        flatAdvance = advance
        flatLeft = left
        flatRight = right
        runStarts = runs.map(\.start)
        firstHighRun = firstHigh
    }

    /// The line height the font asks for at `size` points: (ascender − descender + lineGap) × size / unitsPerEm.
    public func naturalLineHeight(size: Double) -> Double {
        Double(ascender - descender + lineGap) * size / Double(unitsPerEm)
    }

    /// Advance (font units) and kerning classes of `codepoint`, or nil when the face lacks it.
    @inlinable
    public func metrics(_ codepoint: UInt32) -> (advance: UInt16, left: UInt16, right: UInt16)? {
        lookup(codepoint)
    }

    @usableFromInline
    func lookup(_ cp: UInt32) -> (advance: UInt16, left: UInt16, right: UInt16)? {
        if cp < Self.flatLimit {
            let a = flatAdvance[Int(cp)]
            return a == Self.missing ? nil : (a, flatLeft[Int(cp)], flatRight[Int(cp)])
        }
        var lo = firstHighRun, hi = runs.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if runStarts[mid] <= cp { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0 else { return nil }
        let run = runs[lo - 1]
        guard cp - run.start < run.count else { return nil }
        return (run.advance, run.leftClass, run.rightClass)
    }

    /// Kerning (font units) between a left and a right kerning class.
    @inlinable
    public func kerning(leftClass: UInt16, rightClass: UInt16) -> Int {
        Int(kerningMatrix[Int(leftClass) * rightClassCount + Int(rightClass)])
    }

    /// Kerning (font units) between two code points; 0 when either is missing.
    public func kerning(_ left: UInt32, _ right: UInt32) -> Int {
        guard let l = lookup(left), let r = lookup(right) else { return 0 }
        return kerning(leftClass: l.left, rightClass: r.right)
    }

    /// Whether the face maps `codepoint` to a glyph.
    public func contains(_ codepoint: UInt32) -> Bool { lookup(codepoint) != nil }
}

extension FontFace {
    /// The metrics of a parsed font: every mapped code point's advance, and its kerning folded into
    /// classes (glyphs whose kerning rows, or columns, are identical share a class).
    /// - Parameters:
    ///   - sourceChecksum: CRC-32 of the font file (``crc32(_:)``), recorded in the pack.
    ///   - sourceFile: the font file's name without its directory, recorded in the pack (at most
    ///     255 UTF-8 bytes are kept).
    public init(font: OpenTypeFont, sourceChecksum: UInt32 = 0, sourceFile: String = "") {
        let glyphsUsed = Set(font.glyphs).sorted()
        // Per subtable, what decides each glyph's kerning as the left or the right glyph.
        let subtables = font.gpos.flatMap(\.subtables)
        let rightKeys = subtables.map { $0.rightKeys() }
        let kernSides = font.kernPairs?.sides()

        var leftGroups: [[UInt16]: Int] = [:], rightGroups: [[UInt16]: Int] = [:]
        var leftRep: [UInt16] = [], rightRep: [UInt16] = []
        var leftGroupOf: [UInt16: Int] = [:], rightGroupOf: [UInt16: Int] = [:]
        for g in glyphsUsed {
            var l = subtables.map { $0.leftKey(Int(g)) }
            var r = rightKeys.map { $0[Int(g)] }
            if let kernSides {
                l.append(kernSides.left.contains(g) ? g : notCovered)
                r.append(kernSides.right.contains(g) ? g : notCovered)
            }
            if l.allSatisfy({ $0 == notCovered }) {
                leftGroupOf[g] = -1
            } else if let k = leftGroups[l] {
                leftGroupOf[g] = k
            } else {
                leftGroups[l] = leftRep.count
                leftGroupOf[g] = leftRep.count
                leftRep.append(g)
            }
            if let k = rightGroups[r] {
                rightGroupOf[g] = k
            } else {
                rightGroups[r] = rightRep.count
                rightGroupOf[g] = rightRep.count
                rightRep.append(g)
            }
        }
        // Kerning between group representatives, then rows and columns deduplicated.
        var matrix = [Int16](repeating: 0, count: leftRep.count * rightRep.count)
        for (i, l) in leftRep.enumerated() {
            for (j, r) in rightRep.enumerated() {
                matrix[i * rightRep.count + j] = Int16(clamping: font.kerning(l, r))
            }
        }
        var rowClass = [UInt16](repeating: 0, count: leftRep.count)
        var rows: [[Int16]: UInt16] = [:]
        var rowList: [[Int16]] = []
        for i in 0..<leftRep.count {
            let row = Array(matrix[i * rightRep.count..<(i + 1) * rightRep.count])
            if row.allSatisfy({ $0 == 0 }) { continue }
            if let c = rows[row] { rowClass[i] = c; continue }
            rowList.append(row)
            rows[row] = UInt16(rowList.count)
            rowClass[i] = UInt16(rowList.count)
        }
        var columnClass = [UInt16](repeating: 0, count: rightRep.count)
        var columns: [[Int16]: UInt16] = [:]
        var columnList: [[Int16]] = []
        for j in 0..<rightRep.count {
            let column = rowList.map { $0[j] }
            if column.allSatisfy({ $0 == 0 }) { continue }
            if let c = columns[column] { columnClass[j] = c; continue }
            columnList.append(column)
            columns[column] = UInt16(columnList.count)
            columnClass[j] = UInt16(columnList.count)
        }
        let leftCount = rowList.count + 1, rightCount = columnList.count + 1
        var kern = [Int16](repeating: 0, count: leftCount * rightCount)
        for (c, column) in columnList.enumerated() {
            for (r, value) in column.enumerated() { kern[(r + 1) * rightCount + c + 1] = value }
        }

        var runs: [Run] = []
        for (cp, g) in zip(font.codepoints, font.glyphs) {
            let lg = leftGroupOf[g] ?? -1, rg = rightGroupOf[g] ?? -1
            let advance = min(font.advances[Int(g)], FontFace.missing - 1)
            let left = lg < 0 ? 0 : rowClass[lg], right = rg < 0 ? 0 : columnClass[rg]
            if var last = runs.last, last.start + last.count == cp, last.count < UInt32(UInt16.max),
                last.advance == advance, last.leftClass == left, last.rightClass == right
            {
                last.count += 1
                runs[runs.count - 1] = last
            } else {
                runs.append(Run(start: cp, count: 1, advance: advance, leftClass: left, rightClass: right))
            }
        }
        self.init(
            family: font.familyName, weight: font.weight, isItalic: font.isItalic,
            unitsPerEm: font.unitsPerEm, ascender: font.ascender, descender: font.descender,
            lineGap: font.lineGap, notdefAdvance: Int(font.advances[0]), sourceChecksum: sourceChecksum,
            sourceFile: sourceFile, runs: runs, leftClassCount: leftCount, rightClassCount: rightCount, kerningMatrix: kern)
    }
}

extension FontFace {
    /// The same metrics under another family name (a deployment's own naming, e.g. "System").
    public func renamed(_ family: String) -> FontFace {
        FontFace(
            family: family, weight: weight, isItalic: isItalic, unitsPerEm: unitsPerEm, ascender: ascender,
            descender: descender, lineGap: lineGap, notdefAdvance: notdefAdvance, sourceChecksum: sourceChecksum,
            sourceFile: sourceFile, runs: runs, leftClassCount: leftClassCount, rightClassCount: rightClassCount, kerningMatrix: kerningMatrix)
    }
}
