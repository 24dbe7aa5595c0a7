import Testing
import TrellisJSON
import TrellisScreens

@Suite struct DiagnosticsTests {
    /// The decoder does not stop at the first mistake: every one is reported, in document order here.
    @Test func reportsEveryErrorInOneDocument() {
        let text = """
            {
              "id": "home",
              "schemaVersion": 2,
              "root": {
                "type": "VStack", "id": "feed",
                "properties": {"spacing": -4, "padding": {"left": 8}},
                "subviews": [
                  {"type": "Txt", "values": {"text": "Hi"}},
                  {"type": "Image", "id": "feed", "values": {"imageUrl": "cdn.example.com/a.png"}},
                  {"type": "Rule", "rule": {"all": []}, "child": {"type": "Text", "properties": {"font": "huge"}, "values": {"text": "x"}}},
                  {"type": "Button", "values": {}}
                ]
              }
            }
            """
        let found = diagnostics(text)
        #expect(found.map(\.path.description) == [
            "$.root.properties.spacing",
            "$.root.properties.padding.left",
            "$.root.subviews[0].type",
            "$.root.subviews[1].id",
            "$.root.subviews[1].values.imageUrl",
            "$.root.subviews[2].rule.all",
            "$.root.subviews[2].child.properties.font",
            "$.root.subviews[3].values",
        ])
        #expect(found.map(\.location.line) == [6, 6, 8, 9, 9, 10, 10, 11])
    }

    /// The exact text an author sees, as quoted in docs/screens.md.
    @Test func descriptionNamesSourcePathLineAndReason() {
        let text = """
            {
              "id": "home",
              "schemaVersion": 2,
              "root": {
                "type": "VStack",
                "properties": {"spacing": "12", "paddng": 16},
                "subviews": [
                  {"type": "Txt", "values": {"text": "Hi"}},
                  {"type": "Image", "values": {"imageUrl": "https://cdn.example.com/a.png", "systemIconName": "star"}}
                ]
              }
            }
            """
        guard case .failure(let error) = ScreenDecoder().decode(Array(text.utf8), source: "screens/home.json") else {
            Issue.record("decoded")
            return
        }
        #expect(error.description == """
            screens/home.json: $.root.properties.paddng (line 6): unknown key "paddng"; did you mean "padding"?
            screens/home.json: $.root.properties.spacing (line 6): expected a number, found a string
            screens/home.json: $.root.subviews[0].type (line 8): unknown component type "Txt"; known types: Rule, Experiment, Template, Button, Carousel, Circle, Divider, HStack, Image, List, Navigation, Pins, Rectangle, ScrollView, Spacer, Tab, TabBar, Text, VStack, ZStack
            screens/home.json: $.root.subviews[1].values (line 9): Image needs exactly one of the values imageUrl, systemIconName, localImageName; found 2
            """)
    }

    @Test func syntaxErrorsHaveLineAndColumn() {
        let found = diagnostics("{\n  \"id\": \"test\",\n  \"schemaVersion\": 2,\n  \"root\": {\"type\": \"Spacer\",}\n}")
        #expect(found.count == 1)
        #expect(found.first?.path == .root)
        #expect(found.first?.location == TrellisJSON.SourceLocation(line: 4, column: 29))
        #expect(found.first?.message == "trailing comma before '}'")
    }

    @Test func expectedIDIsOptional() {
        let text = document(root: "{\"type\": \"Spacer\"}")
        #expect((try? decodeScreen(text).get()) != nil)
        #expect((try? decodeScreen(text, expectedID: "test").get()) != nil)
        #expect((try? decodeScreen(text, expectedID: "other").get()) == nil)
    }
}
