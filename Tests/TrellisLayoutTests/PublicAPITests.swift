import Testing
import TrellisJSON
import TrellisLayout
import TrellisLayoutJSON

/// The public API as someone mapping UI components to nodes uses it.
@Suite("Public API")
struct PublicAPITests {
    /// Records the constraints a measure function receives.
    final class MeasureLog: @unchecked Sendable {
        var calls: [(Float, MeasureMode, Float, MeasureMode)] = []
    }

    @Test("Measure functions get Undefined, Exactly and AtMost constraints")
    func measureModes() {
        let log = MeasureLog()
        var rootStyle = Style()
        rootStyle.width = .points(200)
        rootStyle.alignItems = .flexStart
        let root = LayoutNode(style: rootStyle)
        let text = LayoutNode(measure: { width, widthMode, height, heightMode in
            log.calls.append((width, widthMode, height, heightMode))
            return Size(width: 50, height: 20)
        })
        root.addChild(text)
        root.calculateLayout()
        // Column container, align-items flex-start: the width is at most the container's, height unbounded.
        #expect(log.calls.contains { $0.0 == 200 && $0.1 == .atMost && $0.2.isNaN && $0.3 == .undefined })
        #expect(text.frame == LayoutFrame(left: 0, top: 0, width: 50, height: 20))

        log.calls.removeAll()
        var stretched = Style()
        stretched.width = .points(200)
        stretched.height = .points(100)
        root.style = stretched
        var fixed = Style()
        fixed.flexGrow = 1
        text.style = fixed
        root.calculateLayout()
        // Stretched and grown in a definite container: both sizes are exact, no measuring needed.
        #expect(text.frame == LayoutFrame(left: 0, top: 0, width: 200, height: 100))
        #expect(log.calls.allSatisfy { $0.1 != .undefined })
    }

    @Test("Rounding to the pixel grid at scale 3")
    func roundingAtScale3() {
        var rowStyle = Style()
        rowStyle.flexDirection = .row
        rowStyle.width = .points(100)
        rowStyle.height = .points(10)
        let root = LayoutNode(style: rowStyle)
        var third = Style()
        third.flexGrow = 1
        let children = (0..<3).map { _ in LayoutNode(style: third) }
        children.forEach(root.addChild)
        root.calculateLayout(config: LayoutConfig(pointScaleFactor: 3))
        // 100 / 3 = 33.333…: edges land on multiples of 1/3 point and the widths add up to 100.
        let frames = children.map(\.frame)
        #expect(frames.map(\.left) == [0, Float(100) / 3, Float(200) / 3].map { ($0 * 3).rounded() / 3 })
        #expect(abs(frames.reduce(0) { $0 + $1.width } - 100) < 0.001)
        for frame in frames {
            #expect(abs(frame.width * 3 - (frame.width * 3).rounded()) < 0.001)
        }
        // At scale 1 the same layout snaps to whole points.
        root.calculateLayout(config: LayoutConfig(pointScaleFactor: 1))
        #expect(children.map(\.frame.width) == [33, 34, 33])
    }

    @Test("display: none and display: contents")
    func displayNoneAndContents() {
        var rowStyle = Style()
        rowStyle.flexDirection = .row
        rowStyle.width = .points(300)
        rowStyle.height = .points(50)
        let root = LayoutNode(style: rowStyle)
        var grow = Style()
        grow.flexGrow = 1
        let hidden = LayoutNode(style: grow)
        hidden.style.display = .none
        var contentsStyle = Style()
        contentsStyle.display = .contents
        let contents = LayoutNode(style: contentsStyle)
        let a = LayoutNode(style: grow), b = LayoutNode(style: grow)
        contents.addChild(a)
        contents.addChild(b)
        root.addChild(hidden)
        root.addChild(contents)
        root.calculateLayout()
        #expect(hidden.frame == .zero)
        #expect(contents.frame == .zero)
        // The contents node's children are the row's items.
        #expect(a.frame == LayoutFrame(left: 0, top: 0, width: 150, height: 50))
        #expect(b.frame == LayoutFrame(left: 150, top: 0, width: 150, height: 50))
    }

    @Test("RTL: start/end insets and margins follow the direction")
    func rtlInsets() {
        var rootStyle = Style()
        rootStyle.width = .points(100)
        rootStyle.height = .points(100)
        let root = LayoutNode(style: rootStyle)
        var childStyle = Style()
        childStyle.positionType = .absolute
        childStyle.width = .points(10)
        childStyle.height = .points(10)
        childStyle.position.start = .points(5)
        childStyle.position.top = .percent(10)
        let child = LayoutNode(style: childStyle)
        var rowStyle = Style()
        rowStyle.flexDirection = .row
        rowStyle.height = .points(20)
        let row = LayoutNode(style: rowStyle)
        var itemStyle = Style()
        itemStyle.width = .points(30)
        itemStyle.margin.start = .points(7)
        let item = LayoutNode(style: itemStyle)
        row.addChild(item)
        root.addChild(child)
        root.addChild(row)

        root.calculateLayout(direction: .ltr)
        #expect(child.frame == LayoutFrame(left: 5, top: 10, width: 10, height: 10))
        #expect(item.frame.left == 7)

        root.calculateLayout(direction: .rtl)
        #expect(child.frame == LayoutFrame(left: 85, top: 10, width: 10, height: 10))
        #expect(item.frame.left == 100 - 7 - 30)
    }

    @Test("Style names parse into Style, errors name the property")
    func styleParser() throws {
        var style = Style()
        try style.set("flexDirection", .string("row-reverse"))
        try style.set("width", .string("50%"))
        try style.set("marginStart", .number(8))
        try style.set("marginLeft", .string("auto"))
        try style.set("flex", .number(1))
        #expect(style.flexDirection == .rowReverse)
        #expect(style.width == .percent(50))
        #expect(style.margin.start == .points(8))
        #expect(style.margin.left == .auto)
        #expect(style.flex == 1)
        #expect(throws: StyleParseError.unknownProperty("colour")) { try style.set("colour", .string("red")) }
        try style.set("width", .string("max-content"))
        #expect(style.width == .maxContent)
        #expect(throws: StyleParseError.unsupportedValue(property: "minWidth", value: "max-content")) {
            try style.set("minWidth", .string("max-content"))
        }
        let error = #expect(throws: DiagnosticsError.self) {
            _ = try LayoutTree.build(try JSONParser.parse(#"{"children":[{"style":{"padding":"auto"}}]}"#), mode: .yoga)
        }
        #expect(error?.diagnostics.map(\.path.description) == ["$.children[0].style.padding"])
        #expect(error?.diagnostics.first?.location == SourceLocation(line: 1, column: 34))
    }

    @Test("Web mode: row, flex-shrink 1, automatic minimum size")
    func webDefaults() throws {
        let json = #"{"style":{"width":100},"children":[{"style":{"width":80},"text":"HHHHHHHH"},{"style":{"width":80}}]}"#
        let root = try LayoutTree.build(try JSONParser.parse(json), mode: .web)
        root.calculateLayout(config: .web)
        // Items shrink, but the text item not below its longest word (80).
        #expect(root.children[0].frame.width == 80)
        #expect(root.children[1].frame.width == 20)
        #expect(root.children[1].frame.left == 80)
    }
}
