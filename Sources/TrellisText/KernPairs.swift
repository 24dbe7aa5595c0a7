/// The legacy `kern` table (OpenType version 0, subtable format 0): horizontal pair values summed
/// over the table's horizontal, non-minimum, non-cross-stream subtables.
/// Spec: https://learn.microsoft.com/typography/opentype/spec/kern
struct KernPairs: Sendable {
    /// (left << 16 | right) → value, ascending by key.
    var keys: [UInt32] = []
    var values: [Int16] = []

    var isEmpty: Bool { keys.isEmpty }

    static func parse(_ t: TableReader) throws(FontError) -> KernPairs {
        let version = try t.u16(t.base, "version")
        guard version == 0 else {
            // Apple's 'kern' version 1 (32-bit header): not read; no kerning from it.
            return KernPairs()
        }
        let count = Int(try t.u16(t.base + 2, "nTables"))
        var sums: [UInt32: Int] = [:]
        var o = t.base + 4
        for i in 0..<count {
            let length = Int(try t.u16(o + 2, "subtable length"))
            let coverage = try t.u16(o + 4, "coverage")
            let format = coverage >> 8
            let horizontal = coverage & 1 != 0, minimum = coverage & 2 != 0, cross = coverage & 4 != 0
            let override = coverage & 8 != 0
            var size = length
            if format == 0 {
                // The 16-bit length overflows for large subtables; nPairs gives the true size.
                size = 14 + 6 * Int(try t.u16(o + 6, "nPairs"))
            }
            if format == 0 && horizontal && !minimum && !cross {
                let pairs = Int(try t.u16(o + 6, "nPairs"))
                try t.reader.require(o + 14, pairs * 6, "subtable \(i): \(pairs) kerning pairs")
                for p in 0..<pairs {
                    let r = o + 14 + 6 * p
                    let key = UInt32(try t.u16(r)) << 16 | UInt32(try t.u16(r + 2))
                    let value = Int(try t.i16(r + 4))
                    sums[key] = override ? value : (sums[key] ?? 0) + value
                }
            }
            guard size >= 6 else { throw t.reader.fail(o + 2, "subtable \(i) length \(size) is shorter than its header") }
            o += size
        }
        var result = KernPairs()
        for key in sums.keys.sorted() {
            let v = sums[key]!
            guard v != 0 else { continue }
            result.keys.append(key)
            result.values.append(Int16(clamping: v))
        }
        return result
    }

    func value(_ left: UInt16, _ right: UInt16) -> Int {
        let key = UInt32(left) << 16 | UInt32(right)
        var lo = 0, hi = keys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if keys[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        return lo < keys.count && keys[lo] == key ? Int(values[lo]) : 0
    }

    /// Glyphs that appear on the left (or right) of some pair.
    func sides() -> (left: Set<UInt16>, right: Set<UInt16>) {
        var l = Set<UInt16>(), r = Set<UInt16>()
        for k in keys {
            l.insert(UInt16(k >> 16))
            r.insert(UInt16(k & 0xFFFF))
        }
        return (l, r)
    }
}
