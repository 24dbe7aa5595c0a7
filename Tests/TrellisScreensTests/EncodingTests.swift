import Testing
import TrellisJSON
import TrellisScreens

@Suite struct EncodingTests {
    /// Node keys in a fixed order, empty groups left out, authored order of properties kept.
    @Test func writesTheDocumentedShape() throws {
        let text = """
            {"metadata": {"b": 1, "a": 2}, "root": {"subviews": [], "metadata": {"k": 1}, "values": {}, "fallback": {"type": "VStack"},
              "properties": {"width": 12.0, "padding": {"top": 1.5}}, "id": "s", "type": "ScrollView"}, "title": "T", "schemaVersion": 2, "id": "t"}
            """
        let screen = try decodeScreen(text).get()
        #expect(JSONWriter.string(screen.jsonValue(revision: 7)) == """
            {"id":"t","revision":7,"schemaVersion":2,"title":"T","metadata":{"b":1,"a":2},"root":\
            {"type":"ScrollView","id":"s","properties":{"width":12,"padding":{"top":1.5}},"fallback":{"type":"VStack"},"metadata":{"k":1}}}
            """)
    }

    @Test func rulesAndExperimentsKeepTheirShape() throws {
        let text = document(root: """
            {"type": "VStack", "subviews": [
              {"else": {"type": "Spacer"}, "child": {"type": "Divider"}, "rule": {"attribute": "now", "op": "after", "value": "2026-12-01"}, "id": "r", "type": "Rule"},
              {"variants": {"a": null, "b": {"type": "Spacer"}}, "experiment": "e", "type": "Experiment"}
            ]}
            """)
        let screen = try decodeScreen(text).get()
        #expect(JSONWriter.string(screen.root.jsonValue) == """
            {"type":"VStack","subviews":[\
            {"type":"Rule","id":"r","rule":{"attribute":"now","op":"after","value":"2026-12-01T00:00:00Z"},"child":{"type":"Divider"},"else":{"type":"Spacer"}},\
            {"type":"Experiment","experiment":"e","variants":{"a":null,"b":{"type":"Spacer"}}}]}
            """)
    }

    @Test func sameScreenSameBytes() throws {
        let text = document(root: "{\"type\": \"Text\", \"properties\": {\"opacity\": 0.35}, \"values\": {\"text\": \"é \\\"q\\\"\\n\"}}")
        let a = JSONWriter.encode(try decodeScreen(text).get().jsonValue(revision: 1))
        let b = JSONWriter.encode(try decodeScreen(text).get().jsonValue(revision: 1))
        #expect(a == b)
        #expect(String(decoding: a, as: UTF8.self).contains(#""properties":{"opacity":0.35},"values":{"text":"é \"q\"\n"}"#))
    }
}
