import Foundation
import Testing
import TrellisJSON
import TrellisLayout
@testable import TrellisRendering
import TrellisScreens
import TrellisTargeting

/// Every screen Trellis ships or keeps as a valid fixture, laid out as clients ask for it — each
/// platform, LTR and RTL, font scale 1 and 1.3, a small and a large phone — draws what it says:
/// every visible leaf has an area, nothing is wider than the viewport unless it scrolls
/// horizontally, and a carousel's pages are as wide as its `itemWidth`. A screen that breaks one
/// of these shows a blank band or a clipped row in the app while every frame test still passes.
@Suite struct ScreenFramesCheckTests {
    /// The phones: iPhone SE (1st generation) and a large one (iPhone Pro Max, a large Android).
    static let phones = [
        "small": "width=320&height=568&scale=2&safeTop=20&safeBottom=0",
        "large": "width=430&height=932&scale=3&safeTop=59&safeBottom=34",
    ]
    /// Users whose outcomes differ on the shipped targeting (rollouts and experiments).
    static let users = ["u1", "u2", "u3", "u7", "u42"]

    /// Config/screens with the shipped targeting, and Fixtures/screens/valid.
    static let screenSets: Result<[(name: String, set: ScreenSet)], any Error> = Result {
        [("Config/screens", try ScreenSet.shipped.get()), ("Fixtures/screens/valid", try ScreenSet.validFixtures())]
    }

    static var cases: [String] {
        var out: [String] = []
        for platform in ["ios", "android"] {
            for direction in ["ltr", "rtl"] {
                for fontScale in ["1", "1.3"] {
                    for phone in phones.keys.sorted() { out.append("\(platform) \(direction) \(fontScale) \(phone)") }
                }
            }
        }
        return out
    }

    @Test(arguments: cases)
    func everyScreenDrawsWhatItSays(_ setting: String) throws {
        let parts = setting.split(separator: " ").map(String.init)
        let query = "platform=\(parts[0])&direction=\(parts[1])&fontScale=\(parts[2])&" + (Self.phones[parts[3]] ?? "")
        var checked = 0
        for (name, set) in try Self.screenSets.get() {
            let renderer = try Renderer(set)
            for id in set.screens.keys.sorted() {
                for user in Self.users {
                    let (plan, view) = try renderer.plan(id, "user=\(user)&" + query)
                    let frames = ScreenLayout(viewport: view.viewport, fonts: renderer.fonts).layOut(plan)
                    guard let root = frames.root else { continue }
                    for problem in ScreenFramesCheck(viewport: view.viewport).problems(root) {
                        Issue.record("\(name)/\(id) for \(user), \(setting): \(problem)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked >= 8 * Self.users.count, "laid out \(checked) screens")
    }

    /// The check finds what it is for: a leaf of no area, a row wider than the phone, a carousel
    /// page of the wrong width (frames made by hand, so the check is not only ever passing).
    @Test func theCheckFindsEachKindOfProblem() throws {
        let renderer = try Renderer(roots: [
            "s": #"{"type": "VStack", "subviews": ["#
                + #"{"type": "Rectangle", "id": "empty", "properties": {"width": 0, "height": 10}},"#
                + #"{"type": "HStack", "id": "wide", "properties": {"width": 500}, "subviews": [{"type": "Text", "id": "t", "values": {"text": "x"}}]},"#
                + #"{"type": "Carousel", "id": "c", "properties": {"itemWidth": 100, "height": 50}, "subviews": [{"type": "Rectangle", "id": "page", "properties": {"width": 20}}]},"#
                + #"{"type": "ScrollView", "properties": {"axis": "horizontal"}, "subviews": [{"type": "Rectangle", "id": "long", "properties": {"width": 900, "height": 5}}]}"#
                + #"]}"#,
        ])
        let (plan, view) = try renderer.plan("s", "width=320&height=568&scale=2")
        let root = try #require(ScreenLayout(viewport: view.viewport, fonts: renderer.fonts).layOut(plan).root)
        var problems = ScreenFramesCheck(viewport: view.viewport).problems(root)
        // The carousel's page is made 20 wide by hand: the layout keeps it at the item width.
        problems += ScreenFramesCheck(viewport: view.viewport).problems(Self.resizing(root, "page", width: 20))
        #expect(problems.contains { $0.hasPrefix("empty: a Rectangle of no area") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("wide: 500 wide") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("page: 20 wide, a page of c") }, "\(problems)")
        #expect(!problems.contains { $0.hasPrefix("long:") }, "what scrolls horizontally may be wider: \(problems)")
        // The wide row's text sits in it, off the phone too; nothing else is reported.
        #expect(Set(problems.map { $0.prefix { $0 != ":" } }) == ["empty", "wide", "t", "page"], "\(problems)")
    }

    static func resizing(_ node: LaidOutComponent, _ id: String, width: Float) -> LaidOutComponent {
        var node = node
        if node.layoutId == id { node.frame.width = width }
        node.subviews = node.subviews.map { resizing($0, id, width: width) }
        return node
    }
}

/// What ``ScreenFramesCheckTests`` requires of a laid-out screen, one message per problem.
struct ScreenFramesCheck {
    let viewport: LayoutViewport
    /// Frames are rounded to the pixel grid: a size may be off by one pixel.
    var pixel: Float { viewport.scale > 0 ? 1 / viewport.scale : 0.001 }

    func problems(_ root: LaidOutComponent) -> [String] {
        var out: [String] = []
        visit(root, left: 0, scrollsHorizontally: false, &out)
        return out
    }

    /// `left`: where the parent's frame starts on the screen.
    private func visit(_ node: LaidOutComponent, left: Float, scrollsHorizontally: Bool, _ out: inout [String]) {
        guard !node.isHidden else { return }
        let frame = node.frame, type = node.component.type
        let x = left + frame.left
        if isVisibleLeaf(node) && !(frame.width > 0 && frame.height > 0) {
            out.append("\(node.layoutId): a \(type) of no area (\(n(frame.width)) × \(n(frame.height)))")
        }
        if !scrollsHorizontally && frame.width > viewport.width + pixel {
            out.append("\(node.layoutId): \(n(frame.width)) wide, wider than the \(n(viewport.width))-point viewport")
        } else if !scrollsHorizontally && (x < -pixel || x + frame.width > viewport.width + pixel) {
            out.append("\(node.layoutId): from \(n(x)) to \(n(x + frame.width)), off the \(n(viewport.width))-point viewport")
        }
        if type == "Carousel", let itemWidth = pageWidth(of: node) {
            for page in node.subviews where !page.isHidden && abs(page.frame.width - itemWidth) > pixel {
                out.append("\(page.layoutId): \(n(page.frame.width)) wide, a page of \(node.layoutId) is \(n(itemWidth)) (itemWidth)")
            }
        }
        let horizontal = type == "Carousel"
            || (type == "ScrollView" && ComponentProperties(members: node.component.properties).string("axis") == "horizontal")
        for child in node.subviews { visit(child, left: x, scrollsHorizontally: scrollsHorizontally || horizontal, &out) }
    }

    /// A number as people write it: `500`, `97.5`.
    private func n(_ value: Float) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
    }

    /// A Text with text, an Image, a Button or a shape: something the app draws.
    private func isVisibleLeaf(_ node: LaidOutComponent) -> Bool {
        switch node.component.type {
        case "Text": return !(node.text?.text.isEmpty ?? true)
        case "Image", "Button", "Rectangle", "Circle": return true
        default: return false
        }
    }

    /// The width a carousel's `itemWidth` gives its pages: points, or a percentage of its content width.
    private func pageWidth(of carousel: LaidOutComponent) -> Float? {
        let contentWidth = carousel.frame.width - carousel.insets.left - carousel.insets.right
        switch ComponentProperties(members: carousel.component.properties).size("itemWidth") {
        case .points(let points): return points
        case .percent(let percent): return contentWidth * percent / 100
        case .fill: return contentWidth
        default: return nil
        }
    }
}

extension ScreenSet {
    /// Fixtures/screens/valid, with the shipped templates and targeting.
    static func validFixtures() throws -> ScreenSet {
        let directory = ShippedConfig.url.deletingLastPathComponent().appendingPathComponent("Fixtures/screens/valid")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
        var screens: [String: Screen] = [:]
        for file in files {
            let id = String(file.dropLast(".json".count))
            let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(file)))
            screens[id] = try ScreenDecoder().decode(bytes, source: "Fixtures/screens/valid/\(file)", expectedID: id).get()
        }
        return try ScreenSet(screens: screens, evaluator: ScreenSet.shipped.get().evaluator)
    }
}

