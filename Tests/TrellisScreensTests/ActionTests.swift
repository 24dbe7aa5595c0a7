import Testing
import TrellisJSON
import TrellisScreens

/// A Spacer whose `action` is `action`, on line 4 of a schema-3 document.
func actionInvalid(_ name: String, _ action: String, schemaVersion: Int = 3, _ path: String, _ reason: String) -> Invalid {
    Invalid(name, root: "{\"type\": \"Spacer\", \"properties\": {\"action\": \(action)}}", schemaVersion: schemaVersion, path, reason)
}

let invalidActions: [Invalid] = [
    actionInvalid(
        "version-3 kind in a version-2 screen", #"{"type": "share", "url": "https://example.com/p/1"}"#, schemaVersion: 2,
        "$.root.properties.action.type", "share needs schema version 3, but the screen declares schemaVersion 2"),
    actionInvalid(
        "sequence in a version-2 screen", #"{"type": "sequence", "actions": [{"type": "dismiss"}]}"#, schemaVersion: 2,
        "$.root.properties.action.type", "sequence needs schema version 3, but the screen declares schemaVersion 2"),
    actionInvalid("share of nothing", #"{"type": "share"}"#, "$.root.properties.action", "share needs \"url\" or \"text\", or both"),
    actionInvalid(
        "share of an in-app url", #"{"type": "share", "url": "app://product/42"}"#, "$.root.properties.action.url",
        "\"app://product/42\" is not an absolute http(s) URL"),
    actionInvalid("share of empty text", #"{"type": "share", "text": ""}"#, "$.root.properties.action.text", "must not be empty"),
    actionInvalid("copy without text", #"{"type": "copy"}"#, "$.root.properties.action", "missing required key \"text\""),
    actionInvalid("copy of a number", #"{"type": "copy", "text": 42}"#, "$.root.properties.action.text", "expected a string, found a number"),
    actionInvalid(
        "back with a url", #"{"type": "back", "url": "app://x"}"#, "$.root.properties.action.url",
        "unknown key \"url\"; expected one of: fallback, type"),
    actionInvalid("reload with a typo", #"{"type": "reload", "fallbak": {"type": "dismiss"}}"#, "$.root.properties.action.fallbak", "did you mean \"fallback\"?"),
    actionInvalid(
        "fullscreen in the wrong case", #"{"type": "navigate", "url": "app://x", "presentation": "fullscreen"}"#,
        "$.root.properties.action.presentation", "\"fullscreen\" is not one of: push, modal, sheet, fullScreen, replace"),
    actionInvalid("sequence without actions", #"{"type": "sequence"}"#, "$.root.properties.action", "missing required key \"actions\""),
    actionInvalid("empty sequence", #"{"type": "sequence", "actions": []}"#, "$.root.properties.action.actions", "a sequence needs 1 to 16 actions, found 0"),
    actionInvalid(
        "sequence of 17", "{\"type\": \"sequence\", \"actions\": [" + Array(repeating: #"{"type": "reload"}"#, count: 17).joined(separator: ", ") + "]}",
        "$.root.properties.action.actions", "a sequence needs 1 to 16 actions, found 17"),
    actionInvalid(
        "sequence of an object", #"{"type": "sequence", "actions": {"type": "back"}}"#, "$.root.properties.action.actions",
        "expected an array of actions, found an object"),
    actionInvalid(
        "bad action inside a sequence", #"{"type": "sequence", "actions": [{"type": "back"}, {"type": "jump"}]}"#,
        "$.root.properties.action.actions[1]", "an action needs \"type\": one of back, copy, dismiss, navigate, openURL, reload, sequence, share, track; found \"jump\""),
    actionInvalid(
        "sequences nested five deep",
        String(repeating: #"{"type": "sequence", "actions": ["#, count: 5) + #"{"type": "back"}"# + String(repeating: "]}", count: 5),
        "$.root.properties.action.actions[0].actions[0].actions[0].actions[0].actions", "sequences nest at most 4 deep"),
    actionInvalid(
        "fallback of the same version", #"{"type": "share", "text": "hi", "fallback": {"type": "copy", "text": "hi"}}"#,
        "$.root.properties.action.fallback", "a fallback for share (schema version 3) must be older; copy is version 3"),
    actionInvalid(
        "fallback for a version-2 kind", #"{"type": "dismiss", "fallback": {"type": "dismiss"}}"#,
        "$.root.properties.action.fallback", "a fallback for dismiss (schema version 2) must be older; dismiss is version 2"),
    actionInvalid(
        "fallback checked as an action", #"{"type": "back", "fallback": {"type": "navigate"}}"#,
        "$.root.properties.action.fallback", "missing required key \"url\""),
    actionInvalid(
        "fallback inside a sequence checked too", #"{"type": "sequence", "actions": [{"type": "copy", "text": "x", "fallback": {"type": "openURL", "url": "x"}}]}"#,
        "$.root.properties.action.actions[0].fallback.url", "\"x\" is not an absolute URL such as app://product/42"),
]

@Suite struct ActionTests {
    @Test(arguments: invalidActions)
    func refusedWithPathLineAndReason(_ invalid: Invalid) throws {
        let found = diagnostics(invalid.text)
        #expect(found.count == 1, "\(found)")
        let diagnostic = try #require(found.first)
        #expect(diagnostic.path.description == invalid.path)
        #expect(diagnostic.location.line == invalid.line)
        #expect(diagnostic.message.contains(invalid.reason), "\(diagnostic.message)")
    }

    @Test(arguments: [
        #"{"type": "back"}"#,
        #"{"type": "reload"}"#,
        #"{"type": "share", "url": "https://example.com/p/42"}"#,
        #"{"type": "share", "text": "Look"}"#,
        #"{"type": "share", "url": "http://example.com", "text": "Look", "fallback": {"type": "openURL", "url": "http://example.com"}}"#,
        #"{"type": "copy", "text": "SAVE10"}"#,
        #"{"type": "navigate", "url": "app://cart", "presentation": "fullScreen"}"#,
        #"{"type": "sequence", "actions": [{"type": "track", "event": "buy"}, {"type": "navigate", "url": "app://cart"}]}"#,
        #"{"type": "sequence", "actions": [{"type": "sequence", "actions": [{"type": "sequence", "actions": [{"type": "sequence", "actions": [{"type": "back"}]}]}]}]}"#,
        #"{"type": "sequence", "actions": [{"type": "back", "fallback": {"type": "dismiss"}}], "fallback": {"type": "dismiss"}}"#,
    ])
    func acceptedInAVersion3Screen(action: String) throws {
        let text = document(root: "{\"type\": \"Spacer\", \"properties\": {\"action\": \(action)}}", schemaVersion: 3)
        #expect(throws: Never.self) { try decodeScreen(text).get() }
    }

    /// A whole `action` newer than the screen is refused once, for the property, not again for its kind.
    @Test func actionPropertyInAVersion1ScreenIsOneMistake() {
        let found = diagnostics(document(root: #"{"type": "Spacer", "properties": {"action": {"type": "back"}}}"#, schemaVersion: 1))
        #expect(found.map(\.message) == ["\"action\" needs schema version 2, but the screen declares schemaVersion 1"])
    }

    /// The `fallback` of an action is authored data: the screen's encoding keeps it (and so its fingerprint).
    @Test func fallbacksRoundTrip() throws {
        let root = #"{"type":"Button","properties":{"action":{"type":"sequence","actions":[{"type":"track","event":"e"},{"type":"share","text":"t","fallback":{"type":"dismiss"}}],"fallback":{"type":"navigate","url":"app://x","presentation":"fullScreen"}}},"values":{"title":"Go"}}"#
        let screen = try inlineScreen(root, schemaVersion: 3)
        #expect(JSONWriter.string(screen.root.jsonValue) == root)
    }
}
