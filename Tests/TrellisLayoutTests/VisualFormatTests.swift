import TrellisLayout
import XCTest

// Shorthands for expected constraints: `view("a", .leading)`, `edge(.trailing)`.
func view(_ name: String, _ attribute: PinAttribute) -> PinAnchor { PinAnchor(.view(name), attribute) }
func edge(_ attribute: PinAttribute) -> PinAnchor { PinAnchor(.container, attribute) }
func safe(_ attribute: PinAttribute) -> PinAnchor { PinAnchor(.safeArea, attribute) }

/// Parses `text`, failing the test (not crashing) on an error.
func parsed(
    _ text: String, metrics: [String: Double] = [:], alignAll: PinAttribute? = nil, file: StaticString = #filePath,
    line: UInt = #line
) -> VisualFormat? {
    do {
        return try VisualFormat.parse(text, metrics: metrics, alignAll: alignAll)
    } catch {
        XCTFail("\(text): \(error)", file: file, line: line)
        return nil
    }
}

/// The constraints without their columns, to compare two spellings of the same layout.
func withoutColumns(_ constraints: [PinConstraint]) -> [PinConstraint] {
    constraints.map { var c = $0; c.column = 0; return c }
}

/// The examples of Apple's "Visual Format Language" appendix (Auto Layout Guide), each with the
/// constraints Auto Layout makes of it.
final class VisualFormatAppleExampleTests: XCTestCase {
    func testStandardSpace() {
        XCTAssertEqual(
            parsed("[button]-[textField]")?.constraints,
            [PinConstraint(view("textField", .leading), .equal, view("button", .trailing), constant: 8, column: 9)])
    }

    func testWidthConstraint() {
        XCTAssertEqual(
            parsed("[button(>=50)]")?.constraints,
            [PinConstraint(view("button", .width), .greaterThanOrEqual, constant: 50, column: 9)])
    }

    func testConnectionToSuperview() {
        XCTAssertEqual(
            parsed("|-50-[purpleBox]-50-|")?.constraints,
            [
                PinConstraint(view("purpleBox", .leading), .equal, edge(.leading), constant: 50, column: 3),
                PinConstraint(edge(.trailing), .equal, view("purpleBox", .trailing), constant: 50, column: 18),
            ])
    }

    func testVerticalLayout() {
        let format = parsed("V:[topField]-10-[bottomField]")
        XCTAssertEqual(format?.axis, .vertical)
        XCTAssertEqual(
            format?.constraints,
            [PinConstraint(view("bottomField", .top), .equal, view("topField", .bottom), constant: 10, column: 14)])
    }

    func testFlushViews() {
        XCTAssertEqual(
            parsed("[maroonView][blueView]")?.constraints,
            [PinConstraint(view("blueView", .leading), .equal, view("maroonView", .trailing), column: 13)])
    }

    func testPriority() {
        XCTAssertEqual(
            parsed("[button(100@20)]")?.constraints,
            [PinConstraint(view("button", .width), .equal, constant: 100, priority: 20, column: 9)])
    }

    func testEqualWidths() {
        let format = parsed("[button1(==button2)]")
        XCTAssertEqual(
            format?.constraints, [PinConstraint(view("button1", .width), .equal, view("button2", .width), column: 10)])
        XCTAssertEqual(
            format?.viewReferences, [PinViewReference(name: "button1", column: 2), PinViewReference(name: "button2", column: 12)])
    }

    func testMultiplePredicates() {
        XCTAssertEqual(
            parsed("[flexibleButton(>=70,<=100)]")?.constraints,
            [
                PinConstraint(view("flexibleButton", .width), .greaterThanOrEqual, constant: 70, column: 17),
                PinConstraint(view("flexibleButton", .width), .lessThanOrEqual, constant: 100, column: 22),
            ])
    }

    func testCompleteLineOfLayout() {
        let format = parsed("|-[find]-[findNext]-[findField(>=20)]-|")
        XCTAssertEqual(format?.axis, .horizontal)
        XCTAssertEqual(
            format?.constraints,
            [
                PinConstraint(view("find", .leading), .equal, edge(.leading), constant: 20, column: 2),
                PinConstraint(view("findNext", .leading), .equal, view("find", .trailing), constant: 8, column: 9),
                PinConstraint(view("findField", .leading), .equal, view("findNext", .trailing), constant: 8, column: 20),
                PinConstraint(view("findField", .width), .greaterThanOrEqual, constant: 20, column: 32),
                PinConstraint(edge(.trailing), .equal, view("findField", .trailing), constant: 20, column: 38),
            ])
        XCTAssertEqual(format?.viewReferences.map(\.name), ["find", "findNext", "findField"])
    }
}

/// MMMTackKit's README examples written as strings, the Pins issue's example, and the other additions.
final class VisualFormatExtensionTests: XCTestCase {
    /// Tack's README: `>==50` is its shorthand for VFL's `>=50,50@249`.
    func testDoublePinIsTacksShorthand() {
        let apple = parsed("H:|-(>=50,50@249)-[purpleBox]-(8)-[yellowBox]-(>=20)-|")
        let tack = parsed("H:|-(>==50)-[purpleBox]-(8)-[yellowBox]-(>=20)-|")
        XCTAssertEqual(apple.map { withoutColumns($0.constraints) }, tack.map { withoutColumns($0.constraints) })
        XCTAssertEqual(
            tack?.constraints.prefix(2),
            [
                PinConstraint(view("purpleBox", .leading), .greaterThanOrEqual, edge(.leading), constant: 50, column: 6),
                PinConstraint(view("purpleBox", .leading), .equal, edge(.leading), constant: 50, priority: 249, column: 6),
            ])
    }

    /// Tack's README: `>==8^749` sets the `==` half's priority; `alignAll: .centerX` aligns the column.
    func testDoublePinWithPriorityAndAlignAll() {
        let apple = parsed("V:|-(8)-[yellowBox]-(8)-[pinkBox]-(>=8,8@749)-|", alignAll: .centerX)
        let tack = parsed("V:|-(8)-[yellowBox]-(8)-[pinkBox]-(>==8^749)-|", alignAll: .centerX)
        XCTAssertEqual(apple.map { withoutColumns($0.constraints) }, tack.map { withoutColumns($0.constraints) })
        XCTAssertEqual(
            tack?.constraints.last,
            PinConstraint(view("yellowBox", .centerX), .equal, view("pinkBox", .centerX), column: 25))
        XCTAssertEqual(tack?.constraints.count, 5)
    }

    /// Tack's README: `|>-` and `-<|` pin to the safe area.
    func testSafeAreaEdges() {
        XCTAssertEqual(
            parsed("V:|>-(20)-[view]-(>=20)-<|")?.constraints,
            [
                PinConstraint(view("view", .top), .equal, safe(.top), constant: 20, column: 7),
                PinConstraint(safe(.bottom), .greaterThanOrEqual, view("view", .bottom), constant: 20, column: 19),
            ])
        XCTAssertEqual(
            parsed("H:|>[a]<|")?.constraints,
            [
                PinConstraint(view("a", .leading), .equal, safe(.leading), column: 5),
                PinConstraint(safe(.trailing), .equal, view("a", .trailing), column: 8),
            ])
        XCTAssertEqual(
            parsed("H:|>-[a]-<|")?.constraints.map(\.constant), [20, 20])
    }

    func testIssueExample() {
        XCTAssertEqual(
            parsed("H:|-16-[title]-(>=8)-[badge]-16-|")?.constraints,
            [
                PinConstraint(view("title", .leading), .equal, edge(.leading), constant: 16, column: 5),
                PinConstraint(view("badge", .leading), .greaterThanOrEqual, view("title", .trailing), constant: 8, column: 17),
                PinConstraint(edge(.trailing), .equal, view("badge", .trailing), constant: 16, column: 30),
            ])
        XCTAssertEqual(
            parsed("H:|-16-[body]-16-|")?.constraints,
            [
                PinConstraint(view("body", .leading), .equal, edge(.leading), constant: 16, column: 5),
                PinConstraint(edge(.trailing), .equal, view("body", .trailing), constant: 16, column: 15),
            ])
        XCTAssertEqual(
            parsed("V:|>-(20)-[title]-8-[body]-(>=20)-<|")?.constraints,
            [
                PinConstraint(view("title", .top), .equal, safe(.top), constant: 20, column: 7),
                PinConstraint(view("body", .top), .equal, view("title", .bottom), constant: 8, column: 19),
                PinConstraint(safe(.bottom), .greaterThanOrEqual, view("body", .bottom), constant: 20, column: 29),
            ])
        XCTAssertEqual(
            parsed("V:[badge(24)]")?.constraints, [PinConstraint(view("badge", .height), .equal, constant: 24, column: 10)])
        let aspect = parsed("H:[badge(==badge.height)]")
        XCTAssertEqual(
            aspect?.constraints, [PinConstraint(view("badge", .width), .equal, view("badge", .height), column: 10)])
        XCTAssertEqual(
            aspect?.viewReferences, [PinViewReference(name: "badge", column: 4), PinViewReference(name: "badge", column: 12)])
    }

    func testDoublePinOnASize() {
        XCTAssertEqual(
            parsed("H:[a(>==50^500)]")?.constraints,
            [
                PinConstraint(view("a", .width), .greaterThanOrEqual, constant: 50, column: 6),
                PinConstraint(view("a", .width), .equal, constant: 50, priority: 500, column: 6),
            ])
    }

    func testCaretPriorityEqualsAtPriority() {
        XCTAssertEqual(parsed("H:[a(50^750)]")?.constraints, parsed("H:[a(50@750)]")?.constraints)
        XCTAssertEqual(parsed("H:[a]-(8^300)-[b]")?.constraints.first?.priority, 300)
    }

    func testMetrics() {
        let metrics = ["pad": 12.0, "w": 100, "prio": 750]
        XCTAssertEqual(
            parsed("H:|-pad-[a(w)]-(>=pad@prio)-|", metrics: metrics)?.constraints,
            [
                PinConstraint(view("a", .leading), .equal, edge(.leading), constant: 12, column: 5),
                PinConstraint(view("a", .width), .equal, constant: 100, column: 12),
                PinConstraint(edge(.trailing), .greaterThanOrEqual, view("a", .trailing), constant: 12, priority: 750, column: 17),
            ])
        // A bare name in metrics is a constant even where a view could be named (Apple's rule).
        XCTAssertEqual(
            parsed("H:[a(==w)]", metrics: metrics)?.constraints,
            [PinConstraint(view("a", .width), .equal, constant: 100, column: 6)])
    }

    func testMultipliersAndOtherAttributes() {
        XCTAssertEqual(
            parsed("H:[a(==b.height*2)]")?.constraints,
            [PinConstraint(view("a", .width), .equal, view("b", .height), multiplier: 2, column: 6)])
        XCTAssertEqual(
            parsed("V:[a(<=b*0.5@750)]")?.constraints,
            [PinConstraint(view("a", .height), .lessThanOrEqual, view("b", .height), multiplier: 0.5, priority: 750, column: 6)])
        XCTAssertEqual(
            parsed("H:[a(==b*k)]", metrics: ["k": 1.5])?.constraints.first?.multiplier, 1.5)
    }

    func testNumbers() {
        XCTAssertEqual(parsed("H:|-(-8)-[a]")?.constraints.first?.constant, -8)
        XCTAssertEqual(parsed("H:[a]-8.5-[b]")?.constraints.first?.constant, 8.5)
        XCTAssertEqual(parsed("H:[a(+0.25)]")?.constraints.first?.constant, 0.25)
        XCTAssertEqual(parsed("H:[a(999999999999)]")?.constraints.first?.constant, 999_999_999_999)
    }

    func testOrientationDefaultsToHorizontal() {
        XCTAssertEqual(parsed("[a]")?.axis, .horizontal)
        XCTAssertEqual(parsed("[a]")?.constraints, [])
        XCTAssertEqual(parsed("V:|[a]|")?.constraints.map(\.first.attribute), [.top, .bottom])
    }

    func testAlignAllAlignsConsecutiveViews() {
        XCTAssertEqual(
            parsed("H:|-[a]-[b][c]", alignAll: .firstBaseline)?.constraints.suffix(2),
            [
                PinConstraint(view("a", .firstBaseline), .equal, view("b", .firstBaseline), column: 9),
                PinConstraint(view("b", .firstBaseline), .equal, view("c", .firstBaseline), column: 12),
            ])
        XCTAssertEqual(parsed("H:[a]", alignAll: .top)?.constraints, [])
    }

    func testAlignAllMustFitTheAxis() {
        XCTAssertThrowsError(try VisualFormat.parse("H:[a]-[b]", alignAll: .centerX)) { error in
            XCTAssertEqual(
                error as? VisualFormatError,
                VisualFormatError(
                    column: 1,
                    message:
                        "alignAll centerX cannot align the views of a horizontal pin string; use one of top, bottom, centerY, firstBaseline, lastBaseline"
                ))
        }
        XCTAssertThrowsError(try VisualFormat.parse("V:[a]-[b]", alignAll: .height))
    }

    func testAttributeNames() {
        XCTAssertEqual(PinAttribute(name: "centerY"), .centerY)
        XCTAssertNil(PinAttribute(name: "middle"))
        XCTAssertEqual(PinAttribute.lastBaseline.name, "lastBaseline")
    }
}
