import Testing
import TrellisLint
import TrellisScreens

/// Each rule on small screens written for it: it fires at the component's path with what was
/// measured, and not on the same screen fixed.
@Suite struct LintRulesTests {
    static let iosSmall = LintConfiguration(device: .iosSmall, fontScale: 1)
    static let androidSmall = LintConfiguration(device: .androidSmall, fontScale: 1)

    @Test func textCutByItsLineLimitIsReportedWithTheLimit() throws {
        let found = try findings(screen(root: ##"{"type": "VStack", "subviews": ["##
            + ##"{"type": "Text", "properties": {"font": "title", "lineLimit": 1}, "values": {"text": "A headline far too long for one line on any phone"}},"##
            + ##"{"type": "Text", "properties": {"font": "title", "lineLimit": 1}, "values": {"text": "Short"}}]}"##))
        #expect(found.lines == ["$.root.subviews[0] text-truncated cut at lineLimit 1: needs more than 1 line"])
    }

    @Test func textTallerThanItsFrameIsReportedAsLinesInAFrame() throws {
        let text = "Three lines of body text squeezed into a box one line high, as a fixed height does"
        let squeezed = try findings(screen(root: ##"{"type": "Text", "properties": {"height": 22}, "values": {"text": "\##(text)"}}"##))
        #expect(squeezed.lines == ["$.root text-truncated 3 lines in a frame of 1"])
        let grown = try findings(screen(root: ##"{"type": "Text", "properties": {"minHeight": 22}, "values": {"text": "\##(text)"}}"##))
        #expect(grown.isEmpty, "\(grown.lines)")
    }

    @Test func tapTargetsUnderThePlatformMinimumAreReportedWithTheirSize() throws {
        // A button's default padding makes it 42 points high at font scale 1: under iOS's 44.
        let small = try screen(root: ##"{"type": "VStack", "subviews": [{"type": "Button", "values": {"title": "Buy"}}]}"##)
        let found = try findings(small, [Self.iosSmall, Self.androidSmall])
        #expect(found.map { "\($0.configuration) \($0.value)" } == ["android-small@1 59.33×44 dp (needs 48×48)", "ios-small@1 64×42 pt (needs 44×44)"])
        #expect(found.allSatisfy { $0.path == "$.root.subviews[0]" && $0.rule == .tapTarget })
        // A row with an action is a target too; with room on both platforms, nothing.
        let roomy = try screen(root: ##"{"type": "VStack", "subviews": [{"type": "Button", "properties": {"minHeight": 48}, "values": {"title": "Buy"}},"##
            + ##"{"type": "HStack", "properties": {"minHeight": 48, "width": "fill", "action": {"type": "track", "event": "e"}}, "subviews": [{"type": "Text", "values": {"text": "Row"}}]}]}"##)
        #expect(try findings(roomy, [Self.iosSmall, Self.androidSmall]).isEmpty)
        let flat = try screen(root: ##"{"type": "VStack", "subviews": [{"type": "HStack", "properties": {"height": 30, "width": 200, "action": {"type": "track", "event": "e"}}, "subviews": []}]}"##)
        #expect(try findings(flat).lines == ["$.root.subviews[0] tap-target 200×30 pt (needs 44×44)"])
    }

    @Test func theSpacingExceptionPassesASmallTargetOnlyWhenItStandsAlone() throws {
        let icon = ##"{"type": "Image", "properties": {"width": 16, "height": 16, "accessibilityLabel": "Like", "action": {"type": "track", "event": "e"}}, "values": {"systemIconName": "heart"}}"##
        let crowded = try screen(root: ##"{"type": "VStack", "properties": {"spacing": 40}, "subviews": [{"type": "HStack", "properties": {"spacing": 2}, "subviews": [\##(icon), \##(icon)]}, \##(icon)]}"##)
        let found = try findings(crowded, options: .wcagTargetSize)
        #expect(found.lines == [
            "$.root.subviews[0].subviews[0] tap-target 16×16 pt (needs 24×24)", "$.root.subviews[0].subviews[1] tap-target 16×16 pt (needs 24×24)",
        ])
        // Slivers 4 wide, 10 apart: neither circle meets the other sliver, but the circles meet
        // each other (centres 14 apart); 20 apart, they are clear.
        let sliver = ##"{"type": "Rectangle", "properties": {"width": 4, "height": 16, "action": {"type": "track", "event": "e"}}}"##
        func slivers(_ spacing: Int) throws -> [LintFinding] {
            try findings(screen(root: ##"{"type": "HStack", "properties": {"spacing": \##(spacing)}, "subviews": [\##(sliver), \##(sliver)]}"##), options: .wcagTargetSize)
        }
        #expect(try slivers(10).count == 2)
        #expect(try slivers(20).isEmpty)
    }

    @Test func contrastUnderWCAGIsReportedAgainstWhatIsBehindTheText() throws {
        let found = try findings(screen(root: ##"{"type": "VStack", "subviews": ["##
            + ##"{"type": "Text", "properties": {"foregroundColor": "#9CA3AF"}, "values": {"text": "grey on white"}},"##
            + ##"{"type": "Text", "properties": {"foregroundColor": "#949494"}, "values": {"text": "mid grey, body"}},"##
            + ##"{"type": "Text", "properties": {"foregroundColor": "#949494", "fontSize": 26}, "values": {"text": "mid grey, large"}},"##
            + ##"{"type": "Text", "properties": {"foregroundColor": "#949494", "fontSize": 20, "weight": "bold"}, "values": {"text": "mid grey, bold"}},"##
            + ##"{"type": "VStack", "properties": {"backgroundColor": "#1F2937"}, "subviews": ["##
            + ##"  {"type": "Text", "properties": {"foregroundColor": "#FFFFFF"}, "values": {"text": "white on dark"}},"##
            + ##"  {"type": "Text", "properties": {"foregroundColor": "#4B5563"}, "values": {"text": "grey on dark"}}]},"##
            + ##"{"type": "VStack", "properties": {"opacity": 0.4}, "subviews": [{"type": "Text", "properties": {"foregroundColor": "#111827"}, "values": {"text": "faded"}}]},"##
            + ##"{"type": "ZStack", "subviews": [{"type": "Image", "properties": {"width": 300, "height": 40}, "values": {"localImageName": "photo"}},"##
            + ##"  {"type": "Text", "properties": {"foregroundColor": "#FFFFFF"}, "values": {"text": "over a picture"}}]}]}"##))
        #expect(found.filter { $0.rule == .contrast }.lines == [
            "$.root.subviews[0] contrast contrast 2.54:1 (needs 4.5:1)",
            "$.root.subviews[1] contrast contrast 3.03:1 (needs 4.5:1)",
            "$.root.subviews[4].subviews[1] contrast contrast 1.94:1 (needs 4.5:1)",
            "$.root.subviews[5].subviews[0] contrast contrast 2.54:1 (needs 4.5:1)",
        ], "large text (24 points, or 18.67 bold) needs 3:1; white on dark passes; what is over a picture is not judged")
    }

    /// A picture under only a part of a text (a longer translation running past a banner's image)
    /// leaves the rest of it over what is beneath the picture, which is judged; the text's own
    /// padding does not count, only where its glyphs are.
    @Test func textRunningPastAPictureIsJudgedWhereItRunsPast() throws {
        let banner = { (text: String) in
            ##"{"type": "ZStack", "properties": {"width": 200, "height": 60, "alignment": "bottomLeading"}, "subviews": ["##
                + ##"{"type": "Image", "properties": {"width": "fill", "height": "fill"}, "values": {"localImageName": "photo"}},"##
                + ##"{"type": "Text", "properties": {"foregroundColor": "#FDE68A", "padding": 8}, "values": {"text": "\##(text)"}}]}"##
        }
        let fits = try findings(screen(root: banner("Gold week")))
        #expect(fits.filter { $0.rule == .contrast }.isEmpty, "over the picture, with its padding past it: \(fits)")
        let runsPast = try findings(screen(root: banner("Gold week: twenty per cent off everything in the shop, today and tomorrow only")))
        #expect(runsPast.filter { $0.rule == .contrast }.lines == ["$.root.subviews[1] contrast contrast 1.25:1 (needs 4.5:1)"], "\(runsPast)")
    }

    @Test func contrastIsAThresholdNotARounding() throws {
        let found = try findings(screen(root: ##"{"type": "VStack", "subviews": ["##
            + ##"{"type": "Text", "properties": {"foregroundColor": "#777777"}, "values": {"text": "just under"}},"##
            + ##"{"type": "Text", "properties": {"foregroundColor": "#767676"}, "values": {"text": "just over"}}]}"##))
        #expect(found.lines == ["$.root.subviews[0] contrast contrast 4.48:1 (needs 4.5:1)"])
    }

    @Test func imagesAndButtonsWithoutANameAreReported() throws {
        let found = try findings(screen(root: ##"{"type": "VStack", "subviews": ["##
            + ##"{"type": "Image", "values": {"imageUrl": "https://cdn.example.com/a.jpg"}},"##
            + ##"{"type": "Image", "properties": {"accessibilityLabel": "A red kettle"}, "values": {"imageUrl": "https://cdn.example.com/a.jpg"}},"##
            + ##"{"type": "Image", "properties": {"decorative": true}, "values": {"localImageName": "flourish"}},"##
            + ##"{"type": "Image", "properties": {"accessibilityLabel": "  "}, "values": {"systemIconName": "star"}},"##
            + ##"{"type": "Button", "properties": {"minHeight": 48}, "values": {"title": " "}},"##
            + ##"{"type": "Button", "properties": {"minHeight": 48, "accessibilityLabel": "Close"}, "values": {"title": " "}},"##
            + ##"{"type": "Button", "properties": {"minHeight": 48}, "values": {"title": "Add to cart"}}]}"##))
        #expect(found.filter { $0.rule == .label }.lines == [
            "$.root.subviews[0] label image without accessibilityLabel (not marked decorative)",
            "$.root.subviews[3] label image without accessibilityLabel (not marked decorative)",
            "$.root.subviews[4] label button without a name (no accessibilityLabel, blank title)",
        ])
    }

    @Test func contentPastTheViewportOutsideAHorizontalScrollIsReportedOnce() throws {
        let found = try findings(screen(root: ##"{"type": "VStack", "properties": {"horizontalAlignment": "leading"}, "subviews": ["##
            + ##"{"type": "HStack", "properties": {"width": 500, "height": 20}, "subviews": [{"type": "Rectangle", "properties": {"width": 480, "height": 4}}]},"##
            + ##"{"type": "ScrollView", "properties": {"axis": "horizontal"}, "subviews": [{"type": "Rectangle", "properties": {"width": 900, "height": 8}}]}]}"##))
        #expect(found.lines == ["$.root.subviews[0] overflow from 0 to 500 pt in a 320 pt viewport"], "the row, not the rectangle in it; the scroll view's strip scrolls")
    }

    @Test func findingsAreSortedAndCarryLocaleAndConfiguration() throws {
        let grey = try screen(root: ##"{"type": "Text", "properties": {"foregroundColor": "#9CA3AF"}, "values": {"text": "grey"}}"##)
        let found = try ShippedFonts.lint().findings(screen: grey, locale: "de-AT", configurations: LintConfiguration.matrix)
        #expect(found.count == 12, "one per configuration")
        #expect(found == found.sorted())
        #expect(found.allSatisfy { $0.locale == "de-AT" && $0.screenId == "s" })
        #expect(found.first?.description == "s $.root contrast de-AT android-large@1 contrast 2.54:1 (needs 4.5:1)")
    }
}

/// Which rules are errors is the caller's: a list of rule names, every unknown one refused.
@Suite struct ErrorRulesTests {
    @Test func aListNamesRulesAndRefusesEveryUnknownName() throws {
        #expect(try LintRule.rules(named: "contrast, label,,tap-target") == [.contrast, .label, .tapTarget])
        #expect(try LintRule.rules(named: "").isEmpty)
        #expect(throws: UnknownLintRules(names: ["contrats", "size"])) { try LintRule.rules(named: "contrats,label,size") }
    }

    @Test func onlyTheFindingsOfErrorRulesAreErrors() throws {
        let found = try findings(screen(root: ##"{"type": "VStack", "subviews": [{"type": "Text", "properties": {"foregroundColor": "#9CA3AF"}, "values": {"text": "grey"}}, {"type": "Image", "values": {"systemIconName": "star"}}]}"##))
        #expect(Set(found.map(\.rule)) == [.contrast, .label])
        #expect(found.errors([.label]).map(\.rule) == [.label])
        #expect(found.errors([.overflow]).isEmpty)
    }
}
