/// Base 16 (RFC 4648 §8): two hex digits per byte.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lower-case hex digits.
    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` spells, two hex digits each; upper and lower case both accepted.
    /// - Throws: ``TextDecodingError/invalidLength(_:)`` for an odd number of characters,
    ///   ``TextDecodingError/invalidCharacter(offset:)`` for anything but `0-9`, `a-f`, `A-F`
    ///   (whitespace and a `0x` prefix included).
    public static func decode<Text: StringProtocol>(_ text: Text) throws(TextDecodingError) -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { throw .invalidLength(utf8.count) }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(of: utf8[index]) else { throw .invalidCharacter(offset: index) }
            guard let low = value(of: utf8[index + 1]) else { throw .invalidCharacter(offset: index + 1) }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        case 0x41...0x46: digit - 0x41 + 10
        default: nil
        }
    }
}
