import TrellisAnswers
import TrellisHTTP
import TrellisRuntime

/// An ``EncodedBody`` as the HTTP server sends it: its storage is the bytes a response writes from
/// (``SharedBytes``), and its gzip form is TrellisHTTP's (``Gzip``), made for bodies of
/// ``Gzip/Policy/minimumBytes`` or more.
extension EncodedBody {
    /// - Parameter compressionLevel: ``Gzip/Policy/compressedOnceLevel`` (the default) for answers
    ///   cached and sent many times; lower for an answer made for one or a few requests.
    public init(
        bytes: [UInt8], compressionLevel: Int = Gzip.Policy.compressedOnceLevel, headers: [(name: String, value: String)] = []
    ) {
        self.init(bytes: bytes, compression: Self.compression(compressionLevel), headers: headers)
    }

    /// A body whose fingerprint is already known (a font file's, named by its URL).
    public init(
        bytes: [UInt8], fingerprint: String, compressionLevel: Int = Gzip.Policy.compressedOnceLevel,
        headers: [(name: String, value: String)] = []
    ) {
        self.init(bytes: bytes, fingerprint: fingerprint, compression: Self.compression(compressionLevel), headers: headers)
    }

    /// A body of `count` bytes that `write` writes where they are kept, every one of them.
    public init(
        count: Int, compressionLevel: Int = Gzip.Policy.compressedOnceLevel, headers: [(name: String, value: String)] = [],
        writing write: (UnsafeMutableBufferPointer<UInt8>) -> Void
    ) {
        self.init(count: count, compression: Self.compression(compressionLevel), headers: headers, writing: write)
    }

    /// HTTP's policy at `level`: a gzip form for bodies of ``Gzip/Policy/minimumBytes`` or more.
    static func compression(_ level: Int) -> Compression { Compression(level: level, minimumBytes: Gzip.Policy.minimumBytes) }

    /// The policy of answers cached and sent many times (``Gzip/Policy/compressedOnceLevel``).
    static let cachedCompression = compression(Gzip.Policy.compressedOnceLevel)

    /// The bytes as the server sends them, kept by the body's own storage.
    public var shared: any SharedBytes { storage }

    /// The gzip form (``EncodedBody/gzip(compressingWith:)``), made by ``Gzip`` the first time a
    /// client may take it and kept for every later one; nil when the body is too small.
    public var gzip: [UInt8]? { gzip { bytes, level in Gzip.compress(bytes, level: level) } }
}

/// The storage's bytes never change once the body is made, as ``SharedBytes`` asks.
extension EncodedBody.Storage: SharedBytes {}
