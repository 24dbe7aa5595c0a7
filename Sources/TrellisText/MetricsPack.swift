/// The metrics pack: a compact, versioned binary form of a ``FontFace``.
///
/// A pack holds one face. Layout (all integers little-endian; described in docs/text.md):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | magic `TRFM` |
/// | 4 | 2 | format version (1 or 2) |
/// | 6 | 2 | flags: bit 0 italic |
/// | 8 | 2 | weight (100…1000) |
/// | 10 | 2 | unitsPerEm |
/// | 12 | 2 | ascender (signed) |
/// | 14 | 2 | descender (signed) |
/// | 16 | 2 | lineGap (signed) |
/// | 18 | 2 | `.notdef` advance |
/// | 20 | 4 | CRC-32 of the source font file |
/// | 24 | 4 | run count R |
/// | 28 | 2 | left kerning classes L (≥ 1) |
/// | 30 | 2 | right kerning classes C (≥ 1) |
/// | 32 | 1 | family name length N |
/// | 33 | N | family name, UTF-8 |
/// | 33+N | 1 | version 2 only: M, source file name length in bytes |
/// | 34+N | M | version 2 only: source font file name (no directory), UTF-8 |
/// | … | 12·R | runs: first code point u32, count u16, advance u16, left class u16, right class u16 |
/// | … | 2·L·C | kerning matrix, signed, row-major, font units; row 0 and column 0 are zero |
/// | … | 4 | CRC-32 of every byte before it |
public enum MetricsPack {
    public static let magic: [UInt8] = Array("TRFM".utf8)
    /// The newest format version this code reads and writes: 2 adds the source file name.
    public static let version: UInt16 = 2
    /// The format versions ``decode(_:)`` reads.
    public static let readableVersions: ClosedRange<UInt16> = 1...2
    /// The file name extension packs use in `Config/fonts/`.
    public static let fileExtension = "trfm"

    /// Encodes a face as a pack: version 2 when the face knows its source file, else version 1
    /// (byte for byte what earlier builds wrote).
    public static func encode(_ face: FontFace) -> [UInt8] {
        let source = utf8Prefix(face.sourceFile, 255)
        var out: [UInt8] = []
        func le16(_ v: UInt16) { out.append(UInt8(v & 0xFF)); out.append(UInt8(v >> 8)) }
        func le32(_ v: UInt32) { for s in stride(from: 0, to: 32, by: 8) { out.append(UInt8((v >> UInt32(s)) & 0xFF)) } }
        out += magic
        le16(source.isEmpty ? 1 : version)
        le16(face.isItalic ? 1 : 0)
        le16(UInt16(clamping: face.weight))
        le16(UInt16(clamping: face.unitsPerEm))
        le16(UInt16(bitPattern: Int16(clamping: face.ascender)))
        le16(UInt16(bitPattern: Int16(clamping: face.descender)))
        le16(UInt16(bitPattern: Int16(clamping: face.lineGap)))
        le16(UInt16(clamping: face.notdefAdvance))
        le32(face.sourceChecksum)
        le32(UInt32(face.runs.count))
        le16(UInt16(face.leftClassCount))
        le16(UInt16(face.rightClassCount))
        let name = utf8Prefix(face.family, 255)
        out.append(UInt8(name.count))
        out += name
        if !source.isEmpty {
            out.append(UInt8(source.count))
            out += source
        }
        for run in face.runs {
            le32(run.start)
            le16(UInt16(run.count))
            le16(run.advance)
            le16(run.leftClass)
            le16(run.rightClass)
        }
        for v in face.kerningMatrix { le16(UInt16(bitPattern: v)) }
        le32(crc32(out))
        return out
    }

    /// Decodes a pack, checking every bound: a bad pack throws a ``FontError`` naming the section
    /// (`"pack header"`, `"pack runs"`, …), the offset and the reason.
    public static func decode(_ bytes: [UInt8]) throws(FontError) -> FontFace {
        let header = ByteReader(bytes, table: "pack header")
        try header.require(0, 33, "pack header")
        guard Array(bytes[0..<4]) == magic else {
            throw header.fail(0, "magic is not TRFM: not a Trellis metrics pack")
        }
        let v = try header.le16(4)
        guard readableVersions.contains(v) else {
            throw header.fail(4, "pack format version \(v), this reader reads versions \(readableVersions.lowerBound)…\(readableVersions.upperBound)")
        }
        guard bytes.count >= 37 else { throw header.fail(bytes.count, "pack is \(bytes.count) bytes, too short for a header and checksum") }
        let stored = try header.le32(bytes.count - 4)
        let actual = crc32(bytes[0..<(bytes.count - 4)])
        guard stored == actual else {
            throw FontError(table: "pack checksum", offset: bytes.count - 4,
                            reason: "CRC-32 is 0x\(String(actual, radix: 16)), pack says 0x\(String(stored, radix: 16)): truncated or corrupt")
        }
        let body = ByteReader(bytes, table: "pack header", end: bytes.count - 4)
        let flags = try body.le16(6)
        let weight = Int(try body.le16(8))
        let unitsPerEm = Int(try body.le16(10))
        guard (16...16384).contains(unitsPerEm) else { throw body.fail(10, "unitsPerEm is \(unitsPerEm), must be 16…16384") }
        let ascender = Int(Int16(bitPattern: try body.le16(12)))
        let descender = Int(Int16(bitPattern: try body.le16(14)))
        let lineGap = Int(Int16(bitPattern: try body.le16(16)))
        let notdef = Int(try body.le16(18))
        let checksum = try body.le32(20)
        let runCount = Int(try body.le32(24))
        let leftCount = Int(try body.le16(28)), rightCount = Int(try body.le16(30))
        guard leftCount >= 1, rightCount >= 1 else {
            throw body.fail(28, "kerning class counts are \(leftCount)×\(rightCount), each must be ≥ 1")
        }
        let nameLength = Int(try body.u8(32))
        try body.require(33, nameLength, "family name")
        let family = String(decoding: bytes[33..<(33 + nameLength)], as: UTF8.self)

        var runsAt = 33 + nameLength
        var sourceFile = ""
        if v >= 2 {
            let sourceLength = Int(try body.u8(runsAt))
            try body.require(runsAt + 1, sourceLength, "source file name")
            sourceFile = String(decoding: bytes[(runsAt + 1)..<(runsAt + 1 + sourceLength)], as: UTF8.self)
            runsAt += 1 + sourceLength
        }
        let runsReader = ByteReader(bytes, table: "pack runs", end: bytes.count - 4)
        try runsReader.require(runsAt, 12 * runCount, "\(runCount) runs")
        var runs: [FontFace.Run] = []
        runs.reserveCapacity(runCount)
        var next: UInt64 = 0
        for i in 0..<runCount {
            let o = runsAt + 12 * i
            let start = try runsReader.le32(o), count = UInt32(try runsReader.le16(o + 4))
            let advance = try runsReader.le16(o + 6)
            let left = try runsReader.le16(o + 8), right = try runsReader.le16(o + 10)
            guard count > 0, UInt64(start) >= next, UInt64(start) + UInt64(count) <= 0x110000 else {
                throw runsReader.fail(o, "run \(i) (U+\(String(start, radix: 16)), \(count) code points) is empty, out of order, overlapping or past U+10FFFF")
            }
            guard advance != FontFace.missing else { throw runsReader.fail(o + 6, "run \(i) advance 0xFFFF is reserved") }
            guard Int(left) < leftCount, Int(right) < rightCount else {
                throw runsReader.fail(o + 8, "run \(i) kerning classes \(left)/\(right) exceed the counts \(leftCount)/\(rightCount)")
            }
            next = UInt64(start) + UInt64(count)
            runs.append(FontFace.Run(start: start, count: count, advance: advance, leftClass: left, rightClass: right))
        }
        let matrixAt = runsAt + 12 * runCount
        let matrixReader = ByteReader(bytes, table: "pack kerning", end: bytes.count - 4)
        try matrixReader.require(matrixAt, 2 * leftCount * rightCount, "\(leftCount)×\(rightCount) kerning matrix")
        var matrix = [Int16](repeating: 0, count: leftCount * rightCount)
        for i in 0..<matrix.count { matrix[i] = Int16(bitPattern: try matrixReader.le16(matrixAt + 2 * i)) }
        let end = matrixAt + 2 * matrix.count
        guard end == bytes.count - 4 else {
            throw matrixReader.fail(end, "\(bytes.count - 4 - end) unexpected bytes after the kerning matrix")
        }
        return FontFace(
            family: family, weight: weight, isItalic: flags & 1 != 0, unitsPerEm: unitsPerEm,
            ascender: ascender, descender: descender, lineGap: lineGap, notdefAdvance: notdef,
            sourceChecksum: checksum, sourceFile: sourceFile, runs: runs, leftClassCount: leftCount, rightClassCount: rightCount,
            kerningMatrix: matrix)
    }
}

/// The UTF-8 bytes of `text`, cut to at most `limit` bytes at a scalar boundary.
private func utf8Prefix(_ text: String, _ limit: Int) -> [UInt8] {
    var out: [UInt8] = []
    for scalar in text.unicodeScalars {
        let bytes = Array(String(scalar).utf8)
        guard out.count + bytes.count <= limit else { break }
        out += bytes
    }
    return out
}

/// CRC-32 (IEEE 802.3, the zlib/PNG polynomial), as Python's `zlib.crc32`.
public func crc32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
    var table = [UInt32](repeating: 0, count: 256)
    for i in 0..<256 {
        var c = UInt32(i)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        table[i] = c
    }
    var crc: UInt32 = 0xFFFF_FFFF
    for b in bytes { crc = table[Int((crc ^ UInt32(b)) & 0xFF)] ^ (crc >> 8) }
    return crc ^ 0xFFFF_FFFF
}
