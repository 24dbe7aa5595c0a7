/// The tables of one OpenType/TrueType font that text measurement needs, read from the file's bytes.
///
/// Reads `head`, `hhea`, `maxp`, `hmtx`, `OS/2`, `name`, `cmap` (formats 4 and 12), and kerning from
/// `GPOS` (the `kern` feature's PairPos lookups, formats 1 and 2, also behind Extension lookups) or,
/// when GPOS has no `kern` feature, from the legacy `kern` table (format 0). Works for TrueType
/// (`glyf`) and CFF (`OTTO`) fonts alike, and for the first (or `fontIndex`-th) font of a `.ttc`
/// collection. Every read is bounds-checked; a malformed file throws a ``FontError`` naming the
/// table, the offset and the reason. Spec: https://learn.microsoft.com/typography/opentype/spec/
public struct OpenTypeFont: Sendable {
    /// Typographic family name (`name` ID 16, else ID 1), e.g. `"Roboto"`.
    public let familyName: String
    /// `OS/2.usWeightClass` (100…900); 400 when the font has no OS/2 table.
    public let weight: Int
    /// `OS/2.fsSelection` bit 0 (or `head.macStyle` bit 1 without OS/2).
    public let isItalic: Bool
    public let unitsPerEm: Int
    /// Ascender (positive, font units): `OS/2.sTypoAscender` when `USE_TYPO_METRICS` is set, else `hhea`.
    public let ascender: Int
    /// Descender (negative, font units), chosen like ``ascender``.
    public let descender: Int
    /// Line gap (font units), chosen like ``ascender``.
    public let lineGap: Int
    public let numGlyphs: Int
    /// Advance width of each glyph id, font units (`hmtx`).
    public let advances: [UInt16]
    /// Mapped code points, ascending, and the glyph each maps to (`cmap`).
    public let codepoints: [UInt32]
    public let glyphs: [UInt16]
    /// Where kerning came from: `"GPOS"`, `"kern"` or `"none"`.
    public let kerningSource: String
    let gpos: [PairAdjustmentLookup]
    let kernPairs: KernPairs?

    /// Parses the font at `fontIndex` (0 for a plain `.ttf`/`.otf`) in `bytes`.
    public init(bytes: [UInt8], fontIndex: Int = 0) throws(FontError) {
        let file = ByteReader(bytes, table: "sfnt")
        let directory = try TableDirectory(file, fontIndex: fontIndex)

        let head = try directory.reader("head", file)
        guard let head else { throw file.fail(0, "the font has no head table") }
        let unitsPerEm = Int(try head.u16(head.base + 18, "unitsPerEm"))
        guard (16...16384).contains(unitsPerEm) else {
            throw head.reader.fail(head.base + 18, "unitsPerEm is \(unitsPerEm), must be 16…16384")
        }
        let macStyle = try head.u16(head.base + 44, "macStyle")

        guard let hhea = try directory.reader("hhea", file) else { throw file.fail(0, "the font has no hhea table") }
        let hheaAscender = Int(try hhea.i16(hhea.base + 4, "ascender"))
        let hheaDescender = Int(try hhea.i16(hhea.base + 6, "descender"))
        let hheaLineGap = Int(try hhea.i16(hhea.base + 8, "lineGap"))
        let declaredHMetrics = Int(try hhea.u16(hhea.base + 34, "numberOfHMetrics"))

        guard let maxp = try directory.reader("maxp", file) else { throw file.fail(0, "the font has no maxp table") }
        let numGlyphs = Int(try maxp.u16(maxp.base + 4, "numGlyphs"))
        guard numGlyphs > 0 else { throw maxp.reader.fail(maxp.base + 4, "numGlyphs is 0") }
        guard declaredHMetrics >= 1 else {
            throw hhea.reader.fail(hhea.base + 34, "numberOfHMetrics is 0, must be 1…numGlyphs (\(numGlyphs))")
        }
        // More metrics than glyphs: the extra ones are never used (HarfBuzz reads it the same way).
        let numberOfHMetrics = min(declaredHMetrics, numGlyphs)

        guard let hmtx = try directory.reader("hmtx", file) else { throw file.fail(0, "the font has no hmtx table") }
        try hmtx.reader.require(hmtx.base, numberOfHMetrics * 4, "\(numberOfHMetrics) longHorMetric records")
        var advances = [UInt16](repeating: 0, count: numGlyphs)
        for g in 0..<numberOfHMetrics { advances[g] = try hmtx.u16(hmtx.base + 4 * g) }
        for g in numberOfHMetrics..<numGlyphs { advances[g] = advances[numberOfHMetrics - 1] }

        var ascender = hheaAscender, descender = hheaDescender, lineGap = hheaLineGap
        var weight = 400
        var isItalic = macStyle & 2 != 0
        if let os2 = try directory.reader("OS/2", file) {
            weight = Int(try os2.u16(os2.base + 4, "usWeightClass"))
            let fsSelection = try os2.u16(os2.base + 62, "fsSelection")
            isItalic = fsSelection & 1 != 0
            // Apple's short version-0 OS/2 (68 bytes) ends before the typo metrics: keep hhea's.
            if os2.length >= 74 {
                let typoAscender = Int(try os2.i16(os2.base + 68, "sTypoAscender"))
                let typoDescender = Int(try os2.i16(os2.base + 70, "sTypoDescender"))
                let typoLineGap = Int(try os2.i16(os2.base + 72, "sTypoLineGap"))
                let useTypo = fsSelection & (1 << 7) != 0
                // Same choice as HarfBuzz's hb_ot_metrics: typo metrics when USE_TYPO_METRICS is set or
                // when hhea has no ascender/descender at all.
                if useTypo || (hheaAscender == 0 && hheaDescender == 0) {
                    ascender = typoAscender
                    descender = typoDescender
                    lineGap = typoLineGap
                }
            }
        }

        var familyName = ""
        if let name = try directory.reader("name", file) {
            familyName = try NameTable.family(name)
        }

        guard let cmap = try directory.reader("cmap", file) else { throw file.fail(0, "the font has no cmap table") }
        let mapping = try CharacterMap.parse(cmap, numGlyphs: numGlyphs)

        var gpos: [PairAdjustmentLookup] = []
        if let table = try directory.reader("GPOS", file) {
            gpos = try GlyphPositioning.kernLookups(table, numGlyphs: numGlyphs)
        }
        var kernPairs: KernPairs? = nil
        if gpos.isEmpty, let table = try directory.reader("kern", file) {
            kernPairs = try KernPairs.parse(table)
        }

        self.familyName = familyName
        self.weight = weight
        self.isItalic = isItalic
        self.unitsPerEm = unitsPerEm
        self.ascender = ascender
        self.descender = descender
        self.lineGap = lineGap
        self.numGlyphs = numGlyphs
        self.advances = advances
        self.codepoints = mapping.codepoints
        self.glyphs = mapping.glyphs
        self.gpos = gpos
        self.kernPairs = kernPairs
        self.kerningSource = !gpos.isEmpty ? "GPOS" : (kernPairs.map { $0.isEmpty ? "none" : "kern" } ?? "none")
    }

    /// The glyph `cmap` maps `codepoint` to, or nil when the font lacks it.
    public func glyph(for codepoint: UInt32) -> UInt16? {
        var lo = 0, hi = codepoints.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if codepoints[mid] < codepoint { lo = mid + 1 } else { hi = mid }
        }
        return lo < codepoints.count && codepoints[lo] == codepoint ? glyphs[lo] : nil
    }

    /// The horizontal kerning adjustment (font units) between two adjacent glyphs, as a shaper
    /// applying only the `kern` feature would give: the sum over the kern lookups, in lookup order,
    /// of the first subtable that applies to the pair; or the legacy `kern` table's pair value.
    public func kerning(_ left: UInt16, _ right: UInt16) -> Int {
        if !gpos.isEmpty {
            var total = 0
            for lookup in gpos { total += lookup.adjustment(left, right) }
            return total
        }
        return kernPairs?.value(left, right) ?? 0
    }
}

/// A reader positioned at one table: `base` is the table's offset in the file.
struct TableReader {
    let reader: ByteReader
    let base: Int
    let length: Int
    func u16(_ o: Int, _ what: String = "value") throws(FontError) -> UInt16 { try reader.u16(o, what) }
    func i16(_ o: Int, _ what: String = "value") throws(FontError) -> Int16 { try reader.i16(o, what) }
    func u32(_ o: Int, _ what: String = "value") throws(FontError) -> UInt32 { try reader.u32(o, what) }
}

/// The sfnt header and table records (and the `ttcf` header of a collection).
struct TableDirectory {
    var tables: [String: (offset: Int, length: Int)] = [:]

    init(_ file: ByteReader, fontIndex: Int) throws(FontError) {
        var start = 0
        let signature = try file.u32(0, "sfnt version")
        if signature == 0x7474_6366 {  // 'ttcf'
            let count = Int(try file.u32(8, "numFonts"))
            guard fontIndex >= 0, fontIndex < count else {
                throw file.fail(8, "font index \(fontIndex) asked for, the collection has \(count) fonts")
            }
            start = Int(try file.u32(12 + 4 * fontIndex, "table directory offset"))
        } else if fontIndex != 0 {
            throw file.fail(0, "font index \(fontIndex) asked for, the file is a single font")
        }
        let version = try file.u32(start, "sfnt version")
        guard version == 0x0001_0000 || version == 0x4F54_544F || version == 0x7472_7565 else {
            throw file.fail(start, "sfnt version is 0x\(String(version, radix: 16)), not a TrueType (0x00010000, 'true') or CFF ('OTTO') font")
        }
        let numTables = Int(try file.u16(start + 4, "numTables"))
        try file.require(start + 12, numTables * 16, "\(numTables) table records")
        for i in 0..<numTables {
            let record = start + 12 + 16 * i
            let tag = try file.tag(record)
            let offset = Int(try file.u32(record + 8))
            let length = Int(try file.u32(record + 12))
            guard offset <= file.bytes.count, length <= file.bytes.count - offset else {
                throw file.fail(record, "table \(tag) claims bytes \(offset)..<\(offset + length), file has \(file.bytes.count)")
            }
            tables[tag] = (offset, length)
        }
    }

    func reader(_ tag: String, _ file: ByteReader) throws(FontError) -> TableReader? {
        guard let entry = tables[tag] else { return nil }
        return TableReader(
            reader: file.table(tag, offset: entry.offset, length: entry.length), base: entry.offset,
            length: entry.length)
    }
}

/// The `name` table, read only for the family name.
enum NameTable {
    static func family(_ t: TableReader) throws(FontError) -> String {
        let count = Int(try t.u16(t.base + 2, "count"))
        let storage = t.base + Int(try t.u16(t.base + 4, "storageOffset"))
        var best: (rank: Int, text: String)? = nil
        for i in 0..<count {
            let r = t.base + 6 + 12 * i
            let platform = try t.u16(r), encoding = try t.u16(r + 2)
            let nameID = try t.u16(r + 6)
            guard nameID == 1 || nameID == 16 else { continue }
            let length = Int(try t.u16(r + 8)), offset = storage + Int(try t.u16(r + 10))
            try t.reader.require(offset, length, "name record \(i) string")
            var text = ""
            if platform == 3 || platform == 0 {
                var j = 0
                var units: [UInt16] = []
                while j + 1 < length {
                    units.append(UInt16(t.reader.bytes[offset + j]) << 8 | UInt16(t.reader.bytes[offset + j + 1]))
                    j += 2
                }
                text = String(decoding: units, as: UTF16.self)
            } else if platform == 1 && encoding == 0 {
                text = String(decoding: t.reader.bytes[offset..<offset + length], as: UTF8.self)
            } else {
                continue
            }
            // Prefer the typographic family (16) over the legacy family (1), Windows over Mac.
            let rank = (nameID == 16 ? 0 : 2) + (platform == 3 ? 0 : 1)
            if best == nil || rank < best!.rank { best = (rank, text) }
        }
        return best?.text ?? ""
    }
}
