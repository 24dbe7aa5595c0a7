import CCrypto

/// SHA-256 (FIPS 180-4 §6.2) through libcrypto's EVP interface.
public enum SHA256 {
    /// The length of a digest in bytes.
    public static let byteCount = 32

    /// The SHA-256 digest of `bytes`: 32 bytes.
    public static func hash<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let status = withContiguousBytes(bytes) { base, count in
            digest.withUnsafeMutableBufferPointer { out in
                EVP_Digest(base, count, out.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // EVP_Digest fails only when it cannot allocate its context; no input can make it fail,
        // and a server that cannot allocate a few hundred bytes cannot go on serving either.
        precondition(status == 1 && length == UInt32(byteCount), "EVP_Digest(SHA-256) failed")
        return digest
    }
}
