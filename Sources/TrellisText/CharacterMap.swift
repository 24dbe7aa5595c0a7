/// The `cmap` table: code point → glyph id, from a format 12 (full Unicode) or format 4 (BMP)
/// subtable. Spec: https://learn.microsoft.com/typography/opentype/spec/cmap
enum CharacterMap {
    struct Mapping {
        var codepoints: [UInt32] = []
        var glyphs: [UInt16] = []
    }

    /// Picks the subtable a shaper would (Unicode full repertoire first, then BMP) and reads it.
    static func parse(_ t: TableReader, numGlyphs: Int) throws(FontError) -> Mapping {
        let count = Int(try t.u16(t.base + 2, "numTables"))
        // (platform, encoding, rank): lower rank wins, as in HarfBuzz's subtable choice.
        let preference: [(UInt16, UInt16)] = [(3, 10), (0, 6), (0, 4), (3, 1), (0, 3), (0, 2), (0, 1), (0, 0)]
        var chosen: (rank: Int, offset: Int)? = nil
        for i in 0..<count {
            let r = t.base + 4 + 8 * i
            let platform = try t.u16(r, "platformID"), encoding = try t.u16(r + 2, "encodingID")
            let offset = t.base + Int(try t.u32(r + 4, "subtable offset"))
            guard let rank = preference.firstIndex(where: { $0 == (platform, encoding) }) else { continue }
            let format = try t.u16(offset, "subtable format")
            guard format == 4 || format == 12 else { continue }
            if chosen == nil || rank < chosen!.rank { chosen = (rank, offset) }
        }
        guard let chosen else {
            throw t.reader.fail(t.base, "no Unicode subtable in format 4 or 12 (of \(count) subtables)")
        }
        var mapping = Mapping()
        if try t.u16(chosen.offset) == 12 {
            try format12(t, chosen.offset, numGlyphs, &mapping)
        } else {
            try format4(t, chosen.offset, numGlyphs, &mapping)
        }
        return mapping
    }

    static func format12(_ t: TableReader, _ o: Int, _ numGlyphs: Int, _ m: inout Mapping) throws(FontError) {
        let groups = Int(try t.u32(o + 12, "numGroups"))
        try t.reader.require(o + 16, groups * 12, "\(groups) format 12 groups")
        var last: Int64 = -1
        for i in 0..<groups {
            let g = o + 16 + 12 * i
            let start = try t.u32(g), end = try t.u32(g + 4), glyph = try t.u32(g + 8)
            guard start <= end, end <= 0x10FFFF, Int64(start) > last else {
                throw t.reader.fail(g, "format 12 group \(i) covers \(start)…\(end): groups must ascend, not overlap, and stay ≤ U+10FFFF")
            }
            last = Int64(end)
            for cp in start...end {
                let id = UInt64(glyph) + UInt64(cp - start)
                if id == 0 || id >= UInt64(numGlyphs) { continue }
                m.codepoints.append(cp)
                m.glyphs.append(UInt16(id))
            }
        }
    }

    static func format4(_ t: TableReader, _ o: Int, _ numGlyphs: Int, _ m: inout Mapping) throws(FontError) {
        let length = Int(try t.u16(o + 2, "length"))
        let segX2 = Int(try t.u16(o + 6, "segCountX2"))
        guard segX2 % 2 == 0 else { throw t.reader.fail(o + 6, "segCountX2 is odd (\(segX2))") }
        let segs = segX2 / 2
        let ends = o + 14, starts = ends + segX2 + 2, deltas = starts + segX2, rangeOffsets = deltas + segX2
        // The length field is not trusted (it wraps in large subtables); the arrays must be there.
        _ = length
        try t.reader.require(o, 16 + 4 * segX2, "format 4 subtable with \(segs) segments")
        var pairs: [(UInt32, UInt16)] = []
        var previousEnd: Int64 = -1
        for s in 0..<segs {
            let end = UInt32(try t.u16(ends + 2 * s)), start = UInt32(try t.u16(starts + 2 * s))
            // Segments ascend and do not overlap, so at most 65,536 code points are read in all.
            guard Int64(start) > previousEnd, start <= end else {
                throw t.reader.fail(starts + 2 * s, "format 4 segment \(s) covers \(start)…\(end): segments must ascend without overlapping")
            }
            previousEnd = Int64(end)
            let delta = try t.u16(deltas + 2 * s)
            let rangeOffsetAt = rangeOffsets + 2 * s
            let rangeOffset = Int(try t.u16(rangeOffsetAt))
            for cp in start...end {
                if cp == 0xFFFF { continue }
                var glyph: UInt16
                if rangeOffset == 0 {
                    glyph = UInt16(truncatingIfNeeded: cp &+ UInt32(delta))
                } else {
                    let at = rangeOffsetAt + rangeOffset + 2 * Int(cp - start)
                    glyph = try t.u16(at, "glyphIdArray entry for U+\(String(cp, radix: 16))")
                    if glyph != 0 { glyph = glyph &+ delta }
                }
                if glyph == 0 || Int(glyph) >= numGlyphs { continue }
                pairs.append((cp, glyph))
            }
        }
        pairs.sort { $0.0 < $1.0 }
        for (cp, g) in pairs where m.codepoints.last != cp {
            m.codepoints.append(cp)
            m.glyphs.append(g)
        }
    }
}
