import TrellisCrypto
import TrellisHTTP
import TrellisJSON
import TrellisRuntime

/// Who is asking, as a trusted gateway vouches for it: the value of `X-Trellis-Context`.
///
/// Wire form: `base64url(JSON) "." base64url(HMAC-SHA256(key, first part as ASCII))` — base64url
/// without padding (RFC 4648 §5), HMAC per RFC 2104 — with the JSON
/// `{"kid": "k1", "exp": 1767225600, "user": "u1", "country": "DE", "attrs": {"tier": "gold"}}`.
/// `kid` names the key (several are configured while keys rotate), `exp` (seconds since 1970, UTC)
/// is required, the rest optional; any other member is refused.
public struct SignedContext: Sendable, Equatable {
    /// The gateway's time limit: the context is refused from this second on.
    public var expires: Double
    public var user: String?
    public var country: String?
    /// Free attributes, read as `attr.NAME`.
    public var attributes: [String: String]

    public init(expires: Double, user: String? = nil, country: String? = nil, attributes: [String: String] = [:]) {
        self.expires = expires
        self.user = user
        self.country = country
        self.attributes = attributes
    }

    /// The request header that carries it.
    public static let headerName = "X-Trellis-Context"
    /// Longer header values are refused before any decoding.
    public static let maximumHeaderBytes = 8192
    static let members: Set<String> = ["kid", "exp", "user", "country", "attrs"]

    /// The header value for this context, signed with `key` and naming it in `kid`.
    public func sign(with key: ServerConfiguration.SigningKey) -> String {
        var members: [(String, JSONValue)] = [("kid", .string(key.id)), ("exp", .number(expires))]
        if let user { members.append(("user", .string(user))) }
        if let country { members.append(("country", .string(country))) }
        if !attributes.isEmpty {
            members.append(("attrs", .object(attributes.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        return Self.sign(payload: JSONWriter.encode(.object(members)), secret: key.secret)
    }

    /// `base64url(payload) "." base64url(HMAC)`, for any payload bytes (tests sign malformed ones).
    static func sign(payload: [UInt8], secret: [UInt8]) -> String {
        let encoded = Base64URL.encode(payload)
        return encoded + "." + Base64URL.encode(HMACSHA256.authenticationCode(for: encoded.utf8, key: secret))
    }

    /// The name/value pairs ``UserContext/parse(_:)`` reads, each with its source for messages.
    var parameters: [ContextParameter] {
        var out: [ContextParameter] = []
        if let user { out.append(ContextParameter(name: "user", value: user, source: "\(Self.headerName) user")) }
        if let country { out.append(ContextParameter(name: "country", value: country, source: "\(Self.headerName) country")) }
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            out.append(ContextParameter(name: "attr." + name, value: value, source: "\(Self.headerName) attrs.\(name)"))
        }
        return out
    }
}

/// Why an `X-Trellis-Context` was refused: always 401, with a reason precise enough for the
/// gateway's operator to act on, and never the secret or the expected signature.
public struct SignedContextError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case malformed
        case unknownKey = "unknown_key"
        case badSignature = "bad_signature"
        case expired
    }

    public var kind: Kind
    public var reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { "\(SignedContext.headerName): \(reason)" }

    /// 401 (RFC 9110 §15.5.2) with the challenge it requires; `error` repeats ``kind`` for machines.
    public var problem: Problem {
        Problem(
            .unauthorized, description, extensions: [("error", .string(kind.rawValue))],
            headers: ["WWW-Authenticate": "TrellisContext realm=\"trellis\", error=\"\(kind.rawValue)\""])
    }
}
