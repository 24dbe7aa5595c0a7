import TrellisCrypto
import TrellisJSON
import TrellisRuntime

extension ServerConfiguration {
    /// How requests say who is asking: keys that verify a gateway's signed `X-Trellis-Context`,
    /// and what happens to identity values that arrive unsigned (docs/configuration.md).
    ///
    /// ```json
    /// "context": {
    ///   "signingKeys": [{"id": "k2", "secretEnv": "TRELLIS_CONTEXT_KEY_K2"}, {"id": "k1", "secret": "<base64url>"}],
    ///   "unsigned": "ignore"
    /// }
    /// ```
    public struct Context: Sendable, Equatable {
        /// Every key a signed context may name in `kid`; several at once while keys rotate. Empty
        /// (the default): signing is off and a request carrying `X-Trellis-Context` gets 400.
        public var signingKeys: [SigningKey] = []
        /// With signing keys: what happens to `user`, `country` and `attr.*` given unsigned, in
        /// the query or headers.
        public var unsigned: UnsignedPolicy = .ignore
        /// The longest a signed context may live: one whose `exp` is further away is refused, so a
        /// leaked header stops working within this, whatever its signer wrote. A day.
        public var maxLifetimeSeconds = 86_400.0

        public init(signingKeys: [SigningKey] = [], unsigned: UnsignedPolicy = .ignore) {
            self.signingKeys = signingKeys
            self.unsigned = unsigned
        }

        public enum UnsignedPolicy: String, Sendable, CaseIterable {
            /// Unsigned identity values are dropped; the signed context (or none) decides.
            case ignore
            /// A request that carries any is answered 400, so a client's mistake shows.
            case refuse
        }

        /// `unsigned` as text, for the settings table (which checks the value before setting it).
        var unsignedPolicyName: String {
            get { unsigned.rawValue }
            set { unsigned = UnsignedPolicy(rawValue: newValue) ?? unsigned }
        }
    }

    /// A shared secret that signs contexts (HMAC-SHA256, RFC 2104), named by `id` so that keys
    /// can rotate: a gateway signs with the new key while the old one still verifies.
    ///
    /// Its description and reflection never show the secret, so printing a configuration is safe.
    public struct SigningKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// The shortest secret accepted: 256 bits, the size of the HMAC-SHA256 output (RFC 2104 §3).
        public static let minimumSecretBytes = 32

        /// What a signed context names in `kid`: 1 to 64 of `A-Z a-z 0-9 . _ -`.
        public var id: String
        public var secret: [UInt8]

        public init(id: String, secret: [UInt8]) {
            self.id = id
            self.secret = secret
        }

        /// The secret bytes of `text`, which is base64url without padding (RFC 4648 §5), as
        /// `server.json`, `secretEnv` and `trellis context sign --secret` take it.
        /// - Throws: ``SecretError`` naming the problem without repeating the text.
        public static func secret(fromBase64URL text: String) throws(SecretError) -> [UInt8] {
            let bytes: [UInt8]
            do {
                bytes = try Base64URL.decode(text)
            } catch {
                throw SecretError(description: "not base64url (RFC 4648 §5, no padding): \(error)")
            }
            guard bytes.count >= minimumSecretBytes else {
                throw SecretError(description: "decodes to \(bytes.count) bytes; a secret needs at least \(minimumSecretBytes) random bytes (`trellis context key` makes one)")
            }
            return bytes
        }

        public var description: String { "SigningKey(id: \(id), secret: \(secret.count) bytes)" }
        public var debugDescription: String { description }
        public var customMirror: Mirror { Mirror(self, children: ["id": id, "secret": "\(secret.count) bytes"]) }
    }

    /// Why a secret was refused; never contains the secret.
    public struct SecretError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }
}

/// Decoding of `context.signingKeys`, reading `secretEnv` from the environment given to the load.
enum SigningKeysDecoder {
    static func decode(
        _ value: JSONValue, at path: JSONPath, environment: [String: String], _ collector: DiagnosticsCollector
    ) -> [ServerConfiguration.SigningKey] {
        guard let elements = value.arrayValue else {
            collector.report("expected an array of keys, found \(value.typeName)", at: path, value)
            return []
        }
        var keys: [ServerConfiguration.SigningKey] = []
        var ids: [String: Int] = [:]
        for (index, element) in elements.enumerated() {
            let elementPath = path.appending(index)
            guard let key = decodeKey(element, at: elementPath, environment: environment, collector) else { continue }
            if let first = ids[key.id] {
                collector.report("duplicate key id \"\(key.id)\" (also at index \(first))", at: elementPath.appending("id"), element["id"] ?? element)
                continue
            }
            ids[key.id] = index
            keys.append(key)
        }
        return keys
    }

    private static func decodeKey(
        _ value: JSONValue, at path: JSONPath, environment: [String: String], _ collector: DiagnosticsCollector
    ) -> ServerConfiguration.SigningKey? {
        guard let object = collector.object(value, at: path, allowedKeys: ["id", "secret", "secretEnv"]) else { return nil }
        let id = object.string("id", required: true).flatMap { id -> String? in
            guard ServerConfiguration.isValidName(id) else {
                object.report("invalid key id \"\(id)\": \(ServerConfiguration.nameRule)", atMember: "id")
                return nil
            }
            return id
        }
        let secret = self.secret(of: object, environment: environment)
        guard let id, let secret else { return nil }
        return ServerConfiguration.SigningKey(id: id, secret: secret)
    }

    /// `secret` itself or the value of the environment variable `secretEnv` names; exactly one.
    private static func secret(of object: JSONObjectReader, environment: [String: String]) -> [UInt8]? {
        let collector = object.collector
        switch (object.contains("secret"), object.contains("secretEnv")) {
        case (true, true):
            collector.report("give either \"secret\" or \"secretEnv\", not both", at: object.path, object.location)
            return nil
        case (false, false):
            collector.report("missing \"secret\" (base64url) or \"secretEnv\" (the environment variable holding it)", at: object.path, object.location)
            return nil
        case (true, false):
            guard let text = object.string("secret") else { return nil }
            return decoded(text, origin: nil, object, key: "secret")
        case (false, true):
            guard let name = object.string("secretEnv") else { return nil }
            guard let text = environment[name] else {
                object.report("environment variable \(name) is not set", atMember: "secretEnv")
                return nil
            }
            return decoded(text, origin: name, object, key: "secretEnv")
        }
    }

    private static func decoded(_ text: String, origin: String?, _ object: JSONObjectReader, key: String) -> [UInt8]? {
        do {
            return try ServerConfiguration.SigningKey.secret(fromBase64URL: text)
        } catch {
            let prefix = origin.map { "environment variable \($0): " } ?? ""
            object.collector.report(prefix + error.description, at: object.path.appending(key), object.value(key)!)
            return nil
        }
    }
}
