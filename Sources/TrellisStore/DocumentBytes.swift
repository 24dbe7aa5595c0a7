import Atomics
import CZlib
#if canImport(Glibc)
import Glibc
#endif

/// A document's bytes, held as they are or deflated (zlib's raw deflate). A catalogue of thousands of screens
/// keeps every served document in memory for as long as it is served — the runtime state's
/// revision and the checked screen share one copy — yet reads it only on a rare path: a model
/// decoded again, an admin read, a diagnostic's line. Deflated, such a copy takes a fifth to a
/// sixth of its bytes (with a dictionary of the words such documents share), and giving them
/// back costs microseconds.
///
/// Every copy of a value shares one holder, and ``deflate()`` deflates the bytes in it, for all
/// of them: a start holds 10,000 documents as they are until it is ready, then deflates them in
/// the background, and what already shares a copy shares the deflated one.
public struct DocumentBytes: Sendable, Equatable {
    private enum Storage: Sendable {
        case plain([UInt8])
        /// A raw deflate stream of `count` bytes, made with `dictionary` preset.
        case deflated([UInt8], count: Int, dictionary: DeflateDictionary?)
    }

    /// How the bytes are held: replaced once, by the deflated form or by the same bytes marked
    /// as not worth deflating.
    private final class Held: AtomicReference, Sendable {
        let storage: Storage
        /// Deflated, or not smaller deflated: ``deflate()`` has nothing left to do.
        let isSettled: Bool

        init(_ storage: Storage, isSettled: Bool) {
            self.storage = storage
            self.isSettled = isSettled
        }
    }

    /// Atomic, so that a reader on another thread gets the old form or the new one whole: both
    /// are the same document.
    private let held: ManagedAtomic<Held>

    private var storage: Storage { held.load(ordering: .acquiring).storage }

    /// `bytes` as they are, until ``deflate()``.
    public init(_ bytes: [UInt8]) { held = ManagedAtomic(Held(.plain(bytes), isSettled: false)) }

    /// Deflates the bytes, for every copy of this document, unless they are already, or would not
    /// get smaller. Safe while other threads read them; two threads deflating at once make the
    /// same stream, and one is kept.
    /// - Parameter dictionary: words documents of this kind share, preset (kept with the bytes,
    ///   for inflating them).
    public func deflate(dictionary: DeflateDictionary? = nil) {
        let current = held.load(ordering: .acquiring)
        guard !current.isSettled, case .plain(let bytes) = current.storage else { return }
        let settled =
            Self.deflate(bytes, dictionary: dictionary).map { Held(.deflated($0, count: bytes.count, dictionary: dictionary), isSettled: true) }
            ?? Held(.plain(bytes), isSettled: true)
        _ = held.compareExchange(expected: current, desired: settled, ordering: .acquiringAndReleasing)
    }

    /// Whether ``deflate()`` has nothing left to do.
    public var isSettled: Bool { held.load(ordering: .acquiring).isSettled }

    /// Whether `other` is a copy of this value, sharing its holder (not merely equal bytes).
    public func isShared(with other: DocumentBytes) -> Bool { held === other.held }

    /// The document's bytes.
    public var bytes: [UInt8] {
        switch storage {
        case .plain(let bytes): bytes
        case .deflated(let deflated, let count, let dictionary): Self.inflate(deflated, count: count, dictionary: dictionary)
        }
    }

    /// How many bytes the document has.
    public var count: Int {
        switch storage {
        case .plain(let bytes): bytes.count
        case .deflated(_, let count, _): count
        }
    }

    /// How many bytes the document takes as it is held: its deflated stream's once deflated.
    public var heldCount: Int {
        switch storage {
        case .plain(let bytes): bytes.count
        case .deflated(let deflated, _, _): deflated.count
        }
    }

    /// Whether the bytes are held deflated.
    public var isDeflated: Bool {
        if case .deflated = storage { return true }
        return false
    }

    /// Equal documents, however each is held (deflating is deterministic, so two copies of one
    /// document deflated with the same dictionary are equal streams).
    public static func == (a: DocumentBytes, b: DocumentBytes) -> Bool {
        switch (a.storage, b.storage) {
        case (.plain(let x), .plain(let y)): same(x, y)
        case (.deflated(let x, let m, let d), .deflated(let y, let n, let e)) where d === e: m == n && same(x, y)
        default: a.count == b.count && same(a.bytes, b.bytes)
        }
    }

    /// Whether the document is `bytes`.
    public func holds(_ bytes: [UInt8]) -> Bool { count == bytes.count && Self.same(self.bytes, bytes) }

    /// `==` of two byte arrays by `memcmp`: a start compares every served document with its stored
    /// revision, and `Array`'s `==` goes element by element.
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }

    /// zlib's defaults would set up 256 KiB of tables for every document: most of the time a
    /// catalogue's preparation would spend here. A window no larger than the dictionary and the
    /// document, and smaller hash tables, make the same stream format at a fraction of that. The
    /// default level, not the fastest: deflating runs in the background, after a start is ready,
    /// and the fastest leaves a fifth more bytes to hold for as long as the screen is served.
    private static func deflate(_ bytes: [UInt8], dictionary: DeflateDictionary?) -> [UInt8]? {
        let preset = dictionary?.bytes ?? []
        var windowBits: Int32 = 9
        while windowBits < 15 && 1 << windowBits < preset.count + bytes.count { windowBits += 1 }
        var stream = z_stream()
        // Raw deflate (negative window bits): no zlib header, and no Adler-32 of every byte, which
        // only guards against damage on the way, and these bytes go nowhere.
        guard deflateInit2_(
            &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -windowBits, 6, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        if !preset.isEmpty {
            let status = preset.withUnsafeBufferPointer { deflateSetDictionary(&stream, $0.baseAddress, uInt($0.count)) }
            guard status == Z_OK else { return nil }
        }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        let status = out.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, Int(stream.total_out) < bytes.count else { return nil }
        return out.withUnsafeBufferPointer { Array($0[..<Int(stream.total_out)]) }
    }

    private static func inflate(_ deflated: [UInt8], count: Int, dictionary: DeflateDictionary?) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            var stream = z_stream()
            var status = inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
            if status == Z_OK {
                if let preset = dictionary?.bytes, !preset.isEmpty {
                    // A raw stream takes its dictionary before any input (no header asks for it).
                    status = preset.withUnsafeBufferPointer { inflateSetDictionary(&stream, $0.baseAddress, uInt($0.count)) }
                }
                if status == Z_OK {
                    status = deflated.withUnsafeBufferPointer { input in
                        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                        stream.avail_in = uInt(input.count)
                        stream.next_out = out.baseAddress
                        stream.avail_out = uInt(count)
                        return CZlib.inflate(&stream, Z_FINISH)
                    }
                }
                inflateEnd(&stream)
            }
            // Only this type deflates the stream, in memory: it cannot be damaged short of memory itself.
            precondition(status == Z_STREAM_END && Int(stream.total_out) == count, "a deflated document does not inflate (zlib status \(status))")
            initialized = count
        }
    }
}

/// Words a kind of document shares, preset in zlib's window before each one is deflated: a
/// document of a few kilobytes then refers back to them from its first line, instead of spelling
/// each out once. The same object inflates what it deflated.
public final class DeflateDictionary: Sendable {
    /// At most the last 32 KiB given: a deflate window reaches no further back.
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = Array(bytes.suffix(1 << 15)) }
}
