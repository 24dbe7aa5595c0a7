import Foundation
import TrellisHTTP
import TrellisRuntime

/// Who a request comes from, for what counts per client (failed authentications, change streams):
/// the socket's peer — unless the peer is a proxy the configuration trusts (`trustedProxies`),
/// when it is the nearest address of `X-Forwarded-For` that is not a trusted proxy. Anyone can
/// write the header; only a trusted proxy's is believed, and only the hops it and its trusted
/// predecessors added.
enum ClientAddress {
    /// The client's address (the peer's with its port, or a bare address from the header).
    static func of(_ request: HTTPRequest, _ context: HTTPRequestContext, trusting proxies: [AddressRange]) -> String {
        guard !proxies.isEmpty else { return context.remoteAddress }
        let peer = AuthenticationFailureLimiter.clientKey(of: context.remoteAddress)
        guard proxies.contains(where: { $0.contains(peer) }) else { return context.remoteAddress }
        let hops: [String] = request.headers.values(for: "X-Forwarded-For").flatMap { field in
            field.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        for hop in hops.reversed() where !hop.isEmpty {
            let address = AuthenticationFailureLimiter.clientKey(of: hop)
            guard InternalAddress.bytes(of: address) != nil else { return context.remoteAddress }  // not an address: the peer it is
            if !proxies.contains(where: { $0.contains(address) }) { return address }
        }
        return context.remoteAddress
    }
}

/// A range of addresses in CIDR notation: `10.0.0.0/8`, `192.0.2.7` (one address), `fd00::/8`.
struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    let network: [UInt8]
    let prefixLength: Int
    let description: String

    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let bytes = InternalAddress.bytes(of: parts[0]) else { return nil }
        let length = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
        guard let length, (0...(bytes.count * 8)).contains(length) else { return nil }
        network = bytes
        prefixLength = length
        description = text
    }

    func contains(_ address: String) -> Bool {
        guard let bytes = InternalAddress.bytes(of: address), bytes.count == network.count else { return false }
        for bit in 0..<prefixLength where (bytes[bit / 8] ^ network[bit / 8]) & (0x80 >> UInt8(bit % 8)) != 0 { return false }
        return true
    }
}
