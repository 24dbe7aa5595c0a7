import TrellisCrypto
import TrellisJSON
import TrellisRuntime

extension SignedContext {
    /// Reads and checks a header value: well formed, a configured `kid`, the HMAC matching (in
    /// constant time), only known members of the right types, and not expired at `now`.
    ///
    /// The payload is parsed before the signature is checked, because `kid` inside it chooses the
    /// key; everything else in it is read only once the signature holds.
    /// - Returns: the context and the id of the key that verified it.
    /// - Throws: ``SignedContextError`` saying which check failed.
    public static func verify(
        _ headerValue: String, keys: [ServerConfiguration.SigningKey], now: Double, maxLifetimeSeconds: Double = 86_400
    ) throws(SignedContextError) -> (context: SignedContext, keyID: String) {
        let (encodedPayload, payload, signature) = try split(headerValue)
        let object = try payloadObject(payload)
        guard let kid = object.first(where: { $0.key == "kid" })?.value.stringValue else {
            throw SignedContextError(.malformed, "the payload needs \"kid\", a string naming the signing key")
        }
        guard let key = keys.first(where: { $0.id == kid }) else {
            let known = keys.map(\.id).joined(separator: ", ")
            throw SignedContextError(.unknownKey, "no signing key \"\(printable(kid))\" is configured (keys: \(known))")
        }
        guard HMACSHA256.isValid(signature, for: encodedPayload.utf8, key: key.secret) else {
            throw SignedContextError(.badSignature, "the signature does not match key \"\(kid)\"")
        }
        let context = try decodeMembers(object)
        guard now < context.expires else {
            throw SignedContextError(
                .expired, "expired \(Int((now - context.expires).rounded(.down))) s ago (exp \(JSONWriter.string(.number(context.expires))))")
        }
        guard context.expires <= now + maxLifetimeSeconds else {
            throw SignedContextError(
                .expired,
                "exp is \(Int((context.expires - now).rounded(.down))) s away; a signed context lives \(Int(maxLifetimeSeconds)) s at most (context.maxLifetimeSeconds): sign a fresh one")
        }
        return (context, kid)
    }

    /// The two dot-separated parts, decoded: payload bytes and a 32-byte signature.
    private static func split(_ value: String) throws(SignedContextError) -> (Substring, [UInt8], [UInt8]) {
        guard value.utf8.count <= maximumHeaderBytes else {
            throw SignedContextError(.malformed, "longer than \(maximumHeaderBytes) bytes")
        }
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw SignedContextError(.malformed, "expected base64url(JSON) \".\" base64url(HMAC-SHA256), two parts joined by one dot")
        }
        let payload: [UInt8], signature: [UInt8]
        do { payload = try Base64URL.decode(parts[0]) } catch {
            throw SignedContextError(.malformed, "the payload is not base64url (RFC 4648 §5, no padding): \(error)")
        }
        do { signature = try Base64URL.decode(parts[1]) } catch {
            throw SignedContextError(.malformed, "the signature is not base64url (RFC 4648 §5, no padding): \(error)")
        }
        guard signature.count == HMACSHA256.byteCount else {
            throw SignedContextError(.malformed, "the signature is \(signature.count) bytes; an HMAC-SHA256 is \(HMACSHA256.byteCount)")
        }
        return (parts[0], payload, signature)
    }

    private static func payloadObject(_ bytes: [UInt8]) throws(SignedContextError) -> [JSONMember] {
        let document: JSONValue
        do { document = try JSONParser.parse(bytes, maximumDepth: 8) } catch {
            throw SignedContextError(.malformed, "the payload is not JSON: \(error.reason) at column \(error.location.column)")
        }
        guard let members = document.objectValue else {
            throw SignedContextError(.malformed, "the payload is \(document.typeName), not an object")
        }
        return members
    }

    /// The members other than `kid`, checked after the signature: types, unknown names, `exp`.
    private static func decodeMembers(_ members: [JSONMember]) throws(SignedContextError) -> SignedContext {
        if let unknown = members.first(where: { !Self.members.contains($0.key) }) {
            throw SignedContextError(.malformed, "unknown member \"\(printable(unknown.key))\"; expected: kid, exp, user, country, attrs")
        }
        func member(_ key: String) -> JSONValue? { members.first { $0.key == key }?.value }
        guard let exp = member("exp")?.numberValue else {
            throw SignedContextError(.malformed, "\"exp\" is required: the expiry in seconds since 1970 (UTC), a number")
        }
        var context = SignedContext(expires: exp)
        context.user = try optionalString(member("user"), "user")
        context.country = try optionalString(member("country"), "country")
        if let attrs = member("attrs") {
            guard let object = attrs.objectValue else { throw SignedContextError(.malformed, "\"attrs\" must be an object") }
            for entry in object {
                guard let value = entry.value.stringValue else {
                    throw SignedContextError(.malformed, "attrs.\(printable(entry.key)) must be a string, not \(entry.value.typeName)")
                }
                context.attributes[entry.key] = value
            }
        }
        return context
    }

    private static func optionalString(_ value: JSONValue?, _ name: String) throws(SignedContextError) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue else { throw SignedContextError(.malformed, "\"\(name)\" must be a string, not \(value.typeName)") }
        return text
    }

    /// Client-chosen names in messages: at most 64 printable ASCII characters.
    private static func printable(_ text: String) -> String {
        text.utf8.prefix(64).allSatisfy({ (0x20...0x7E).contains($0) }) ? String(text.prefix(64)) : "(not printable)"
    }
}
