import Foundation
import Testing
import TrellisJSON
import TrellisScreens
import TrellisTesting

/// `Screen.encodedJSON(revision:)` writes the model straight to bytes; content fingerprints are
/// stored, so those bytes must be exactly `JSONWriter.encode(jsonValue(revision:))`'s.
@Suite struct EncodedJSONTests {
    func expectSameBytes(_ screen: Screen, revision: Int = 0, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let expected = JSONWriter.encode(screen.jsonValue(revision: revision))
        let written = screen.encodedJSON(revision: revision)
        #expect(
            written == expected, "\(screen.id): \(String(decoding: written, as: UTF8.self))\nexpected \(String(decoding: expected, as: UTF8.self))",
            sourceLocation: sourceLocation)
    }

    @Test func configScreens() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: screensDirectory.path).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 4)
        for file in files {
            let screen = try configScreen(String(file.dropLast(5)))
            expectSameBytes(screen)
            expectSameBytes(screen, revision: 12)
        }
    }

    @Test func fixtureScreens() throws {
        let directory = screensDirectory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/screens/valid")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 4)
        for file in files {
            let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(file)))
            expectSameBytes(try ScreenDecoder().decode(bytes, source: file, expectedID: String(file.dropLast(5)), templates: configTemplates).get())
        }
    }

    /// Escapes, non-ASCII text, fractions and large numbers, nested metadata, styles, an empty
    /// experiment variant, a title and metadata on the screen, parameters, actions and pins (`align`
    /// is in Fixtures/screens/valid/pins.json).
    @Test func everyKindOfValue() throws {
        let text = """
            {"id": "t", "schemaVersion": 3, "title": "Tab\\there \\"quoted\\" \\u0001 é 日本", "metadata": {"a": [1, 2.5, -0.125, 1e21, true, null, {}], "b": {"c": []}},
             "root": {"type": "VStack", "id": "top", "style": {"flexDirection": "row", "flexGrow": 1.5}, "metadata": {"k\\n": "v\\\\"}, "subviews": [
               {"type": "Text", "properties": {"opacity": 0.35, "lineLimit": {"$param": "lines", "default": 2}}, "values": {"text": {"$format": "Hi {name} \\u00e9"}}},
               {"type": "Button", "properties": {"action": {"type": "sequence", "actions": [{"type": "track", "event": "e", "properties": {"n": 1.25, "s": "x"}}, {"type": "navigate", "url": "app://p/1"}]}}, "values": {"title": "b"}},
               {"type": "Rule", "rule": {"attribute": "now", "op": "after", "value": "2026-12-01"}, "child": {"type": "Divider"}},
               {"type": "Experiment", "id": "ex", "experiment": "e", "variants": {"a": null, "b": {"type": "Spacer"}}},
               {"type": "Carousel", "subviews": [{"type": "Circle"}], "fallback": {"type": "HStack", "subviews": [{"type": "Rectangle"}]}},
               {"type": "Pins", "pins": [{"pin": "H:|-m-[x]-(>=8)-[y]-m-|", "alignAll": "centerY"}, "V:|-(20)-[x]-(>=20)-|", "V:[y(24)]", "H:[y(==y.height)]"], "metrics": {"m": 4},
                "subviews": [{"type": "Text", "id": "x", "values": {"text": "x"}}, {"type": "Circle", "id": "y"}]}
             ]}}
            """
        let screen = try decodeScreen(text).get()
        expectSameBytes(screen)
        expectSameBytes(screen, revision: 1_000_000)
    }

    /// The trees `EncodingPlanTests` draws: 300 screens.
    @Test func generatedScreens() throws {
        var generator = SplitMix64(seed: 31)
        for index in 0..<300 {
            var tree = TreeGenerator(generator: generator)
            let root = tree.node(depth: 0)
            generator = tree.generator
            switch decodeScreen(document(root: root, schemaVersion: 3)) {
            case .success(let screen): expectSameBytes(screen, revision: index)
            case .failure(let error): Issue.record("screen \(index) does not decode: \(error)\n\(root)")
            }
        }
    }
}
