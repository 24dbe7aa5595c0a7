import Foundation
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisStrings
import TrellisTesting
@testable import TrellisServer

extension TemporaryConfig {
    func write(strings locale: String, _ text: String) throws {
        try FileManager.default.createDirectory(at: url.appendingPathComponent("strings"), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url.appendingPathComponent("strings/\(locale).json"))
    }
}

/// The shipped screens in every language of `Config/strings`: resolved per request by the
/// context's locale, in every answer form, with `Content-Language` and an answer cached per locale.
@Suite struct ShippedStringTests {
    static let repositoryConfig = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Config")
    let app: InProcessApp

    init() throws { app = try InProcessApp(directory: Self.repositoryConfig) }

    func greeting(_ response: HTTPResponse) -> String? {
        response.json?["root"]?["subviews"]?[0]?["subviews"]?[0]?["values"]?["text"]?.stringValue
    }

    @Test func homeIsWrittenInTheLocaleTheContextAsksFor() throws {
        let cases: [(query: String, headers: HTTPHeaders, language: String, greeting: String)] = [
            ("", [:], "en", "Good morning"),
            ("&locale=de", [:], "de", "Guten Morgen"),
            ("&locale=de-AT", [:], "de", "Guten Morgen"),
            ("", ["Accept-Language": "ja-JP,ja;q=0.9,en;q=0.5"], "ja", "おはようございます"),
            ("&locale=ar-EG", [:], "ar", "صباح الخير"),
            ("&locale=fr-FR", [:], "en", "Good morning"),
            ("&locale=en-XA", [:], "en-XA", "[Ĝööð ɱöŕñîñĝ one two]"),
        ]
        var etags: Set<String> = []
        for (query, headers, language, greeting) in cases {
            let response = app.request("/v1/screens/home?user=u1" + query, headers: headers)
            #expect(response.status == .ok, "\(query) \(response.text)")
            #expect(response.headers["Content-Language"] == language, "\(query)")
            #expect(self.greeting(response) == greeting, "\(query): \(response.text.prefix(300))")
            #expect(!response.text.contains("$string"))
            etags.insert(response.headers["ETag"] ?? "")
            let again = app.request("/v1/screens/home?user=u1" + query, headers: headers)
            #expect(again.body == response.body, "the cached answer is this locale's")
        }
        #expect(etags.count == 5, "one answer per resolved locale: en, de, ja, ar, en-XA")
    }

    @Test func theEnglishAnswerIsTheOneTheLiteralTextGave() throws {
        let response = app.request("/v1/screens/product?user=u1")
        #expect(response.text.contains(#""text":"(1,203 reviews)""#))
        let german = app.request("/v1/screens/product?user=u1&locale=de")
        #expect(german.text.contains(#""text":"(1.203 Bewertungen)""#))
        let arabic = app.request("/v1/screens/product?user=u1&locale=ar")
        #expect(arabic.text.contains("١٬٢٠٣ مراجعات"), "1,203 is in Arabic's `few` category (n % 100 = 3)")
    }

    @Test func layoutsPreviewsAndClientFormatsAreWrittenInTheLocaleToo() throws {
        let layout = app.request("/v1/screens/home/layout?user=u1&locale=de&width=390&height=844")
        #expect(layout.status == .ok)
        #expect(layout.headers["Content-Language"] == "de")
        #expect(layout.text.contains("Guten Morgen") && !layout.text.contains("Good morning"))
        let preview = app.request("/preview/home?user=u1&locale=ja&width=390&height=844")
        #expect(preview.status == .ok)
        #expect(preview.headers["Content-Language"] == "ja")
        #expect(preview.text.contains("おはようございます"))
        let drivenUI = app.request("/v1/screens/home?user=u1&locale=ar&format=drivenui")
        #expect(drivenUI.status == .ok)
        #expect(drivenUI.headers["Content-Language"] == "ar")
        #expect(drivenUI.text.contains("صباح الخير"))
    }

    @Test func aScreenWithoutStringsSaysNoLanguage() throws {
        let response = app.request("/v1/screens/order?user=u1&locale=de&param.order=42")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Language"] == nil)
    }
}

/// What publishing checks of the screens' strings, at load: refused with the screen's path and
/// line, or, for a translation not made yet, loaded and reported.
@Suite struct StringCheckTests {
    static let english = #"{"cart": {"items": "{count, plural, =0 {Your cart is empty} one {# item} other {# items}}"}, "hello": "Hello, {name}!"}"#

    static func screen(_ text: String) -> String {
        """
        {
          "id": "cart", "schemaVersion": 1,
          "root": {"type": "VStack", "subviews": [
            {"type": "Text", "values": {"text": \(text)}}
          ]}
        }
        """
    }

    func load(_ text: String, tables: [String: String] = ["en": english]) throws -> Result<Snapshot, ConfigLoadError> {
        let config = try TemporaryConfig(screens: ["cart": Self.screen(text)])
        for (locale, table) in tables { try config.write(strings: locale, table) }
        return ConfigLoader(directory: config.url).load(previous: nil)
    }

    func refusal(_ text: String, tables: [String: String] = ["en": english]) throws -> Diagnostic? {
        guard case .failure(let error) = try load(text, tables: tables) else {
            Issue.record("loaded: \(text)")
            return nil
        }
        return error.errors.first?.diagnostics.first
    }

    @Test func aKeyTheDefaultTableLacksIsRefusedAtItsPathAndLine() throws {
        let problem = try #require(try refusal(#"{"$string": "cart.itemz", "args": {"count": 1}}"#))
        #expect(problem.path.description == #"$.root.subviews[0].values.text["$string"]"#)
        #expect(problem.location.line == 4)
        #expect(problem.message.contains("no string \"cart.itemz\" in the default locale's table (en: 2 keys)"), "\(problem)")
    }

    @Test func anArgumentTheMessageNeedsMustBeGiven() throws {
        let problem = try #require(try refusal(#"{"$string": "cart.items"}"#))
        #expect(problem.path.description == "$.root.subviews[0].values.text")
        #expect(problem.message.contains("needs the argument \"count\" (in en)"), "\(problem)")
    }

    @Test func anArgumentNoMessageUsesIsAMisspelling() throws {
        guard case .failure(let error) = try load(#"{"$string": "hello", "args": {"nmae": "Anna"}}"#) else { Issue.record("loaded"); return }
        let problems = error.errors.flatMap(\.diagnostics)
        #expect(problems.contains { $0.path.description == "$.root.subviews[0].values.text.args.nmae" && $0.message.contains("uses the argument \"nmae\"") }, "\(problems)")
        #expect(problems.contains { $0.message.contains("needs the argument \"name\"") }, "\(problems)")
    }

    @Test func aPluralsArgumentWrittenInTheScreenMustBeANumber() throws {
        let problem = try #require(try refusal(#"{"$string": "cart.items", "args": {"count": "lots"}}"#))
        #expect(problem.path.description == "$.root.subviews[0].values.text.args.count")
        #expect(problem.message.contains("as a number (in en)"), "\(problem)")
    }

    @Test func anArgumentOnlyATranslationNamesMustBeGivenToo() throws {
        let german = #"{"hello": "Hallo {name}, willkommen in {city}!"}"#
        let problem = try #require(try refusal(#"{"$string": "hello", "args": {"name": "Anna"}}"#, tables: ["en": Self.english, "de": german]))
        #expect(problem.message.contains("needs the argument \"city\" (in de)"), "\(problem)")
    }

    @Test func aMessageThatDoesNotParseIsRefusedWithItsLineAndColumn() throws {
        guard case .failure(let error) = try load(#""x""#, tables: ["en": #"{"a": "{count, plural, one {#} }"}"#]) else {
            Issue.record("loaded")
            return
        }
        #expect(error.description.contains("strings/en.json"))
        #expect(error.description.contains("line 1, column"), "\(error)")
        #expect(error.description.contains("other"), "\(error)")
    }

    @Test func tablesAreNamedByTheirLocaleAndTheDefaultsIsThere() throws {
        guard case .failure(let misnamed) = try load(#""x""#, tables: ["en": Self.english, "de_at": "{}"]) else { Issue.record("loaded"); return }
        #expect(misnamed.description.contains("strings/de_at.json") && misnamed.description.contains("BCP 47"), "\(misnamed)")
        guard case .failure(let noDefault) = try load(#""x""#, tables: ["de": "{}"]) else { Issue.record("loaded"); return }
        #expect(noDefault.description.contains("the default locale en has no table"), "\(noDefault)")
    }

    @Test func aMissingTranslationIsReportedNotRefusedAndShowsTheDefaultsText() throws {
        let config = try TemporaryConfig(screens: ["cart": Self.screen(#"{"$string": "hello", "args": {"name": "Anna"}}"#)])
        try config.write(strings: "en", Self.english)
        try config.write(strings: "de", #"{"cart.items": "{count} Artikel"}"#)
        let app = try InProcessApp(config)
        let german = try #require(app.state.published.snapshot.strings.coverage().first { $0.locale == "de" })
        #expect(german.missing == ["hello"])
        let response = app.request("/v1/screens/cart?locale=de")
        #expect(response.headers["Content-Language"] == "de")
        #expect(response.text.contains(#""text":"Hello, Anna!""#))
    }
}

/// A screen published through the admin API is checked against the string tables as a file is.
@Suite(.serialized) struct StringPublishTests {
    @Test func aPublishedScreenWithAnUnknownKeyIsRefusedAtItsPathAndNothingChanges() throws {
        let config = try TemporaryConfig(screens: ["cart": StringCheckTests.screen(#"{"$string": "hello", "args": {"name": "Anna"}}"#)])
        try config.write(strings: "en", StringCheckTests.english)
        try config.write(strings: "de", #"{"hello": "Hallo, {name}!"}"#)
        let server = try ServedBinary(config: config, extra: #""strings": {"defaultLocale": "en"}"#)
        try server.start()
        let refused = try server.request(
            "PUT", "/admin/screens/cart", body: StringCheckTests.screen(#"{"$string": "helo", "args": {"name": "Anna"}}"#))
        #expect(refused.status == 422, "\(refused.text)")
        #expect(refused.json["errors"]?[0]?["path"]?.string == #"$.root.subviews[0].values.text["$string"]"#)
        #expect(refused.json["errors"]?[0]?["line"]?.number == 4)
        #expect(refused.json["errors"]?[0]?["message"]?.string?.contains("no string \"helo\"") == true)
        let unchanged = try server.request("GET", "/v1/screens/cart?locale=de", token: nil)
        #expect(unchanged.text.contains(#""text":"Hallo, Anna!""#), "\(unchanged.text)")
        #expect(unchanged.header("Content-Language") == "de")
        let published = try server.request(
            "PUT", "/admin/screens/cart", body: StringCheckTests.screen(#"{"$string": "cart.items", "args": {"count": {"$param": "n", "default": 0}}}"#))
        #expect(published.status == 200, "\(published.text)")
        let empty = try server.request("GET", "/v1/screens/cart?locale=de", token: nil)
        #expect(empty.text.contains(#""text":"Your cart is empty""#), "de lacks cart.items: the default's text")
        let three = try server.request("GET", "/v1/screens/cart?param.n=3", token: nil)
        #expect(three.text.contains(#""text":"3 items""#), "\(three.text)")
        let bad = try server.request("GET", "/v1/screens/cart?param.n=three", token: nil)
        #expect(bad.status == 400)
        #expect(bad.text.contains("uses it as a number"), "\(bad.text)")
    }

    /// A locale's table published through the admin API: checked whole and with every screen,
    /// served at once in that locale's answers, in revisions, audited, rolled back, and durable.
    @Test func aTableIsPublishedCheckedRolledBackAndAudited() throws {
        let config = try TemporaryConfig(screens: ["cart": StringCheckTests.screen(#"{"$string": "hello", "args": {"name": "Anna"}}"#)])
        try config.write(strings: "en", StringCheckTests.english)
        try config.write(strings: "de", #"{"hello": "Hallo, {name}!"}"#)
        let server = try ServedBinary(config: config)
        try server.start()
        let listed = try server.request("GET", "/admin/strings", token: ServedBinary.readToken)
        #expect(listed.json["defaultLocale"]?.string == "en")
        #expect(listed.json["locales"]?.array.map { $0["locale"]?.string } == ["de", "en"])
        #expect(listed.json["locales"]?[0]?["missing"]?.array.map { $0.string } == ["cart.items"])
        #expect(listed.json["locales"]?[0]?["translated"]?.number == 0.5)
        let first = try server.request("GET", "/admin/strings/de", token: ServedBinary.readToken)
        #expect(first.json["revision"]?.number == 1 && first.json["source"]?.string == "config")
        #expect(first.json["table"]?["hello"]?.string == "Hallo, {name}!")
        let etag = try #require(first.header("ETag"))

        let broken = try server.request("PUT", "/admin/strings/de", body: #"{"hello": "Hallo, {name"}"#)
        #expect(broken.status == 422)
        #expect(broken.json["errors"]?[0]?["path"]?.string == "$.hello")
        #expect(broken.json["errors"]?[0]?["message"]?.string?.contains("line 1, column") == true, "\(broken.text)")
        let breaksTheScreen = try server.request("PUT", "/admin/strings/de", body: #"{"hello": "Hallo, {name} aus {city}!"}"#)
        #expect(breaksTheScreen.status == 422, "\(breaksTheScreen.text)")
        #expect(breaksTheScreen.json["errors"]?[0]?["source"]?.string == "screens/cart revision 1")
        #expect(breaksTheScreen.json["errors"]?[0]?["message"]?.string?.contains("needs the argument \"city\" (in de)") == true, "\(breaksTheScreen.text)")
        #expect(try server.request("PUT", "/admin/strings/de_at", body: "{}").status == 400)
        #expect(try server.request("GET", "/v1/screens/cart?locale=de", token: nil).text.contains(#""text":"Hallo, Anna!""#))

        let published = try server.request("PUT", "/admin/strings/de", headers: ["If-Match": etag], body: #"{"hello": "Servus, {name}!"}"#)
        #expect(published.status == 200, "\(published.text)")
        #expect(published.json["revision"]?.number == 2 && published.json["source"]?.string == "runtime")
        let served = try server.request("GET", "/v1/screens/cart?locale=de-AT", token: nil)
        #expect(served.text.contains(#""text":"Servus, Anna!""#), "the cached answer of the old table is gone: \(served.text)")
        #expect(try server.request("GET", "/v1/screens/cart?locale=en", token: nil).text.contains(#""text":"Hello, Anna!""#))
        let french = try server.request("PUT", "/admin/strings/fr", body: #"{"hello": "Bonjour, {name} !"}"#)
        #expect(french.status == 201, "\(french.text)")
        #expect(try server.request("GET", "/v1/screens/cart?locale=fr-CA", token: nil).header("Content-Language") == "fr")

        server.killNine()
        try server.start()
        #expect(try server.request("GET", "/v1/screens/cart?locale=de", token: nil).text.contains(#""text":"Servus, Anna!""#))
        let rolledBack = try server.request("POST", "/admin/strings/de/rollback", body: #"{"revision": 1}"#)
        #expect(rolledBack.status == 200 && rolledBack.json["revision"]?.number == 3, "\(rolledBack.text)")
        #expect(try server.request("GET", "/v1/screens/cart?locale=de", token: nil).text.contains(#""text":"Hallo, Anna!""#))
        let revisions = try server.request("GET", "/admin/strings/de/revisions", token: ServedBinary.readToken)
        #expect(revisions.json["revisions"]?.array.map { $0["origin"]?.string } == ["config", "publish", "rollback"])
        let audit = try server.request("GET", "/admin/audit?resource=strings/de", token: ServedBinary.readToken)
        #expect(audit.json["entries"]?.array.map { $0["action"]?.string } == ["strings.import", "strings.publish", "strings.rollback"], "\(audit.text)")
    }
}

/// An experiment variant's value may be a string of the tables: OFREP answers it written in the
/// user's locale, and publishing checks it as a screen's string.
@Suite(.serialized) struct LocalizedFlagTests {
    static let targeting = """
        {"experiments": {"headline": {"variants": {
          "short": {"weight": 1, "value": {"$string": "hello", "args": {"name": "Anna"}}},
          "long": {"weight": 1, "value": {"$string": "cart.items", "args": {"count": 3}}}},
          "overrides": {"u-short": "short", "u-long": "long"}}}}
        """

    static func config(targeting: String = targeting) throws -> TemporaryConfig {
        let config = try TemporaryConfig(screens: ["cart": StringCheckTests.screen(#""plain""#)])
        try config.write(strings: "en", StringCheckTests.english)
        try config.write(strings: "de", #"{"hello": "Hallo, {name}!", "cart": {"items": "{count, plural, one {# Artikel} other {# Artikel}}"}}"#)
        try config.write(targeting: targeting)
        return config
    }

    @Test func aVariantsValueIsWrittenInTheUsersLocale() throws {
        let server = try ServedBinary(config: try Self.config())
        try server.start()
        let german = try server.request(
            "POST", "/ofrep/v1/evaluate/flags/headline", token: nil, body: #"{"context": {"targetingKey": "u-short", "locale": "de-AT"}}"#)
        #expect(german.status == 200, "\(german.text)")
        #expect(german.json["value"]?.string == "Hallo, Anna!")
        #expect(german.header("Content-Language") == "de")
        let english = try server.request("POST", "/ofrep/v1/evaluate/flags/headline", token: nil, body: #"{"context": {"targetingKey": "u-long"}}"#)
        #expect(english.json["value"]?.string == "3 items")
        let all = try server.request("POST", "/ofrep/v1/evaluate/flags", token: nil, body: #"{"context": {"targetingKey": "u-long", "locale": "de"}}"#)
        #expect(all.json["flags"]?[0]?["value"]?.string == "3 Artikel", "\(all.text)")
        #expect(all.header("Content-Language") == "de")
    }

    @Test func aVariantsStringIsCheckedAsAScreensIs() throws {
        let unknown = Self.targeting.replacingOccurrences(of: #""$string": "hello""#, with: #""$string": "helo""#)
        let config = try Self.config(targeting: unknown)
        guard case .failure(let error) = ConfigLoader(directory: config.url).load(previous: nil) else {
            Issue.record("loaded")
            return
        }
        let problem = try #require(error.errors.first?.diagnostics.first)
        #expect(error.errors.first?.source == "targeting.json")
        #expect(problem.path.description == #"$.experiments.headline.variants.short.value["$string"]"#)
        #expect(problem.message.contains("no string \"helo\""), "\(problem)")
    }
}

/// A screen's publish runs the lint (every variant, every locale, four phones, three text sizes):
/// its findings and the translations it lacks are the answer's warnings, and `lint.errors` makes
/// the findings of chosen rules refusals at the component's path.
@Suite(.serialized) struct PublishLintTests {
    static func config() throws -> TemporaryConfig {
        let config = try TemporaryConfig(screens: ["cart": StringCheckTests.screen(#""plain""#)])
        try config.write(strings: "en", StringCheckTests.english)
        try config.write(strings: "de", #"{"cart.items": "{count, plural, one {# Artikel} other {# Artikel}}"}"#)
        let fonts = config.url.appendingPathComponent("fonts")
        try FileManager.default.createDirectory(at: fonts, withIntermediateDirectories: true)
        let shipped = ShippedStringTests.repositoryConfig.appendingPathComponent("fonts")
        for name in try FileManager.default.contentsOfDirectory(atPath: shipped.path) where name.hasSuffix(".trfm") {
            try FileManager.default.copyItem(at: shipped.appendingPathComponent(name), to: fonts.appendingPathComponent(name))
        }
        return config
    }

    static let unlabelled = """
        {"id": "cart", "schemaVersion": 3, "root": {"type": "VStack", "subviews": [
          {"type": "Text", "values": {"text": {"$string": "hello", "args": {"name": "Anna"}}}},
          {"type": "Image", "properties": {"width": 64, "height": 64}, "values": {"imageUrl": "https://cdn.example.com/a.jpg"}}
        ]}}
        """

    @Test func findingsAndMissingTranslationsAreWarningsOfThePublish() throws {
        let server = try ServedBinary(config: try Self.config())
        try server.start()
        let published = try server.request("PUT", "/admin/screens/cart", body: Self.unlabelled)
        #expect(published.status == 200, "\(published.text)")
        let warnings = published.json["warnings"]?.array ?? []
        let labels = warnings.filter { $0["source"]?.string == "lint" && $0["rule"]?.string == "label" }
        #expect(labels.count == 12 * 3, "the unlabelled image on 12 configurations in de, en and en-XA: \(labels.count)")
        #expect(labels.first?["path"]?.string == "$.root.subviews[1]")
        #expect(labels.first?["value"]?.string == "image without accessibilityLabel (not marked decorative)")
        let untranslated = warnings.filter { $0["source"]?.string == "strings" }
        #expect(untranslated.count == 1 && untranslated[0]["locale"]?.string == "de")
        #expect(untranslated.first?["missing"]?.array.map { $0.string } == ["hello"])
    }

    @Test func lintErrorsRefuseAPublishAtTheComponentsPath() throws {
        let server = try ServedBinary(config: try Self.config(), extra: #""lint": {"errors": ["label"]}"#)
        try server.start()
        let refused = try server.request("PUT", "/admin/screens/cart", body: Self.unlabelled)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(refused.json["errors"]?[0]?["path"]?.string == "$.root.subviews[1]")
        #expect(refused.json["errors"]?[0]?["line"]?.number == 3)
        #expect(refused.json["errors"]?[0]?["message"]?.string?.hasPrefix("label in de on android-large@1:") == true, "\(refused.text)")
        #expect(try server.request("GET", "/v1/screens/cart", token: nil).text.contains(#""text":"plain""#), "nothing was published")
        let labelled = Self.unlabelled.replacingOccurrences(of: #""width": 64"#, with: #""accessibilityLabel": "A kettle", "width": 64"#)
        #expect(try server.request("PUT", "/admin/screens/cart", body: labelled).status == 200)
        let misnamed = try ServedBinary(config: try Self.config(), extra: #""lint": {"errors": ["contrats"]}"#)
        #expect(throws: (any Error).self) { try misnamed.start() }
    }
}
