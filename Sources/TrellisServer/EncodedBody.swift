import TrellisHTTP

/// A response body encoded once, with everything a cache-friendly answer needs, so that serving it
/// again costs no encoding and no compression.
public struct EncodedBody: Sendable {
    public let bytes: [UInt8]
    /// The gzip form of `bytes`, or nil when the body is too small for compression to pay.
    public let gzip: [UInt8]?
    /// A strong entity tag (RFC 9110 §8.8.3), quoted, derived from the bytes.
    public let etag: String
    /// Headers that belong to these bytes (a client format's envelope facts), sent with them.
    public let headers: [(name: String, value: String)]

    /// Bodies smaller than this are sent as they are: gzip's 18-byte frame eats the gain.
    static let minimumCompressedSize = 256

    /// - Parameter compressionLevel: 9 (the default) for answers compressed once and sent many
    ///   times, where the best ratio is worth its CPU; lower for an answer made for one request.
    public init(bytes: [UInt8], compressionLevel: Int = 9, headers: [(name: String, value: String)] = []) {
        self.bytes = bytes
        self.headers = headers
        gzip = bytes.count >= Self.minimumCompressedSize ? Gzip.compress(bytes, level: compressionLevel) : nil
        etag = "\"" + EncodedBody.fingerprint(bytes) + "\""
    }

    /// 64-bit FNV-1a of the bytes as 16 hex digits: cheap, stable across processes and machines.
    static func fingerprint(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            hash ^= UInt64(b)
            hash &*= 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
