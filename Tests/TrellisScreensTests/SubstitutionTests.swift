import Testing
import TrellisJSON
import TrellisScreens

/// Parameters put into resolved answers, per request.
@Suite struct SubstitutionTests {
    let resolver = ScreenResolver()

    func answer(_ root: String, outcomes: [UInt8] = [], schemaVersion: Int = 3) throws -> ResolvedScreen {
        resolver.resolve(try inlineScreen(root, schemaVersion: 3), outcomes: Outcomes(outcomes), clientSchemaVersion: schemaVersion)
    }

    /// The substituted root as JSON.
    func substituted(_ root: String, _ parameters: [String: JSONValue], outcomes: [UInt8] = [], schemaVersion: Int = 3) throws -> String {
        let result = try answer(root, outcomes: outcomes, schemaVersion: schemaVersion).substituting(parameters)
        #expect(!result.needsSubstitution)
        return result.root.map { JSONWriter.string($0.jsonValue) } ?? "null"
    }

    /// The error substituting `parameters` gives.
    func failure(_ root: String, _ parameters: [String: JSONValue]) throws -> ParameterError {
        let answer = try answer(root)
        return try #require(throws: ParameterError.self) { try answer.substituting(parameters) }
    }

    @Test func wholeValuesAndTemplates() throws {
        let root = """
            {"type": "Text", "properties": {"fontSize": {"$param": "size"}, "lineLimit": {"$param": "lines"}, "hidden": {"$param": "hide"}},
             "values": {"text": {"$format": "Order {id} of {count} {{#{id}}}"}}}
            """
        #expect(try substituted(root, ["size": .number(18), "lines": .number(2), "hide": .bool(false), "id": .number(42), "count": .string("3")])
            == #"{"type":"Text","properties":{"fontSize":18,"lineLimit":2,"hidden":false},"values":{"text":"Order 42 of 3 {#42}"}}"#)
    }

    /// Strings from a query become numbers, integers and bools where those are expected.
    @Test func queryStringsAreCoerced() throws {
        let root = #"{"type": "Text", "properties": {"fontSize": {"$param": "size"}, "lineLimit": {"$param": "lines"}, "hidden": {"$param": "hide"}}, "values": {"text": {"$param": "id"}}}"#
        #expect(try substituted(root, ["size": .string("17.5"), "lines": .string("3"), "hide": .string("true"), "id": .number(42)])
            == #"{"type":"Text","properties":{"fontSize":17.5,"lineLimit":3,"hidden":true},"values":{"text":"42"}}"#)
        #expect(try substituted(root, ["size": .string("1e2"), "lines": .string("2.0"), "hide": .string("false"), "id": .bool(true)])
            == #"{"type":"Text","properties":{"fontSize":100,"lineLimit":2,"hidden":false},"values":{"text":"true"}}"#)
    }

    @Test(arguments: [
        ("size", JSONValue.string("big"), "expected a number, found \"big\""),
        ("size", .string(" 17"), "expected a number, found \" 17\""),
        ("size", .string("0x10"), "expected a number, found \"0x10\""),
        ("size", .string("nan"), "expected a number, found \"nan\""),
        ("size", .bool(true), "expected a number, found true"),
        ("size", .string("1000"), "1000 is out of range 1…512"),
        ("lines", .string("2.5"), "expected an integer, found \"2.5\""),
        ("lines", .number(0), "expected an integer from 1 to 1000, found 0"),
        ("hide", .string("yes"), "expected true or false, found \"yes\""),
        ("hide", .number(1), "expected true or false, found 1"),
        ("id", .array([]), "expected a string, number or bool, found []"),
    ])
    func coercionErrorsNameTheParameterAndPath(name: String, value: JSONValue, reason: String) throws {
        let root = #"{"type": "Text", "properties": {"fontSize": {"$param": "size"}, "lineLimit": {"$param": "lines"}, "hidden": {"$param": "hide"}}, "values": {"text": {"$param": "id"}}}"#
        var parameters: [String: JSONValue] = ["size": .number(12), "lines": .number(1), "hide": .bool(false), "id": .string("x")]
        parameters[name] = value
        let error = try failure(root, parameters)
        #expect(error.name == name)
        #expect(error.reason == reason)
        let member = name == "id" ? "values.text" : "properties." + ["size": "fontSize", "lines": "lineLimit", "hide": "hidden"][name]!
        #expect(error.path.description == "$.root." + member)
    }

    @Test func missingParametersTakeTheDefaultOrFail() throws {
        let root = #"{"type": "Text", "properties": {"fontSize": {"$param": "size", "default": 15}}, "values": {"text": {"$format": "Hi {name}"}}}"#
        #expect(try substituted(root, ["name": .string("Ada")]) == #"{"type":"Text","properties":{"fontSize":15},"values":{"text":"Hi Ada"}}"#)
        let missing = try failure(root, ["size": .number(20)])
        #expect(missing == ParameterError(name: "name", path: JSONPath.root.appending("root").appending("values").appending("text"), reason: "missing (a $format placeholder has no default)"))
        #expect(missing.description == "parameter \"name\" at $.root.values.text: missing (a $format placeholder has no default)")
        let noDefault = try failure(#"{"type": "Button", "values": {"title": {"$param": "title"}}}"#, [:])
        #expect(noDefault.reason == "missing, and the screen gives no default")
        let empty = try failure(#"{"type": "Button", "values": {"title": {"$param": "title"}}}"#, ["title": .string("")])
        #expect(empty.reason == "must not be empty")
    }

    /// Placeholder values in URLs are percent-encoded but for RFC 3986's unreserved characters; in text they are not.
    @Test func urlPlaceholdersArePercentEncoded() throws {
        let root = """
            {"type": "Button", "values": {"title": {"$format": "Find {q}"}}, "properties": {"action": {"type": "navigate", "url": {"$format": "app://search/{q}?from={from}"}}}}
            """
        #expect(try substituted(root, ["q": .string("a b/c?d&e#f%é~_-."), "from": .number(7)]) == """
            {"type":"Button","properties":{"action":{"type":"navigate","url":"app://search/a%20b%2Fc%3Fd%26e%23f%25%C3%A9~_-.?from=7"}},"values":{"title":"Find a b/c?d&e#f%é~_-."}}
            """)
        let image = #"{"type": "Image", "values": {"imageUrl": {"$format": "https://cdn.example.com/{name}.png"}}}"#
        #expect(try substituted(image, ["name": .string("red shoe")]) == #"{"type":"Image","values":{"imageUrl":"https://cdn.example.com/red%20shoe.png"}}"#)
    }

    /// A whole URL from a parameter must be absolute, of the kind the field takes.
    @Test func wholeURLsAreChecked() throws {
        let open = #"{"type": "Circle", "properties": {"action": {"type": "openURL", "url": {"$param": "to"}}}}"#
        #expect(try substituted(open, ["to": .string("app://orders/7")]) == #"{"type":"Circle","properties":{"action":{"type":"openURL","url":"app://orders/7"}}}"#)
        let relative = try failure(open, ["to": .string("orders/7")])
        #expect(relative.path.description == "$.root.properties.action.url")
        #expect(relative.reason == "\"orders/7\" is not an absolute URL such as app://product/42")
        let image = try failure(#"{"type": "Image", "values": {"imageUrl": {"$param": "img"}}}"#, ["img": .string("app://x")])
        #expect(image.reason == "\"app://x\" is not an absolute http(s) URL")
        let number = try failure(open, ["to": .number(7)])
        #expect(number.reason == "expected a URL string, found 7")
    }

    /// Parameters inside sequences, track properties and the fallback a client got are filled in too.
    @Test func actionsAreSubstituted() throws {
        let root = """
            {"type": "Circle", "properties": {"action": {"type": "sequence", "actions": [
              {"type": "track", "event": {"$format": "open-{id}"}, "properties": {"id": {"$param": "id"}, "page": "p"}},
              {"type": "share", "url": {"$format": "https://shop.example.com/p/{id}"}, "text": {"$param": "name", "default": "Look"}},
              {"type": "copy", "text": {"$param": "code"}, "fallback": {"type": "track", "event": {"$param": "code"}}}]}}}
            """
        let parameters: [String: JSONValue] = ["id": .number(42), "code": .string("SAVE 10")]
        #expect(try substituted(root, parameters) == """
            {"type":"Circle","properties":{"action":{"type":"sequence","actions":[{"type":"track","event":"open-42","properties":{"id":42,"page":"p"}},\
            {"type":"share","url":"https://shop.example.com/p/42","text":"Look"},{"type":"copy","text":"SAVE 10"}]}}}
            """)
        // A version-2 client: the sequence stands for its last action, the copy's fallback.
        #expect(try substituted(root, parameters, schemaVersion: 2) == #"{"type":"Circle","properties":{"action":{"type":"track","event":"SAVE 10"}}}"#)
        let share = #"{"type": "Circle", "properties": {"action": {"type": "share", "url": {"$format": "https://e.com/p/{id}"}}}}"#
        #expect(try substituted(share, ["id": .string("a/b")], schemaVersion: 2) == #"{"type":"Circle","properties":{"action":{"type":"openURL","url":"https://e.com/p/a%2Fb"}}}"#)
    }

    /// Only what is shown needs its parameters.
    @Test func parametersOfHiddenBranchesAreNotNeeded() throws {
        let root = #"{"type": "Rule", "rule": {"rule": "r"}, "child": {"type": "Text", "values": {"text": {"$param": "coupon"}}}, "else": {"type": "Spacer"}}"#
        #expect(try substituted(root, [:], outcomes: [0]) == #"{"type":"Spacer"}"#)
        #expect(throws: ParameterError.self) { try answer(root, outcomes: [1]).substituting([:]) }
    }

    /// A screen without parameters is returned as it is, whatever the request gives.
    @Test func screensWithoutParametersAreUntouched() throws {
        let plain = try answer(#"{"type": "Text", "values": {"text": "Hi"}, "metadata": {"x": {"$param": "id"}}}"#)
        #expect(!plain.needsSubstitution)
        let same = try plain.substituting(["id": .array([])])
        #expect(JSONWriter.string(same.jsonValue(revision: 1)) == JSONWriter.string(plain.jsonValue(revision: 1)))
    }
}
