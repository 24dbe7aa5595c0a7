import Foundation
import Testing
import TrellisJSON
@testable import TrellisScreens
@testable import TrellisRendering
import TrellisText

/// A screen of one root, decoded and resolved as the server does (no rules: no decisions).
func resolvedScreen(_ root: String, schemaVersion: Int = 1) throws -> ResolvedScreen {
    let text = #"{"id": "t", "schemaVersion": \#(schemaVersion), "root": \#(root)}"#
    let screen = try ScreenDecoder().decode(Array(text.utf8), source: "t.json").get()
    return ScreenResolver().resolve(screen, outcomes: Outcomes([]), clientSchemaVersion: schemaVersion)
}

func compact(_ value: JSONValue) -> String { JSONWriter.string(value) }

/// A screen made directly, for trees the decoder would refuse (an Image with no source, types
/// newer than schema version 1 sent to DrivenUI anyway).
func screen(root: ResolvedComponent?, replaced: [ResolvedScreen.Replacement] = [], id: String = "t") -> ResolvedScreen {
    ResolvedScreen(
        id: id, schemaVersion: 1, title: nil, metadata: [], root: root, assignments: .init(), replaced: replaced,
        needsSubstitution: false)
}

@Suite struct DrivenUIConversionTests {
    func frames(_ resolved: ResolvedScreen) throws -> ScreenFrames {
        ScreenLayout(viewport: LayoutViewport(width: 390, height: 844), fonts: try ShippedFonts.collection()).layOut(resolved)
    }

    @Test func colours() throws {
        let body = DrivenUIFormat.body(try resolvedScreen(#"""
            {"type": "Text", "properties": {"foregroundColor": "#abc", "backgroundColor": "#1a2b3c80", "borderColor": "#12345600"},
             "values": {"text": "Hi"}}
            """#))
        // #RGB doubled, alpha dropped (DrivenUI draws opaque), a clear colour not drawn at all.
        #expect(compact(body) == #"{"type":"Text","values":{"text":"Hi"},"properties":{"foregroundColor":"AABBCC","backgroundColor":"1A2B3C"}}"#)
    }

    @Test(arguments: [
        (#""font": "title2""#, #""font":"headline","fontWeight":"regular""#),
        (#""font": "title3", "weight": "bold""#, #""font":"headline","fontWeight":"bold""#),
        (#""font": "caption2""#, #""font":"caption""#),
        (#""font": "headline""#, #""font":"headline""#),
        (#""font": "largeTitle", "weight": "black""#, #""font":"largeTitle","fontWeight":"black""#),
        (#""fontSize": 30"#, #""font":"title""#),
        (#""fontSize": 17"#, #""font":"body""#),
        (#""fontSize": 17, "weight": "semibold""#, #""font":"headline","fontWeight":"semibold""#),
        (#""font": "headline", "fontSize": 12"#, #""font":"caption","fontWeight":"semibold""#),
        (#""weight": "ultraLight""#, #""fontWeight":"ultraLight""#),
    ])
    func fontsAndWeights(authored: String, sent: String) throws {
        let body = DrivenUIFormat.body(try resolvedScreen(#"{"type": "Text", "properties": {\#(authored)}, "values": {"text": "Hi"}}"#))
        #expect(compact(body) == #"{"type":"Text","values":{"text":"Hi"},"properties":{\#(sent)}}"#)
    }

    @Test func substitutesAreTheNearestFontsBySize() {
        let metrics = DrivenUIFormat.Converted.iosMetrics
        for (style, substitute) in DrivenUIFormat.Converted.fontSubstitutes {
            let size = metrics(style).size
            let distance = abs(metrics(substitute).size - size)
            for other in DrivenUIFormat.Converted.fonts { #expect(distance <= abs(metrics(other).size - size), "\(style): \(other)") }
        }
    }

    @Test func uniformPaddingIsAWholeNumber() throws {
        let body = DrivenUIFormat.body(try resolvedScreen(#"""
            {"type": "VStack", "properties": {"padding": 12.5, "spacing": 7.5, "borderWidth": 0.5, "borderColor": "#000"}, "subviews": []}
            """#))
        #expect(compact(body) == #"{"type":"VStack","properties":{"borderColor":"000000","borderWidth":1,"padding":13,"spacing":8},"subviews":[]}"#)
    }

    @Test func horizontalPaddingIsFixedSpacersBeside() throws {
        let body = DrivenUIFormat.body(try resolvedScreen(#"""
            {"type": "Text", "properties": {"padding": {"horizontal": 16}, "backgroundColor": "#FFFFFF", "foregroundColor": "#111111"},
             "values": {"text": "Hi"}}
            """#))
        // The box (background) covers the padding, so it moves out; the text colour stays on the text.
        #expect(compact(body) == #"""
            {"type":"HStack","properties":{"backgroundColor":"FFFFFF","spacing":0},"subviews":[\#
            {"type":"Spacer","properties":{"width":16,"height":0,"minLength":0}},\#
            {"type":"Text","values":{"text":"Hi"},"properties":{"foregroundColor":"111111"}},\#
            {"type":"Spacer","properties":{"width":16,"height":0,"minLength":0}}]}
            """#)
    }

    @Test func mixedPaddingKeepsTheSmallestEdgeAsPadding() throws {
        let body = DrivenUIFormat.body(try resolvedScreen(#"""
            {"type": "VStack", "properties": {"padding": {"top": 8, "bottom": 32, "horizontal": 16}, "backgroundColor": "#EEE"}, "subviews": []}
            """#))
        #expect(compact(body) == #"""
            {"type":"VStack","properties":{"backgroundColor":"EEEEEE","spacing":0},"subviews":[\#
            {"type":"HStack","properties":{"spacing":0},"subviews":[\#
            {"type":"Spacer","properties":{"width":8,"height":0,"minLength":0}},\#
            {"type":"VStack","properties":{"padding":8,"spacing":0},"subviews":[]},\#
            {"type":"Spacer","properties":{"width":8,"height":0,"minLength":0}}]},\#
            {"type":"Spacer","properties":{"width":0,"height":24,"minLength":0}}]}
            """#)
    }

    @Test func paddedFrameIsTheWrapperAndTheContentIsLessTheSpacers() throws {
        let resolved = try resolvedScreen(#"""
            {"type": "VStack", "subviews": [{"type": "Rectangle", "properties": {"width": "fill", "height": 40, "padding": {"leading": 10}}}]}
            """#)
        let rectangleRow = try #require(DrivenUIFormat.body(resolved, frames: try frames(resolved))["subviews"]?.arrayValue?.first)
        #expect(rectangleRow["properties"]?["width"]?.numberValue == 390)
        #expect(rectangleRow["properties"]?["height"]?.numberValue == 40)
        let rectangle = try #require(rectangleRow["subviews"]?.arrayValue?.last)
        #expect(compact(rectangle) == #"{"type":"Rectangle","properties":{"width":380,"height":40}}"#)
    }

    @Test func sizesDrivenUICannotExpressComeFromFramesOrAreDropped() throws {
        let resolved = try resolvedScreen(#"""
            {"type": "VStack", "properties": {"horizontalAlignment": "leading"}, "subviews": [
              {"type": "Rectangle", "properties": {"width": "fill", "height": 40}},
              {"type": "Rectangle", "properties": {"width": "50%", "height": 10.5}},
              {"type": "Text", "properties": {"width": "auto"}, "values": {"text": "Hi"}}]}
            """#)
        let plain = DrivenUIFormat.body(resolved)["subviews"]?.arrayValue?.map(compact)
        #expect(plain == [
            #"{"type":"Rectangle","properties":{"height":40}}"#, #"{"type":"Rectangle","properties":{"height":10.5}}"#,
            #"{"type":"Text","values":{"text":"Hi"}}"#,
        ])
        let laidOut = try frames(resolved)
        let framed = try #require(DrivenUIFormat.body(resolved, frames: laidOut)["subviews"]?.arrayValue)
        #expect(framed[0]["properties"]?["width"]?.numberValue == 390)
        #expect(framed[1]["properties"]?["width"]?.numberValue == 195)
        // The layout answer's frame of the Text (TrellisLayout's own types are not visible here).
        let textFrame = try #require(AnswerFrame(laidOut.jsonValue(revision: 1)["root"]?["subviews"]?.arrayValue?[2]["frame"]))
        #expect(textFrame.width > 0 && framed[2]["properties"]?["width"]?.numberValue == DrivenUIFormat.Converted.points(Float(textFrame.width)))
    }

    @Test func hiddenComponentsAreLeftOutAndContainersAlwaysHaveSubviews() throws {
        let body = DrivenUIFormat.body(try resolvedScreen(#"""
            {"type": "VStack", "subviews": [
              {"type": "Text", "properties": {"hidden": true}, "values": {"text": "secret"}},
              {"type": "HStack", "properties": {"hidden": false}, "subviews": [{"type": "Circle", "properties": {"hidden": true}}]},
              {"type": "ZStack"}, {"type": "List"}]}
            """#))
        #expect(compact(body) == #"""
            {"type":"VStack","properties":{"spacing":0},"subviews":[\#
            {"type":"HStack","properties":{"spacing":0},"subviews":[]},{"type":"ZStack","subviews":[]},\#
            {"type":"List","properties":{"spacing":0},"subviews":[]}]}
            """#)
    }

    @Test func nothingShownIsAnEmptyVStack() throws {
        #expect(JSONWriter.string(DrivenUIFormat.body(screen(root: nil))) == #"{"type":"VStack","subviews":[]}"#)
        let hiddenRoot = ResolvedComponent(kind: .text, properties: [JSONMember(key: "hidden", value: .bool(true))])
        #expect(compact(DrivenUIFormat.body(screen(root: hiddenRoot))) == #"{"type":"VStack","subviews":[]}"#)
    }

    @Test func imagesWithoutASourceAndTypesDrivenUILacksAreNeverSent() throws {
        let root = ResolvedComponent(kind: .vStack, subviews: [
            ResolvedComponent(kind: .image),
            ResolvedComponent(kind: .image, values: [JSONMember(key: "imageUrl", value: .object([("$param", .string("u"))]))]),
            ResolvedComponent(kind: .image, values: [JSONMember(key: "systemIconName", value: .string("star"))]),
            ResolvedComponent(kind: .button, values: [JSONMember(key: "title", value: .string("Buy"))]),
            ResolvedComponent(kind: .scrollView, subviews: [ResolvedComponent(kind: .divider)]),
            ResolvedComponent(kind: .carousel),
        ])
        #expect(compact(DrivenUIFormat.body(screen(root: root))) == #"""
            {"type":"VStack","properties":{"spacing":0},"subviews":[\#
            {"type":"Image","values":{"systemIconName":"star"}},\#
            {"type":"VStack","properties":{"spacing":0},"subviews":[{"type":"Divider"}]},\#
            {"type":"HStack","properties":{"spacing":0},"subviews":[]}]}
            """#)
    }

    /// The mirror refuses and flags what DrivenUI does, so its passing means something.
    @Test func decoderMirror() throws {
        for bad in [
            "null", #"{"type": "Button"}"#, #"{"properties": {"padding": 12.5}}"#, #"{"properties": {"padding": {"top": 8}}}"#,
            #"{"properties": {"width": "fill"}}"#, #"{"properties": {"horizontalAlignment": "start"}}"#,
            #"{"type": "VStack", "subviews": [{"type": "Carousel"}]}"#,
        ] {
            #expect(throws: (any Error).self, "\(bad)") { try DrivenComponent.decode(Array(bad.utf8)) }
        }
        #expect(throws: Never.self) { try DrivenComponent.decode(Array(#"{"id": "x", "whatever": [1], "properties": {"width": 1.5}}"#.utf8)) }
        let misdrawn = try JSONParser.parse(#"""
            {"type": "VStack", "properties": {"backgroundColor": "#FFFFFF", "foregroundColor": "FFF", "weight": "bold", "font": "title2"},
             "subviews": [{"type": "HStack"}, {"type": "Image"}]}
            """#)
        #expect(DrivenMisdrawing.problems(misdrawn).count == 6)
    }

    @Test func headers() throws {
        let short = [ResolvedScreen.Replacement(id: "cta", path: .root, type: "Button", how: .dropped, replacement: nil)]
        var resolved = screen(root: nil, replaced: short, id: "caf\u{E9}")
        resolved.assignments = .init(experiments: [.init("home-hero", "big")], rollouts: [.init("gold-banner", true)])
        let headers = DrivenUIFormat.headers(resolved, revision: 3)
        #expect(headers.map { "\($0.name): \($0.value)" } == [
            #"X-Trellis-Screen: "caf\u00e9""#, "X-Trellis-Revision: 3", "X-Trellis-Schema-Version: 1",
            #"X-Trellis-Assignments: {"experiments":{"home-hero":"big"},"rollouts":{"gold-banner":true}}"#,
            #"X-Trellis-Replaced: [{"id":"cta","type":"Button","how":"dropped"}]"#,
        ])
        resolved.replaced = Array(repeating: short[0], count: 40)
        #expect(DrivenUIFormat.headers(resolved, revision: 3).last?.value == "40")
    }
}

@Suite struct MatrioskaConversionTests {
    @Test func stacks() throws {
        let document = MatrioskaFormat.document(try resolvedScreen(#"""
            {"type": "HStack", "id": "row", "properties": {"backgroundColor": "#FFF", "width": "fill", "verticalAlignment": "top"},
             "metadata": {"analyticsName": "row"},
             "subviews": [{"type": "VStack", "properties": {"spacing": 4, "backgroundColor": "#11223380"}}]}
            """#))
        #expect(compact(document) == #"""
            {"structure":{"type":"stack","meta":{"id":"row","orientation":"horizontal","spacing":0,\#
            "background_color":"0xFFFFFF","width":"fill","vertical_alignment":"top","metadata":{"analyticsName":"row"},\#
            "preserve_parent_width":true},"children":[\#
            {"type":"stack","meta":{"orientation":"vertical","spacing":4,"background_color":"0x112233",\#
            "background_color_alpha":0.502},"children":[]}]}}
            """#)
    }

    @Test func otherTypesUnderTheirOwnNamesWithSnakeCaseMeta() throws {
        let document = MatrioskaFormat.document(try resolvedScreen(#"""
            {"type": "ZStack", "subviews": [
              {"type": "Image", "id": "hero", "properties": {"contentMode": "fill", "hidden": false}, "values": {"imageUrl": "https://cdn.example.com/a.png"}},
              {"type": "Text", "properties": {"hidden": true}, "values": {"text": "gone"}}]}
            """#))
        #expect(compact(document) == #"""
            {"structure":{"type":"ZStack","meta":{},"children":[\#
            {"type":"Image","meta":{"id":"hero","content_mode":"fill","image_url":"https://cdn.example.com/a.png"}}]}}
            """#)
    }

    @Test func pinsContainersCarryTheirPins() throws {
        let document = MatrioskaFormat.document(try resolvedScreen(#"""
            {"type": "Pins", "id": "card", "pins": ["H:|-[title]-|", "V:|-[title]-|"], "align": {"title": "centerX:|"},
             "subviews": [{"type": "Text", "id": "title", "values": {"text": "Hi"}}]}
            """#, schemaVersion: 3))
        #expect(compact(document) == #"""
            {"structure":{"type":"Pins","meta":{"id":"card","pins":["H:|-[title]-|","V:|-[title]-|"],"align":{"title":"centerX:|"}},\#
            "children":[{"type":"Text","meta":{"id":"title","text":"Hi"}}]}}
            """#)
    }

    @Test func tabBars() throws {
        let tab = { (title: String, icon: String?, hidden: Bool) in
            let iconValue = icon.map { #", "icon": "\#($0)""# } ?? ""
            return #"{"type": "Tab", "properties": {"hidden": \#(hidden)}, "values": {"title": "\#(title)"\#(iconValue)}, "subviews": [{"type": "Text", "values": {"text": "\#(title)"}}]}"#
        }
        let document = MatrioskaFormat.document(try resolvedScreen(#"""
            {"type": "TabBar", "properties": {"selectedIndex": 2, "tintColor": "#2563EB"}, "subviews": [
              \#(tab("Home", "house", false)), \#(tab("Old", "clock", true)), \#(tab("Me", nil, false))]}
            """#, schemaVersion: 2))
        let tabbar = try #require(document["structure"])
        #expect(tabbar["type"]?.stringValue == "tabbar")
        #expect(compact(tabbar["meta"]!) == #"{"selected_index":1,"tint_color":"0x2563EB"}"#)
        #expect(tabbar["children"]?.arrayValue?.map { compact($0["meta"]!) } == [
            #"{"title":"Home","icon_name":"house"}"#, #"{"title":"Me","icon_name":"circle"}"#,
        ])
        let built = try #require(try MatrioskaFactory.trellisApp.build(document))
        #expect(built.count == 5)
    }

    @Test func nothingShownIsAnEmptyStack() {
        #expect(compact(MatrioskaFormat.document(screen(root: nil)))
            == #"{"structure":{"type":"stack","meta":{"orientation":"vertical","spacing":0},"children":[]}}"#)
    }

    @Test func snakeCase() {
        #expect(["backgroundColor", "imageUrl", "selectedIndex", "id", "autoScrollSeconds"].map(MatrioskaFormat.snakeCase)
            == ["background_color", "image_url", "selected_index", "id", "auto_scroll_seconds"])
    }

    /// The mirror itself does what the facts file says, so its passing means something.
    @Test func factoryMirror() throws {
        let factory = MatrioskaFactory.trellisApp
        #expect(throws: MatrioskaFactory.Failure.noStructure) { try factory.build(.object([])) }
        let untyped = try JSONParser.parse(#"{"structure": {"type": "stack", "children": [{"meta": {}}]}}"#)
        #expect(throws: MatrioskaFactory.Failure.noType(path: "$.structure.children[0]")) { try factory.build(untyped) }
        let dropped = try JSONParser.parse(#"""
            {"structure": {"type": "tabbar", "children": [{"type": "Tab", "meta": {"title": "A"}},
              {"type": "Tab", "meta": {"title": "B", "icon_name": "b"}, "children": [{"type": "Text"}, {"type": "Text"}]},
              {"type": "Unknown", "children": [{"type": "Text"}]}]}}
            """#)
        #expect(try factory.build(dropped)?.count == 3)
    }
}
