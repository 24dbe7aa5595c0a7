import Testing
import TrellisLayout

// Shorthands for expected constraints: `view("a", .leading)`, `edge(.trailing)`.
func view(_ name: String, _ attribute: PinAttribute) -> PinAnchor { PinAnchor(.view(name), attribute) }
func edge(_ attribute: PinAttribute) -> PinAnchor { PinAnchor(.container, attribute) }
func safe(_ attribute: PinAttribute) -> PinAnchor { PinAnchor(.safeArea, attribute) }

/// Parses `text`, failing the test (not crashing) on an error.
func parsed(
    _ text: String, metrics: [String: Double] = [:], alignAll: PinAttribute? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> VisualFormat? {
    do {
        return try VisualFormat.parse(text, metrics: metrics, alignAll: alignAll)
    } catch {
        Issue.record("\(text): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The constraints without their columns, to compare two spellings of the same layout.
func withoutColumns(_ constraints: [PinConstraint]) -> [PinConstraint] {
    constraints.map { var c = $0; c.column = 0; return c }
}

/// The examples of Apple's "Visual Format Language" appendix (Auto Layout Guide), each with the
/// constraints Auto Layout makes of it.
@Suite("Pin strings: Apple's Visual Format Language examples")
struct VisualFormatAppleExampleTests {
    @Test("Standard space: [button]-[textField] is 8 points between the views")
    func standardSpace() {
        #expect(
            parsed("[button]-[textField]")?.constraints
                == [PinConstraint(view("textField", .leading), .equal, view("button", .trailing), constant: 8, column: 9)])
    }

    @Test("Width constraint: [button(>=50)] is a minimum width")
    func widthConstraint() {
        #expect(
            parsed("[button(>=50)]")?.constraints
                == [PinConstraint(view("button", .width), .greaterThanOrEqual, constant: 50, column: 9)])
    }

    @Test("Connection to superview: |-50-[purpleBox]-50-| pins both edges 50 in")
    func connectionToSuperview() {
        #expect(
            parsed("|-50-[purpleBox]-50-|")?.constraints
                == [
                    PinConstraint(view("purpleBox", .leading), .equal, edge(.leading), constant: 50, column: 3),
                    PinConstraint(edge(.trailing), .equal, view("purpleBox", .trailing), constant: 50, column: 18),
                ])
    }

    @Test("Vertical layout: V:[topField]-10-[bottomField] stacks top to bottom")
    func verticalLayout() {
        let format = parsed("V:[topField]-10-[bottomField]")
        #expect(format?.axis == .vertical)
        #expect(
            format?.constraints
                == [PinConstraint(view("bottomField", .top), .equal, view("topField", .bottom), constant: 10, column: 14)])
    }

    @Test("Flush views: [maroonView][blueView] touch with no gap")
    func flushViews() {
        #expect(
            parsed("[maroonView][blueView]")?.constraints
                == [PinConstraint(view("blueView", .leading), .equal, view("maroonView", .trailing), column: 13)])
    }

    @Test("Priority: [button(100@20)] is a width at priority 20")
    func priority() {
        #expect(
            parsed("[button(100@20)]")?.constraints
                == [PinConstraint(view("button", .width), .equal, constant: 100, priority: 20, column: 9)])
    }

    @Test("Equal widths: [button1(==button2)] relates two views and references both")
    func equalWidths() {
        let format = parsed("[button1(==button2)]")
        #expect(
            format?.constraints == [PinConstraint(view("button1", .width), .equal, view("button2", .width), column: 10)])
        #expect(
            format?.viewReferences
                == [PinViewReference(name: "button1", column: 2), PinViewReference(name: "button2", column: 12)])
    }

    @Test("Multiple predicates: [flexibleButton(>=70,<=100)] is a minimum and a maximum width")
    func multiplePredicates() {
        #expect(
            parsed("[flexibleButton(>=70,<=100)]")?.constraints
                == [
                    PinConstraint(view("flexibleButton", .width), .greaterThanOrEqual, constant: 70, column: 17),
                    PinConstraint(view("flexibleButton", .width), .lessThanOrEqual, constant: 100, column: 22),
                ])
    }

    @Test("A complete line of layout: |-[find]-[findNext]-[findField(>=20)]-| with standard spaces and edges")
    func completeLineOfLayout() {
        let format = parsed("|-[find]-[findNext]-[findField(>=20)]-|")
        #expect(format?.axis == .horizontal)
        #expect(
            format?.constraints
                == [
                    PinConstraint(view("find", .leading), .equal, edge(.leading), constant: 20, column: 2),
                    PinConstraint(view("findNext", .leading), .equal, view("find", .trailing), constant: 8, column: 9),
                    PinConstraint(view("findField", .leading), .equal, view("findNext", .trailing), constant: 8, column: 20),
                    PinConstraint(view("findField", .width), .greaterThanOrEqual, constant: 20, column: 32),
                    PinConstraint(edge(.trailing), .equal, view("findField", .trailing), constant: 20, column: 38),
                ])
        #expect(format?.viewReferences.map(\.name) == ["find", "findNext", "findField"])
    }
}

/// MMMTackKit's README examples written as strings, the Pins issue's example, and the other additions.
@Suite("Pin strings: Tack's additions and Trellis' extensions")
struct VisualFormatExtensionTests {
    /// Tack's README: `>==50` is its shorthand for VFL's `>=50,50@249`.
    @Test("Tack's double pin >==50 means VFL's >=50,50@249")
    func doublePinIsTacksShorthand() {
        let apple = parsed("H:|-(>=50,50@249)-[purpleBox]-(8)-[yellowBox]-(>=20)-|")
        let tack = parsed("H:|-(>==50)-[purpleBox]-(8)-[yellowBox]-(>=20)-|")
        #expect(apple.map { withoutColumns($0.constraints) } == tack.map { withoutColumns($0.constraints) })
        #expect(
            tack?.constraints.prefix(2)
                == [
                    PinConstraint(view("purpleBox", .leading), .greaterThanOrEqual, edge(.leading), constant: 50, column: 6),
                    PinConstraint(view("purpleBox", .leading), .equal, edge(.leading), constant: 50, priority: 249, column: 6),
                ])
    }

    /// Tack's README: `>==8^749` sets the `==` half's priority; `alignAll: .centerX` aligns the column.
    @Test("Tack's >==8^749 sets the equality's priority, and alignAll centerX aligns the column")
    func doublePinWithPriorityAndAlignAll() {
        let apple = parsed("V:|-(8)-[yellowBox]-(8)-[pinkBox]-(>=8,8@749)-|", alignAll: .centerX)
        let tack = parsed("V:|-(8)-[yellowBox]-(8)-[pinkBox]-(>==8^749)-|", alignAll: .centerX)
        #expect(apple.map { withoutColumns($0.constraints) } == tack.map { withoutColumns($0.constraints) })
        #expect(
            tack?.constraints.last
                == PinConstraint(view("yellowBox", .centerX), .equal, view("pinkBox", .centerX), column: 25))
        #expect(tack?.constraints.count == 5)
    }

    /// Tack's README: `|>-` and `-<|` pin to the safe area.
    @Test("Tack's |> and <| pin to the safe area's edges")
    func safeAreaEdges() {
        #expect(
            parsed("V:|>-(20)-[view]-(>=20)-<|")?.constraints
                == [
                    PinConstraint(view("view", .top), .equal, safe(.top), constant: 20, column: 7),
                    PinConstraint(safe(.bottom), .greaterThanOrEqual, view("view", .bottom), constant: 20, column: 19),
                ])
        #expect(
            parsed("H:|>[a]<|")?.constraints
                == [
                    PinConstraint(view("a", .leading), .equal, safe(.leading), column: 5),
                    PinConstraint(safe(.trailing), .equal, view("a", .trailing), column: 8),
                ])
        #expect(parsed("H:|>-[a]-<|")?.constraints.map(\.constant) == [20, 20])
    }

    @Test("The Pins issue's example: a title and badge row, a body, a vertical stack and an aspect ratio")
    func issueExample() {
        #expect(
            parsed("H:|-16-[title]-(>=8)-[badge]-16-|")?.constraints
                == [
                    PinConstraint(view("title", .leading), .equal, edge(.leading), constant: 16, column: 5),
                    PinConstraint(view("badge", .leading), .greaterThanOrEqual, view("title", .trailing), constant: 8, column: 17),
                    PinConstraint(edge(.trailing), .equal, view("badge", .trailing), constant: 16, column: 30),
                ])
        #expect(
            parsed("H:|-16-[body]-16-|")?.constraints
                == [
                    PinConstraint(view("body", .leading), .equal, edge(.leading), constant: 16, column: 5),
                    PinConstraint(edge(.trailing), .equal, view("body", .trailing), constant: 16, column: 15),
                ])
        #expect(
            parsed("V:|>-(20)-[title]-8-[body]-(>=20)-<|")?.constraints
                == [
                    PinConstraint(view("title", .top), .equal, safe(.top), constant: 20, column: 7),
                    PinConstraint(view("body", .top), .equal, view("title", .bottom), constant: 8, column: 19),
                    PinConstraint(safe(.bottom), .greaterThanOrEqual, view("body", .bottom), constant: 20, column: 29),
                ])
        #expect(
            parsed("V:[badge(24)]")?.constraints == [PinConstraint(view("badge", .height), .equal, constant: 24, column: 10)])
        let aspect = parsed("H:[badge(==badge.height)]")
        #expect(
            aspect?.constraints == [PinConstraint(view("badge", .width), .equal, view("badge", .height), column: 10)])
        #expect(
            aspect?.viewReferences == [PinViewReference(name: "badge", column: 4), PinViewReference(name: "badge", column: 12)])
    }

    @Test("A double pin on a size, >==50^500, is a minimum and an equality at 500")
    func doublePinOnASize() {
        #expect(
            parsed("H:[a(>==50^500)]")?.constraints
                == [
                    PinConstraint(view("a", .width), .greaterThanOrEqual, constant: 50, column: 6),
                    PinConstraint(view("a", .width), .equal, constant: 50, priority: 500, column: 6),
                ])
    }

    @Test("A caret priority ^750 means the same as @750, on sizes and on gaps")
    func caretPriorityEqualsAtPriority() {
        #expect(parsed("H:[a(50^750)]")?.constraints == parsed("H:[a(50@750)]")?.constraints)
        #expect(parsed("H:[a]-(8^300)-[b]")?.constraints.first?.priority == 300)
    }

    @Test("Metric names stand for their values in gaps, sizes and priorities, even where a view could be named")
    func metrics() {
        let metrics = ["pad": 12.0, "w": 100, "prio": 750]
        #expect(
            parsed("H:|-pad-[a(w)]-(>=pad@prio)-|", metrics: metrics)?.constraints
                == [
                    PinConstraint(view("a", .leading), .equal, edge(.leading), constant: 12, column: 5),
                    PinConstraint(view("a", .width), .equal, constant: 100, column: 12),
                    PinConstraint(edge(.trailing), .greaterThanOrEqual, view("a", .trailing), constant: 12, priority: 750, column: 17),
                ])
        // A bare name in metrics is a constant even where a view could be named (Apple's rule).
        #expect(
            parsed("H:[a(==w)]", metrics: metrics)?.constraints
                == [PinConstraint(view("a", .width), .equal, constant: 100, column: 6)])
    }

    @Test("Multipliers (numbers or metrics) and another view's other dimension")
    func multipliersAndOtherAttributes() {
        #expect(
            parsed("H:[a(==b.height*2)]")?.constraints
                == [PinConstraint(view("a", .width), .equal, view("b", .height), multiplier: 2, column: 6)])
        #expect(
            parsed("V:[a(<=b*0.5@750)]")?.constraints
                == [PinConstraint(view("a", .height), .lessThanOrEqual, view("b", .height), multiplier: 0.5, priority: 750, column: 6)])
        #expect(parsed("H:[a(==b*k)]", metrics: ["k": 1.5])?.constraints.first?.multiplier == 1.5)
    }

    @Test("Numbers may be negative, fractional, signed with +, and twelve digits long")
    func numbers() {
        #expect(parsed("H:|-(-8)-[a]")?.constraints.first?.constant == -8)
        #expect(parsed("H:[a]-8.5-[b]")?.constraints.first?.constant == 8.5)
        #expect(parsed("H:[a(+0.25)]")?.constraints.first?.constant == 0.25)
        #expect(parsed("H:[a(999999999999)]")?.constraints.first?.constant == 999_999_999_999)
    }

    @Test("Without H: or V: a pin string is horizontal; V: pins top and bottom")
    func orientationDefaultsToHorizontal() {
        #expect(parsed("[a]")?.axis == .horizontal)
        #expect(parsed("[a]")?.constraints == [])
        #expect(parsed("V:|[a]|")?.constraints.map(\.first.attribute) == [.top, .bottom])
    }

    @Test("alignAll aligns each view with the next, and adds nothing for a single view")
    func alignAllAlignsConsecutiveViews() {
        #expect(
            parsed("H:|-[a]-[b][c]", alignAll: .firstBaseline)?.constraints.suffix(2)
                == [
                    PinConstraint(view("a", .firstBaseline), .equal, view("b", .firstBaseline), column: 9),
                    PinConstraint(view("b", .firstBaseline), .equal, view("c", .firstBaseline), column: 12),
                ])
        #expect(parsed("H:[a]", alignAll: .top)?.constraints == [])
    }

    @Test("alignAll must be an attribute across the string's axis; others are rejected with the ones allowed")
    func alignAllMustFitTheAxis() {
        #expect(
            throws: VisualFormatError(
                column: 1,
                message:
                    "alignAll centerX cannot align the views of a horizontal pin string; use one of top, bottom, centerY, firstBaseline, lastBaseline"
            )
        ) { _ = try VisualFormat.parse("H:[a]-[b]", alignAll: .centerX) }
        #expect(throws: VisualFormatError.self) { _ = try VisualFormat.parse("V:[a]-[b]", alignAll: .height) }
    }

    @Test("Attribute names convert both ways, and an unknown name is nil")
    func attributeNames() {
        #expect(PinAttribute(name: "centerY") == .centerY)
        #expect(PinAttribute(name: "middle") == nil)
        #expect(PinAttribute.lastBaseline.name == "lastBaseline")
    }
}
