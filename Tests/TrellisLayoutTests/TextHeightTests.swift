import Testing
import TrellisJSON
import TrellisLayout
import TrellisLayoutJSON

/// Text is never shorter than its lines. The two trees below are the smallest forms of random
/// trees on which Trellis differed from Chromium (and from Yoga 3.2): each measure function clamped
/// the text's height to an `atMost` offer. Chromium's frames are the expected ones.
@Suite("Text keeps its lines' height")
struct TextHeightTests {
    func layOut(_ json: String) throws -> LayoutNode {
        let root = try LayoutTree.build(try JSONParser.parse(json), mode: .yoga)
        root.calculateLayout()
        return root
    }

    /// `{"width":390} > {} > {"height":13} > text {"borderTop":5} "HHHH​HHHH​HHHHHHH"`: one 10 px
    /// line and the border, 15 px, overflowing its 13 px parent (Trellis gave 13).
    @Test func textOverflowsAShortParent() throws {
        let root = try layOut(#"""
            {"style": {"width": 390}, "children": [{"children": [{"style": {"height": 13}, "children": [
              {"style": {"borderTop": 5}, "text": "HHHH\u200bHHHH\u200bHHHHHHH"}]}]}]}
            """#)
        let text = root.children[0].children[0].children[0]
        #expect(text.frame == LayoutFrame(left: 0, top: 0, width: 390, height: 15))
        #expect(root.children[0].children[0].frame.height == 13)
    }

    /// A column 190 high holding a 169 px box and a shrinkable box around a one-line text with a
    /// 12 px top margin: the text stays 10 px high (Trellis gave 9).
    @Test func shrinkingDoesNotSquashText() throws {
        let root = try layOut(#"""
            {"style": {"width": 100, "height": 190}, "children": [
              {"style": {"height": 169}},
              {"style": {"flexShrink": 1}, "children": [{"style": {"marginTop": 12}, "text": "HHHH"}]}]}
            """#)
        #expect(root.children[1].children[0].frame.height == 10)
    }
}
