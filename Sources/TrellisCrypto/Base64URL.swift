/// Base 64 with the URL- and filename-safe alphabet (RFC 4648 §5), without padding: the form
/// tokens, signed contexts and keys take in Trellis (as in JWS, RFC 7515 §2).
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each ASCII byte's 6-bit value, or 0xFF for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    /// `bytes` in base64url, without `=` padding.
    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            appendCharacters(of: group, count: 4, to: &out)
            index += 3
        }
        switch input.count - index {
        case 1: appendCharacters(of: UInt32(input[index]) << 16, count: 2, to: &out)
        case 2: appendCharacters(of: UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8, count: 3, to: &out)
        default: break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes.
    ///
    /// Strict, so that every byte string has exactly one accepted spelling (a signature cannot be
    /// altered into another string that still verifies):
    /// - Throws: ``TextDecodingError/invalidCharacter(offset:)`` for any byte outside `A-Z a-z 0-9 - _`
    ///   — padding `=`, the standard alphabet's `+` and `/`, whitespace and line breaks included;
    ///   ``TextDecodingError/invalidLength(_:)`` when the length is one more than a multiple of four;
    ///   ``TextDecodingError/nonZeroTrailingBits`` when the last character sets bits beyond the last
    ///   byte (RFC 4648 §3.5 lets decoders reject such non-canonical input; we do).
    public static func decode<Text: StringProtocol>(_ text: Text) throws(TextDecodingError) -> [UInt8] {
        let input = Array(text.utf8)
        var sextets = [UInt8](repeating: 0, count: input.count)
        for (offset, character) in input.enumerated() {
            let value = values[Int(character)]
            guard value != 0xFF else { throw .invalidCharacter(offset: offset) }
            sextets[offset] = value
        }
        // Checked after the characters, so "a b" reports the space rather than the length.
        guard input.count % 4 != 1 else { throw .invalidLength(input.count) }
        return try bytes(fromSextets: sextets)
    }

    private static func bytes(fromSextets sextets: [UInt8]) throws(TextDecodingError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(sextets.count * 3 / 4)
        var index = 0
        while index + 4 <= sextets.count {
            let group = UInt32(sextets[index]) << 18 | UInt32(sextets[index + 1]) << 12
                | UInt32(sextets[index + 2]) << 6 | UInt32(sextets[index + 3])
            out.append(UInt8(truncatingIfNeeded: group >> 16))
            out.append(UInt8(truncatingIfNeeded: group >> 8))
            out.append(UInt8(truncatingIfNeeded: group))
            index += 4
        }
        switch sextets.count - index {
        case 2:
            // 12 bits carry one byte; the last character's low 4 bits must be zero.
            guard sextets[index + 1] & 0x0F == 0 else { throw .nonZeroTrailingBits }
            out.append(sextets[index] << 2 | sextets[index + 1] >> 4)
        case 3:
            // 18 bits carry two bytes; the last character's low 2 bits must be zero.
            guard sextets[index + 2] & 0x03 == 0 else { throw .nonZeroTrailingBits }
            out.append(sextets[index] << 2 | sextets[index + 1] >> 4)
            out.append(sextets[index + 1] << 4 | sextets[index + 2] >> 2)
        default: break
        }
        return out
    }

    private static func appendCharacters(of group: UInt32, count: Int, to out: inout [UInt8]) {
        for position in 0..<count {
            out.append(alphabet[Int(group >> UInt32(18 - 6 * position) & 0x3F)])
        }
    }
}
