/// HPACK's primitive representations (RFC 7541 §5): integers with an N-bit prefix and string
/// literals, read from a header block through a cursor and appended to an output.
struct HPACKReader {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var offset = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    /// The next octet, not consumed.
    func peek() throws(HPACKError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        return bytes[offset]
    }

    /// An integer whose first octet keeps `prefixBits` low bits for it (§5.1). Values beyond
    /// 2³² − 1 are refused: no index, length or size comes near.
    mutating func readInteger(prefixBits: Int) throws(HPACKError) -> Int {
        let limit = (1 << prefixBits) - 1
        let first = try next()
        var value = Int(first) & limit
        guard value == limit else { return value }
        var shift = 0
        while true {
            let octet = try next()
            value += Int(octet & 0x7F) << shift
            guard value <= Int(UInt32.max) else { throw .integerOverflow }
            if octet & 0x80 == 0 { return value }
            shift += 7
            // Five continuation octets carry 35 bits; a sixth could only add zeros or overflow.
            guard shift <= 28 else { throw .integerOverflow }
        }
    }

    /// A string literal (§5.2): its octets, Huffman-decoded when its H bit is set. A length beyond
    /// the block is `.truncated` before anything is allocated for it.
    mutating func readString() throws(HPACKError) -> [UInt8] {
        let huffman = try peek() & 0x80 != 0
        let length = try readInteger(prefixBits: 7)
        guard length <= bytes.count - offset else { throw .truncated }
        let raw = UnsafeBufferPointer(rebasing: bytes[offset..<(offset + length)])
        offset += length
        guard huffman else { return Array(raw) }
        var decoded: [UInt8] = []
        try HPACKHuffman.decode(raw, into: &decoded)
        return decoded
    }

    private mutating func next() throws(HPACKError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }
}

enum HPACKWriter {
    /// Appends `value` with an N-bit prefix, `flags` in the first octet's high bits (§5.1).
    static func appendInteger(_ value: Int, prefixBits: Int, flags: UInt8, to out: inout [UInt8]) {
        let limit = (1 << prefixBits) - 1
        guard value >= limit else { return out.append(flags | UInt8(value)) }
        out.append(flags | UInt8(limit))
        var rest = value - limit
        while rest >= 0x80 {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }

    /// Appends a string literal (§5.2), Huffman-coded when `huffman` allows and it is no longer.
    static func appendString(_ string: String, huffman: HPACKEncoder.HuffmanPolicy, to out: inout [UInt8]) {
        let octets = string.utf8
        let coded = huffman == .never ? Int.max : HPACKHuffman.encodedCount(octets)
        if coded <= octets.count {
            appendInteger(coded, prefixBits: 7, flags: 0x80, to: &out)
            HPACKHuffman.encode(octets, into: &out)
        } else {
            appendInteger(octets.count, prefixBits: 7, flags: 0, to: &out)
            out.append(utf8: string)
        }
    }
}
