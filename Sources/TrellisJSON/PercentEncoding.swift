/// Percent-encoding of URL parts (RFC 3986 §2.1), for the URLs Trellis writes from values it was
/// given: a route's templates, a screen's `$format` URLs, the links of a preview. Here because every
/// module that writes one already imports TrellisJSON, so there is one encoder.
public enum PercentEncoding {
    /// RFC 3986 §2.3 unreserved characters: `A-Z a-z 0-9 - . _ ~`, which never need encoding.
    public static func isUnreserved(_ c: UInt8) -> Bool {
        (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || (0x30...0x39).contains(c)
            || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x7E
    }

    /// `text` with every byte but the unreserved ones written as `%XX` (upper-case hex, as RFC 3986
    /// §2.1 recommends), so a value cannot add a path segment, a query or a fragment; `/` is kept
    /// when `keepingSlash`, for a path of several segments.
    public static func encode(_ text: String, keepingSlash: Bool = false) -> String {
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
}
