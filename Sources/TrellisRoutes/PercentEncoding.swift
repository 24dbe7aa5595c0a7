import TrellisJSON

/// Decoding, which only URLs read by the route table need (encoding is TrellisJSON's).
extension PercentEncoding {
    /// The text `bytes` stand for, every `%XX` decoded; `+` stays `+` (it means a space only in
    /// HTML forms). Offsets in errors are positions in the whole URL (`bytes` is a slice of it).
    static func decode(_ bytes: ArraySlice<UInt8>) throws(AppURLError.Problem) -> String {
        guard bytes.contains(0x25) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard bytes[i] == 0x25 else { out.append(bytes[i]); i += 1; continue }
            guard i + 2 < bytes.endIndex, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else {
                let escape = String(decoding: bytes[i..<min(i + 3, bytes.endIndex)], as: UTF8.self)
                throw .init("bad percent escape \"\(escape)\"", at: i)
            }
            let byte = high << 4 | low
            if byte < 0x20 || byte == 0x7F { throw .init("\"\(String(decoding: bytes[i..<i + 3], as: UTF8.self))\" encodes a control character", at: i) }
            out.append(byte)
            i += 3
        }
        let text = String(decoding: out, as: UTF8.self)
        // Decoding replaces invalid UTF-8 with U+FFFD; a round trip that differs means it was invalid.
        guard text.utf8.elementsEqual(out) else { throw .init("percent escapes that are not UTF-8", at: bytes.startIndex) }
        return text
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}
