import Foundation
import Testing
import TrellisJSON
import TrellisLayout
import TrellisScreens

/// A Pins container's pins are checked when the screen loads, each problem reported at the pin
/// string (or align entry) with the column of the character at fault; a client too old for Pins
/// gets a VStack of the same subviews.
@Suite struct PinsTests {
    static func text(_ id: String) -> String { #"{"type": "Text", "id": "\#(id)", "values": {"text": "\#(id)"}}"# }

    /// The issue's card: a title and a badge on one line, a body below, the badge square and
    /// centred on the title's centre line.
    static let card = #"""
        {"type": "Pins", "id": "card", "pins": [
            "H:|-16-[title]-(>=8)-[badge]-16-|",
            "H:|-16-[body]-16-|",
            "V:|>-(20)-[title]-8-[body]-(>=20)-<|",
            "V:[badge(24)]", "H:[badge(==badge.height)]"],
          "align": {"badge": "centerY:title"},
          "subviews": [\#(text("title")), \#(text("body")), {"type": "Circle", "id": "badge"}]}
        """#.replacingOccurrences(of: "\n", with: " ")

    static func pins(_ pins: [String], subviews: String = "\(text("title")), \(text("body"))", extra: String = "") -> String {
        let list = pins.map { "\"\($0)\"" }.joined(separator: ", ")
        return #"{"type": "Pins", "id": "card", "pins": [\#(list)]\#(extra), "subviews": [\#(subviews)]}"#
    }

    /// The diagnostics of a screen with `root`, none when it decodes.
    static func problems(_ root: String, schemaVersion: Int = 3) -> [String] {
        switch decodeScreen(document(root: root, schemaVersion: schemaVersion)) {
        case .success: []
        case .failure(let error): error.diagnostics.map(\.description)
        }
    }

    @Test func theIssuesCardDecodesWithEveryConstraint() throws {
        let screen = try decodeScreen(document(root: Self.card, schemaVersion: 3)).get()
        guard case .component(let card) = screen.root else { Issue.record("not a component"); return }
        let pins = try #require(card.pins)
        #expect(pins.pins.count == 5)
        #expect(pins.constraints.count >= 11)
        #expect(pins.constraints.last == PinConstraint(PinAnchor(.view("badge"), .centerY), .equal,
                                                       PinAnchor(.view("title"), .centerY), column: 1))
        let encoded = JSONWriter.string(screen.authoredJSONValue)
        #expect(encoded.contains(#""pins":["H:|-16-[title]-(>=8)-[badge]-16-|","#))
        #expect(encoded.contains(#""align":{"badge":"centerY:title"}"#))
    }

    @Test func anUnknownViewIsReportedAtItsColumnWithTheClosestId() {
        #expect(Self.problems(Self.pins(["H:|-16-[titel]-16-|", "V:|[title][body]|", "H:|[body]|"])) == [
            #"$.root.pins[0] (line 4): col 9: unknown view "titel"; did you mean "title"?"#
        ])
    }

    @Test func aSyntaxErrorIsReportedAtItsColumn() {
        #expect(Self.problems(Self.pins(["H:|-16-[title", "V:|[title][body]|", "H:|[body]|"])) == [
            #"$.root.pins[0] (line 4): col 14: expected "]" after the view name"#
        ])
    }

    @Test func aViewPinnedInOneAxisOnlyIsAmbiguous() {
        #expect(Self.problems(Self.pins(["H:|-16-[title]-16-|", "H:|[body]|", "V:|[body]|"])) == [
            #"$.root.pins (line 4): ambiguous layout: the pins leave "title"'s vertical position or height open; pin it with a "V:" string on both sides, or give it a size"#
        ])
    }

    @Test func anEmptyViewWithOnlyOneEdgeIsAmbiguousButContentSizesIt() {
        let box = #"{"type": "Rectangle", "id": "box"}"#
        // A text's content sizes it: one edge is enough. A rectangle has no content size.
        #expect(Self.problems(Self.pins(["H:|-[box]", "V:|-[box]", "H:|-[title]", "V:|-[title]"], subviews: "\(box), \(Self.text("title"))")) == [
            #"$.root.pins (line 4): ambiguous layout: the pins leave "box"'s horizontal position or width open; pin it with an "H:" string on both sides, or give it a size"#,
            #"$.root.pins (line 4): ambiguous layout: the pins leave "box"'s vertical position or height open; pin it with a "V:" string on both sides, or give it a size"#,
        ])
        #expect(Self.problems(Self.pins(["H:|-[box(40)]", "V:|-[box(==box.width)]", "H:|-[title]", "V:[box]-[title]"],
                                        subviews: "\(box), \(Self.text("title"))")).isEmpty)
    }

    @Test func contradictingRequiredConstraintsAreUnsatisfiable() {
        #expect(Self.problems(Self.pins(["H:|[title(100)]|", "H:[title(200)]", "V:|[title][body]|", "H:|[body]|"])) == [
            #"$.root.pins[1] (line 4): col 10: unsatisfiable: this required constraint contradicts the ones before it; give one of them a priority below 1000 (@750)"#
        ])
        // At a lower priority the second one simply gives way.
        #expect(Self.problems(Self.pins(["H:|[title(100)]|", "H:[title(200@750)]", "V:|[title][body]|", "H:|[body]|"])).isEmpty)
    }

    @Test func alignEntriesAreChecked() {
        let base = ["H:|[title]|", "H:|[body]|", "V:|[title][body]|"]
        #expect(Self.problems(Self.pins(base, extra: #", "align": {"body": "centreY:title"}"#)) == [
            #"$.root.align.body (line 4): col 1: unknown attribute "centreY"; attributes: leading, trailing, left, right, top, bottom, width, height, centerX, centerY, firstBaseline, lastBaseline"#
        ])
        #expect(Self.problems(Self.pins(base, extra: #", "align": {"bdy": "centerY:title"}"#)) == [
            #"$.root.align.bdy (line 4): unknown view "bdy"; did you mean "body"?"#
        ])
        #expect(Self.problems(Self.pins(base, extra: #", "align": {"body": "leading:title.left"}"#)) == [
            #"$.root.align.body (line 4): col 1: relates a leading or trailing edge to a left or right one, which differ in right-to-left layouts"#
        ])
    }

    @Test func anEntryCanAlignAllItsViews() throws {
        let aligned = #"{"pin": "H:|[title]-[body]|", "alignAll": "firstBaseline"}"#
        let root = #"{"type": "Pins", "id": "card", "pins": [\#(aligned), "V:|[title]"], "subviews": [\#(Self.text("title")), \#(Self.text("body"))]}"#
        #expect(Self.problems(root).isEmpty)
        let screen = try decodeScreen(document(root: root, schemaVersion: 3)).get()
        guard case .component(let card) = screen.root else {
            Issue.record("the root is not a component: \(String(describing: screen.root))")
            return
        }
        let baselines = card.pins?.constraints.filter { $0.first.attribute == .firstBaseline } ?? []
        #expect(baselines.count == 1 && baselines.first?.second?.attribute == .firstBaseline, "\(baselines)")
        #expect(Self.problems(root.replacingOccurrences(of: "firstBaseline", with: "centerX")).first?.contains(
            "$.root.pins[0].pin (line 4): col 1: alignAll centerX") == true)
        #expect(Self.problems(root.replacingOccurrences(of: "firstBaseline", with: "middle")).first == 
            #"$.root.pins[0].alignAll (line 4): unknown attribute "middle"; alignAll takes leading, trailing, left, right, top, bottom, centerX, centerY, firstBaseline, lastBaseline"#)
    }

    @Test func metricsNameGapsAndUnknownOnesAreErrors() {
        let pins = ["H:|-margin-[title]-margin-|", "H:|[body]|", "V:|[title][body]|"]
        #expect(Self.problems(Self.pins(pins, extra: #", "metrics": {"margin": 16}"#)).isEmpty)
        #expect(Self.problems(Self.pins(pins)).first == #"$.root.pins[0] (line 4): col 5: unknown metric "margin""#)
    }

    @Test func subviewsMustBeNamedComponents() {
        let rule = #"{"type": "Rule", "id": "r", "rule": {"rule": "a"}, "child": \#(Self.text("title"))}"#
        #expect(Self.problems(Self.pins(["H:|[title]|", "V:|[title]|"], subviews: rule)) == [
            "$.root.subviews[0] (line 4): a Pins subview must be a component with an id, which its pins name; put a Rule or Experiment inside one"
        ])
        let dashed = #"{"type": "Text", "id": "sub-title", "values": {"text": "x"}}"#
        #expect(Self.problems(Self.pins(["H:|[title]|", "V:|[title]|"], subviews: dashed)).first?.contains(
            #"id "sub-title" cannot be named in a pin string"#) == true)
    }

    @Test func pinsNeedSchemaVersionThreeAndOnlyPinsTakePins() {
        #expect(Self.problems(Self.card, schemaVersion: 2).contains(
            "$.root.type (line 4): Pins needs schema version 3, but the screen declares schemaVersion 2"))
        let stack = #"{"type": "VStack", "pins": ["H:|[a]|"], "subviews": []}"#
        #expect(Self.problems(stack).first?.contains(#"unknown key "pins""#) == true)
    }

    @Test func anOlderClientGetsAVStackOfTheSameSubviews() throws {
        let screen = try decodeScreen(document(root: Self.card, schemaVersion: 3)).get()
        let configuration = try configTargetingConfiguration()
        let old = resolved(screen, try context([("user", "u")]), schemaVersion: 2, configuration: configuration)
        #expect(old.root?.type == "VStack")
        #expect(old.root?.pins == nil)
        #expect(old.root?.subviews.compactMap(\.id) == ["title", "body", "badge"])
        #expect(old.replaced.map(\.how) == [.defaultFallback])
        let current = resolved(screen, try context([("user", "u")]), schemaVersion: 3, configuration: configuration)
        #expect(current.root?.type == "Pins")
        #expect(JSONWriter.string(current.root!.jsonValue).contains(#""align":{"badge":"centerY:title"}"#))
    }
}
