import CCrypto

/// Cryptographically secure random bytes from libcrypto's DRBG (`RAND_bytes`), seeded by the
/// operating system.
public enum SecureRandom {
    /// `count` random bytes, suitable for tokens and keys.
    /// - Parameter count: how many bytes, from 0 to `Int32.max`.
    /// - Throws: ``CryptoError`` when libcrypto cannot produce them (its random source could not be
    ///   seeded); never returns predictable bytes instead.
    public static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
        precondition((0...Int(Int32.max)).contains(count), "SecureRandom.bytes: count out of range")
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        let status = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard status == 1 else { throw CryptoError(function: "RAND_bytes") }
        return bytes
    }
}
