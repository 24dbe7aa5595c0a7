import Atomics

/// A response body encoded once, with everything a cache-friendly answer needs, so that serving it
/// again costs no encoding and no compression.
///
/// One object holds it all, its bytes after its fields in the same allocation: an answer-cache
/// hit copies the body out of its entry, and each reference copied is a retain, which for an
/// answer among thousands that nobody asked for lately is a line read from memory (the ETag's and
/// the gzip form's storage were two of them, and the bytes' own array one more, which the server
/// waited for after the body's fields).
///
/// It knows nothing of HTTP. The server sends the bytes from where they lie, the storage being
/// TrellisHTTP's `SharedBytes` (TrellisServer's `EncodedBody+HTTP.swift` says so), makes the gzip
/// form with TrellisHTTP's zlib (``gzip(compressingWith:)``), and sets when a body has a gzip form
/// and at which level (``Compression``).
///
/// Unchecked `Sendable`: the storage is a `ManagedBuffer`, which is not, but its fields and bytes
/// are written once, before the body is returned, and never after (the gzip form is a lazy
/// reference of its own).
public struct EncodedBody: @unchecked Sendable {
    /// The fields and the bytes, in one object: what the server sends from (as TrellisHTTP's
    /// `SharedBytes`).
    package let storage: Storage

    /// The bytes, as an array: a copy. The server sends them from where they lie (``storage``).
    public var bytes: [UInt8] { Array(storage.bytes) }
    /// The number of bytes.
    public var count: Int { storage.withUnsafeMutablePointerToHeader { $0.pointee.count } }
    /// A strong entity tag (RFC 9110 §8.8.3), quoted, derived from the bytes.
    public var etag: String { storage.fields.etag }
    /// Headers that belong to these bytes (a client format's envelope facts), sent with them.
    public var headers: [(name: String, value: String)] { storage.fields.headers }
    /// The gzip form, made the first time a client may take it and kept for every later one.
    private var compressed: Compressed? { storage.fields.compressed }

    /// When a body has a gzip form, and at which zlib level: the HTTP server's policy, which it
    /// hands in (TrellisHTTP's `Gzip.Policy`).
    public struct Compression: Sendable {
        /// The zlib level of the form, made on the first use that wants it.
        public let level: Int
        /// The fewest bytes that get a gzip form: below this, compression does not pay.
        public let minimumBytes: Int

        public init(level: Int, minimumBytes: Int) {
            self.level = level
            self.minimumBytes = minimumBytes
        }
    }

    package struct Fields {
        let count: Int
        /// The room the allocator gave the bytes (at least `count`), measured once: asking again
        /// reads the allocator's word before the object, which for an answer the cache measures
        /// again later is a line from memory.
        let room: Int
        let etag: String
        let headers: [(name: String, value: String)]
        let compressed: Compressed?
        /// What the server made of the body once and keeps with it (``kept(_:)``).
        let kept: ManagedAtomicLazyReference<AnyObject>
    }

    /// The fields, then the bytes. A `ManagedBuffer`'s elements stay where they are for the
    /// object's life, so the pointer ``bytes`` gives holds as long as the storage is referenced.
    package final class Storage: ManagedBuffer<Fields, UInt8> {
        package var bytes: UnsafeRawBufferPointer {
            withUnsafeMutablePointers { fields, bytes in UnsafeRawBufferPointer(start: bytes, count: fields.pointee.count) }
        }

        /// The fields, read through a pointer: `header`, a class's stored property, is checked for
        /// exclusive access at each read (a call into the runtime, five a cached answer), and
        /// these are written once, by `make`, before the storage is shared.
        package var fields: Fields { withUnsafeMutablePointerToHeader { $0.pointee } }

        /// Storage for `count` bytes that `write` fills in whole; its ETag is `fingerprint`
        /// quoted, or else made from those bytes.
        static func make(
            count: Int, compression: Compression, headers: [(name: String, value: String)], fingerprint: String?,
            write: (UnsafeMutableBufferPointer<UInt8>) -> Void
        ) -> Storage {
            let made = create(minimumCapacity: count) { _ in
                Fields(count: 0, room: 0, etag: "", headers: [], compressed: nil, kept: ManagedAtomicLazyReference())
            }
            let storage = unsafeDowncast(made, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { write(UnsafeMutableBufferPointer(start: $0, count: count)) }
            let tag = fingerprint.map { "\"" + $0 + "\"" }
                ?? storage.withUnsafeMutablePointerToElements { EncodedBody.entityTag(hash: XXH64.hash(UnsafeRawBufferPointer(start: $0, count: count))) }
            storage.header = Fields(
                count: count, room: storage.capacity, etag: tag, headers: headers,
                compressed: count >= compression.minimumBytes ? Compressed(level: compression.level) : nil,
                kept: storage.header.kept)
            return storage
        }
    }

    /// A body of a copy of `bytes`.
    public init(bytes: [UInt8], compression: Compression, headers: [(name: String, value: String)] = []) {
        self.init(count: bytes.count, compression: compression, headers: headers) { target in
            _ = target.initialize(fromContentsOf: bytes)
        }
    }

    /// A body whose fingerprint is already known (a font file's, named by its URL).
    public init(bytes: [UInt8], fingerprint: String, compression: Compression, headers: [(name: String, value: String)] = []) {
        storage = Storage.make(
            count: bytes.count, compression: compression, headers: headers, fingerprint: fingerprint
        ) { target in _ = target.initialize(fromContentsOf: bytes) }
    }

    /// A body of `count` bytes that `write` writes where they are kept, every one of them (a
    /// planned answer: no array of its own first, then copied).
    public init(
        count: Int, compression: Compression, headers: [(name: String, value: String)] = [],
        writing write: (UnsafeMutableBufferPointer<UInt8>) -> Void
    ) {
        storage = Storage.make(count: count, compression: compression, headers: headers, fingerprint: nil, write: write)
    }

    /// XXH64 of the bytes as 13 base-36 digits, quoted: 15 bytes, which a `String` holds in itself
    /// (16 hex digits and their quotes took a heap buffer of their own, read by every answer
    /// served: for an answer among thousands, one more line from memory).
    static func entityTag(_ bytes: [UInt8]) -> String {
        entityTag(hash: bytes.withUnsafeBytes { XXH64.hash($0) })
    }

    /// `hash` in 13 base-36 digits (lowercase, leading zeros kept), quoted. Every miss makes one,
    /// so it is written digit by digit into the string's own bytes, not by `String(_:radix:)`
    /// padded and quoted (docs/answer-path.md has what that cost).
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

    /// The gzip form of the bytes, or nil when the body is too small for compression to pay
    /// (``Compression/minimumBytes``). Compressed by `compress` (the bytes and the level) on first
    /// use, not when the body is made: a miss for a client that does not take gzip costs no
    /// compression. Lock-free: two first uses racing may both compress, one result is kept and
    /// both return it.
    public func gzip(compressingWith compress: (UnsafeRawBufferPointer, _ level: Int) -> [UInt8]) -> [UInt8]? {
        compressed.map { $0.bytes(of: storage.bytes, compress) }
    }

    /// What the server makes once of this body and sends with it every time — the fields of its
    /// response head — made by `make` on first use and kept as long as the body: `make`'s again
    /// when another kind of object was kept. Its bytes are covered by the entry overhead the
    /// answer cache charges (``SnapshotCacheLimits/answerEntryOverheadBytes``). Lock-free: two first
    /// uses racing may both make one, and both return the one kept.
    public func kept<Kept: AnyObject & Sendable>(_ make: () -> Kept) -> Kept {
        let slot = storage.fields.kept
        if let made = slot.load() as? Kept { return made }
        return slot.storeIfNilThenLoad(make()) as? Kept ?? make()
    }

    /// The body's gzip form, once made.
    final class Compressed: Sendable {
        final class Bytes: Sendable {
            let bytes: [UInt8]
            init(_ bytes: [UInt8]) { self.bytes = bytes }
        }
        let level: Int
        let made = ManagedAtomicLazyReference<Bytes>()
        init(level: Int) { self.level = level }

        func bytes(of body: UnsafeRawBufferPointer, _ compress: (UnsafeRawBufferPointer, _ level: Int) -> [UInt8]) -> [UInt8] {
            if let done = made.load() { return done.bytes }
            return made.storeIfNilThenLoad(Bytes(Self.trimmed(compress(body, level)))).bytes
        }

        /// `compressed` in an array of its own size: the server's gzip writes into one of zlib's
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
    /// four independent lanes of eight bytes, not one multiply per byte as FNV-1a's (what that
    /// cost a layout answer is in docs/answer-path.md).
    public static func fingerprint(_ bytes: [UInt8]) -> String {
        let hash = bytes.withUnsafeBytes { XXH64.hash($0) }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension EncodedBody: CacheCost {
    /// Asks for every line of the bytes: an answer-cache hit asks as soon as it has the answer,
    /// so that the lines come together while the response is made, not one by one when the
    /// kernel copies them into the socket (an answer among thousands is cold).
    public func prefetchBytes() {
        let bytes = storage.bytes
        Prefetch.bytes(bytes.baseAddress, count: bytes.count)
    }

    /// The storage's first line: its object header and fields, which a response reads first.
    public var firstLine: UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(storage).toOpaque()) }

    /// Its bytes' storage, its ETag and headers, and its gzip form: once made, that form's
    /// storage; until then the most it can take (``gzipBound(_:)``), so the figure falls when the
    /// form is made (it can rise only by the allocator's rounding of a form over 128 KiB of
    /// incompressible bytes, which the cache makes room for when it measures the answer again).
    /// What a miss in the answer cache charges, and what its eviction hand measures again.
    public var cacheBytes: Int {
        var total = storage.fields.room + etag.utf8.count
        for header in headers { total += header.name.utf8.count + header.value.utf8.count }
        if let compressed { total += compressed.made.load()?.bytes.capacity ?? Self.gzipBound(count) }
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

extension EncodedBody.Compression {
    /// An answer cached and sent many times: zlib's best level, once, for bodies of 256 bytes or
    /// more (the HTTP server's gzip policy, which a server test holds this equal to).
    public static let cachedAnswer = EncodedBody.Compression(level: 9, minimumBytes: 256)
}
