import Atomics
import TrellisHTTP

/// A response body encoded once, with everything a cache-friendly answer needs, so that serving it
/// again costs no encoding and no compression.
///
/// One reference to what it holds: an answer-cache hit copies the body out of its entry, and
/// each reference copied is a retain, which for an answer among thousands that nobody asked for
/// lately is a line read from memory (the ETag's and the gzip form's storage were two of them).
public struct EncodedBody: Sendable {
    private let storage: Storage

    public var bytes: [UInt8] { storage.bytes }
    /// A strong entity tag (RFC 9110 §8.8.3), quoted, derived from the bytes.
    public var etag: String { storage.etag }
    /// Headers that belong to these bytes (a client format's envelope facts), sent with them.
    public var headers: [(name: String, value: String)] { storage.headers }
    /// The gzip form, made the first time a client may take it and kept for every later one.
    private var compressed: Compressed? { storage.compressed }

    private final class Storage: Sendable {
        let bytes: [UInt8]
        let etag: String
        let headers: [(name: String, value: String)]
        let compressed: Compressed?
        init(bytes: [UInt8], etag: String, headers: [(name: String, value: String)], compressed: Compressed?) {
            self.bytes = bytes
            self.etag = etag
            self.headers = headers
            self.compressed = compressed
        }
    }

    /// - Parameter compressionLevel: ``Gzip/Policy/compressedOnceLevel`` (the default) for answers
    ///   cached and sent many times; lower for an answer made for one or a few requests.
    public init(
        bytes: [UInt8], compressionLevel: Int = Gzip.Policy.compressedOnceLevel, headers: [(name: String, value: String)] = []
    ) {
        self.init(bytes: bytes, etag: Self.entityTag(bytes), compressionLevel: compressionLevel, headers: headers)
    }

    /// A body whose fingerprint is already known (a font file's, named by its URL).
    public init(
        bytes: [UInt8], fingerprint: String, compressionLevel: Int = Gzip.Policy.compressedOnceLevel,
        headers: [(name: String, value: String)] = []
    ) {
        self.init(bytes: bytes, etag: "\"" + fingerprint + "\"", compressionLevel: compressionLevel, headers: headers)
    }

    private init(bytes: [UInt8], etag: String, compressionLevel: Int, headers: [(name: String, value: String)]) {
        storage = Storage(
            bytes: bytes, etag: etag, headers: headers,
            compressed: bytes.count >= Gzip.Policy.minimumBytes ? Compressed(level: compressionLevel) : nil)
    }

    /// XXH64 of the bytes as 13 base-36 digits, quoted: 15 bytes, which a `String` holds in itself
    /// (16 hex digits and their quotes took a heap buffer of their own, read by every answer
    /// served: for an answer among thousands, one more line from memory).
    static func entityTag(_ bytes: [UInt8]) -> String {
        entityTag(hash: bytes.withUnsafeBytes { XXH64.hash($0) })
    }

    /// `hash` in 13 base-36 digits (lowercase, leading zeros kept), quoted. Written digit by digit
    /// into the string's own bytes: `String(_:radix:)`, padded and quoted, took some 1,500
    /// instructions a miss, a tenth of encoding a plain screen's answer.
    static func entityTag(hash: UInt64) -> String {
        String(unsafeUninitializedCapacity: 15) { tag in
            let quote = UInt8(ascii: "\"")
            tag[0] = quote
            tag[14] = quote
            var rest = hash
            for index in (1...13).reversed() {
                let digit = UInt8(truncatingIfNeeded: rest % 36)
                tag[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                rest /= 36
            }
            return 15
        }
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
            return made.storeIfNilThenLoad(Bytes(Self.trimmed(Gzip.compress(body, level: level)))).bytes
        }

        /// `compressed` in an array of its own size: `Gzip.compress` writes into one of zlib's
        /// bound, about the size of the input, and the form is kept as long as the answer.
        static func trimmed(_ compressed: [UInt8]) -> [UInt8] {
            [UInt8](unsafeUninitializedCapacity: compressed.count) { buffer, initialized in
                initialized = buffer.initialize(fromContentsOf: compressed)
            }
        }
    }

    /// The most bytes the gzip form of `count` bytes can take: zlib's `deflateBound` for a gzip
    /// stream at the default window and memory level (stored blocks of incompressible input,
    /// with their headers and the 18 bytes of gzip header and trailer), and 32 for the allocator.
    static func gzipBound(_ count: Int) -> Int {
        count + (count >> 12) + (count >> 14) + (count >> 25) + 7 + 18 + 32
    }

    /// XXH64 (seed 0) of the bytes as 16 hex digits: stable across processes and machines, and
    /// four independent lanes of eight bytes, where FNV-1a's one multiply per byte made the ETag
    /// of a 16 KB layout answer cost a twentieth of the answer.
    static func fingerprint(_ bytes: [UInt8]) -> String {
        let hash = bytes.withUnsafeBytes { XXH64.hash($0) }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension EncodedBody: CacheCost {
    /// Its bytes' storage, its ETag and headers, and its gzip form: once made, that form's
    /// storage; until then the most it can take (``gzipBound(_:)``), so the figure falls when the
    /// form is made (it can rise only by the allocator's rounding of a form over 128 KiB of
    /// incompressible bytes, which the cache's next miss in the shard makes room for). What a miss
    /// in the answer cache charges, and what it measures again later.
    public var cacheBytes: Int {
        var total = bytes.capacity + etag.utf8.count
        for header in headers { total += header.name.utf8.count + header.value.utf8.count }
        if let compressed { total += compressed.made.load()?.bytes.capacity ?? Self.gzipBound(bytes.count) }
        return total
    }
}

/// [XXH64](https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md), seed 0.
enum XXH64 {
    static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let count = bytes.count
        var offset = 0
        var hash: UInt64
        if count >= 32 {
            var lanes = (prime1 &+ prime2, prime2, UInt64(0), 0 &- prime1)
            while offset + 32 <= count {
                lanes.0 = round(lanes.0, word(bytes, offset))
                lanes.1 = round(lanes.1, word(bytes, offset + 8))
                lanes.2 = round(lanes.2, word(bytes, offset + 16))
                lanes.3 = round(lanes.3, word(bytes, offset + 24))
                offset += 32
            }
            hash = lanes.0.rotated(1) &+ lanes.1.rotated(7) &+ lanes.2.rotated(12) &+ lanes.3.rotated(18)
            for lane in [lanes.0, lanes.1, lanes.2, lanes.3] { hash = (hash ^ round(0, lane)) &* prime1 &+ prime4 }
        } else {
            hash = prime5
        }
        hash &+= UInt64(count)
        while offset + 8 <= count {
            hash = (hash ^ round(0, word(bytes, offset))).rotated(27) &* prime1 &+ prime4
            offset += 8
        }
        if offset + 4 <= count {
            let half = UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            hash = (hash ^ (half &* prime1)).rotated(23) &* prime2 &+ prime3
            offset += 4
        }
        while offset < count {
            hash = (hash ^ (UInt64(bytes[offset]) &* prime5)).rotated(11) &* prime1
            offset += 1
        }
        hash ^= hash >> 33
        hash &*= prime2
        hash ^= hash >> 29
        hash &*= prime3
        hash ^= hash >> 32
        return hash
    }

    private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        (accumulator &+ input &* prime2).rotated(31) &* prime1
    }

    private static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}

extension UInt64 {
    fileprivate func rotated(_ bits: UInt64) -> UInt64 { (self << bits) | (self >> (64 - bits)) }
}
