import Testing

/// The raw `style` key: any flexbox property by its Yoga style name, applied over the mapping.
/// (That the engine's parser refuses a bad one when the screen loads, and that the screen endpoint
/// passes it through: TrellisServerTests' LayoutStyleTests.)
@Suite struct LayoutStyleTests {
    @Test func aRawStyleOverridesTheMapping() throws {
        let renderer = try Renderer(roots: [
            "s": #"{"type": "VStack", "id": "root", "style": {"flexDirection": "row", "justifyContent": "flex-end", "paddingEnd": 5}, "subviews": ["#
                + #"{"type": "Rectangle", "id": "a", "properties": {"width": 10, "height": 10}}, {"type": "Rectangle", "id": "b", "properties": {"width": 20, "height": 10}}]}"#
        ])
        let answer = try renderer.layout("s", "width=200&height=400&scale=1")
        #expect(answer.frame("a") == AnswerFrame(165, 195, 10, 10))
        #expect(answer.frame("b") == AnswerFrame(175, 195, 20, 10))
    }
}
