/// Kerning from the `GPOS` table: the PairPos lookups (type 2, formats 1 and 2, also wrapped in
/// Extension lookups, type 9) of the `kern` feature in the default language systems of the
/// `DFLT`, `latn`, `cyrl` and `grek` scripts. Only the horizontal advance matters for measuring:
/// `XAdvance` of both value records is kept; placements and Device tables are ignored.
/// Spec: https://learn.microsoft.com/typography/opentype/spec/gpos
enum GlyphPositioning {
    static let scripts: Set<String> = ["DFLT", "latn", "cyrl", "grek"]

    static func kernLookups(_ t: TableReader, numGlyphs: Int) throws(FontError) -> [PairAdjustmentLookup] {
        let major = try t.u16(t.base, "majorVersion")
        guard major == 1 else { throw t.reader.fail(t.base, "GPOS majorVersion is \(major), expected 1") }
        let scriptList = t.base + Int(try t.u16(t.base + 4, "scriptListOffset"))
        let featureList = t.base + Int(try t.u16(t.base + 6, "featureListOffset"))
        let lookupList = t.base + Int(try t.u16(t.base + 8, "lookupListOffset"))

        // Feature indices reachable from the default language systems of the scripts we shape.
        var featureIndices = Set<Int>()
        let scriptCount = Int(try t.u16(scriptList, "scriptCount"))
        for i in 0..<scriptCount {
            let record = scriptList + 2 + 6 * i
            guard scripts.contains(try t.reader.tag(record)) else { continue }
            let script = scriptList + Int(try t.u16(record + 4, "script offset"))
            let defaultLangSys = Int(try t.u16(script, "defaultLangSysOffset"))
            guard defaultLangSys != 0 else { continue }
            let langSys = script + defaultLangSys
            let required = try t.u16(langSys + 2, "requiredFeatureIndex")
            if required != 0xFFFF { featureIndices.insert(Int(required)) }
            let count = Int(try t.u16(langSys + 4, "featureIndexCount"))
            for f in 0..<count { featureIndices.insert(Int(try t.u16(langSys + 6 + 2 * f, "featureIndex"))) }
        }

        var lookupIndices = Set<Int>()
        let featureCount = Int(try t.u16(featureList, "featureCount"))
        for f in featureIndices.sorted() {
            guard f < featureCount else {
                throw t.reader.fail(featureList, "a language system names feature \(f), the list has \(featureCount)")
            }
            let record = featureList + 2 + 6 * f
            guard try t.reader.tag(record) == "kern" else { continue }
            let feature = featureList + Int(try t.u16(record + 4, "feature offset"))
            let count = Int(try t.u16(feature + 2, "lookupIndexCount"))
            for l in 0..<count { lookupIndices.insert(Int(try t.u16(feature + 4 + 2 * l, "lookupListIndex"))) }
        }

        let lookupCount = Int(try t.u16(lookupList, "lookupCount"))
        var lookups: [PairAdjustmentLookup] = []
        for index in lookupIndices.sorted() {  // shapers apply lookups in lookup-list order
            guard index < lookupCount else {
                throw t.reader.fail(lookupList, "the kern feature names lookup \(index), the list has \(lookupCount)")
            }
            let lookup = lookupList + Int(try t.u16(lookupList + 2 + 2 * index, "lookup offset"))
            let lookupType = try t.u16(lookup, "lookupType")
            var type = lookupType
            let count = Int(try t.u16(lookup + 4, "subTableCount"))
            var subtables: [PairSubtable] = []
            for s in 0..<count {
                var sub = lookup + Int(try t.u16(lookup + 6 + 2 * s, "subtable offset"))
                if lookupType == 9 {
                    let format = try t.u16(sub, "extension format")
                    guard format == 1 else { throw t.reader.fail(sub, "extension subtable format \(format), expected 1") }
                    let extType = try t.u16(sub + 2, "extensionLookupType")
                    sub += Int(try t.u32(sub + 4, "extensionOffset"))
                    type = extType
                    guard extType == 2 else { continue }
                } else if type != 2 {
                    break  // the kern feature may hold other lookup types; they do not move advances
                }
                if let table = try PairSubtable.parse(t, sub, numGlyphs: numGlyphs) { subtables.append(table) }
            }
            if type == 2 && !subtables.isEmpty { lookups.append(PairAdjustmentLookup(subtables: subtables)) }
        }
        return lookups
    }
}

/// One PairPos lookup: the first subtable that applies to a pair gives its adjustment.
struct PairAdjustmentLookup: Sendable {
    var subtables: [PairSubtable]

    func adjustment(_ left: UInt16, _ right: UInt16) -> Int {
        for s in subtables {
            if let v = s.adjustment(left, right) { return v }
        }
        return 0
    }
}

let notCovered = UInt16.max

/// A PairPos subtable, with coverage and classes expanded into per-glyph arrays for speed.
struct PairSubtable: Sendable {
    /// Per glyph: coverage index (format 1) or class1 (format 2) when covered, else `notCovered`.
    var first: [UInt16]
    var format: UInt16
    // Format 1: pair sets, flattened. Set k spans setStart[k]..<setStart[k+1].
    var setStart: [Int32] = []
    var seconds: [UInt16] = []
    var setValues: [Int32] = []
    // Format 2.
    var class2: [UInt16] = []
    var class2Count = 0
    var classValues: [Int32] = []

    /// The adjustment when this subtable applies to the pair, nil when it does not (so the next
    /// subtable of the lookup is tried). Format 2 applies to every covered first glyph, even with
    /// a zero value, as in HarfBuzz.
    func adjustment(_ left: UInt16, _ right: UInt16) -> Int? {
        guard Int(left) < first.count, Int(right) < first.count else { return nil }
        let f = first[Int(left)]
        if f == notCovered { return nil }
        if format == 2 {
            return Int(classValues[Int(f) * class2Count + Int(class2[Int(right)])])
        }
        var lo = Int(setStart[Int(f)]), hi = Int(setStart[Int(f) + 1])
        while lo < hi {
            let mid = (lo + hi) / 2
            if seconds[mid] < right { lo = mid + 1 } else { hi = mid }
        }
        return lo < Int(setStart[Int(f) + 1]) && seconds[lo] == right ? Int(setValues[lo]) : nil
    }

    static func valueSize(_ format: UInt16) -> Int { 2 * (format & 0xFF).nonzeroBitCount }

    /// XAdvance of a value record, 0 when the record has none.
    static func xAdvance(_ t: TableReader, _ o: Int, _ format: UInt16) throws(FontError) -> Int32 {
        guard format & 4 != 0 else { return 0 }
        return Int32(try t.i16(o + 2 * (format & 3).nonzeroBitCount, "XAdvance"))
    }

    static func parse(_ t: TableReader, _ o: Int, numGlyphs: Int) throws(FontError) -> PairSubtable? {
        let format = try t.u16(o, "PairPos format")
        let coverage = try Coverage.read(t, o + Int(try t.u16(o + 2, "coverageOffset")), numGlyphs: numGlyphs)
        let vf1 = try t.u16(o + 4, "valueFormat1"), vf2 = try t.u16(o + 6, "valueFormat2")
        let size1 = valueSize(vf1), size2 = valueSize(vf2)
        switch format {
        case 1:
            let setCount = Int(try t.u16(o + 8, "pairSetCount"))
            var table = PairSubtable(first: coverage, format: 1)
            table.setStart.reserveCapacity(setCount + 1)
            for k in 0..<setCount {
                table.setStart.append(Int32(table.seconds.count))
                let set = o + Int(try t.u16(o + 10 + 2 * k, "pairSetOffset"))
                let count = Int(try t.u16(set, "pairValueCount"))
                let stride = 2 + size1 + size2
                try t.reader.require(set + 2, count * stride, "pair set \(k) with \(count) records")
                var previous = -1
                for p in 0..<count {
                    let r = set + 2 + stride * p
                    let second = try t.u16(r)
                    guard Int(second) > previous else {
                        throw t.reader.fail(r, "pair set \(k): second glyphs must ascend (\(second) after \(previous))")
                    }
                    previous = Int(second)
                    table.seconds.append(second)
                    table.setValues.append(try xAdvance(t, r + 2, vf1) + xAdvance(t, r + 2 + size1, vf2))
                }
            }
            table.setStart.append(Int32(table.seconds.count))
            // Coverage indices past the pair sets would read out of range: drop them.
            for g in 0..<table.first.count where table.first[g] != notCovered && Int(table.first[g]) >= setCount {
                table.first[g] = notCovered
            }
            return table
        case 2:
            let classDef1 = try ClassDefinition.read(t, o + Int(try t.u16(o + 8, "classDef1Offset")), numGlyphs: numGlyphs)
            let classDef2 = try ClassDefinition.read(t, o + Int(try t.u16(o + 10, "classDef2Offset")), numGlyphs: numGlyphs)
            let class1Count = Int(try t.u16(o + 12, "class1Count"))
            let class2Count = Int(try t.u16(o + 14, "class2Count"))
            let stride = size1 + size2
            try t.reader.require(o + 16, class1Count * class2Count * stride, "\(class1Count)×\(class2Count) class records")
            var values = [Int32](repeating: 0, count: class1Count * class2Count)
            for c1 in 0..<class1Count {
                for c2 in 0..<class2Count {
                    let r = o + 16 + stride * (c1 * class2Count + c2)
                    values[c1 * class2Count + c2] = try xAdvance(t, r, vf1) + xAdvance(t, r + size1, vf2)
                }
            }
            var first = coverage
            var second = classDef2
            for g in 0..<numGlyphs {
                // Shapers skip a pair whose class is out of range; class 0 otherwise.
                if first[g] != notCovered {
                    let c = Int(classDef1[g])
                    first[g] = c < class1Count ? UInt16(c) : notCovered
                }
                if Int(second[g]) >= class2Count { second[g] = 0 }
            }
            if class2Count == 0 { return nil }
            var table = PairSubtable(first: first, format: 2)
            table.class2 = second
            table.class2Count = class2Count
            table.classValues = values
            return table
        default:
            throw t.reader.fail(o, "PairPos format \(format), expected 1 or 2")
        }
    }

    /// What decides this subtable's result for `glyph` on the left.
    func leftKey(_ glyph: Int) -> UInt16 { first[glyph] }

    /// What decides this subtable's result for `glyph` on the right: its class (format 2), or the
    /// glyph itself when it appears in some pair set (format 1).
    func rightKeys() -> [UInt16] {
        if format == 2 { return class2 }
        var keys = [UInt16](repeating: notCovered, count: first.count)
        for s in seconds where Int(s) < keys.count { keys[Int(s)] = s }
        return keys
    }
}

/// Coverage tables (formats 1 and 2), expanded to glyph → coverage index.
enum Coverage {
    static func read(_ t: TableReader, _ o: Int, numGlyphs: Int) throws(FontError) -> [UInt16] {
        var result = [UInt16](repeating: notCovered, count: numGlyphs)
        let format = try t.u16(o, "coverage format")
        switch format {
        case 1:
            let count = Int(try t.u16(o + 2, "glyphCount"))
            try t.reader.require(o + 4, 2 * count, "coverage with \(count) glyphs")
            for i in 0..<count {
                let g = Int(try t.u16(o + 4 + 2 * i))
                if g < numGlyphs { result[g] = UInt16(i) }
            }
        case 2:
            let count = Int(try t.u16(o + 2, "rangeCount"))
            try t.reader.require(o + 4, 6 * count, "coverage with \(count) ranges")
            for i in 0..<count {
                let r = o + 4 + 6 * i
                let start = Int(try t.u16(r)), end = Int(try t.u16(r + 2)), index = Int(try t.u16(r + 4))
                guard start <= end else { throw t.reader.fail(r, "coverage range \(start)…\(end) is reversed") }
                for g in start...end where g < numGlyphs && index + g - start < Int(notCovered) {
                    result[g] = UInt16(index + g - start)
                }
            }
        default:
            throw t.reader.fail(o, "coverage format \(format), expected 1 or 2")
        }
        return result
    }
}

/// Class definition tables (formats 1 and 2), expanded to glyph → class (0 when unlisted).
enum ClassDefinition {
    static func read(_ t: TableReader, _ o: Int, numGlyphs: Int) throws(FontError) -> [UInt16] {
        var result = [UInt16](repeating: 0, count: numGlyphs)
        let format = try t.u16(o, "ClassDef format")
        switch format {
        case 1:
            let start = Int(try t.u16(o + 2, "startGlyphID"))
            let count = Int(try t.u16(o + 4, "glyphCount"))
            try t.reader.require(o + 6, 2 * count, "ClassDef with \(count) glyphs")
            for i in 0..<count where start + i < numGlyphs { result[start + i] = try t.u16(o + 6 + 2 * i) }
        case 2:
            let count = Int(try t.u16(o + 2, "classRangeCount"))
            try t.reader.require(o + 4, 6 * count, "ClassDef with \(count) ranges")
            for i in 0..<count {
                let r = o + 4 + 6 * i
                let start = Int(try t.u16(r)), end = Int(try t.u16(r + 2)), value = try t.u16(r + 4)
                guard start <= end else { throw t.reader.fail(r, "class range \(start)…\(end) is reversed") }
                for g in start...end where g < numGlyphs { result[g] = value }
            }
        default:
            throw t.reader.fail(o, "ClassDef format \(format), expected 1 or 2")
        }
        return result
    }
}
