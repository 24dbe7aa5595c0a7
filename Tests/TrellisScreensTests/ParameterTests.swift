import Testing
import TrellisJSON
import TrellisScreens

let invalidParameters: [Invalid] = [
    Invalid(
        "parameter for a colour", root: #"{"type": "Circle", "properties": {"backgroundColor": {"$param": "c"}}}"#, schemaVersion: 3,
        "$.root.properties.backgroundColor", "a parameter cannot stand for a colour; only strings, URLs, numbers, integers and bools can come from the route"),
    Invalid("parameter for a dimension", root: #"{"type": "Circle", "properties": {"width": {"$param": "w"}}}"#, schemaVersion: 3, "$.root.properties.width", "a parameter cannot stand for a dimension"),
    Invalid("parameter for insets", root: #"{"type": "Circle", "properties": {"padding": {"$param": "p"}}}"#, schemaVersion: 3, "$.root.properties.padding", "a parameter cannot stand for insets"),
    Invalid(
        "parameter for a choice", root: #"{"type": "Text", "properties": {"font": {"$param": "f"}}, "values": {"text": "t"}}"#, schemaVersion: 3,
        "$.root.properties.font", "a parameter cannot stand for a choice of fixed names"),
    Invalid("parameter for a whole action", root: #"{"type": "Circle", "properties": {"action": {"$param": "a"}}}"#, schemaVersion: 3, "$.root.properties.action", "a parameter cannot stand for an action"),
    Invalid(
        "parameter for a presentation", root: #"{"type": "Circle", "properties": {"action": {"type": "navigate", "url": "app://x", "presentation": {"$param": "p"}}}}"#,
        schemaVersion: 3, "$.root.properties.action.presentation", "a parameter cannot stand for a choice of fixed names"),
    Invalid("invalid parameter name", root: #"{"type": "Text", "values": {"text": {"$param": "product id"}}}"#, schemaVersion: 3, "$.root.values.text[\"$param\"]", "invalid parameter name \"product id\""),
    Invalid("parameter name not a string", root: #"{"type": "Text", "values": {"text": {"$param": 7}}}"#, schemaVersion: 3, "$.root.values.text[\"$param\"]", "expected a parameter name, found a number"),
    Invalid("misspelt $param", root: #"{"type": "Text", "values": {"text": {"$parm": "id"}}}"#, schemaVersion: 3, "$.root.values.text[\"$parm\"]", "unknown key \"$parm\"; did you mean \"$param\"?"),
    Invalid(
        "unknown key beside $param", root: #"{"type": "Text", "values": {"text": {"$param": "id", "fallback": "x"}}}"#, schemaVersion: 3,
        "$.root.values.text.fallback", "unknown key \"fallback\"; expected one of: $param, default"),
    Invalid(
        "both $param and $format", root: #"{"type": "Text", "values": {"text": {"$param": "id", "$format": "{id}"}}}"#, schemaVersion: 3,
        "$.root.values.text", "a value is one of {\"$param\": …}, {\"$format\": …} and {\"$string\": …}, not $param and $format"),
    Invalid(
        "default of the wrong type", root: #"{"type": "Text", "properties": {"fontSize": {"$param": "s", "default": "big"}}, "values": {"text": "t"}}"#,
        schemaVersion: 3, "$.root.properties.fontSize.default", "expected a number, found a string"),
    Invalid(
        "default out of range", root: #"{"type": "Circle", "properties": {"opacity": {"$param": "o", "default": 2}}}"#, schemaVersion: 3,
        "$.root.properties.opacity.default", "2 is out of range 0…1"),
    Invalid(
        "default that is no URL", root: #"{"type": "Image", "values": {"imageUrl": {"$param": "img", "default": "cdn/x.png"}}}"#, schemaVersion: 3,
        "$.root.values.imageUrl.default", "\"cdn/x.png\" is not an absolute http(s) URL"),
    Invalid(
        "$format for a number", root: #"{"type": "Text", "properties": {"fontSize": {"$format": "{s}"}}, "values": {"text": "t"}}"#, schemaVersion: 3,
        "$.root.properties.fontSize[\"$format\"]", "\"$format\" makes text, but a number is expected here; use {\"$param\": …}"),
    Invalid(
        "$format for a bool", root: #"{"type": "Circle", "properties": {"hidden": {"$format": "{h}"}}}"#, schemaVersion: 3,
        "$.root.properties.hidden[\"$format\"]", "\"$format\" makes text, but a bool is expected here"),
    Invalid("$format not a string", root: #"{"type": "Text", "values": {"text": {"$format": 1}}}"#, schemaVersion: 3, "$.root.values.text[\"$format\"]", "expected a string, found a number"),
    Invalid("$format with a default", root: #"{"type": "Text", "values": {"text": {"$format": "{a}", "default": "x"}}}"#, schemaVersion: 3, "$.root.values.text.default", "unknown key \"default\"; expected one of: $format"),
    Invalid("$format with an open brace", root: #"{"type": "Text", "values": {"text": {"$format": "Order {id"}}}"#, schemaVersion: 3, "$.root.values.text[\"$format\"]", "unmatched \"{\" in \"Order {id\": write \"{{\" for a literal brace"),
    Invalid("$format with a stray brace", root: #"{"type": "Text", "values": {"text": {"$format": "{id} }"}}}"#, schemaVersion: 3, "$.root.values.text[\"$format\"]", "unmatched \"}\" in \"{id} }\": write \"}}\" for a literal brace"),
    Invalid("$format with a bad placeholder", root: #"{"type": "Text", "values": {"text": {"$format": "{a b}"}}}"#, schemaVersion: 3, "$.root.values.text[\"$format\"]", "invalid placeholder \"{a b}\""),
    Invalid("$format with an empty placeholder", root: #"{"type": "Text", "values": {"text": {"$format": "x{}"}}}"#, schemaVersion: 3, "$.root.values.text[\"$format\"]", "invalid placeholder \"{}\""),
    Invalid("$format without placeholders", root: #"{"type": "Text", "values": {"text": {"$format": "{{literal}}"}}}"#, schemaVersion: 3, "$.root.values.text[\"$format\"]", "\"$format\" has no {name} placeholder; write the text itself"),
    Invalid(
        "URL template without its scheme", root: #"{"type": "Image", "values": {"imageUrl": {"$format": "{base}/a.png"}}}"#, schemaVersion: 3,
        "$.root.values.imageUrl[\"$format\"]", "\"{base}/a.png\" is not an absolute http(s) URL"),
    Invalid(
        "navigate template whose scheme is a parameter", root: #"{"type": "Circle", "properties": {"action": {"type": "navigate", "url": {"$format": "{scheme}://product/{id}"}}}}"#,
        schemaVersion: 3, "$.root.properties.action.url[\"$format\"]", "a URL template starts with its scheme written out, such as https://…/{id}; found \"{scheme}://product/{id}\""),
    Invalid(
        "share template of an in-app url", root: #"{"type": "Circle", "properties": {"action": {"type": "share", "url": {"$format": "app://p/{id}"}}}}"#,
        schemaVersion: 3, "$.root.properties.action.url[\"$format\"]", "\"app://p/{id}\" is not an absolute http(s) URL"),
    Invalid(
        "bad parameter among track properties", root: #"{"type": "Circle", "properties": {"action": {"type": "track", "event": "e", "properties": {"id": {"$param": ""}}}}}"#,
        schemaVersion: 3, "$.root.properties.action.properties.id[\"$param\"]", "invalid parameter name \"\""),
]

@Suite struct ParameterDecodingTests {
    @Test(arguments: invalidParameters)
    func refusedWithPathLineAndReason(_ invalid: Invalid) throws {
        let found = diagnostics(invalid.text)
        #expect(found.count == 1, "\(found)")
        let diagnostic = try #require(found.first)
        #expect(diagnostic.path.description == invalid.path)
        #expect(diagnostic.location.line == invalid.line)
        #expect(diagnostic.message.contains(invalid.reason), "\(diagnostic.message)")
    }

    /// Every use is recorded with its path, what it expects and whether it has a default, in document order.
    @Test func usesAreRecorded() throws {
        let screen = try inlineScreen("""
            {"type": "VStack", "subviews": [
              {"type": "Text", "properties": {"fontSize": {"$param": "size", "default": 17}, "lineLimit": {"$param": "lines"}, "hidden": {"$param": "hide"}},
               "values": {"text": {"$format": "Order {id} of {count}"}}},
              {"type": "Rule", "rule": {"rule": "r"}, "child": {"type": "Image", "values": {"imageUrl": {"$format": "https://cdn.example.com/{id}.png"}}}},
              {"type": "Button", "values": {"title": {"$param": "title"}}, "properties": {"action": {"type": "sequence", "actions": [
                {"type": "track", "event": {"$param": "event"}, "properties": {"id": {"$param": "id"}, "from": "home"}},
                {"type": "share", "text": {"$format": "See {id}"}, "fallback": {"type": "openURL", "url": {"$param": "web", "default": "https://example.com"}}}]}}}
            ]}
            """, schemaVersion: 3)
        let root = JSONPath.root.appending("root").appending("subviews")
        let text = root.appending(0)
        let action = root.appending(2).appending("properties").appending("action").appending("actions")
        #expect(screen.parameters == [
            ParameterUse(name: "size", path: text.appending("properties").appending("fontSize"), expects: .number, hasDefault: true),
            ParameterUse(name: "lines", path: text.appending("properties").appending("lineLimit"), expects: .integer, hasDefault: false),
            ParameterUse(name: "hide", path: text.appending("properties").appending("hidden"), expects: .bool, hasDefault: false),
            ParameterUse(name: "id", path: text.appending("values").appending("text"), expects: .text, hasDefault: false),
            ParameterUse(name: "count", path: text.appending("values").appending("text"), expects: .text, hasDefault: false),
            ParameterUse(name: "id", path: root.appending(1).appending("child").appending("values").appending("imageUrl"), expects: .url, hasDefault: false),
            ParameterUse(name: "event", path: action.appending(0).appending("event"), expects: .text, hasDefault: false),
            ParameterUse(name: "id", path: action.appending(0).appending("properties").appending("id"), expects: .value, hasDefault: false),
            ParameterUse(name: "id", path: action.appending(1).appending("text"), expects: .text, hasDefault: false),
            ParameterUse(name: "web", path: action.appending(1).appending("fallback").appending("url"), expects: .url, hasDefault: true),
            // Properties before values, whatever the order they are written in.
            ParameterUse(name: "title", path: root.appending(2).appending("values").appending("title"), expects: .text, hasDefault: false),
        ])
        #expect(screen.usesParameters)
        #expect(screen.parameterNames == ["size", "lines", "hide", "id", "count", "event", "web", "title"])
        let plain = try inlineScreen(#"{"type": "Text", "values": {"text": "{id}"}}"#)
        #expect(!plain.usesParameters && plain.parameterNames.isEmpty && plain.links.isEmpty)
    }

    /// Every navigate url, wherever it is: Rule branches, variants, component fallbacks, sequences, action fallbacks.
    @Test func linksCoverEveryBranch() throws {
        let screen = try inlineScreen("""
            {"type": "VStack", "properties": {"action": {"type": "navigate", "url": "app://home"}}, "subviews": [
              {"type": "Rule", "rule": {"rule": "r"},
               "child": {"type": "Button", "values": {"title": "A"}, "properties": {"action": {"type": "navigate", "url": {"$format": "app://product/{id}?ref={ref}"}}}},
               "else": {"type": "Experiment", "experiment": "e", "variants": {"a": null,
                 "b": {"type": "Circle", "properties": {"action": {"type": "navigate", "url": {"$param": "next", "default": "app://cart"}}}}}}},
              {"type": "Carousel", "fallback": {"type": "HStack", "properties": {"action": {"type": "navigate", "url": "app://deals"}}}},
              {"type": "Circle", "properties": {"action": {"type": "sequence", "actions": [{"type": "track", "event": "t"},
                {"type": "share", "text": "x", "fallback": {"type": "navigate", "url": "app://share", "presentation": "sheet"}},
                {"type": "openURL", "url": "https://example.com"}, {"type": "navigate", "url": {"$param": "to"}}]}}}
            ]}
            """, schemaVersion: 3)
        #expect(screen.links.map { "\($0.path) \($0.target)" } == [
            "$.root.properties.action.url url(\"app://home\")",
            "$.root.subviews[0].child.properties.action.url template(\"app://product/{id}?ref={ref}\", placeholders: [\"id\", \"ref\"])",
            "$.root.subviews[0].else.variants.b.properties.action.url parameter(\"next\", default: Optional(\"app://cart\"))",
            "$.root.subviews[1].fallback.properties.action.url url(\"app://deals\")",
            "$.root.subviews[2].properties.action.actions[1].fallback.url url(\"app://share\")",
            "$.root.subviews[2].properties.action.actions[3].url parameter(\"to\", default: nil)",
        ])
    }

    /// `$param` and `$format` are authored data: they encode back unchanged (the fingerprint depends on it).
    @Test func parametersRoundTrip() throws {
        let root = #"{"type":"Text","properties":{"fontSize":{"$param":"size","default":17},"action":{"type":"navigate","url":{"$format":"app://p/{id}?a={{b}}"}}},"values":{"text":{"$format":"Hi {name}"}}}"#
        let screen = try inlineScreen(root, schemaVersion: 3)
        #expect(JSONWriter.string(screen.root.jsonValue) == root)
    }

    /// Resolution leaves parameters where they are, for substitution per request.
    @Test func resolutionKeepsParameters() throws {
        let screen = try inlineScreen(#"{"type": "Text", "values": {"text": {"$format": "Hi {name}"}}}"#, schemaVersion: 3)
        let answer = ScreenResolver().resolve(screen, outcomes: Outcomes([]), clientSchemaVersion: 2)
        #expect(answer.needsSubstitution)
        #expect(answer.root.map { JSONWriter.string($0.jsonValue) } == #"{"type":"Text","values":{"text":{"$format":"Hi {name}"}}}"#)
    }
}
