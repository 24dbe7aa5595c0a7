import Atomics
import TrellisHTTP

/// A response body encoded once, with everything a cache-friendly answer needs, so that serving it
/// again costs no encoding and no compression.
public struct EncodedBody: Sendable {
    public let bytes: [UInt8]
    /// A strong entity tag (RFC 9110 §8.8.3), quoted, derived from the bytes.
    public let etag: String
    /// Headers that belong to these bytes (a client format's envelope facts), sent with them.
    public let headers: [(name: String, value: String)]
    /// The gzip form, made the first time a client may take it and kept for every later one.
    private let compressed: Compressed?

    /// Bodies smaller than this are sent as they are: gzip's 18-byte frame eats the gain.
    static let minimumCompressedSize = 256
    /// zlib level for answers compressed once and sent many times, where the best ratio is worth its CPU.
    public static let compressionLevel = 9
    /// zlib level for answers with a viewport (layouts, previews): a client's own viewport is asked
    /// for by few, so a miss matters more; level 6 costs half of level 9 for about 2 % more bytes.
    public static let viewportCompressionLevel = 6

    /// - Parameter compressionLevel: ``compressionLevel`` (the default) for answers cached and
    ///   sent many times; lower for an answer made for one request.
    public init(bytes: [UInt8], compressionLevel: Int = EncodedBody.compressionLevel, headers: [(name: String, value: String)] = []) {
        self.bytes = bytes
        self.headers = headers
        compressed = bytes.count >= Self.minimumCompressedSize ? Compressed(level: compressionLevel) : nil
        etag = "\"" + EncodedBody.fingerprint(bytes) + "\""
    }

    /// The gzip form of `bytes`, or nil when the body is too small for compression to pay.
    /// Compressed on first use, not when the body is made: a miss for a client that does not
    /// take gzip costs no compression. Lock-free: two first uses racing may both compress, one
    /// result is kept and both return it.
    public var gzip: [UInt8]? { compressed?.bytes(of: bytes) }

    /// The body's gzip form, once made.
    final class Compressed: Sendable {
        final class Bytes: Sendable {
            let bytes: [UInt8]
            init(_ bytes: [UInt8]) { self.bytes = bytes }
        }
        let level: Int
        let made = ManagedAtomicLazyReference<Bytes>()
        init(level: Int) { self.level = level }

        func bytes(of body: [UInt8]) -> [UInt8] {
            if let done = made.load() { return done.bytes }
            return made.storeIfNilThenLoad(Bytes(Gzip.compress(body, level: level))).bytes
        }
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
