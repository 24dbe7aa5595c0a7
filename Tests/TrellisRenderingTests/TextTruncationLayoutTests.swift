import Testing
import TrellisJSON
import TrellisText
@testable import TrellisRendering

/// A `lineLimit` that cuts a text: the layout answer says `truncated`, the frame is measured with
/// the "…" line, and the preview draws that line.
@Suite struct TextTruncationLayoutTests {
    static let long = "Recommended for you and everyone you know, today only"

    @Test func theAnswerSaysWhichTextsWereCutAndThePreviewDrawsTheEllipsis() throws {
        let renderer = try Renderer(roots: [
            "cut": #"""
            {"type": "VStack", "id": "box", "properties": {"width": 150, "horizontalAlignment": "leading"}, "subviews": [
              {"type": "Text", "id": "one-line", "properties": {"lineLimit": 1}, "values": {"text": "\#(Self.long)"}},
              {"type": "Text", "id": "two-lines", "properties": {"lineLimit": 2}, "values": {"text": "\#(Self.long)"}},
              {"type": "Text", "id": "fits", "properties": {"lineLimit": 1}, "values": {"text": "Today"}},
              {"type": "Text", "id": "free", "values": {"text": "\#(Self.long)"}}
            ]}
            """#
        ])
        let query = "platform=ios&width=390&height=844&scale=3"
        let answer = try renderer.layout("cut", query)
        let node = { (id: String) in answer.components[id]?.component }
        #expect(node("one-line")?["truncated"]?.boolValue == true)
        #expect(node("one-line")?["lines"]?.numberValue == 1)
        #expect(node("two-lines")?["truncated"]?.boolValue == true)
        #expect(node("two-lines")?["lines"]?.numberValue == 2)
        #expect(node("fits")?["truncated"] == nil)
        #expect(node("free")?["truncated"] == nil)
        #expect((node("free")?["lines"]?.numberValue ?? 0) > 2)

        // The frame is the "…" line's width, as TrellisText measures it at the width offered.
        let fonts = renderer.fonts
        let attributes = TextStyle.body.attributes(on: .ios, lineLimit: 1)
        let measured = fonts.measure(Self.long, attributes, availableWidth: 150)
        let shown = try #require(measured.lineTexts(of: Self.long).first)
        #expect(shown.hasSuffix("…") && shown.count < Self.long.count)
        let frame = try #require(answer.frame("one-line"))
        #expect(frame.width <= 150)
        #expect(abs(frame.width - measured.width) < 1.0 / 3 + 1e-4, "frame \(frame.width), measured \(measured.width)")
        #expect(frame.height == 22)

        let html = try renderer.preview("cut", query)
        #expect(html.contains("<bdi>\(Markup.escape(shown))</bdi></span>"), "the preview draws \(shown)")
        let svg = try renderer.preview("cut", query, svg: true)
        #expect(svg.contains(">\(Markup.escape(shown))</tspan>"))
    }
}
