import Testing
import TrellisTargeting

@Suite struct UserContextTests {
    func parse(_ pairs: [(String, String)]) throws(UserContextError) -> UserContext {
        try UserContext.parse(pairs.map { (name: $0.0, value: $0.1) })
    }

    func problems(_ pairs: [(String, String)], sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [String] {
        do {
            _ = try parse(pairs)
            Issue.record("parsed", sourceLocation: sourceLocation)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test func parsesEveryParameter() throws {
        let context = try parse([
            ("user", "u-42"), ("platform", "iOS"), ("appVersion", "5.2.1"), ("osVersion", "17.4-beta.1"), ("schemaVersion", "2"),
            ("locale", "de-DE"), ("country", "de"), ("attr.membership", "gold"), ("attr.signup.date", "2026-01-05"),
        ])
        #expect(
            context
                == UserContext(
                    userID: "u-42", platform: "ios", appVersion: SemanticVersion("5.2.1"), osVersion: SemanticVersion("17.4-beta.1"),
                    schemaVersion: 2, locale: "de-DE", country: "DE", attributes: ["membership": "gold", "signup.date": "2026-01-05"]))
        #expect(try parse([]) == UserContext())
    }

    @Test func builtInsAreAddressedByName() throws {
        var context = try parse([
            ("user", "u"), ("platform", "web"), ("appVersion", "5.2"), ("osVersion", "14"), ("schemaVersion", "1"),
            ("locale", "en"), ("country", "US"), ("attr.tier", "gold"),
        ])
        context.now = 1_767_225_600
        let expected: [String: String] = [
            "userId": "u", "platform": "web", "appVersion": "5.2", "osVersion": "14", "schemaVersion": "1", "locale": "en",
            "country": "US", "tier": "gold", "now": "2026-01-01T00:00:00Z",
        ]
        for (name, value) in expected { #expect(context.text(of: name) == value, "\(name)") }
        #expect(context.text(of: "missing") == nil)
        #expect(UserContext.builtInAttributes.count == 8)
    }

    @Test(arguments: [
        (("appVersion", "v5"), "appVersion: \"v5\" is not a version such as \"5.2.1\" or \"17.4-beta.1\""),
        (("osVersion", "17.x"), "osVersion: \"17.x\" is not a version such as \"5.2.1\" or \"17.4-beta.1\""),
        (("schemaVersion", "two"), "schemaVersion: \"two\" is not an integer from 1 to 999"),
        (("schemaVersion", "0"), "schemaVersion: \"0\" is not an integer from 1 to 999"),
        (("schemaVersion", "1000"), "schemaVersion: \"1000\" is not an integer from 1 to 999"),
        (("schemaVersion", "-1"), "schemaVersion: \"-1\" is not an integer from 1 to 999"),
        (("schemaVersion", "2.0"), "schemaVersion: \"2.0\" is not an integer from 1 to 999"),
        (("user", ""), "user: must not be empty"),
        (("user", "a\u{7}b"), "user: must not contain control characters"),
        (("platform", "i os"), "platform: \"i os\" is not a platform: use 1 to 32 of a-z, 0-9, '-', '_' (such as ios, android, web)"),
        (("country", "DEU"), "country: \"DEU\" is not a two-letter country code (ISO 3166-1 alpha-2) such as \"DE\""),
        (("locale", "de DE"), "locale: \"de DE\" is not a language tag such as \"de-DE\" or \"en\""),
        (("locale", "d"), "locale: \"d\" is not a language tag such as \"de-DE\" or \"en\""),
        (("attr.", "x"), "attr.: invalid attribute name \"\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"),
        (("attr.my tier", "x"), "attr.my tier: invalid attribute name \"my tier\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"),
        (("attr.country", "DE"), "attr.country: \"country\" is a built-in attribute; it cannot be set with attr."),
        (("userId", "u"), "userId: unknown parameter; expected one of: appVersion, country, locale, osVersion, platform, schemaVersion, user, attr.NAME"),
    ] as [((String, String), String)])
    func badParameter(pair: (String, String), expected: String) {
        #expect(problems([pair]) == [expected])
    }

    @Test func tooLongValues() {
        let long = String(repeating: "x", count: 257)
        #expect(problems([("user", long)]) == ["user: longer than 256 bytes (257)"])
        #expect(problems([("attr.note", long)]) == ["attr.note: longer than 256 bytes (257)"])
        #expect((try? parse([("user", String(repeating: "é", count: 128))])) != nil)  // 256 bytes
    }

    @Test func everyProblemIsReportedOnce() {
        #expect(
            problems([("user", "a"), ("user", "b"), ("appVersion", "x"), ("pretty", "1")]) == [
                "user: given more than once", "appVersion: \"x\" is not a version such as \"5.2.1\" or \"17.4-beta.1\"",
                "pretty: unknown parameter; expected one of: appVersion, country, locale, osVersion, platform, schemaVersion, user, attr.NAME",
            ])
    }

    @Test func atMost32Attributes() {
        let pairs = (0..<33).map { ("attr.a\($0)", "v") }
        #expect(problems(pairs) == ["attr.a32: more than 32 attributes"])
        #expect((try? parse(Array(pairs.prefix(32))))?.attributes.count == 32)
    }

    @Test func parameterNames() {
        #expect(UserContext.isParameter("attr.x") && UserContext.isParameter("user") && !UserContext.isParameter("pretty"))
    }
}
