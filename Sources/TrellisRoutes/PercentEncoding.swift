/// Percent-encoding of URL parts (RFC 3986 §2.1): bytes written as `%XX`.
enum PercentEncoding {
    /// RFC 3986 §2.3 unreserved characters: `A-Z a-z 0-9 - . _ ~`, which never need encoding.
    static func isUnreserved(_ c: UInt8) -> Bool {
        (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || (0x30...0x39).contains(c)
            || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x7E
    }

    /// `text` with every byte but the unreserved ones written as `%XX` (upper-case hex, as RFC 3986
    /// §2.1 recommends); `/` is kept when `keepingSlash`, for a wildcard's path.
    static func encode(_ text: String, keepingSlash: Bool = false) -> String {
        let keep = { (c: UInt8) in isUnreserved(c) || (keepingSlash && c == 0x2F) }
        guard !text.utf8.allSatisfy(keep) else { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3)
        for c in text.utf8 {
            if keep(c) { out.append(c) } else { out += [0x25, hex[Int(c >> 4)], hex[Int(c & 0x0F)]] }
        }
        return String(decoding: out, as: UTF8.self)
    }

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
