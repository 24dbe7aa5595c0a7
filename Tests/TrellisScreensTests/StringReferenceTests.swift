import Testing
import TrellisJSON
import TrellisScreens
import TrellisStrings

/// `{"$string": key, "args": {…}}`: read where text is expected, recorded for publishing's check,
/// and written per request in the request's locale.
@Suite struct StringReferenceTests {
    let resolver = ScreenResolver()

    static let catalog: StringCatalog = {
        let en: [String: Message] = [
            "cart.items": try! Message("{count, plural, =0 {Your cart is empty} one {# item} other {# items}}"),
            "greeting": try! Message("Hello, {name}!"),
            "title": try! Message("Home"),
        ]
        let de: [String: Message] = [
            "cart.items": try! Message("{count, plural, =0 {Ihr Warenkorb ist leer} one {# Artikel} other {# Artikel}}"),
            "title": try! Message("Startseite"),
        ]
        return StringCatalog(defaultLocale: "en", tables: ["en": en, "de": de])
    }()

    func substituted(_ root: String, _ parameters: [String: JSONValue] = [:], locale: String?) throws -> String {
        let answer = resolver.resolve(try inlineScreen(root, schemaVersion: 3), outcomes: Outcomes([]), clientSchemaVersion: 3)
        #expect(answer.needsSubstitution)
        let result = try answer.substituting(parameters, strings: Self.catalog.resolve(locale))
        #expect(!result.needsSubstitution)
        return result.root.map { JSONWriter.string($0.jsonValue) } ?? "null"
    }

    @Test func aStringIsWrittenInTheRequestsLocaleWithItsArguments() throws {
        let root = #"{"type": "Text", "values": {"text": {"$string": "cart.items", "args": {"count": {"$param": "count"}}}}}"#
        #expect(try substituted(root, ["count": .string("0")], locale: "en") == #"{"type":"Text","values":{"text":"Your cart is empty"}}"#)
        #expect(try substituted(root, ["count": .number(1)], locale: "en-GB") == #"{"type":"Text","values":{"text":"1 item"}}"#)
        #expect(try substituted(root, ["count": .string("1234")], locale: "de-AT") == #"{"type":"Text","values":{"text":"1.234 Artikel"}}"#)
        #expect(try substituted(root, ["count": .number(2)], locale: "en-XA") == #"{"type":"Text","values":{"text":"[2 îţéɱš one]"}}"#)
    }

    @Test func aKeyTheLocaleLacksIsTheDefaultsAndLiteralArgumentsNeedNoRequest() throws {
        let root = #"{"type": "Button", "values": {"title": {"$string": "greeting", "args": {"name": "Anna"}}}}"#
        #expect(try substituted(root, locale: "de") == #"{"type":"Button","values":{"title":"Hello, Anna!"}}"#)
    }

    @Test func anArgumentItsMessageCountsMustBeANumber() throws {
        let root = #"{"type": "Text", "values": {"text": {"$string": "cart.items", "args": {"count": {"$param": "count"}}}}}"#
        let answer = resolver.resolve(try inlineScreen(root, schemaVersion: 3), outcomes: Outcomes([]), clientSchemaVersion: 3)
        let error = try #require(throws: ParameterError.self) { try answer.substituting(["count": .string("many")], strings: Self.catalog.resolve("en")) }
        #expect(error.name == "count")
        #expect(error.path == JSONPath.root.appending("root").appending("values").appending("text").appending("args").appending("count"))
        #expect(error.reason.contains("as a number"), "\(error)")
        let missing = try #require(throws: ParameterError.self) { try answer.substituting([:], strings: Self.catalog.resolve("en")) }
        #expect(missing.name == "count" && missing.reason.contains("missing"), "\(missing)")
    }

    @Test func usesAreRecordedWithTheirPathsAndArguments() throws {
        let screen = try inlineScreen(
            #"{"type": "VStack", "subviews": [{"type": "Text", "values": {"text": {"$string": "cart.items", "args": {"count": {"$param": "n"}, "who": "Anna", "age": 3}}}}]}"#,
            schemaVersion: 3)
        #expect(screen.usesStrings && screen.needsSubstitution)
        #expect(screen.strings.map(\.key) == ["cart.items"])
        #expect(screen.strings[0].path == JSONPath.root.appending("root").appending("subviews").appending(0).appending("values").appending("text"))
        #expect(screen.strings[0].arguments == ["count": .parameter, "who": .text("Anna"), "age": .number(3)])
        #expect(screen.parameterNames == ["n"])
    }

    @Test(arguments: [
        (#"{"type": "Text", "properties": {"foregroundColor": {"$string": "x"}}, "values": {"text": "a"}}"#, "properties.foregroundColor", "a colour"),
        (#"{"type": "Text", "values": {"text": {"$string": "bad..key"}}}"#, #"values.text["$string"]"#, "single dots"),
        (#"{"type": "Text", "values": {"text": {"$string": "k", "args": [1]}}}"#, "values.text.args", "an object"),
        (#"{"type": "Text", "values": {"text": {"$string": "k", "args": {"a": true}}}}"#, "values.text.args.a", "found a boolean"),
        (#"{"type": "Text", "values": {"text": {"$string": "k", "$param": "p"}}}"#, "values.text", "not $param and $string"),
        (#"{"type": "Text", "values": {"text": {"$string": "k", "default": "x"}}}"#, "values.text.default", "unknown key \"default\""),
        (#"{"type": "Button", "properties": {"action": {"type": "navigate", "url": {"$string": "k"}}}, "values": {"title": "a"}}"#, "properties.action.url", "makes text"),
    ])
    func aMalformedStringIsRefusedAtItsPath(root: String, path: String, reason: String) throws {
        let found = diagnostics(document(root: root, schemaVersion: 3))
        #expect(found.contains { $0.path.description.hasSuffix(path) && $0.message.contains(reason) }, "\(found)")
    }
}
