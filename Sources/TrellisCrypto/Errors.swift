/// Why text could not be decoded into bytes (``Hex/decode(_:)``, ``Base64URL/decode(_:)``).
///
/// Offsets count UTF-8 bytes from the start of the text. The offending text itself is never part of
/// the description, so a rejected secret does not end up in a log.
public enum TextDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A byte outside the encoding's alphabet, such as `=` or `+` in base64url.
    case invalidCharacter(offset: Int)
    /// A length no encoder produces: odd for hex, one more than a multiple of four for base64url.
    case invalidLength(Int)
    /// The last base64url character carries bits beyond the last byte that are not zero, so the
    /// text is not the canonical encoding of any bytes (RFC 4648 §3.5).
    case nonZeroTrailingBits

    public var description: String {
        switch self {
        case .invalidCharacter(let offset): "invalid character at offset \(offset)"
        case .invalidLength(let length): "a length of \(length) characters is not possible in this encoding"
        case .nonZeroTrailingBits: "the last character has bits set beyond the last byte (not a canonical encoding)"
        }
    }
}

/// libcrypto reported a failure where no input can cause one, e.g. the system's random source is
/// unavailable.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The libcrypto function that failed, e.g. `RAND_bytes`.
    public var function: String

    public init(function: String) { self.function = function }

    public var description: String { "\(function) failed in libcrypto" }
}
