import Testing
import TrellisJSON
import TrellisLayout
import TrellisLayoutJSON

/// The measurement cache must never change results: relaying out a tree after its constraints or
/// styles change gives the same frames as laying out a fresh copy.
@Suite("Cache consistency")
struct CacheConsistencyTests {
    /// A small deterministic generator (no Foundation needed).
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// A random tree description in the `trellis layout` JSON shape.
    static func randomTree(_ random: inout Generator, depth: Int) -> String {
        var style: [String] = []
        let directions = ["row", "column", "row-reverse", "column-reverse"]
        style.append(#""flexDirection":"\#(directions[random.next(4)])""#)
        if random.next(3) == 0 { style.append(#""flexWrap":"wrap""#) }
        if random.next(2) == 0 { style.append(#""flexGrow":\#(random.next(3))"#) }
        if random.next(3) == 0 { style.append(#""flexShrink":1"#) }
        if random.next(3) == 0 { style.append(#""width":\#(20 + random.next(200))"#) }
        if random.next(4) == 0 {  // a percentage replaces the points width (JSON keys are unique)
            style.removeAll { $0.hasPrefix(#""width""#) }
            style.append(#""width":"\#(10 + random.next(80))%""#)
        }
        if random.next(3) == 0 { style.append(#""height":\#(20 + random.next(100))"#) }
        if random.next(4) == 0 { style.append(#""margin":\#(random.next(10))"#) }
        if random.next(4) == 0 { style.append(#""padding":\#(random.next(10))"#) }
        if random.next(5) == 0 { style.append(#""alignItems":"\#(["center", "flex-start", "baseline"][random.next(3)])""#) }
        if random.next(5) == 0 { style.append(#""justifyContent":"space-between""#) }
        if random.next(8) == 0 { style.append(#""positionType":"absolute","top":5,"left":7"#) }
        let styleJSON = "{" + style.joined(separator: ",") + "}"
        if depth == 0 || random.next(4) == 0 {
            let text = random.next(2) == 0 ? #","text":"lorem ipsum dolor sit amet""# : ""
            return #"{"style":\#(styleJSON)\#(text)}"#
        }
        let children = (0..<(1 + random.next(4))).map { _ in randomTree(&random, depth: depth - 1) }
        return #"{"style":\#(styleJSON),"children":[\#(children.joined(separator: ","))]}"#
    }

    static func frames(_ node: LayoutNode) -> [LayoutFrame] {
        [node.frame] + node.children.flatMap(frames)
    }

    @Test("Relayout at other widths equals a fresh layout", arguments: [LayoutMode.yoga, .web])
    func relayoutEqualsFreshLayout(mode: LayoutMode) throws {
        var random = Generator(state: 42)
        let config = LayoutConfig(mode: mode)
        for _ in 0..<60 {
            let json = try JSONParser.parse(Self.randomTree(&random, depth: 4))
            let reused = try LayoutTree.build(json, mode: mode)
            for width: Float in [320, 375, 1024, 320, 0] {
                reused.calculateLayout(availableWidth: width, availableHeight: nil, config: config)
                let fresh = try LayoutTree.build(json, mode: mode)
                fresh.calculateLayout(availableWidth: width, availableHeight: nil, config: config)
                #expect(Self.frames(reused) == Self.frames(fresh))
            }
        }
    }

    @Test("Changing a leaf's style re-lays out its ancestors")
    func styleChangeInvalidates() throws {
        let json = #"{"style":{"flexDirection":"row"},"children":[{"style":{"flexDirection":"column"},"children":[{"style":{"width":50,"height":20}}]},{"style":{"width":30,"height":10}}]}"#
        let root = try LayoutTree.build(try JSONParser.parse(json), mode: .yoga)
        root.calculateLayout()
        #expect(root.frame.width == 80)
        root.children[0].children[0].style.width = .points(70)
        root.calculateLayout()
        #expect(root.frame.width == 100)
        #expect(root.children[1].frame.left == 70)
    }
}
