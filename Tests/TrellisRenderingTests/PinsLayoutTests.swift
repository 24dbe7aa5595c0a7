import Foundation
import Testing
import TrellisJSON

/// Pins containers laid out as the layout endpoint lays them out: frames solved from the pin strings, checked by hand;
/// flexbox inside pins and pins inside flexbox; right-to-left; the safe area.
@Suite struct PinsLayoutTests {
    static let viewport = "width=200&height=400&scale=1"

    func layout(_ root: String, _ query: String = PinsLayoutTests.viewport) throws -> FramedAnswer {
        try Renderer(roots: ["s": root], schemaVersion: 3).layout("s", query)
    }

    static func text(_ id: String, _ text: String) -> String {
        #"{"type": "Text", "id": "\#(id)", "values": {"text": "\#(text)"}}"#
    }

    static func pins(_ pins: [String], _ subviews: [String], properties: String = "{}", extra: String = "") -> String {
        let list = pins.map { "\"\($0)\"" }.joined(separator: ", ")
        return #"{"type": "Pins", "id": "card", "properties": \#(properties), "pins": [\#(list)]\#(extra), "subviews": [\#(subviews.joined(separator: ", "))]}"#
    }

    static let card = pins(
        ["H:|-16-[title]-(>=8)-[badge]-16-|", "H:|-16-[body]-16-|", "V:|-(20)-[title]-8-[body]-(>=20)-|",
         "V:[badge(24)]", "H:[badge(==badge.height)]"],
        [text("title", "Hello"), text("body", "A body text long enough to wrap onto a second line at this width"),
         #"{"type": "Circle", "id": "badge"}"#],
        extra: #", "align": {"badge": "centerY:title"}"#)

    @Test func theIssuesCardIsSolvedAsPinned() throws {
        let answer = try layout(Self.card)
        let card = try #require(answer.frame("card")), title = try #require(answer.frame("title"))
        let body = try #require(answer.frame("body")), badge = try #require(answer.frame("badge"))
        #expect(card == AnswerFrame(0, 0, 200, 400))  // the screen's root fills it
        #expect(badge.x == 160 && badge.width == 24 && badge.height == 24)
        #expect(title.x == 16 && title.y == 20)
        #expect(title.width > 10 && title.x + title.width + 8 <= badge.x, "the title hugs its text: \(title)")
        #expect(abs((badge.y + 12) - (title.y + title.height / 2)) <= 0.5, "badge \(badge) centred on title \(title)")
        #expect(body.x == 16 && body.width == 168 && body.y == title.y + title.height + 8)
        #expect(body.height >= 2 * title.height, "the body wraps at 168 points: \(body)")
    }

    @Test func rightToLeftMirrorsLeadingAndTrailing() throws {
        let ltr = try layout(Self.card), rtl = try layout(Self.card, Self.viewport + "&direction=rtl")
        for id in ["title", "body", "badge"] {
            let l = try #require(ltr.frame(id)), r = try #require(rtl.frame(id))
            #expect(r == AnswerFrame(200 - l.x - l.width, l.y, l.width, l.height), "\(id): \(l) in LTR, \(r) in RTL")
        }
    }

    @Test func aCardInAStackHugsItsPinnedContentHeight() throws {
        let card = Self.pins(
            ["H:|-10-[a]-10-|", "V:|-10-[a(40)]-10-|"], [#"{"type": "Rectangle", "id": "a"}"#],
            properties: #"{"width": "fill", "opacity": 1}"#)
        let answer = try layout(
            #"{"type": "VStack", "id": "root", "properties": {"spacing": 5}, "subviews": [\#(card), {"type": "Rectangle", "id": "after", "properties": {"height": 10, "width": "fill"}}]}"#)
        #expect(answer.frame("card") == AnswerFrame(0, 0, 200, 60))
        #expect(answer.frame("a") == AnswerFrame(10, 10, 180, 40))
        #expect(answer.frame("after") == AnswerFrame(0, 65, 200, 10))
    }

    @Test func aStackInsidePinsIsLaidOutByFlexboxInItsFrame() throws {
        let stack = #"{"type": "HStack", "id": "row", "properties": {"spacing": 4}, "subviews": [{"type": "Rectangle", "id": "x", "properties": {"width": 30, "height": 20}}, {"type": "Rectangle", "id": "y", "properties": {"width": 50, "height": 10}}]}"#
        let answer = try layout(Self.pins(["H:|-8-[row]", "V:|-12-[row]"], [stack]))
        #expect(answer.frame("row") == AnswerFrame(8, 12, 84, 20))  // its content size: 30 + 4 + 50 by 20
        #expect(answer.frame("x") == AnswerFrame(0, 0, 30, 20))
        #expect(answer.frame("y") == AnswerFrame(34, 5, 50, 10))
    }

    @Test func alignAllAlignsTheViewsOfAString() throws {
        let a = #"{"type": "Rectangle", "id": "a", "properties": {"width": 30, "height": 40}}"#
        let b = #"{"type": "Rectangle", "id": "b", "properties": {"width": 20, "height": 10}}"#
        let root = #"{"type": "Pins", "id": "card", "pins": [{"pin": "H:|-10-[a]-5-[b]", "alignAll": "centerY"}, "V:|-10-[a]"], "subviews": [\#(a), \#(b)]}"#
        let answer = try layout(root)
        #expect(answer.frame("a") == AnswerFrame(10, 10, 30, 40))
        #expect(answer.frame("b") == AnswerFrame(45, 25, 20, 10))
    }

    /// Priorities are strict, as Auto Layout's are: the higher one wins outright, whatever the
    /// sizes of the errors; an inequality holds unless a higher priority needs otherwise.
    @Test func priorityAndInequalitiesDecideBetweenWishes() throws {
        let box = #"{"type": "Rectangle", "id": "a"}"#
        let answer = try layout(Self.pins(["H:|-10-[a(>=50,==20@750,==500@751)]-(>=0)-|", "V:|-10-[a(10)]"], [box]))
        #expect(answer.frame("a") == AnswerFrame(10, 10, 190, 10), "500 at 751 beats 20 at 750 as far as the container allows")
        let capped = try layout(Self.pins(["H:|-10-[a(>=50,<=120,==500@751)]", "V:|-10-[a(10)]"], [box]))
        #expect(capped.frame("a")?.width == 120)
        let floor = try layout(Self.pins(["H:|-10-[a(>=50,==20@751)]", "V:|-10-[a(10)]"], [box]))
        #expect(floor.frame("a")?.width == 50)
    }

    /// At a size where the required pins cannot all hold, the one that cannot is left out (as
    /// Auto Layout breaks a constraint) and the others are solved: no error, no empty answer.
    @Test func aPinThatCannotHoldAtThisSizeIsLeftOut() throws {
        let answer = try layout(Self.pins(["H:|-20-[a(300)]-20-|", "V:|-10-[a(10)]"], [#"{"type": "Rectangle", "id": "a"}"#]))
        #expect(answer.frame("a") == AnswerFrame(20, 10, 300, 10))
    }

    @Test func paddingInsetsTheContainerEdge() throws {
        let answer = try layout(Self.pins(["H:|[a]|", "V:|[a]|"], [#"{"type": "Rectangle", "id": "a"}"#], properties: #"{"padding": 7}"#))
        #expect(answer.frame("a") == AnswerFrame(7, 7, 186, 386))
    }

    /// `|>-` keeps clear of the status bar where the container reaches under it; `|-` does not.
    @Test(arguments: [(0.0, 0.0), (20.0, 0.0), (47.0, 34.0), (59.0, 21.0)])
    func safeAreaPinsFollowTheViewportsInsets(safeTop: Double, safeBottom: Double) throws {
        let root = Self.pins(
            ["H:|[hero]|", "V:|[hero(100)]", "H:|-[title]", "V:|>-8-[title]", "H:|[footer]|", "V:[footer(20)]-0-<|"],
            [#"{"type": "Rectangle", "id": "hero"}"#, Self.text("title", "Title"), #"{"type": "Rectangle", "id": "footer"}"#],
            properties: #"{"ignoresSafeArea": true}"#)
        let query = Self.viewport + "&safeTop=\(safeTop)&safeBottom=\(safeBottom)"
        let answer = try layout(root, query)
        #expect(answer.frame("card") == AnswerFrame(0, 0, 200, 400))
        #expect(answer.frame("hero") == AnswerFrame(0, 0, 200, 100))
        #expect(answer.frame("title")?.y == safeTop + 8)
        #expect(answer.frame("footer") == AnswerFrame(0, 400 - safeBottom - 20, 200, 20))
        // Without ignoresSafeArea the screen keeps its content clear, and |> is the container's edge.
        let inset = try layout(root.replacingOccurrences(of: #""ignoresSafeArea": true"#, with: #""opacity": 1"#), query)
        #expect(inset.frame("card") == AnswerFrame(0, safeTop, 200, 400 - safeTop - safeBottom))
        #expect(inset.frame("title")?.y == 8)
    }

    /// The preview draws the pinned views where the layout put them.
    @Test func thePreviewDrawsThePinnedFrames() throws {
        let page = try Renderer(roots: ["s": Self.card], schemaVersion: 3).preview("s", Self.viewport)
        let answer = try layout(Self.card)
        let badge = try #require(answer.frame("badge"))
        #expect(page.contains(#"data-id="badge""#))
        #expect(page.contains("left:\(Int(badge.x))px;top:\(Int(badge.y))px;width:\(Int(badge.width))px;height:\(Int(badge.height))px"),
                "the badge's box at \(badge)")
    }

    @Test func anOlderClientsLayoutStacksTheSubviews() throws {
        let answer = try Renderer(roots: ["s": Self.card], schemaVersion: 3).layout("s", "\(Self.viewport)&schemaVersion=2")
        let title = try #require(answer.frame("title")), body = try #require(answer.frame("body"))
        #expect(answer.json["root"]?["type"]?.stringValue == "VStack")
        #expect(body.y == title.y + title.height)
    }
}
