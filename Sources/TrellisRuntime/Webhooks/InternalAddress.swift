#if canImport(Glibc)
import Glibc
#endif

/// Addresses a webhook must not reach unless the configuration says so
/// (`admin.webhookAllowPrivate`): the host's own (loopback, unspecified), its networks' (private,
/// shared, link-local — where cloud metadata services answer — unique-local), and what is not
/// unicast. A receiver is checked twice: its URL when it is made (an address literal), and every
/// address its host resolves to, right before connecting to that very address, so a name that
/// resolves elsewhere the second time (DNS rebinding) gains nothing.
package enum InternalAddress {
    /// Why `text` (an IPv4 or IPv6 address literal, brackets allowed) is internal; nil when it is a
    /// public address or not a literal at all.
    package static func reason(literal text: String) -> String? {
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        guard let bytes = bytes(of: bare) else { return nil }
        return bytes.count == 4 ? reason(ipv4: bytes.reduce(0) { $0 << 8 | UInt32($1) }) : reason(ipv6: bytes)
    }

    /// The bytes of an IPv4 (4) or IPv6 (16) address literal, in network order; nil for anything else.
    package static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    /// Why the socket address `address` is internal; nil for a public one.
    package static func reason(_ address: UnsafePointer<sockaddr>) -> String? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { reason(ipv4: UInt32(bigEndian: $0.pointee.sin_addr.s_addr)) }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { reason(ipv6: withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) }) }
        default:
            return "not an internet address"
        }
    }

    /// The IPv4 ranges of RFC 6890 that are not the public internet.
    static func reason(ipv4 a: UInt32) -> String? {
        func within(_ prefix: UInt32, _ bits: UInt32) -> Bool { bits == 0 || a >> (32 - bits) == prefix >> (32 - bits) }
        let ranges: [(UInt32, UInt32, String)] = [
            (0x0000_0000, 8, "the unspecified network (0.0.0.0/8)"), (0x0A00_0000, 8, "private (10.0.0.0/8)"),
            (0x6440_0000, 10, "shared address space (100.64.0.0/10)"), (0x7F00_0000, 8, "loopback (127.0.0.0/8)"),
            (0xA9FE_0000, 16, "link-local (169.254.0.0/16, where metadata services answer)"), (0xAC10_0000, 12, "private (172.16.0.0/12)"),
            (0xC000_0000, 24, "IETF protocol assignments (192.0.0.0/24)"), (0xC0A8_0000, 16, "private (192.168.0.0/16)"),
            (0xC612_0000, 15, "benchmarking (198.18.0.0/15)"), (0xE000_0000, 4, "multicast (224.0.0.0/4)"), (0xF000_0000, 4, "reserved (240.0.0.0/4)"),
        ]
        return ranges.first { within($0.0, $0.1) }?.2
    }

    /// The IPv6 ranges that are not the public internet; an address that carries an IPv4 one
    /// (mapped, NAT64) is judged by it.
    static func reason(ipv6 b: [UInt8]) -> String? {
        if b[0..<15].allSatisfy({ $0 == 0 }) { return b[15] == 1 ? "loopback (::1)" : b[15] == 0 ? "unspecified (::)" : "IPv4-compatible (deprecated)" }
        let embedded = UInt32(b[12]) << 24 | UInt32(b[13]) << 16 | UInt32(b[14]) << 8 | UInt32(b[15])
        if b[0..<10].allSatisfy({ $0 == 0 }), b[10] == 0xFF, b[11] == 0xFF { return reason(ipv4: embedded).map { "IPv4-mapped, \($0)" } }
        if b[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return reason(ipv4: embedded).map { "NAT64, \($0)" } }
        if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return "link-local (fe80::/10)" }
        if b[0] & 0xFE == 0xFC { return "unique-local (fc00::/7)" }
        if b[0] == 0xFF { return "multicast (ff00::/8)" }
        return nil
    }
}
