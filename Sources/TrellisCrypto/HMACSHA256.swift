import CCrypto

/// HMAC (RFC 2104) with SHA-256, as specified for testing in RFC 4231.
public enum HMACSHA256 {
    /// The length of an authentication code in bytes.
    public static let byteCount = 32

    /// The HMAC-SHA256 of `message` under `key`: 32 bytes.
    ///
    /// Keys of any length work (RFC 2104 §2: longer than the 64-byte block are hashed first);
    /// callers that choose keys should use at least 32 random bytes (RFC 2104 §3).
    public static func authenticationCode<Key: Collection<UInt8>, Message: Collection<UInt8>>(
        for message: Message, key: Key
    ) -> [UInt8] {
        // Keys beyond Int32.max bytes cannot be passed to libcrypto; nothing in Trellis comes close.
        precondition(key.count <= Int(Int32.max), "HMAC key longer than Int32.max bytes")
        var code = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let written = withContiguousBytes(key) { keyBase, keyCount in
            withContiguousBytes(message) { messageBase, messageCount in
                code.withUnsafeMutableBufferPointer { out in
                    HMAC(
                        EVP_sha256(), keyBase, Int32(keyCount),
                        messageBase.assumingMemoryBound(to: UInt8.self), messageCount, out.baseAddress, &length)
                }
            }
        }
        // As with SHA-256: HMAC fails only on allocation failure, never because of its input.
        precondition(written != nil && length == UInt32(byteCount), "HMAC(SHA-256) failed")
        return code
    }

    /// Whether `code` is the HMAC-SHA256 of `message` under `key`, compared in constant time so the
    /// time taken does not tell an attacker how many leading bytes of a forged code were right.
    public static func isValid<Code: Collection<UInt8>, Key: Collection<UInt8>, Message: Collection<UInt8>>(
        _ code: Code, for message: Message, key: Key
    ) -> Bool {
        ConstantTime.equal(authenticationCode(for: message, key: key), code)
    }
}
