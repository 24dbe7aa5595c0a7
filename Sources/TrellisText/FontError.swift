/// Why a font file or a metrics pack could not be read.
///
/// Every error names the table (or pack section) that was being read, the byte offset from the start
/// of the file where reading failed, and the reason, so a bad file can be diagnosed without a hex
/// editor: `FontError(table: "hmtx", offset: 1204, reason: "needs 4 bytes, file has 2")`.
public struct FontError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The OpenType table tag (`"cmap"`, `"GPOS"`, …), `"sfnt"` for the file header and table
    /// directory, or `"pack"` / a pack section name for a metrics pack.
    public var table: String
    /// Byte offset from the start of the file (or pack) where the problem was found.
    public var offset: Int
    /// What was wrong, in words a person can act on.
    public var reason: String

    public init(table: String, offset: Int, reason: String) {
        self.table = table
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "\(table) at offset \(offset): \(reason)" }
}

/// A bounds-checked big- or little-endian reader over a byte array.
///
/// Every read names the table it belongs to so errors point at the exact place in the file.
struct ByteReader {
    let bytes: [UInt8]
    let table: String
    /// Reads must end at or before this offset (the end of the table being read).
    let end: Int

    init(_ bytes: [UInt8], table: String, end: Int? = nil) {
        self.bytes = bytes
        self.table = table
        self.end = min(end ?? bytes.count, bytes.count)
    }

    /// A reader for one table, limited to `offset..<offset+length` of the file.
    func table(_ tag: String, offset: Int, length: Int) -> ByteReader {
        ByteReader(bytes, table: tag, end: offset + length)
    }

    func fail(_ offset: Int, _ reason: String) -> FontError {
        FontError(table: table, offset: offset, reason: reason)
    }

    /// Throws unless `count` bytes starting at `offset` lie inside the file.
    func require(_ offset: Int, _ count: Int, _ what: String) throws(FontError) {
        guard offset >= 0, count >= 0, offset <= end, count <= end - offset else {
            let room = offset >= 0 && offset <= end ? end - offset : 0
            throw fail(offset, "\(what) needs \(count) bytes but only \(room) remain before the end of the \(table) data at offset \(end)")
        }
    }

    func u8(_ o: Int, _ what: String = "value") throws(FontError) -> UInt8 {
        try require(o, 1, what)
        return bytes[o]
    }

    func u16(_ o: Int, _ what: String = "value") throws(FontError) -> UInt16 {
        try require(o, 2, what)
        return UInt16(bytes[o]) << 8 | UInt16(bytes[o + 1])
    }

    func i16(_ o: Int, _ what: String = "value") throws(FontError) -> Int16 {
        Int16(bitPattern: try u16(o, what))
    }

    func u32(_ o: Int, _ what: String = "value") throws(FontError) -> UInt32 {
        try require(o, 4, what)
        return UInt32(bytes[o]) << 24 | UInt32(bytes[o + 1]) << 16 | UInt32(bytes[o + 2]) << 8
            | UInt32(bytes[o + 3])
    }

    func tag(_ o: Int) throws(FontError) -> String {
        try require(o, 4, "tag")
        var s = ""
        for i in 0..<4 { s.unicodeScalars.append(Unicode.Scalar(bytes[o + i])) }
        return s
    }

    // Little-endian reads, used by the metrics pack format.
    func le16(_ o: Int, _ what: String = "value") throws(FontError) -> UInt16 {
        try require(o, 2, what)
        return UInt16(bytes[o]) | UInt16(bytes[o + 1]) << 8
    }

    func le32(_ o: Int, _ what: String = "value") throws(FontError) -> UInt32 {
        try require(o, 4, what)
        return UInt32(bytes[o]) | UInt32(bytes[o + 1]) << 8 | UInt32(bytes[o + 2]) << 16
            | UInt32(bytes[o + 3]) << 24
    }
}
