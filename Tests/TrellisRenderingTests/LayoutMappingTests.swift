import Foundation
import Testing
import TrellisJSON
import TrellisText

/// Each component type maps to flexbox nodes as docs/layout.md ("From a screen to frames") says:
/// frames of small screens compared with values computed by hand.
@Suite struct LayoutMappingTests {
    static let viewport = "width=200&height=400&scale=1"

    /// Lays out `root` (a component as JSON text) and returns the answer.
    func layout(_ root: String, _ query: String = LayoutMappingTests.viewport) throws -> FramedAnswer {
        try Renderer(roots: ["s": root]).layout("s", query)
    }

    func rect(_ id: String, _ width: Int, _ height: Int, _ extra: String = "") -> String {
        #"{"type": "Rectangle", "id": "\#(id)", "properties": {"width": \#(width), "height": \#(height)\#(extra)}}"#
    }

    @Test(arguments: [("leading", 10.0), ("center", 75.0), ("trailing", 140.0)])
    func vStackStacksWithSpacingPaddingAndAlignment(alignment: String, x: Double) throws {
        let answer = try layout(
            #"{"type": "VStack", "id": "root", "properties": {"spacing": 5, "padding": 10, "horizontalAlignment": "\#(alignment)"},"#
                + #" "subviews": [\#(rect("a", 50, 20)), \#(rect("b", 30, 10))]}"#)
        #expect(answer.frame("root") == AnswerFrame(0, 0, 200, 400))
        #expect(answer.frame("a") == AnswerFrame(x, 10, 50, 20))
        #expect(answer.frame("b") == AnswerFrame(alignment == "center" ? 85 : alignment == "leading" ? 10 : 160, 35, 30, 10))
    }

    @Test func hStackWithASpacerFillsTheRowAndPushesItsNeighbours() throws {
        let answer = try layout(
            #"{"type": "VStack", "subviews": [{"type": "HStack", "id": "row", "subviews": [\#(rect("a", 40, 10)), {"type": "Spacer", "id": "s"}, \#(rect("b", 30, 10))]}]}"#)
        #expect(answer.frame("row") == AnswerFrame(0, 0, 200, 10))
        #expect(answer.frame("a") == AnswerFrame(0, 0, 40, 10))
        #expect(answer.frame("s") == AnswerFrame(40, 5, 130, 0))
        #expect(answer.frame("b") == AnswerFrame(170, 0, 30, 10))
    }

    @Test func rightToLeftMirrorsX() throws {
        let root = #"{"type": "VStack", "subviews": [{"type": "HStack", "id": "row", "properties": {"padding": {"leading": 4}}, "subviews": [\#(rect("a", 40, 10)), {"type": "Spacer", "id": "s"}, \#(rect("b", 30, 10))]}]}"#
        let ltr = try layout(root)
        let rtl = try layout(root, Self.viewport + "&direction=rtl")
        #expect(ltr.frame("a") == AnswerFrame(4, 0, 40, 10))
        for id in ["a", "s", "b"] {
            let l = try #require(ltr.frame(id)), r = try #require(rtl.frame(id))
            #expect(r.x == 200 - l.x - l.width, "\(id): \(l) in LTR, \(r) in RTL")
            #expect(r.y == l.y && r.width == l.width && r.height == l.height)
        }
    }

    @Test func zStackLayersTheFirstChildAndAlignsTheRest() throws {
        let answer = try layout(
            #"{"type": "VStack", "subviews": [{"type": "ZStack", "id": "z", "properties": {"width": 100, "height": 100, "alignment": "bottomTrailing"}, "#
                + #""subviews": [{"type": "Rectangle", "id": "base"}, \#(rect("badge", 20, 10))]}]}"#)
        #expect(answer.frame("z") == AnswerFrame(50, 0, 100, 100))
        #expect(answer.frame("base") == AnswerFrame(0, 0, 100, 100))
        #expect(answer.frame("badge") == AnswerFrame(80, 90, 20, 10))
    }

    @Test func aFillingZStackLayerIsInsetByThePadding() throws {
        let answer = try layout(
            #"{"type": "ZStack", "id": "z", "properties": {"padding": 10, "alignment": "bottom"}, "#
                + #""subviews": [{"type": "Rectangle", "id": "base"}, {"type": "Rectangle", "id": "caption", "properties": {"width": "fill", "height": 30}}]}"#)
        #expect(answer.frame("z") == AnswerFrame(0, 0, 200, 400))
        #expect(answer.frame("base") == AnswerFrame(10, 10, 180, 380))
        #expect(answer.frame("caption") == AnswerFrame(10, 360, 180, 30))
    }

    static func fonts() throws -> FontCollection {
        try ShippedFonts.collection()
    }

    static let wrapping = "Trellis lays out every screen"

    @Test func textWrapsAtItsContainersWidthAsTrellisTextMeasuresIt() throws {
        let fonts = try Self.fonts()
        let text = "Lays out screens"
        let expected = fonts.measure(text, TextStyle.body.attributes(on: .ios), availableWidth: 100)
        #expect(expected.lineCount == 2)
        let answer = try layout(
            #"{"type": "VStack", "properties": {"horizontalAlignment": "leading"}, "subviews": [{"type": "VStack", "id": "col", "properties": {"width": 100, "horizontalAlignment": "leading"}, "#
                + #""subviews": [{"type": "Text", "id": "t", "values": {"text": "\#(text)"}}]}]}"#)
        let frame = try #require(answer.frame("t"))
        #expect(frame.height == 2 * 22)
        #expect(frame.width == expected.width.rounded(.up))
        #expect(answer.components["t"]?.component["lines"]?.numberValue == 2)
    }

    @Test(arguments: [1.0, 1.5, 2.0])
    func fontScaleChangesTextHeights(fontScale: Double) throws {
        let fonts = try Self.fonts()
        let expected = fonts.measure(Self.wrapping, TextStyle.headline.attributes(on: .android, fontScale: fontScale), availableWidth: 100)
        let answer = try layout(
            #"{"type": "VStack", "properties": {"horizontalAlignment": "leading"}, "subviews": [{"type": "Text", "id": "t", "properties": {"font": "headline", "width": 100}, "values": {"text": "\#(Self.wrapping)"}}]}"#,
            Self.viewport + "&platform=android&fontScale=\(fontScale)")
        #expect(answer.frame("t")?.height == (Double(expected.lineCount) * 24 * fontScale).rounded(.up))
        let unscaled = fonts.measure(Self.wrapping, TextStyle.headline.attributes(on: .android), availableWidth: 100)
        if fontScale > 1 { #expect(try #require(answer.frame("t")).height > Double(unscaled.lineCount) * 24) }
    }

    @Test func framesAreRoundedToThePixelGridOfTheScale() throws {
        let answer = try layout(
            #"{"type": "HStack", "id": "row", "subviews": [{"type": "Rectangle", "id": "r0"}, {"type": "Rectangle", "id": "r1"}, {"type": "Rectangle", "id": "r2"}, {"type": "Rectangle", "id": "r3"}]}"#,
            "width=101&height=50&scale=3")
        var total = 0.0
        for id in ["r0", "r1", "r2", "r3"] {
            let frame = try #require(answer.frame(id))
            for value in [frame.x, frame.width] {
                #expect(abs(value * 3 - (value * 3).rounded()) < 0.001, "\(id): \(value) is not on a 1/3 grid")
            }
            #expect(abs(frame.width - 25.25) < 1.0 / 3)
            total += frame.width
        }
        #expect(abs(total - 101) < 0.001)
    }

    @Test func dividersAreHairlinesAcrossTheirParentsAxis() throws {
        let answer = try layout(
            #"{"type": "VStack", "subviews": [{"type": "Divider", "id": "d"}, {"type": "HStack", "id": "row", "subviews": [\#(rect("a", 10, 30)), {"type": "Divider", "id": "v", "properties": {"thickness": 2}}]}]}"#,
            "width=200&height=400&scale=2")
        #expect(answer.frame("d") == AnswerFrame(0, 0, 200, 0.5))
        #expect(answer.frame("v") == AnswerFrame(10, 0, 2, 30))
    }

    @Test func imagesTakeTheirSizeTheirRatioOrAPlaceholder() throws {
        let answer = try layout(
            #"{"type": "VStack", "properties": {"horizontalAlignment": "leading"}, "subviews": ["#
                + #"{"type": "Image", "id": "picture", "values": {"imageUrl": "https://example.com/a.jpg"}},"#
                + #"{"type": "Image", "id": "icon", "values": {"systemIconName": "star"}},"#
                + #"{"type": "Image", "id": "sized", "properties": {"width": 50, "aspectRatio": 2}, "values": {"localImageName": "x"}},"#
                + #"{"type": "Image", "id": "ratio", "properties": {"aspectRatio": 4}, "values": {"localImageName": "y"}}]}"#)
        #expect(answer.frame("picture") == AnswerFrame(0, 0, 100, 100))
        #expect(answer.frame("icon") == AnswerFrame(0, 100, 24, 24))
        #expect(answer.frame("sized") == AnswerFrame(0, 124, 50, 25))
        #expect(answer.frame("ratio") == AnswerFrame(0, 149, 200, 50))
    }

    @Test func buttonsAreTheirMeasuredTitlePlusPadding() throws {
        let fonts = try Self.fonts()
        let title = fonts.measure("Add to cart", TextStyle.headline.attributes(on: .ios))
        let plain = fonts.measure("More", TextStyle.body.attributes(on: .ios))
        let answer = try layout(
            #"{"type": "VStack", "properties": {"horizontalAlignment": "leading"}, "subviews": [{"type": "Button", "id": "b", "values": {"title": "Add to cart"}}, "#
                + #"{"type": "Button", "id": "p", "properties": {"style": "plain"}, "values": {"title": "More"}}]}"#)
        #expect(answer.frame("b") == AnswerFrame(0, 0, (title.width + 32).rounded(.up), 42))
        #expect(answer.frame("p") == AnswerFrame(0, 42, plain.width.rounded(.up), 22))
    }

    @Test func carouselItemsTakeTheItemWidthAndOverflow() throws {
        let item = { (id: String) in #"{"type": "Rectangle", "id": "\#(id)", "properties": {"height": 50}}"# }
        let answer = try layout(
            #"{"type": "VStack", "subviews": [{"type": "Carousel", "id": "c", "properties": {"itemWidth": 80, "spacing": 10}, "subviews": [\#(item("i0")), \#(item("i1")), \#(item("i2"))]}]}"#)
        #expect(answer.frame("c") == AnswerFrame(0, 0, 200, 50))
        #expect(answer.frame("i0") == AnswerFrame(0, 0, 80, 50))
        #expect(answer.frame("i1") == AnswerFrame(90, 0, 80, 50))
        #expect(answer.frame("i2") == AnswerFrame(180, 0, 80, 50))
    }

    /// A page of a carousel is as wide as its `itemWidth` says even when the item fills on its
    /// own (the shipped product gallery: `itemWidth: "100%"`, images with `width: "fill"`, which
    /// were laid out 0 wide: the item's flex basis of 0 outweighed the item width).
    @Test func carouselPagesOfFillingItemsTakeTheItemWidth() throws {
        let image = { (id: String) in
            #"{"type": "Image", "id": "\#(id)", "properties": {"width": "fill", "height": "fill"}, "values": {"imageUrl": "https://e.com/\#(id).jpg"}}"#
        }
        let answer = try layout(
            #"{"type": "VStack", "subviews": [{"type": "Carousel", "id": "c", "properties": {"itemWidth": "100%", "height": 120}, "subviews": [\#(image("p0")), \#(image("p1"))]}]}"#)
        #expect(answer.frame("c") == AnswerFrame(0, 0, 200, 120))
        #expect(answer.frame("p0") == AnswerFrame(0, 0, 200, 120))
        #expect(answer.frame("p1") == AnswerFrame(200, 0, 200, 120))
    }

    @Test func listsPutSeparatorsInTheMiddleOfTheSpacing() throws {
        let answer = try layout(
            #"{"type": "List", "id": "l", "properties": {"spacing": 10}, "subviews": [{"type": "Rectangle", "id": "a", "properties": {"height": 20}}, {"type": "Rectangle", "id": "b", "properties": {"height": 20}}]}"#)
        #expect(answer.frame("l") == AnswerFrame(0, 0, 200, 400))
        #expect(answer.frame("a") == AnswerFrame(0, 0, 200, 20))
        #expect(answer.frame("l/separator[0]") == AnswerFrame(0, 25, 200, 1))
        #expect(answer.frame("b") == AnswerFrame(0, 31, 200, 20))
    }

    @Test func scrollViewContentIsNotConstrainedOnTheScrollAxis() throws {
        let answer = try layout(
            #"{"type": "ScrollView", "id": "s", "subviews": [{"type": "Rectangle", "id": "a", "properties": {"height": 300}}, {"type": "Rectangle", "id": "b", "properties": {"height": 300}}]}"#)
        #expect(answer.frame("s") == AnswerFrame(0, 0, 200, 400))
        #expect(answer.frame("a") == AnswerFrame(0, 0, 200, 300))
        #expect(answer.frame("b") == AnswerFrame(0, 300, 200, 300))
    }

    @Test func hiddenComponentsTakeNoSpace() throws {
        let answer = try layout(
            #"{"type": "VStack", "properties": {"horizontalAlignment": "leading"}, "subviews": [\#(rect("a", 10, 10, #", "hidden": true"#)), \#(rect("b", 10, 10))]}"#)
        #expect(answer.frame("a") == AnswerFrame(0, 0, 0, 0))
        #expect(answer.components["a"]?.component["hidden"]?.boolValue == true)
        #expect(answer.frame("b") == AnswerFrame(0, 0, 10, 10))
    }

    @Test func safeAreasNavigationBarAndContent() throws {
        let root = #"{"type": "Navigation", "id": "n", "properties": {"titleDisplayMode": "MODE"}, "values": {"title": "T"}, "subviews": [{"type": "VStack", "id": "v"}]}"#
        let inline = try layout(root.replacingOccurrences(of: "MODE", with: "inline"), Self.viewport + "&safeTop=47&safeBottom=34")
        #expect(inline.frame("n") == AnswerFrame(0, 47, 200, 319))
        #expect(inline.frame("n/bar") == AnswerFrame(0, 0, 200, 44))
        #expect(inline.frame("v") == AnswerFrame(0, 44, 200, 275))
        let large = try layout(root.replacingOccurrences(of: "MODE", with: "large"), Self.viewport + "&safeTop=47")
        #expect(large.frame("n/bar") == AnswerFrame(0, 0, 200, 96))
        let android = try layout(root.replacingOccurrences(of: "MODE", with: "large"), Self.viewport + "&platform=android")
        #expect(android.frame("n/bar") == AnswerFrame(0, 0, 200, 64))
    }

    @Test func tabBarLaysOutOnlyTheSelectedTabAboveItsBar() throws {
        let answer = try layout(
            #"{"type": "TabBar", "id": "tb", "properties": {"selectedIndex": 1}, "subviews": ["#
                + #"{"type": "Tab", "id": "t0", "values": {"title": "A"}, "subviews": [{"type": "VStack", "id": "v0"}]},"#
                + #"{"type": "Tab", "id": "t1", "values": {"title": "B"}, "subviews": [{"type": "VStack", "id": "v1"}]}]}"#,
            Self.viewport + "&safeBottom=34")
        #expect(answer.frame("tb") == AnswerFrame(0, 0, 200, 366))
        #expect(answer.frame("t1") == AnswerFrame(0, 0, 200, 317))
        #expect(answer.frame("v1") == AnswerFrame(0, 0, 200, 317))
        #expect(answer.frame("tb/bar") == AnswerFrame(0, 317, 200, 49))
        #expect(answer.components["t0"]?.component["hidden"]?.boolValue == true)
        #expect(answer.frame("t0") == AnswerFrame(0, 0, 0, 0))
    }

    @Test func commonSizesPercentagesLimitsBordersAndCircles() throws {
        let answer = try layout(
            #"{"type": "VStack", "properties": {"horizontalAlignment": "leading"}, "subviews": ["#
                + #"{"type": "Rectangle", "id": "half", "properties": {"width": "50%", "height": 10}},"#
                + #"{"type": "Rectangle", "id": "capped", "properties": {"width": "fill", "maxWidth": 80, "minHeight": 12, "height": 4}},"#
                + #"{"type": "VStack", "id": "boxed", "properties": {"borderWidth": 3, "padding": {"leading": 5, "vertical": 2}, "horizontalAlignment": "leading"}, "subviews": [\#(rect("inner", 10, 10))]},"#
                + #"{"type": "Circle", "id": "dot", "properties": {"width": 20}}]}"#)
        #expect(answer.frame("half") == AnswerFrame(0, 0, 100, 10))
        #expect(answer.frame("capped") == AnswerFrame(0, 10, 80, 12))
        #expect(answer.frame("boxed") == AnswerFrame(0, 22, 3 + 5 + 10 + 3, 3 + 2 + 10 + 2 + 3))
        #expect(answer.frame("inner") == AnswerFrame(8, 5, 10, 10))
        #expect(answer.frame("dot") == AnswerFrame(0, 42, 20, 20))
        let rtl = try layout(
            #"{"type": "VStack", "properties": {"horizontalAlignment": "leading"}, "subviews": [{"type": "VStack", "id": "boxed", "properties": {"padding": {"leading": 5}}, "subviews": [\#(rect("inner", 10, 10))]}]}"#,
            Self.viewport + "&direction=rtl")
        #expect(rtl.frame("boxed") == AnswerFrame(185, 0, 15, 10))
        #expect(rtl.frame("inner") == AnswerFrame(0, 0, 10, 10), "leading padding is on the right in RTL")
    }

    @Test func componentsWithoutAnIdAreNamedByTheirPath() throws {
        let answer = try layout(#"{"type": "VStack", "subviews": [\#(rect("a", 10, 10)), {"type": "Spacer"}]}"#)
        #expect(answer.components["$.root"] != nil)
        #expect(answer.components["$.root.subviews[1]"] != nil)
        #expect(answer.components["a"] != nil)
    }

    @Test func webModeUsesCSSDefaults() throws {
        let answer = try layout(#"{"type": "VStack", "id": "root", "subviews": [\#(rect("a", 10, 10))]}"#, Self.viewport + "&web=1")
        #expect(answer.json["viewport"]?["mode"]?.stringValue == "web")
        #expect(answer.frame("a") == AnswerFrame(95, 0, 10, 10))
    }
}
