import Testing
import TrellisJSON
import TrellisLayout
import TrellisLayoutJSON

/// Each erratum added for the Chromium judge gives Yoga 3.2's answer when set and the browser's
/// (the fixtures' Chromium frames) when not, on the smallest tree that shows the difference.
@Suite("Layout errata")
struct ErrataTests {
    /// Lays `json` out 390 wide, LTR, unrounded, and returns the frame of the node tagged `id`.
    private func frame(_ json: String, _ id: String, errata: LayoutErrata) throws -> LayoutFrame {
        let root = try LayoutTree.build(try JSONParser.parse(json), mode: .yoga)
        root.calculateLayout(availableWidth: 390, availableHeight: nil, direction: .ltr,
                             config: LayoutConfig(mode: .yoga, pointScaleFactor: 0, errata: errata))
        func find(_ node: LayoutNode) -> LayoutNode? {
            node.tag == id ? node : node.children.lazy.compactMap(find).first
        }
        return try #require(find(root)).frame
    }

    @Test("Baseline alignment across a column: Chromium lines up the line-left edges, Yoga aligns flex-start")
    func columnBaseline() throws {
        let tree = #"{"style": {"alignItems": "baseline"}, "children": [{"style": {"width": 10, "marginLeft": 12}}, {"id": "b", "style": {"width": 10}}]}"#
        #expect(try frame(tree, "b", errata: []).left == 12)
        #expect(try frame(tree, "b", errata: .columnBaselineIsFlexStart).left == 0)
    }

    @Test("A single flexible item with flexGrow 0.5 keeps its own size in a container sized by it")
    func singleFlexChild() throws {
        let tree = #"{"children": [{"children": [{"id": "i", "style": {"height": 5, "flexGrow": 0.5, "flexShrink": 1}}]}]}"#
        #expect(try frame(tree, "i", errata: []).height == 5)
        #expect(try frame(tree, "i", errata: .singleFlexChildFillsContainer).height == 2.5)
    }

    @Test("space-evenly in an overflowing row-reverse line falls back to the start of the direction")
    func distributedFallback() throws {
        let tree = #"{"children": [{"style": {"width": 0, "flexDirection": "row-reverse", "justifyContent": "space-evenly"}, "children": [{"id": "i", "style": {"width": 5}}]}]}"#
        #expect(try frame(tree, "i", errata: []).left == 0)
        #expect(try frame(tree, "i", errata: .distributedJustifyFallsBackToFlexStart).left == -5)
    }

    @Test("A fit-content column offered no width is as wide as its widest word")
    func fitContentWithoutSpace() throws {
        let tree = #"{"children": [{"style": {"width": 0, "alignItems": "flex-start"}, "children": [{"id": "c", "children": [{"children": [{"text": "HH"}]}]}]}]}"#
        #expect(try frame(tree, "c", errata: []).width == 20)
        #expect(try frame(tree, "c", errata: .fitContentWithoutSpaceIsEmpty).width == 0)
    }

    @Test("A definite flex-basis counts in a column of unset height")
    func flexBasisInUnboundedContainer() throws {
        let tree = #"{"children": [{"id": "i", "style": {"flexBasis": 5}}]}"#
        #expect(try frame(tree, "i", errata: []).height == 5)
        #expect(try frame(tree, "i", errata: .flexBasisIgnoredInUnboundedContainer).height == 0)
    }

    @Test("A percentage flex-basis is resolved again once the container's size is known")
    func flexBasisResolvedAgain() throws {
        let tree = #"{"style": {"height": 100}, "children": [{"style": {"flexGrow": 1}, "children": [{"id": "i", "style": {"flexBasis": "50%"}}]}]}"#
        #expect(try frame(tree, "i", errata: []).height == 50)
        #expect(try frame(tree, "i", errata: .flexBasisKeptAcrossPasses).height == 0)
    }

    @Test("Flexible lengths: growing items share the space their unclamped flex bases leave")
    func flexibleLengthsLoop() throws {
        let tree = #"{"style": {"height": 10}, "children": [{"id": "a", "style": {"flexGrow": 1, "minHeight": 5}}, {"style": {"flexGrow": 1}}]}"#
        #expect(try frame(tree, "a", errata: []).height == 5)
        #expect(try frame(tree, "a", errata: .flexibleLengthsInTwoPasses).height == 7.5)
        #expect(try frame(tree, "a", errata: .flexBasisClampedByMinMax).height == 7.5)
    }

    @Test("Text in a box with maxWidth 0 is measured at that width and wraps at every word")
    func measureWithinMinMax() throws {
        let tree = #"{"style": {"alignItems": "flex-start"}, "children": [{"id": "t", "style": {"maxWidth": 0}, "text": "HH\u200bH\u200bH"}]}"#
        #expect(try frame(tree, "t", errata: []).height == 30)
        #expect(try frame(tree, "t", errata: .measureIgnoresMinMax).height == 20)
    }

    @Test("A text stretched in a fit-content column wider than its offered width wraps at the column's width")
    func fitContentColumnWidth() throws {
        let tree = #"{"style": {"width": 0, "alignItems": "flex-start"}, "children": [{"children": [{"style": {"width": 20}}, {"id": "t", "text": "H\u200bH"}]}]}"#
        #expect(try frame(tree, "t", errata: []).height == 10)
        #expect(try frame(tree, "t", errata: .fitContentColumnKeepsOfferedWidth).height == 20)
    }

    @Test("A row-reverse container's baseline comes from its visually first item")
    func reversedAxisBaseline() throws {
        let tree = #"{"style": {"flexDirection": "row", "alignItems": "baseline"}, "children": [{"style": {"flexDirection": "row-reverse"}, "children": [{}, {"text": "H"}]}, {"id": "b"}]}"#
        #expect(try frame(tree, "b", errata: []).top == 8)
        #expect(try frame(tree, "b", errata: .baselineFromFirstChildInReversedAxis).top == 10)
    }
}
