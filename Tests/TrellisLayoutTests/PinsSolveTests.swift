import Testing
import TrellisLayout

/// Pin strings solved by the layout core to frames computed by hand: the examples of Apple's
/// "Visual Format Language" guide and MMMTackKit's additions, in a 300 × 200 container.
@Suite("Pins: solved frames")
struct PinsSolveTests {
    /// A view: an empty box, or one with content of a fixed size (a label), and its own style.
    enum View {
        case empty
        case content(Float, Float)
    }

    /// Lays out a container of `views` (named in order) placed by `pins`; returns each view's frame.
    func solve(_ pins: [String], _ views: [(String, View)], width: Float = 300, height: Float = 200,
               direction: Direction = .ltr, alignAll: [Int: PinAttribute] = [:], safeArea: PinInsets = PinInsets(),
               container: (inout Style) -> Void = { _ in }) throws -> [String: LayoutFrame] {
        var style = Style()
        style.width = .points(width)
        style.height = .points(height)
        container(&style)
        let root = LayoutNode(style: style)
        var constraints: [PinConstraint] = []
        for (index, pin) in pins.enumerated() {
            constraints += try VisualFormat.parse(pin, alignAll: alignAll[index]).constraints
        }
        root.pinLayout = PinLayout(constraints: constraints, views: views.map(\.0), safeAreaInsets: safeArea)
        for (_, view) in views {
            switch view {
            case .empty: root.addChild(LayoutNode())
            case .content(let w, let h): root.addChild(LayoutNode(measure: { _, _, _, _ in Size(width: w, height: h) }))
            }
        }
        root.calculateLayout(direction: direction)
        return Dictionary(uniqueKeysWithValues: zip(views.map(\.0), root.children.map(\.frame)))
    }

    func frame(_ x: Float, _ y: Float, _ width: Float, _ height: Float) -> LayoutFrame {
        LayoutFrame(left: x, top: y, width: width, height: height)
    }

    @Test("Standard space: [button]-[textField], 8 between views and 20 to the edges")
    func standardSpace() throws {
        let f = try solve(["H:|-[button]-[textField]-|", "V:|-[button]", "V:|-[textField(30)]"],
                          [("button", .content(80, 30)), ("textField", .empty)])
        #expect(f["button"] == frame(20, 20, 80, 30))
        #expect(f["textField"] == frame(108, 20, 172, 30))
    }

    @Test("Width constraint: [button(>=50)] keeps its content width above 50, grows to 50 below it")
    func widthConstraint() throws {
        let wide = try solve(["H:|[button(>=50)]", "V:|[button]"], [("button", .content(80, 30))])
        #expect(wide["button"] == frame(0, 0, 80, 30))
        let narrow = try solve(["H:|[button(>=50)]", "V:|[button]"], [("button", .content(30, 30))])
        #expect(narrow["button"] == frame(0, 0, 50, 30))
    }

    @Test("Connection to superview: |-50-[purpleBox]-50-|")
    func connectionToSuperview() throws {
        let f = try solve(["H:|-50-[purpleBox]-50-|", "V:|-50-[purpleBox]-50-|"], [("purpleBox", .empty)])
        #expect(f["purpleBox"] == frame(50, 50, 200, 100))
    }

    @Test("Vertical layout: V:[topField]-10-[bottomField]")
    func verticalLayout() throws {
        let f = try solve(["V:|[topField]-10-[bottomField]", "H:|[topField]|", "H:|[bottomField]|"],
                          [("topField", .content(100, 24)), ("bottomField", .content(100, 24))])
        #expect(f["topField"] == frame(0, 0, 300, 24))
        #expect(f["bottomField"] == frame(0, 34, 300, 24))
    }

    @Test("Flush views: [maroonView][blueView]")
    func flushViews() throws {
        let f = try solve(["H:|[maroonView][blueView(==maroonView)]|", "V:|[maroonView(40)]", "V:|[blueView(40)]"],
                          [("maroonView", .empty), ("blueView", .empty)])
        #expect(f["maroonView"] == frame(0, 0, 150, 40))
        #expect(f["blueView"] == frame(150, 0, 150, 40))
    }

    @Test("Priority: [button(100@20)] gives way to the button's content (hugging 250 beats 20)")
    func priority() throws {
        let f = try solve(["H:|[button(100@20)]", "V:|[button]"], [("button", .content(60, 30))])
        #expect(f["button"] == frame(0, 0, 60, 30))
        let empty = try solve(["H:|[button(100@20)]", "V:|[button(30)]"], [("button", .empty)])
        #expect(empty["button"] == frame(0, 0, 100, 30))
    }

    @Test("Equal widths: [button1(==button2)]")
    func equalWidths() throws {
        let f = try solve(["H:|-[button1(==button2)]-[button2]-|", "V:|[button1]", "V:|[button2]"],
                          [("button1", .content(40, 30)), ("button2", .content(90, 30))])
        #expect(f["button1"] == frame(20, 0, 126, 30))
        #expect(f["button2"] == frame(154, 0, 126, 30))
    }

    @Test("Multiple predicates: [flexibleButton(>=70,<=100)] within its bounds")
    func multiplePredicates() throws {
        func width(_ content: Float) throws -> Float? {
            try solve(["H:|[flexibleButton(>=70,<=100)]", "V:|[flexibleButton]"], [("flexibleButton", .content(content, 30))])["flexibleButton"]?.width
        }
        #expect(try width(50) == 70)
        #expect(try width(85) == 85)
        #expect(try width(140) == 100)
    }

    @Test("A complete line of layout: |-[find]-[findNext]-[findField(>=20)]-|")
    func completeLine() throws {
        let f = try solve(["H:|-[find]-[findNext]-[findField(>=20)]-|", "V:|-[find]", "V:|-[findNext]", "V:|-[findField(22)]"],
                          [("find", .content(50, 22)), ("findNext", .content(60, 22)), ("findField", .empty)])
        #expect(f["find"] == frame(20, 20, 50, 22))
        #expect(f["findNext"] == frame(78, 20, 60, 22))
        #expect(f["findField"] == frame(146, 20, 134, 22))
    }

    @Test("Right to left: H strings run from the right edge")
    func rightToLeft() throws {
        let f = try solve(["H:|-[find]-[findNext]-[findField(>=20)]-|", "V:|-[find]", "V:|-[findNext]", "V:|-[findField(22)]"],
                          [("find", .content(50, 22)), ("findNext", .content(60, 22)), ("findField", .empty)], direction: .rtl)
        #expect(f["find"] == frame(230, 20, 50, 22))
        #expect(f["findNext"] == frame(162, 20, 60, 22))
        #expect(f["findField"] == frame(20, 20, 134, 22))
    }

    @Test("Tack: |> and <| pin to the safe area, | to the edge")
    func safeArea() throws {
        for (top, bottom) in [(Double(0), Double(0)), (47, 34), (20, 0)] {
            let f = try solve(["V:|>-(20)-[title]", "V:[footer(10)]-0-<|", "V:|[hero(30)]", "H:|[title]", "H:|[footer]|", "H:|[hero]|"],
                              [("title", .content(100, 20)), ("footer", .empty), ("hero", .empty)],
                              safeArea: PinInsets(top: top, bottom: bottom))
            #expect(f["title"] == frame(0, Float(top) + 20, 100, 20), "safe top \(top)")
            #expect(f["footer"] == frame(0, 200 - Float(bottom) - 10, 300, 10), "safe bottom \(bottom)")
            #expect(f["hero"] == frame(0, 0, 300, 30))
        }
    }

    @Test("Tack: a double pin >==8 keeps 8 where it can and grows where it must")
    func doublePin() throws {
        let f = try solve(["H:|-(>==8)-[label]", "V:|[label]", "H:|-[other(==label)]-(>==8)-|", "V:[label]-[other]"],
                          [("label", .content(100, 20)), ("other", .content(40, 20))])
        #expect(f["label"] == frame(8, 0, 100, 20))
        #expect(f["other"] == frame(20, 28, 100, 20))
        // Centred by an alignment that outranks the double pin's 249: the gap grows.
        let constraints = try VisualFormat.parse("H:|-(>==8)-[label]").constraints
            + PinAlignment.parse("centerX:|@500", view: "label").constraints + VisualFormat.parse("V:|[label]").constraints
        var style = Style()
        style.width = .points(300)
        style.height = .points(200)
        let root = LayoutNode(style: style)
        root.pinLayout = PinLayout(constraints: constraints, views: ["label"])
        root.addChild(LayoutNode(measure: { _, _, _, _ in Size(width: 100, height: 20) }))
        root.calculateLayout()
        #expect(root.children[0].frame == frame(100, 0, 100, 20))
    }

    @Test("alignAll: each view of the string aligned to the next")
    func alignAll() throws {
        let f = try solve(["H:|[a]-[b]-[c]", "V:|-10-[b]"],
                          [("a", .content(20, 40)), ("b", .content(20, 10)), ("c", .content(20, 20))], alignAll: [0: .centerY])
        #expect(f["b"] == frame(28, 10, 20, 10))
        #expect(f["a"] == frame(0, -5, 20, 40))
        #expect(f["c"] == frame(56, 5, 20, 20))
    }

    @Test("Wrapped content is measured again at the width the pins give it")
    func wrappedText() throws {
        var style = Style()
        style.width = .points(200)
        let root = LayoutNode(style: style)
        let words = LayoutNode(measure: { width, mode, _, _ in
            let natural: Float = 500
            let used = mode == .undefined || width.isNaN ? natural : min(natural, width)
            return Size(width: used, height: (natural / used).rounded(.up) * 10)
        })
        root.pinLayout = PinLayout(constraints: try ["H:|-10-[text]-10-|", "V:|-5-[text]-5-|"].flatMap { try VisualFormat.parse($0).constraints },
                                   views: ["text"])
        root.addChild(words)
        root.calculateLayout()
        #expect(words.frame == frame(10, 5, 180, 30))  // 500 points of text in 180: three lines
        #expect(root.frame.height == 40)  // the container hugs its pinned content
    }

    @Test("Problems: unsatisfiable, mixed directions, ambiguous")
    func problems() throws {
        func problems(_ pins: [String], _ sizing: [PinViewSizing] = [PinViewSizing(intrinsicWidth: 10, intrinsicHeight: 10)]) throws -> [PinProblem] {
            PinLayout(constraints: try pins.flatMap { try VisualFormat.parse($0).constraints }, views: ["a"]).problems(sizing: sizing)
        }
        #expect(try problems(["H:|[a]|", "V:|[a]|"]) == [])
        #expect(try problems(["H:|[a]", "V:|[a]"]) == [])  // its content sizes it
        #expect(try problems(["H:|[a]", "V:|[a]"], [PinViewSizing()]) == [.ambiguous(view: "a", axis: .horizontal), .ambiguous(view: "a", axis: .vertical)])
        #expect(try problems(["H:|[a(10)]", "H:[a(20)]", "V:|[a]"]) == [.unsatisfiable(constraint: 2)])
        var mixed = PinLayout(constraints: try VisualFormat.parse("H:|[a]|").constraints, views: ["a"])
        mixed.constraints.append(PinConstraint(PinAnchor(.view("a"), .leading), .equal, PinAnchor(.container, .left), column: 1))
        #expect(mixed.problems(sizing: [PinViewSizing()]) == [.mixedDirections(constraint: 2)])
    }
}
