import Testing
import TrellisCrypto
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTargeting
@testable import TrellisServer

/// Who is asking: query, headers and signed contexts merged by ``ContextReader``, with real HMACs.
@Suite struct ContextReaderTests {
    static let now = 1_767_225_600.0
    static let k1 = ServerConfiguration.SigningKey(id: "k1", secret: (0..<32).map { UInt8($0) })
    static let k2 = ServerConfiguration.SigningKey(id: "k2", secret: (0..<40).map { UInt8(255 - $0) })
    static let unsignedReader = ContextReader(configuration: ServerConfiguration.Context())
    static let signedReader = ContextReader(configuration: ServerConfiguration.Context(signingKeys: [k1, k2]))
    static let refusingReader = ContextReader(configuration: ServerConfiguration.Context(signingKeys: [k1, k2], unsigned: .refuse))

    func request(_ headers: [(String, String)]) -> HTTPRequest {
        HTTPRequest(method: .get, target: "/v1/screens/home", path: "/v1/screens/home", headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }))
    }

    /// The parameters as `name=value`, in order.
    func read(
        _ reader: ContextReader = unsignedReader, query: [(String, String)] = [], headers: [(String, String)] = [], now: Double = now
    ) throws(Problem) -> [String] {
        try reader.parameters(of: request(headers), queryItems: query.map { (name: $0.0, value: $0.1) }, now: now).map { "\($0.name)=\($0.value)" }
    }

    /// The problem `read` throws, or nil (recorded as an issue).
    func refusal(
        _ reader: ContextReader = unsignedReader, query: [(String, String)] = [], headers: [(String, String)] = [], now: Double = now
    ) -> Problem? {
        do {
            let parameters = try read(reader, query: query, headers: headers, now: now)
            Issue.record("expected a problem, got \(parameters)")
            return nil
        } catch {
            return error
        }
    }

    func signed(_ context: SignedContext, key: ServerConfiguration.SigningKey = k1) -> (String, String) {
        ("X-Trellis-Context", context.sign(with: key))
    }

    /// A header value over any payload text, signed with `key` (for payloads `sign` never writes).
    func signed(payload: String, key: ServerConfiguration.SigningKey = k1) -> (String, String) {
        ("X-Trellis-Context", SignedContext.sign(payload: Array(payload.utf8), secret: key.secret))
    }

    // MARK: Query and headers

    @Test func queryAloneIsPassedThrough() throws {
        #expect(try read(query: [("user", "u1"), ("attr.tier", "gold")]) == ["user=u1", "attr.tier=gold"])
        #expect(try read() == [])
    }

    @Test func everyContextHeaderMapsToItsParameter() throws {
        let headers = [
            ("X-User-Id", "u1"), ("x-platform", "ios"), ("X-APP-VERSION", "5.2.1"), ("X-OS-Version", "17.4"),
            ("X-Schema-Version", "2"), ("X-Country", "de"), ("X-Attr-tier", "gold"), ("x-attr-Beta_Group", "b"),
            ("Accept-Language", "de-DE,en;q=0.8"), ("Accept", "application/json"), ("X-Request-Id", "r1"),
        ]
        #expect(try read(headers: headers) == [
            "user=u1", "platform=ios", "appVersion=5.2.1", "osVersion=17.4", "schemaVersion=2", "country=de",
            "attr.tier=gold", "attr.Beta_Group=b", "locale=de-DE",
        ])
        let context = try Self.unsignedReader.context(of: request(headers), queryItems: [], now: Self.now)
        #expect(context.userID == "u1" && context.country == "DE" && context.schemaVersion == 2)
        #expect(context.attributes == ["tier": "gold", "Beta_Group": "b"])
        #expect(context.now == Self.now)
    }

    @Test func aValueGivenBothWaysMustAgree() throws {
        #expect(try read(query: [("user", "u1"), ("platform", "iOS")], headers: [("X-User-Id", "u1"), ("X-Platform", "ios")])
            == ["user=u1", "platform=iOS"])
        let problem = try #require(refusal(query: [("user", "u1"), ("attr.tier", "gold")], headers: [("X-User-Id", "u2"), ("X-Attr-tier", "silver")]))
        #expect(problem.status == .badRequest)
        #expect(problem.detail == #"the query and the headers disagree: user and X-User-Id disagree ("u1" and "u2"); attr.tier and X-Attr-tier disagree ("gold" and "silver")"#)
        #expect(JSONWriter.string(problem.extensions[0].1).contains(#""parameter":"user","header":"X-User-Id""#))
    }

    @Test func attributeNamesKeepTheirCaseAsWritten() throws {
        // attr.Tier and X-Attr-tier name two attributes; both are passed on.
        #expect(try read(query: [("attr.Tier", "gold")], headers: [("X-Attr-tier", "silver")]) == ["attr.Tier=gold", "attr.tier=silver"])
    }

    @Test(arguments: [
        [("X-User-Id", "u1"), ("x-user-id", "u1")],
        [("X-Attr-Tier", "gold"), ("x-attr-tier", "gold")],
        [("X-Schema-Version", "1"), ("X-Schema-Version", "2")],
    ])
    func aRepeatedContextHeaderIsRefused(_ headers: [(String, String)]) throws {
        let problem = try #require(refusal(headers: headers))
        #expect(problem.status == .badRequest)
        #expect(problem.detail.hasSuffix("is given more than once"))
    }

    @Test(arguments: [
        ("de-DE,en;q=0.8", "de-DE"),
        ("en;q=0.5, fr;q=0.9, de;q=0.9", "fr"),
        ("en-US;q=0.8, *;q=1", "en-US"),
        ("da, en-gb;q=0.8, en;q=0.7", "da"),
        ("x;q=1, i-klingon, en;Q=0.1", "en"),
        ("en;q=0, fr;q=0.001", "fr"),
        ("zh-Hant-TW ; q=1.000", "zh-Hant-TW"),
    ])
    func acceptLanguageGivesTheHighestWeightedTag(_ header: String, _ locale: String) throws {
        #expect(try read(headers: [("Accept-Language", header)]) == ["locale=\(locale)"])
    }

    @Test(arguments: ["*", "", "q=1", "en;q=2", "en;q=0.5;x=1", "toolongsubtag-x", "e1", "de;q=0", "en;q=.5"])
    func unusableAcceptLanguageGivesNoLocale(_ header: String) throws {
        #expect(try read(headers: [("Accept-Language", header)]) == [])
    }

    @Test func severalAcceptLanguageFieldsAreOneList() throws {
        #expect(try read(headers: [("Accept-Language", "en;q=0.5"), ("accept-language", "fr;q=0.7")]) == ["locale=fr"])
    }

    @Test func anExplicitLocaleWinsOverAcceptLanguage() throws {
        #expect(try read(query: [("locale", "fr")], headers: [("Accept-Language", "de-DE")]) == ["locale=fr"])
    }

    @Test func badHeaderValuesAreNamedByTheirHeader() throws {
        let headers = [("X-App-Version", "five"), ("X-Attr-", "x"), ("X-User-Id", "")]
        do {
            _ = try Self.unsignedReader.context(of: request(headers), queryItems: [], now: Self.now)
            Issue.record("expected a problem")
        } catch {
            #expect(error.status == .badRequest)
            #expect(error.detail.contains("X-App-Version: \"five\" is not a version"))
            #expect(error.detail.contains("X-Attr-: invalid attribute name \"\""))
            #expect(error.detail.contains("X-User-Id: must not be empty"))
        }
    }

    @Test func varyListsEveryContextHeader() {
        #expect(ContextReader.varyHeaders == [
            "X-User-Id", "X-Platform", "X-App-Version", "X-OS-Version", "X-Schema-Version", "X-Country",
            "Accept-Language", "X-Trellis-Context",
        ])
    }

    // MARK: Signed context

    @Test func withoutSigningKeysASignedContextIsRefused() throws {
        let problem = try #require(refusal(headers: [signed(SignedContext(expires: Self.now + 60, user: "u1"))]))
        #expect(problem.status == .badRequest)
        #expect(problem.detail.hasPrefix("X-Trellis-Context: signing is not configured on this server"))
    }

    @Test func signedValuesWinAndClientFactsStayUnsigned() throws {
        let context = SignedContext(expires: Self.now + 60, user: "u1", country: "DE", attributes: ["tier": "gold", "beta": "yes"])
        let parameters = try read(
            Self.signedReader, query: [("user", "spoofed"), ("platform", "ios"), ("attr.tier", "platinum")],
            headers: [signed(context), ("X-Country", "US"), ("X-App-Version", "5.2"), ("Accept-Language", "de")])
        #expect(parameters == ["platform=ios", "appVersion=5.2", "locale=de", "user=u1", "country=DE", "attr.beta=yes", "attr.tier=gold"])
    }

    @Test func withSigningKeysUnsignedIdentityIsIgnoredEvenWithoutASignedContext() throws {
        let parameters = try read(Self.signedReader, query: [("user", "u1"), ("platform", "web")], headers: [("X-Attr-tier", "gold"), ("X-Country", "DE")])
        #expect(parameters == ["platform=web"])
        // Ignored values are not compared either: nothing contradicts what is not used.
        #expect(try read(Self.signedReader, query: [("user", "u1")], headers: [("X-User-Id", "u2")]) == [])
    }

    @Test func refuseNamesEveryUnsignedIdentityValue() throws {
        let context = SignedContext(expires: Self.now + 60, user: "u1")
        let problem = try #require(refusal(
            Self.refusingReader, query: [("user", "u1"), ("platform", "ios")], headers: [signed(context), ("X-Attr-tier", "gold")]))
        #expect(problem.status == .badRequest)
        #expect(problem.detail == "user, X-Attr-tier: this server takes user, country and attributes only from a signed X-Trellis-Context")
        let unsignedOnly = try #require(refusal(Self.refusingReader, headers: [("X-Country", "DE")]))
        #expect(unsignedOnly.detail.hasPrefix("X-Country: "))
        // Client facts alone are fine.
        #expect(try read(Self.refusingReader, query: [("platform", "ios")], headers: [signed(context)]) == ["platform=ios", "user=u1"])
    }

    @Test func eitherKeyVerifiesWhileKeysRotate() throws {
        for key in [Self.k1, Self.k2] {
            #expect(try read(Self.signedReader, headers: [signed(SignedContext(expires: Self.now + 1, user: "u-\(key.id)"), key: key)]) == ["user=u-\(key.id)"])
        }
        let verified = try SignedContext.verify(SignedContext(expires: Self.now + 1).sign(with: Self.k2), keys: [Self.k1, Self.k2], now: Self.now)
        #expect(verified.keyID == "k2")
        #expect(verified.context == SignedContext(expires: Self.now + 1))
    }

    @Test func anExpiredContextIs401() throws {
        for expires in [Self.now, Self.now - 90.5] {
            let problem = try #require(refusal(Self.signedReader, headers: [signed(SignedContext(expires: expires, user: "u1"))]))
            #expect(problem.status == .unauthorized)
            #expect(problem.headers["WWW-Authenticate"] == #"TrellisContext realm="trellis", error="expired""#)
            #expect(problem.detail.hasPrefix("X-Trellis-Context: expired "))
        }
        let problem = try #require(refusal(Self.signedReader, headers: [signed(SignedContext(expires: Self.now - 90, user: "u1"))]))
        #expect(problem.detail == "X-Trellis-Context: expired 90 s ago (exp 1767225510)")
    }

    /// A context whose signer let it live for years is refused: a leaked header stops working
    /// within a day (context.maxLifetimeSeconds), whatever `exp` says.
    @Test func aContextThatLivesLongerThanADayIs401() throws {
        #expect(try read(Self.signedReader, headers: [signed(SignedContext(expires: Self.now + 86_400, user: "u1"))]) == ["user=u1"])
        let problem = try #require(refusal(Self.signedReader, headers: [signed(SignedContext(expires: Self.now + 86_401 * 365, user: "u1"))]))
        #expect(problem.status == .unauthorized)
        #expect(problem.detail.contains("a signed context lives 86400 s at most"), "\(problem.detail)")
    }

    @Test func aWrongSignatureIs401() throws {
        // Signed with a key that has k1's id but another secret.
        let forger = ServerConfiguration.SigningKey(id: "k1", secret: [UInt8](repeating: 9, count: 32))
        let forged = try #require(refusal(Self.signedReader, headers: [signed(SignedContext(expires: Self.now + 60, user: "admin"), key: forger)]))
        #expect(forged.status == .unauthorized)
        #expect(forged.detail == "X-Trellis-Context: the signature does not match key \"k1\"")
        #expect(forged.headers["WWW-Authenticate"] == #"TrellisContext realm="trellis", error="bad_signature""#)

        // A payload changed after signing (u1 → u2), keeping the signature.
        let genuine = SignedContext(expires: Self.now + 60, user: "u1").sign(with: Self.k1)
        let signature = genuine.split(separator: ".")[1]
        let altered = Base64URL.encode(Array(#"{"kid":"k1","exp":1767225660,"user":"u2"}"#.utf8)) + "." + signature
        #expect(refusal(Self.signedReader, headers: [("X-Trellis-Context", altered)])?.detail == "X-Trellis-Context: the signature does not match key \"k1\"")
    }

    @Test func anUnknownKeyIs401() throws {
        let stranger = ServerConfiguration.SigningKey(id: "k9", secret: Self.k1.secret)
        let problem = try #require(refusal(Self.signedReader, headers: [signed(SignedContext(expires: Self.now + 60), key: stranger)]))
        #expect(problem.status == .unauthorized)
        #expect(problem.detail == "X-Trellis-Context: no signing key \"k9\" is configured (keys: k1, k2)")
        #expect(problem.headers["WWW-Authenticate"] == #"TrellisContext realm="trellis", error="unknown_key""#)
    }

    @Test(arguments: [
        ("no-dot-here", "expected base64url(JSON) \".\" base64url(HMAC-SHA256), two parts joined by one dot"),
        ("a.b.c", "expected base64url(JSON) \".\" base64url(HMAC-SHA256), two parts joined by one dot"),
        (".abc", "expected base64url(JSON) \".\" base64url(HMAC-SHA256), two parts joined by one dot"),
        ("e30=.AAAA", "the payload is not base64url (RFC 4648 §5, no padding): invalid character at offset 3"),
        ("e30.AA+A", "the signature is not base64url (RFC 4648 §5, no padding): invalid character at offset 2"),
        ("e30.AAAA", "the signature is 3 bytes; an HMAC-SHA256 is 32"),
    ])
    func malformedHeaderValuesAre401(_ value: String, _ reason: String) throws {
        let problem = try #require(refusal(Self.signedReader, headers: [("X-Trellis-Context", value)]))
        #expect(problem.status == .unauthorized)
        #expect(problem.detail == "X-Trellis-Context: " + reason)
        #expect(problem.headers["WWW-Authenticate"] == #"TrellisContext realm="trellis", error="malformed""#)
    }

    @Test(arguments: [
        ("not json", "the payload is not JSON"),
        ("[1]", "the payload is an array, not an object"),
        (#"{"exp": 1767225660}"#, "the payload needs \"kid\", a string naming the signing key"),
        (#"{"kid": 1, "exp": 1767225660}"#, "the payload needs \"kid\", a string naming the signing key"),
        (#"{"kid": "k1", "exp": 1767225660, "role": "admin"}"#, "unknown member \"role\"; expected: kid, exp, user, country, attrs"),
        (#"{"kid": "k1"}"#, "\"exp\" is required: the expiry in seconds since 1970 (UTC), a number"),
        (#"{"kid": "k1", "exp": "tomorrow"}"#, "\"exp\" is required: the expiry in seconds since 1970 (UTC), a number"),
        (#"{"kid": "k1", "exp": 1767225660, "user": 7}"#, "\"user\" must be a string, not a number"),
        (#"{"kid": "k1", "exp": 1767225660, "attrs": ["gold"]}"#, "\"attrs\" must be an object"),
        (#"{"kid": "k1", "exp": 1767225660, "attrs": {"tier": true}}"#, "attrs.tier must be a string, not a boolean"),
        (#"{"kid": "k1", "exp": 1767225660, "user": "a", "user": "b"}"#, "the payload is not JSON: duplicate key"),
    ])
    func malformedPayloadsAre401EvenWhenSigned(_ payload: String, _ reason: String) throws {
        let problem = try #require(refusal(Self.signedReader, headers: [signed(payload: payload)]))
        #expect(problem.status == .unauthorized)
        #expect(problem.detail.hasPrefix("X-Trellis-Context: " + reason))
    }

    @Test func oversizedAndRepeatedHeadersAre401() throws {
        let huge = SignedContext(expires: Self.now + 60, attributes: ["blob": String(repeating: "x", count: 8000)]).sign(with: Self.k1)
        #expect(refusal(Self.signedReader, headers: [("X-Trellis-Context", huge)])?.detail == "X-Trellis-Context: longer than 8192 bytes")
        let one = SignedContext(expires: Self.now + 60, user: "u1").sign(with: Self.k1)
        let twice = try #require(refusal(Self.signedReader, headers: [("X-Trellis-Context", one), ("x-trellis-context", one)]))
        #expect(twice.status == .unauthorized)
        #expect(twice.detail == "X-Trellis-Context: given 2 times; send one")
    }

    @Test func badSignedValuesAreNamedAsSigned() throws {
        let header = signed(SignedContext(expires: Self.now + 60, user: "u1", country: "Germany", attributes: ["bad name": "x"]))
        do {
            _ = try Self.signedReader.context(of: request([header]), queryItems: [], now: Self.now)
            Issue.record("expected a problem")
        } catch {
            #expect(error.status == .badRequest)
            #expect(error.detail.contains("X-Trellis-Context country: \"Germany\" is not a two-letter country code"))
            #expect(error.detail.contains("X-Trellis-Context attrs.bad name: invalid attribute name"))
        }
    }

    @Test func theSignedFormIsBase64URLJSONDotHMAC() throws {
        let value = SignedContext(expires: 1_767_225_660, user: "u1", country: "DE", attributes: ["tier": "gold"]).sign(with: Self.k1)
        let parts = value.split(separator: ".")
        #expect(parts.count == 2)
        let payload = String(decoding: try Base64URL.decode(parts[0]), as: UTF8.self)
        #expect(payload == #"{"kid":"k1","exp":1767225660,"user":"u1","country":"DE","attrs":{"tier":"gold"}}"#)
        #expect(try Base64URL.decode(parts[1]) == HMACSHA256.authenticationCode(for: parts[0].utf8, key: Self.k1.secret))
    }
}
