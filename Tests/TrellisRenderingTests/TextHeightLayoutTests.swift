import Testing
import TrellisJSON

/// A screen's text leaf keeps its lines' height in a container too short for it: the label
/// overflows (as on the web and in UIKit) instead of being squashed into the offer.
@Suite struct TextHeightLayoutTests {
    @Test func aLabelIsNeverShorterThanItsLine() throws {
        let renderer = try Renderer(roots: [
            "tight": #"{"type": "VStack", "id": "box", "properties": {"height": 8}, "subviews": [{"type": "Text", "id": "label", "values": {"text": "Hello"}}]}"#
        ])
        let answer = try renderer.layout("tight", "platform=ios&width=390&height=844&scale=3")
        let label = try #require(answer.frame("label"))
        let box = try #require(answer.frame("box"))
        #expect(box.height == 8)
        #expect(label.height > 20)  // one line of iOS body text (22 points), not the 8 offered
        #expect(answer.components["label"]?.component["lines"]?.numberValue == 1)
    }
}
