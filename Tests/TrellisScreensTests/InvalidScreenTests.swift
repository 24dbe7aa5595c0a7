import Testing
import TrellisJSON
import TrellisScreens

/// One invalid document and the one diagnostic it must produce.
struct Invalid: CustomTestStringConvertible, Sendable {
    var name: String
    var text: String
    var expectedID: String? = nil
    var path: String
    var line: Int
    var reason: String

    var testDescription: String { name }

    /// A document around a one-line `root` (on line 4).
    init(_ name: String, root: String, schemaVersion: Int = 2, _ path: String, line: Int = 4, _ reason: String) {
        self.init(name, text: document(root: root, schemaVersion: schemaVersion), path, line: line, reason)
    }

    init(_ name: String, text: String, expectedID: String? = nil, _ path: String, line: Int, _ reason: String) {
        self.name = name
        self.text = text
        self.expectedID = expectedID
        self.path = path
        self.line = line
        self.reason = reason
    }
}

let invalidScreens: [Invalid] = [
    // Document
    Invalid(
        "syntax error: trailing comma", text: "{\n  \"id\": \"test\",\n  \"schemaVersion\": 2,\n}", "$", line: 4,
        "trailing comma before '}'"),
    Invalid(
        "syntax error: duplicate key", text: "{\n  \"id\": \"a\",\n  \"id\": \"b\"\n}", "$", line: 3,
        "duplicate key \"id\" (first at line 2)"),
    Invalid("syntax error: unterminated", text: "{\n  \"id\": \"test\"", "$", line: 2, "unterminated object"),
    Invalid("document not an object", text: "[]", "$", line: 1, "expected an object, found an array"),
    Invalid(
        "unknown screen key", text: "{\n  \"id\": \"test\", \"titel\": \"x\",\n  \"schemaVersion\": 2, \"root\": {\"type\": \"Spacer\"}\n}",
        "$.titel", line: 2, "unknown key \"titel\"; did you mean \"title\"?"),
    Invalid(
        "revision in an authored document",
        text: "{\n  \"id\": \"test\",\n  \"revision\": 3,\n  \"schemaVersion\": 2,\n  \"root\": {\"type\": \"Spacer\"}\n}",
        "$.revision", line: 3, "unknown key \"revision\"; expected one of: $schema, id, metadata, root, schemaVersion, title"),
    Invalid(
        "nesting deeper than 128 levels",
        text: document(root: String(repeating: "[", count: 130) + String(repeating: "]", count: 130)), "$", line: 4,
        "nesting deeper than 128 levels"),
    Invalid(
        "missing schemaVersion", text: "{\n  \"id\": \"test\",\n  \"root\": {\"type\": \"Spacer\"}\n}", "$", line: 1,
        "missing required key \"schemaVersion\""),
    Invalid(
        "schemaVersion too new", text: "{\n  \"id\": \"test\",\n  \"schemaVersion\": 4,\n  \"root\": {\"type\": \"Spacer\"}\n}",
        "$.schemaVersion", line: 3, "expected an integer from 1 to 3, found 4"),
    Invalid(
        "missing root", text: "{\n  \"id\": \"test\",\n  \"schemaVersion\": 2\n}", "$", line: 1, "missing required key \"root\""),
    Invalid(
        "id mismatching the file name", text: document(root: "{\"type\": \"Spacer\"}"), expectedID: "home", "$.id", line: 2,
        "screen id \"test\" does not match \"home\""),
    Invalid(
        "invalid screen id", text: "{\n  \"id\": \"my screen\",\n  \"schemaVersion\": 2,\n  \"root\": {\"type\": \"Spacer\"}\n}",
        "$.id", line: 2, "invalid id \"my screen\""),
    Invalid(
        "metadata not an object",
        text: "{\n  \"id\": \"test\",\n  \"schemaVersion\": 2,\n  \"metadata\": [1],\n  \"root\": {\"type\": \"Spacer\"}\n}",
        "$.metadata", line: 4, "expected an object, found an array"),
    Invalid("root not an object", root: "[]", "$.root", "expected a component object, found an array"),
    Invalid("node without type", root: "{\"id\": \"x\"}", "$.root", "missing required key \"type\""),
    Invalid("type not a string", root: "{\"type\": 7}", "$.root.type", "expected a string, found a number"),

    // Types and keys
    Invalid(
        "unknown type with the list of types (nothing inside checked)", root: "{\"type\": \"Txt\", \"values\": {\"text\": 5}, \"bogus\": 1}", "$.root.type",
        "unknown component type \"Txt\"; known types: Rule, Experiment, Template, Button, Carousel, Circle, Divider, HStack, Image, List, Navigation, Pins, Rectangle, ScrollView, Spacer, Tab, TabBar, Text, VStack, ZStack"
    ),
    Invalid("unknown component key", root: "{\"type\": \"VStack\", \"subview\": []}", "$.root.subview", "unknown key \"subview\"; did you mean \"subviews\"?"),
    Invalid(
        "unknown property with did-you-mean", root: "{\"type\": \"Text\", \"properties\": {\"fontsize\": 12}, \"values\": {\"text\": \"a\"}}",
        "$.root.properties.fontsize", "unknown key \"fontsize\"; did you mean \"fontSize\"?"),
    Invalid(
        "value given as a property", root: "{\"type\": \"Text\", \"properties\": {\"text\": \"a\"}, \"values\": {\"text\": \"a\"}}",
        "$.root.properties.text", "unknown key \"text\""),
    Invalid(
        "unknown value", root: "{\"type\": \"Text\", \"values\": {\"text\": \"a\", \"txt\": \"b\"}}",
        "$.root.values.txt", "unknown key \"txt\"; did you mean \"text\"?"),
    Invalid(
        "properties not an object", root: "{\"type\": \"Spacer\", \"properties\": [1]}", "$.root.properties",
        "expected an object, found an array"),

    // Property values
    Invalid(
        "font not a text style", root: "{\"type\": \"Text\", \"properties\": {\"font\": 12}, \"values\": {\"text\": \"a\"}}",
        "$.root.properties.font", "expected one of largeTitle, title, title2, title3, headline, body, callout, subheadline, footnote, caption, caption2, found a number"),
    Invalid(
        "weight not in the list", root: "{\"type\": \"Text\", \"properties\": {\"weight\": \"extraBold\"}, \"values\": {\"text\": \"a\"}}",
        "$.root.properties.weight", "\"extraBold\" is not one of: ultraLight, thin, light, regular, medium, semibold, bold, heavy, black"),
    Invalid(
        "text style with the wrong case", root: "{\"type\": \"Text\", \"properties\": {\"font\": \"Title\"}, \"values\": {\"text\": \"a\"}}",
        "$.root.properties.font", "\"Title\" is not one of: largeTitle"),
    Invalid("number as a string", root: "{\"type\": \"VStack\", \"properties\": {\"spacing\": \"12\"}}", "$.root.properties.spacing", "expected a number, found a string"),
    Invalid("opacity out of range", root: "{\"type\": \"Circle\", \"properties\": {\"opacity\": 1.5}}", "$.root.properties.opacity", "1.5 is out of range 0…1"),
    Invalid("negative corner radius", root: "{\"type\": \"Rectangle\", \"properties\": {\"cornerRadius\": -2}}", "$.root.properties.cornerRadius", "-2 is out of range 0…1000000"),
    Invalid(
        "fractional lineLimit", root: "{\"type\": \"Text\", \"properties\": {\"lineLimit\": 2.5}, \"values\": {\"text\": \"a\"}}",
        "$.root.properties.lineLimit", "expected an integer from 1 to 1000, found 2.5"),
    Invalid(
        "selectedIndex out of range",
        root: "{\"type\": \"TabBar\", \"properties\": {\"selectedIndex\": 21}}", "$.root.properties.selectedIndex",
        "expected an integer from 0 to 20, found 21"),
    Invalid("bool as a string", root: "{\"type\": \"Spacer\", \"properties\": {\"hidden\": \"yes\"}}", "$.root.properties.hidden", "expected true or false, found a string"),
    Invalid("colour of five digits", root: "{\"type\": \"Circle\", \"properties\": {\"backgroundColor\": \"#12345\"}}", "$.root.properties.backgroundColor", "\"#12345\" is not a colour: use #RGB, #RRGGBB or #RRGGBBAA"),
    Invalid("colour by name", root: "{\"type\": \"Circle\", \"properties\": {\"borderColor\": \"red\"}}", "$.root.properties.borderColor", "\"red\" is not a colour"),
    Invalid("colour with non-hex digits", root: "{\"type\": \"Circle\", \"properties\": {\"foregroundColor\": \"#GG0000\"}}", "$.root.properties.foregroundColor", "\"#GG0000\" is not a colour"),
    Invalid("colour as a number", root: "{\"type\": \"Circle\", \"properties\": {\"foregroundColor\": 255}}", "$.root.properties.foregroundColor", "expected a colour such as \"#1A2B3C\", found a number"),
    Invalid("dimension in px", root: "{\"type\": \"Rectangle\", \"properties\": {\"width\": \"50px\"}}", "$.root.properties.width", "\"50px\" is not a size: use points, \"N%\", \"fill\" or \"auto\""),
    Invalid("negative dimension", root: "{\"type\": \"Rectangle\", \"properties\": {\"height\": -1}}", "$.root.properties.height", "a size must not be negative"),
    Invalid("negative percentage", root: "{\"type\": \"Rectangle\", \"properties\": {\"maxWidth\": \"-5%\"}}", "$.root.properties.maxWidth", "\"-5%\" is not a size"),
    Invalid("dimension as a bool", root: "{\"type\": \"Rectangle\", \"properties\": {\"minHeight\": true}}", "$.root.properties.minHeight", "expected points, \"N%\", \"fill\" or \"auto\", found a boolean"),
    Invalid(
        "insets with an unknown edge", root: "{\"type\": \"Spacer\", \"properties\": {\"padding\": {\"left\": 8}}}", "$.root.properties.padding.left",
        "unknown key \"left\"; expected one of: bottom, horizontal, leading, top, trailing, vertical"),
    Invalid("insets with a negative edge", root: "{\"type\": \"Spacer\", \"properties\": {\"padding\": {\"top\": -4}}}", "$.root.properties.padding.top", "-4 is out of range 0…1000000"),
    Invalid("insets as a string", root: "{\"type\": \"Spacer\", \"properties\": {\"padding\": \"16\"}}", "$.root.properties.padding", "expected points or an object of edges, found a string"),
    Invalid("relative image URL", root: "{\"type\": \"Image\", \"values\": {\"imageUrl\": \"cdn.example.com/a.png\"}}", "$.root.values.imageUrl", "\"cdn.example.com/a.png\" is not an absolute http(s) URL"),
    Invalid("ftp image URL", root: "{\"type\": \"Image\", \"values\": {\"imageUrl\": \"ftp://cdn.example.com/a.png\"}}", "$.root.values.imageUrl", "is not an absolute http(s) URL"),
    Invalid("image URL without host", root: "{\"type\": \"Image\", \"values\": {\"imageUrl\": \"https:///a.png\"}}", "$.root.values.imageUrl", "is not an absolute http(s) URL"),
    Invalid("image URL with a space", root: "{\"type\": \"Image\", \"values\": {\"imageUrl\": \"https://cdn.example.com/a b.png\"}}", "$.root.values.imageUrl", "is not an absolute http(s) URL"),
    Invalid("empty icon name", root: "{\"type\": \"Image\", \"values\": {\"systemIconName\": \"\"}}", "$.root.values.systemIconName", "must not be empty"),
    Invalid("text not a string", root: "{\"type\": \"Text\", \"values\": {\"text\": 42}}", "$.root.values.text", "expected a string, found a number"),

    // Actions
    Invalid(
        "unknown action type", root: "{\"type\": \"Spacer\", \"properties\": {\"action\": {\"type\": \"jump\"}}}", "$.root.properties.action",
        "an action needs \"type\": one of back, copy, dismiss, navigate, openURL, reload, sequence, share, track; found \"jump\""),
    Invalid("action not an object", root: "{\"type\": \"Spacer\", \"properties\": {\"action\": \"app://home\"}}", "$.root.properties.action", "an action needs \"type\": one of back, copy, dismiss, navigate, openURL, reload, sequence, share, track; found nothing"),
    Invalid("navigate without url", root: "{\"type\": \"Spacer\", \"properties\": {\"action\": {\"type\": \"navigate\"}}}", "$.root.properties.action", "missing required key \"url\""),
    Invalid("navigate to a relative url", root: "{\"type\": \"Spacer\", \"properties\": {\"action\": {\"type\": \"navigate\", \"url\": \"product/42\"}}}", "$.root.properties.action.url", "\"product/42\" is not an absolute URL such as app://product/42"),
    Invalid(
        "unknown presentation", root: "{\"type\": \"Spacer\", \"properties\": {\"action\": {\"type\": \"navigate\", \"url\": \"app://x\", \"presentation\": \"popover\"}}}",
        "$.root.properties.action.presentation", "\"popover\" is not one of: push, modal, sheet, fullScreen, replace"),
    Invalid("url without a scheme", root: "{\"type\": \"Spacer\", \"properties\": {\"action\": {\"type\": \"openURL\", \"url\": \"://x\"}}}", "$.root.properties.action.url", "is not an absolute URL"),
    Invalid("dismiss with a url", root: "{\"type\": \"Spacer\", \"properties\": {\"action\": {\"type\": \"dismiss\", \"url\": \"app://x\"}}}", "$.root.properties.action.url", "unknown key \"url\"; expected one of: fallback, type"),
    Invalid("track without event", root: "{\"type\": \"Spacer\", \"properties\": {\"action\": {\"type\": \"track\"}}}", "$.root.properties.action", "missing required key \"event\""),
    Invalid("track properties not an object", root: "{\"type\": \"Spacer\", \"properties\": {\"action\": {\"type\": \"track\", \"event\": \"e\", \"properties\": [1]}}}", "$.root.properties.action.properties", "expected an object, found an array"),

    // Required values, sources, children
    Invalid("Text without text", root: "{\"type\": \"Text\"}", "$.root.values", "missing required value \"text\""),
    Invalid("Button without title", root: "{\"type\": \"Button\", \"values\": {}}", "$.root.values", "missing required value \"title\""),
    Invalid(
        "Image with two sources", root: "{\"type\": \"Image\", \"values\": {\"imageUrl\": \"https://cdn.example.com/a.png\", \"systemIconName\": \"star\"}}",
        "$.root.values", "Image needs exactly one of the values imageUrl, systemIconName, localImageName; found 2"),
    Invalid("Image values not an object", root: "{\"type\": \"Image\", \"values\": [\"https://cdn.example.com/a.png\"]}", "$.root.values", "expected an object, found an array"),
    Invalid("values on a type without values", root: "{\"type\": \"VStack\", \"values\": {\"title\": \"x\"}}", "$.root.values", "VStack takes no values"),
    Invalid("Image without a source", root: "{\"type\": \"Image\"}", "$.root.values", "Image needs exactly one of the values imageUrl, systemIconName, localImageName; found 0"),
    Invalid("subviews on a leaf", root: "{\"type\": \"Text\", \"values\": {\"text\": \"a\"}, \"subviews\": []}", "$.root.subviews", "Text has no subviews"),
    Invalid("subviews not an array", root: "{\"type\": \"VStack\", \"subviews\": {}}", "$.root.subviews", "expected an array, found an object"),
    Invalid(
        "Navigation with two subviews", root: "{\"type\": \"Navigation\", \"values\": {\"title\": \"\"}, \"subviews\": [{\"type\": \"Spacer\"}, {\"type\": \"Spacer\"}]}",
        "$.root.subviews", "Navigation needs exactly one subview, found 2"),
    Invalid("Navigation without subviews", root: "{\"type\": \"Navigation\", \"values\": {\"title\": \"Home\"}}", "$.root", "Navigation needs exactly one subview"),
    Invalid("Tab with no subview", root: "{\"type\": \"Tab\", \"values\": {\"title\": \"A\"}, \"subviews\": []}", "$.root.subviews", "Tab needs exactly one subview, found 0"),
    Invalid(
        "TabBar containing a Text",
        text: document(root: """
            {"type": "TabBar", "subviews": [
                {"type": "Tab", "values": {"title": "A"}, "subviews": [{"type": "Spacer"}]},
                {"type": "Text", "values": {"text": "not a tab"}}
              ]}
            """), "$.root.subviews[1]", line: 6, "TabBar may contain only Tab, not Text"),
    Invalid(
        "TabBar with a Rule whose else is not a Tab",
        root: "{\"type\": \"TabBar\", \"subviews\": [{\"type\": \"Rule\", \"rule\": {\"rule\": \"r\"}, \"child\": {\"type\": \"Tab\", \"values\": {\"title\": \"A\"}, \"subviews\": [{\"type\": \"Spacer\"}]}, \"else\": {\"type\": \"Spacer\"}}]}",
        "$.root.subviews[0]", "TabBar may contain only Tab, not Spacer"),

    // Fallbacks and schema versions
    Invalid("null fallback", root: "{\"type\": \"Carousel\", \"fallback\": null}", "$.root.fallback", "expected a component object, found null"),
    Invalid(
        "fallback not older", root: "{\"type\": \"Carousel\", \"fallback\": {\"type\": \"ScrollView\"}}", "$.root.fallback",
        "a fallback for Carousel (schema version 2) must be older; ScrollView is version 2"),
    Invalid(
        "fallback for a version-1 type", root: "{\"type\": \"Divider\", \"fallback\": {\"type\": \"Rectangle\"}}", "$.root.fallback",
        "a fallback for Divider (schema version 1) must be older; Rectangle is version 1"),
    Invalid(
        "invalid fallback", root: "{\"type\": \"Carousel\", \"fallback\": {\"type\": \"HStack\", \"properties\": {\"spacing\": -1}}}",
        "$.root.fallback.properties.spacing", "-1 is out of range"),
    Invalid(
        "type newer than schemaVersion", root: "{\"type\": \"Button\", \"values\": {\"title\": \"Buy\"}}", schemaVersion: 1, "$.root.type",
        "Button needs schema version 2, but the screen declares schemaVersion 1"),
    Invalid(
        "property newer than schemaVersion", root: "{\"type\": \"Spacer\", \"properties\": {\"action\": {\"type\": \"dismiss\"}}}", schemaVersion: 1,
        "$.root.properties.action", "\"action\" needs schema version 2, but the screen declares schemaVersion 1"),

    // Ids
    Invalid(
        "duplicate ids with the first line",
        text: document(root: """
            {"type": "VStack", "id": "stack", "subviews": [
                {"type": "Spacer", "id": "gap"},
                {"type": "Divider"},
                {"type": "Spacer", "id": "gap"}
              ]}
            """), "$.root.subviews[2].id", line: 7, "duplicate id \"gap\" (first used at line 5)"),
    Invalid(
        "duplicate id across experiment variants",
        root: "{\"type\": \"Experiment\", \"experiment\": \"e\", \"variants\": {\"a\": {\"type\": \"Spacer\", \"id\": \"x\"}, \"b\": {\"type\": \"Divider\", \"id\": \"x\"}}}",
        "$.root.variants.b.id", "duplicate id \"x\" (first used at line 4)"),
    Invalid(
        "duplicate id between a node and a fallback",
        root: "{\"type\": \"Carousel\", \"id\": \"c\", \"fallback\": {\"type\": \"HStack\", \"id\": \"c\"}}",
        "$.root.fallback.id", "duplicate id \"c\" (first used at line 4)"),
    Invalid(
        "duplicate id on a Rule",
        root: "{\"type\": \"Rule\", \"id\": \"r\", \"rule\": {\"rule\": \"a\"}, \"child\": {\"type\": \"Spacer\", \"id\": \"r\"}}",
        "$.root.child.id", "duplicate id \"r\""),
    Invalid("id with a space", root: "{\"type\": \"Spacer\", \"id\": \"my gap\"}", "$.root.id", "invalid id \"my gap\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"),
    Invalid("empty id", root: "{\"type\": \"Spacer\", \"id\": \"\"}", "$.root.id", "invalid id \"\""),
    Invalid("id of 65 characters", root: "{\"type\": \"Spacer\", \"id\": \"\(String(repeating: "a", count: 65))\"}", "$.root.id", "invalid id"),
    Invalid("id with a slash", root: "{\"type\": \"Spacer\", \"id\": \"a/b\"}", "$.root.id", "invalid id \"a/b\""),
    Invalid("id not a string", root: "{\"type\": \"Spacer\", \"id\": 5}", "$.root.id", "expected a string, found a number"),

    // Rules
    Invalid("Rule without child", root: "{\"type\": \"Rule\", \"rule\": {\"rule\": \"is_gold_member\"}}", "$.root", "missing required key \"child\""),
    Invalid("Rule without rule", root: "{\"type\": \"Rule\", \"child\": {\"type\": \"Spacer\"}}", "$.root", "missing required key \"rule\""),
    Invalid("Rule with children", root: "{\"type\": \"Rule\", \"rule\": {\"rule\": \"r\"}, \"child\": {\"type\": \"Spacer\"}, \"children\": []}", "$.root.children", "unknown key \"children\"; expected one of: child, else, id, rule, type"),
    Invalid("rule not an object", root: "{\"type\": \"Rule\", \"rule\": \"is_gold_member\", \"child\": {\"type\": \"Spacer\"}}", "$.root.rule", "expected a rule expression object, found a string"),
    Invalid("empty all", root: "{\"type\": \"Rule\", \"rule\": {\"all\": []}, \"child\": {\"type\": \"Spacer\"}}", "$.root.rule.all", "\"all\" needs at least one expression"),
    Invalid("two keys in one expression", root: "{\"type\": \"Rule\", \"rule\": {\"rule\": \"a\", \"rollout\": \"b\"}, \"child\": {\"type\": \"Spacer\"}}", "$.root.rule", "a rule expression has exactly one of: all, any, not, rule, rollout, experiment, attribute"),
    Invalid("unknown expression", root: "{\"type\": \"Rule\", \"rule\": {\"and\": [{\"rule\": \"a\"}]}, \"child\": {\"type\": \"Spacer\"}}", "$.root.rule.and", "unknown expression \"and\""),
    Invalid(
        "unknown operator", root: "{\"type\": \"Rule\", \"rule\": {\"attribute\": \"appVersion\", \"op\": \"atLeast\", \"value\": \"5.2\"}, \"child\": {\"type\": \"Spacer\"}}",
        "$.root.rule.op", "unknown operator \"atLeast\"; expected one of: equals, notEquals, in, notIn, startsWith, endsWith, contains, lessThan, lessThanOrEqual, greaterThan, greaterThanOrEqual, before, after, versionBelow, versionAtLeast, versionEquals"),
    Invalid(
        "version operand not a version", root: "{\"type\": \"Rule\", \"rule\": {\"attribute\": \"appVersion\", \"op\": \"versionAtLeast\", \"value\": \"five\"}, \"child\": {\"type\": \"Spacer\"}}",
        "$.root.rule.value", "\"five\" is not a version such as \"5.2.1\" or \"17.4-beta.1\""),
    Invalid(
        "invalid date operand", root: "{\"type\": \"Rule\", \"rule\": {\"attribute\": \"now\", \"op\": \"after\", \"value\": \"2026-02-30\"}, \"child\": {\"type\": \"Spacer\"}}",
        "$.root.rule.value", "\"2026-02-30\" is not a date"),
    Invalid(
        "in with non-strings", root: "{\"type\": \"Rule\", \"rule\": {\"attribute\": \"platform\", \"op\": \"in\", \"value\": [\"ios\", 1]}, \"child\": {\"type\": \"Spacer\"}}",
        "$.root.rule.value", "operator \"in\" needs a non-empty array of strings, found an array"),
    Invalid(
        "nested invalid name", root: "{\"type\": \"Rule\", \"rule\": {\"not\": {\"any\": [{\"rule\": \"ok\"}, {\"rollout\": \"bad name\"}]}}, \"child\": {\"type\": \"Spacer\"}}",
        "$.root.rule.not.any[1].rollout", "invalid name \"bad name\""),
    Invalid("invalid child", root: "{\"type\": \"Rule\", \"rule\": {\"rule\": \"r\"}, \"child\": {\"type\": \"Spacer\", \"properties\": {\"minLength\": -1}}}", "$.root.child.properties.minLength", "-1 is out of range"),

    // Experiments
    Invalid("Experiment with one variant", root: "{\"type\": \"Experiment\", \"experiment\": \"e\", \"variants\": {\"a\": {\"type\": \"Spacer\"}}}", "$.root.variants", "an experiment needs at least two variants"),
    Invalid(
        "invalid variant name", text: document(root: "{\"type\": \"Experiment\", \"experiment\": \"e\", \"variants\": {\n  \"big one\": null, \"b\": null}}"),
        "$.root.variants[\"big one\"]", line: 5, "invalid variant name \"big one\""),
    Invalid("Experiment without key", root: "{\"type\": \"Experiment\", \"variants\": {\"a\": null, \"b\": null}}", "$.root", "missing required key \"experiment\""),
    Invalid("invalid experiment key", root: "{\"type\": \"Experiment\", \"experiment\": \"home hero\", \"variants\": {\"a\": null, \"b\": null}}", "$.root.experiment", "invalid id \"home hero\""),
    Invalid("variants not an object", root: "{\"type\": \"Experiment\", \"experiment\": \"e\", \"variants\": [null, null]}", "$.root.variants", "expected an object of variant name → component, found an array"),
    Invalid("variant not a component", root: "{\"type\": \"Experiment\", \"experiment\": \"e\", \"variants\": {\"a\": \"Spacer\", \"b\": null}}", "$.root.variants.a", "expected a component object, found a string"),
]

@Suite struct InvalidScreenTests {
    @Test func theTableIsLarge() {
        #expect(invalidScreens.count >= 40)
        #expect(Set(invalidScreens.map(\.name)).count == invalidScreens.count)
    }

    /// Each invalid document gives exactly one diagnostic, at the expected path and line, with the reason.
    @Test(arguments: invalidScreens)
    func reportsPathLineAndReason(_ invalid: Invalid) throws {
        let found = diagnostics(invalid.text, expectedID: invalid.expectedID)
        #expect(found.count == 1, "\(found)")
        let diagnostic = try #require(found.first)
        #expect(diagnostic.path.description == invalid.path)
        #expect(diagnostic.location.line == invalid.line)
        #expect(diagnostic.message.contains(invalid.reason), "\(diagnostic.message)")
    }
}
