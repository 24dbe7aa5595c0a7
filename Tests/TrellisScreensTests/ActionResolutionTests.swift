import Testing
import TrellisJSON
import TrellisScreens

/// Actions as clients of each schema version receive them.
@Suite struct ActionResolutionTests {
    let resolver = ScreenResolver()

    /// The resolved `action` of a Spacer whose authored action is `action`, and the replacements, for a client of `version`.
    func resolvedAction(_ action: String, for version: Int) throws -> (action: String?, replaced: [String]) {
        let screen = try inlineScreen("{\"type\": \"Spacer\", \"properties\": {\"action\": \(action)}}", schemaVersion: 3)
        let answer = resolver.resolve(screen, outcomes: Outcomes([]), clientSchemaVersion: version)
        let root = try #require(answer.root)
        #expect(root.type == "Spacer", "the component stays")
        return (root.properties.first { $0.key == "action" }.map { JSONWriter.string($0.value) }, answer.replaced.map { JSONWriter.string($0.jsonValue) })
    }

    @Test func version3ClientKeepsNewKindsWithoutFallbackKeys() throws {
        let shown = try resolvedAction(#"{"type": "share", "url": "https://e.com/p", "fallback": {"type": "openURL", "url": "https://e.com/p"}}"#, for: 3)
        #expect(shown.action == #"{"type":"share","url":"https://e.com/p"}"#)
        #expect(shown.replaced.isEmpty)
        let sequence = try resolvedAction(
            #"{"type": "sequence", "actions": [{"type": "copy", "text": "c", "fallback": {"type": "dismiss"}}, {"type": "back"}], "fallback": {"type": "dismiss"}}"#, for: 3)
        #expect(sequence.action == #"{"type":"sequence","actions":[{"type":"copy","text":"c"},{"type":"back"}]}"#)
    }

    @Test func version2ClientGetsTheAuthoredFallback() throws {
        let shown = try resolvedAction(#"{"type": "copy", "text": "SAVE10", "fallback": {"type": "track", "event": "copy-unsupported"}}"#, for: 2)
        #expect(shown.action == #"{"type":"track","event":"copy-unsupported"}"#)
        #expect(shown.replaced == [#"{"path":"$.root.properties.action","type":"copy","how":"fallback","replacement":"track"}"#])
    }

    @Test(arguments: [
        (#"{"type": "back"}"#, #"{"type":"dismiss"}"#, #"{"path":"$.root.properties.action","type":"back","how":"defaultFallback","replacement":"dismiss"}"#),
        (#"{"type": "share", "url": "https://e.com/p", "text": "Look"}"#, #"{"type":"openURL","url":"https://e.com/p"}"#,
         #"{"path":"$.root.properties.action","type":"share","how":"defaultFallback","replacement":"openURL"}"#),
        (#"{"type": "share", "text": "Look"}"#, nil, #"{"path":"$.root.properties.action","type":"share","how":"dropped"}"#),
        (#"{"type": "reload"}"#, nil, #"{"path":"$.root.properties.action","type":"reload","how":"dropped"}"#),
        (#"{"type": "copy", "text": "c"}"#, nil, #"{"path":"$.root.properties.action","type":"copy","how":"dropped"}"#),
    ] as [(String, String?, String)])
    func version2ClientGetsTheKindsDefault(authored: String, shown: String?, replacement: String) throws {
        let resolved = try resolvedAction(authored, for: 2)
        #expect(resolved.action == shown)
        #expect(resolved.replaced == [replacement])
    }

    /// A sequence stands for the last of its actions an older client can perform.
    @Test func sequenceFallsBackToItsLastPerformableAction() throws {
        let trackThenNavigate = try resolvedAction(
            #"{"type": "sequence", "actions": [{"type": "track", "event": "buy"}, {"type": "navigate", "url": "app://cart"}]}"#, for: 2)
        #expect(trackThenNavigate.action == #"{"type":"navigate","url":"app://cart"}"#)
        #expect(trackThenNavigate.replaced == [#"{"path":"$.root.properties.action","type":"sequence","how":"defaultFallback","replacement":"navigate"}"#])

        let endsInReload = try resolvedAction(
            #"{"type": "sequence", "actions": [{"type": "back"}, {"type": "share", "url": "https://e.com"}, {"type": "reload"}]}"#, for: 2)
        #expect(endsInReload.action == #"{"type":"openURL","url":"https://e.com"}"#)
        #expect(endsInReload.replaced == [#"{"path":"$.root.properties.action","type":"sequence","how":"defaultFallback","replacement":"openURL"}"#])

        let nothing = try resolvedAction(#"{"type": "sequence", "actions": [{"type": "copy", "text": "c"}, {"type": "reload"}]}"#, for: 2)
        #expect(nothing.action == nil)
        #expect(nothing.replaced == [#"{"path":"$.root.properties.action","type":"sequence","how":"dropped"}"#])

        let authored = try resolvedAction(#"{"type": "sequence", "actions": [{"type": "reload"}], "fallback": {"type": "dismiss"}}"#, for: 2)
        #expect(authored.action == #"{"type":"dismiss"}"#)
        #expect(authored.replaced == [#"{"path":"$.root.properties.action","type":"sequence","how":"fallback","replacement":"dismiss"}"#])
    }

    /// Version 1 clients have no actions at all: the property goes, as any property newer than the client.
    @Test func version1ClientGetsNoAction() throws {
        let resolved = try resolvedAction(#"{"type": "back"}"#, for: 1)
        #expect(resolved.action == nil)
        #expect(resolved.replaced.isEmpty)
    }

    /// Action replacements are listed by path (never by the component's id) in tree order with the components'.
    @Test func replacementsInTreeOrder() throws {
        let screen = try inlineScreen("""
            {"type": "VStack", "id": "page", "properties": {"action": {"type": "reload"}}, "subviews": [
              {"type": "Rule", "rule": {"rule": "r"}, "child": {"type": "Button", "id": "buy", "properties": {"action": {"type": "back"}}, "values": {"title": "Buy"}}},
              {"type": "Carousel", "id": "c", "properties": {"action": {"type": "sequence", "actions": [{"type": "dismiss"}]}}},
              {"type": "Text", "values": {"text": "t"}, "properties": {"action": {"type": "share", "text": "t", "fallback": {"type": "track", "event": "share"}}}}
            ]}
            """, schemaVersion: 3)
        let v2 = resolver.resolve(screen, outcomes: Outcomes([1]), clientSchemaVersion: 2)
        #expect(v2.replaced.map { JSONWriter.string($0.jsonValue) } == [
            #"{"path":"$.root.properties.action","type":"reload","how":"dropped"}"#,
            #"{"path":"$.root.subviews[0].child.properties.action","type":"back","how":"defaultFallback","replacement":"dismiss"}"#,
            #"{"path":"$.root.subviews[1].properties.action","type":"sequence","how":"defaultFallback","replacement":"dismiss"}"#,
            #"{"path":"$.root.subviews[2].properties.action","type":"share","how":"fallback","replacement":"track"}"#,
        ])
        #expect(v2.replaced.allSatisfy { $0.subject == .action && $0.id == nil })
        #expect(v2.root.map { JSONWriter.string($0.jsonValue) } == """
            {"type":"VStack","id":"page","subviews":[{"type":"Button","id":"buy","properties":{"action":{"type":"dismiss"}},"values":{"title":"Buy"}},\
            {"type":"Carousel","id":"c","properties":{"action":{"type":"dismiss"}}},{"type":"Text","properties":{"action":{"type":"track","event":"share"}},"values":{"text":"t"}}]}
            """)
        // Schema 1: the Button is dropped, the Carousel becomes an HStack, and no action is left to replace.
        let v1 = resolver.resolve(screen, outcomes: Outcomes([1]), clientSchemaVersion: 1)
        #expect(v1.replaced.map { JSONWriter.string($0.jsonValue) } == [
            #"{"id":"buy","type":"Button","how":"dropped"}"#, #"{"id":"c","type":"Carousel","how":"defaultFallback","replacement":"HStack"}"#,
        ])
        let v3 = resolver.resolve(screen, outcomes: Outcomes([1]), clientSchemaVersion: 3)
        #expect(v3.replaced.isEmpty)
        #expect(!JSONWriter.string(v3.jsonValue(revision: 1)).contains("fallback"))
    }
}
