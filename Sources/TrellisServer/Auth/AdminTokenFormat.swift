import TrellisCrypto
import TrellisJSON
import TrellisRuntime

/// What an admin token looks like: `trl_` and 32 random bytes in base64url (43 characters).
///
/// The prefix lets secret scanners and people recognise a Trellis token (and lets configuration
/// loading refuse a token pasted where its hash belongs); the 256 random bits make guessing
/// hopeless even without the rate limit.
public enum AdminTokenFormat {
    public static let prefix = "trl_"
    public static let randomByteCount = 32

    /// A fresh token from the system's secure random source.
    /// - Throws: ``CryptoError`` when no secure random bytes can be had.
    public static func newToken() throws(CryptoError) -> String {
        prefix + Base64URL.encode(try SecureRandom.bytes(count: randomByteCount))
    }
}

extension ServerConfiguration.AdminToken {
    /// The entry for `admin.tokens` in `server.json`: `{"name":"ops-bot","sha256":"…","role":"write"}`.
    public var configurationJSON: String {
        JSONWriter.string(.object([("name", .string(name)), ("sha256", .string(Hex.encode(sha256))), ("role", .string(role.rawValue))]))
    }
}
