import Foundation
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisTesting
@testable import TrellisServer

/// Pins containers in the layout endpoint: frames solved from the pin strings, checked by hand;
/// flexbox inside pins and pins inside flexbox; right-to-left; the safe area.
@Suite struct PinsLayoutTests {
    static let viewport = "width=200&height=400&scale=1"

    func layout(_ root: String, _ query: String = PinsLayoutTests.viewport) throws -> LayoutAnswer {
        let app = try InProcessApp(try TemporaryConfig.withFonts(roots: ["s": root], schemaVersion: 3))
        return try LayoutAnswer(app.request("/v1/screens/s/layout?\(query)"))
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
        #expect(card == ReadFrame(0, 0, 200, 400))  // the screen's root fills it
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
            #expect(r == ReadFrame(200 - l.x - l.width, l.y, l.width, l.height), "\(id): \(l) in LTR, \(r) in RTL")
        }
    }

    @Test func aCardInAStackHugsItsPinnedContentHeight() throws {
        let card = Self.pins(
            ["H:|-10-[a]-10-|", "V:|-10-[a(40)]-10-|"], [#"{"type": "Rectangle", "id": "a"}"#],
            properties: #"{"width": "fill", "opacity": 1}"#)
        let answer = try layout(
            #"{"type": "VStack", "id": "root", "properties": {"spacing": 5}, "subviews": [\#(card), {"type": "Rectangle", "id": "after", "properties": {"height": 10, "width": "fill"}}]}"#)
        #expect(answer.frame("card") == ReadFrame(0, 0, 200, 60))
        #expect(answer.frame("a") == ReadFrame(10, 10, 180, 40))
        #expect(answer.frame("after") == ReadFrame(0, 65, 200, 10))
    }

    @Test func aStackInsidePinsIsLaidOutByFlexboxInItsFrame() throws {
        let stack = #"{"type": "HStack", "id": "row", "properties": {"spacing": 4}, "subviews": [{"type": "Rectangle", "id": "x", "properties": {"width": 30, "height": 20}}, {"type": "Rectangle", "id": "y", "properties": {"width": 50, "height": 10}}]}"#
        let answer = try layout(Self.pins(["H:|-8-[row]", "V:|-12-[row]"], [stack]))
        #expect(answer.frame("row") == ReadFrame(8, 12, 84, 20))  // its content size: 30 + 4 + 50 by 20
        #expect(answer.frame("x") == ReadFrame(0, 0, 30, 20))
        #expect(answer.frame("y") == ReadFrame(34, 5, 50, 10))
    }

    @Test func alignAllAlignsTheViewsOfAString() throws {
        let a = #"{"type": "Rectangle", "id": "a", "properties": {"width": 30, "height": 40}}"#
        let b = #"{"type": "Rectangle", "id": "b", "properties": {"width": 20, "height": 10}}"#
        let root = #"{"type": "Pins", "id": "card", "pins": [{"pin": "H:|-10-[a]-5-[b]", "alignAll": "centerY"}, "V:|-10-[a]"], "subviews": [\#(a), \#(b)]}"#
        let answer = try layout(root)
        #expect(answer.frame("a") == ReadFrame(10, 10, 30, 40))
        #expect(answer.frame("b") == ReadFrame(45, 25, 20, 10))
    }

    /// Priorities are strict, as Auto Layout's are: the higher one wins outright, whatever the
    /// sizes of the errors; an inequality holds unless a higher priority needs otherwise.
    @Test func priorityAndInequalitiesDecideBetweenWishes() throws {
        let box = #"{"type": "Rectangle", "id": "a"}"#
        let answer = try layout(Self.pins(["H:|-10-[a(>=50,==20@750,==500@751)]-(>=0)-|", "V:|-10-[a(10)]"], [box]))
        #expect(answer.frame("a") == ReadFrame(10, 10, 190, 10), "500 at 751 beats 20 at 750 as far as the container allows")
        let capped = try layout(Self.pins(["H:|-10-[a(>=50,<=120,==500@751)]", "V:|-10-[a(10)]"], [box]))
        #expect(capped.frame("a")?.width == 120)
        let floor = try layout(Self.pins(["H:|-10-[a(>=50,==20@751)]", "V:|-10-[a(10)]"], [box]))
        #expect(floor.frame("a")?.width == 50)
    }

    /// At a size where the required pins cannot all hold, the one that cannot is left out (as
    /// Auto Layout breaks a constraint) and the others are solved: no error, no empty answer.
    @Test func aPinThatCannotHoldAtThisSizeIsLeftOut() throws {
        let answer = try layout(Self.pins(["H:|-20-[a(300)]-20-|", "V:|-10-[a(10)]"], [#"{"type": "Rectangle", "id": "a"}"#]))
        #expect(answer.frame("a") == ReadFrame(20, 10, 300, 10))
    }

    @Test func paddingInsetsTheContainerEdge() throws {
        let answer = try layout(Self.pins(["H:|[a]|", "V:|[a]|"], [#"{"type": "Rectangle", "id": "a"}"#], properties: #"{"padding": 7}"#))
        #expect(answer.frame("a") == ReadFrame(7, 7, 186, 386))
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
        #expect(answer.frame("card") == ReadFrame(0, 0, 200, 400))
        #expect(answer.frame("hero") == ReadFrame(0, 0, 200, 100))
        #expect(answer.frame("title")?.y == safeTop + 8)
        #expect(answer.frame("footer") == ReadFrame(0, 400 - safeBottom - 20, 200, 20))
        // Without ignoresSafeArea the screen keeps its content clear, and |> is the container's edge.
        let inset = try layout(root.replacingOccurrences(of: #""ignoresSafeArea": true"#, with: #""opacity": 1"#), query)
        #expect(inset.frame("card") == ReadFrame(0, safeTop, 200, 400 - safeTop - safeBottom))
        #expect(inset.frame("title")?.y == 8)
    }

    /// The preview draws the pinned views where the layout put them.
    @Test func thePreviewDrawsThePinnedFrames() throws {
        let app = try InProcessApp(try TemporaryConfig.withFonts(roots: ["s": Self.card], schemaVersion: 3))
        let page = app.request("/preview/s?\(Self.viewport)")
        #expect(page.status == .ok)
        let answer = try layout(Self.card)
        let badge = try #require(answer.frame("badge"))
        #expect(page.text.contains(#"data-id="badge""#))
        #expect(page.text.contains("left:\(Int(badge.x))px;top:\(Int(badge.y))px;width:\(Int(badge.width))px;height:\(Int(badge.height))px"),
                "the badge's box at \(badge)")
    }

    /// A publish is checked like a file: a pin naming no subview is refused with the string's
    /// path, line and column, and nothing changes; a good one is served at once.
    @Test func aPublishIsCheckedWithTheColumnOfTheMistake() throws {
        let config = try TemporaryConfig.withFonts(roots: ["s": Self.card], schemaVersion: 3)
        let application = try ControlPlaneLiveTests.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        func put(_ root: String) throws -> WireResponse {
            let body = #"{"id": "s", "schemaVersion": 3,\#n"root": \#(root)}"#
            let client = try TestClient(port: application.port)
            client.send("PUT /admin/screens/s HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(ControlPlaneLiveTests.token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            return try #require(client.readResponse())
        }
        let typo = try put(Self.card.replacingOccurrences(of: "H:|-16-[body]-16-|", with: "H:|-16-[bdy]-16-|"))
        #expect(typo.status == 422)
        #expect(typo.text.contains(#""path": "$.root.pins[1]""#), "\(typo.text)")
        #expect(typo.text.contains(#"col 9: unknown view \"bdy\"; did you mean \"body\"?"#), "\(typo.text)")
        #expect(typo.text.contains(#""line": 2,"#), "\(typo.text)")
        let moved = try put(Self.card.replacingOccurrences(of: "H:|-16-[body]-16-|", with: "H:|-32-[body]-16-|"))
        #expect(moved.status == 200, "\(moved.text)")
        let client = try TestClient(port: application.port)
        client.send("GET /v1/screens/s/layout?\(Self.viewport) HTTP/1.1\r\nHost: t\r\n\r\n")
        let laidOut = try #require(client.readResponse())
        #expect(laidOut.text.contains(#""layoutId":"body","frame":{"x":32,"#), "\(laidOut.text.prefix(600))")
    }

    @Test func anOlderClientsLayoutStacksTheSubviews() throws {
        let app = try InProcessApp(try TemporaryConfig.withFonts(roots: ["s": Self.card], schemaVersion: 3))
        let answer = try LayoutAnswer(app.request("/v1/screens/s/layout?\(Self.viewport)&schemaVersion=2"))
        let title = try #require(answer.frame("title")), body = try #require(answer.frame("body"))
        #expect(answer.json["root"]?["type"]?.stringValue == "VStack")
        #expect(body.y == title.y + title.height)
    }
}
