// trellis-layout-bench: times TrellisLayout on feed-like trees.
//
//   trellis-layout-bench                 run every scenario, print median times
//   trellis-layout-bench --emit-tree N   print the N-node box tree as JSON (Yoga style names),
//                                        so scripts/bench-layout can lay out the same tree with Yoga
//   trellis-layout-bench --emit-frames N print that tree's frames, to check both engines agree
//   trellis-layout-bench --scaling       relayout time per node for trees of 500 to 20,000 nodes
//   trellis-layout-bench --profile N     relayout the 1,000-node tree N times (for perf record)
//   trellis-layout-bench --profile-relayout N   lay out a 10,000-node tree, then relayout it N times
//   trellis-layout-bench --pins [RUNS]   1,000 pinned views in 100 Pins cards beside the same
//                                        cards in flexbox (PinsFeed.swift)
import TrellisJSON
import TrellisLayout
import TrellisLayoutJSON

/// A feed of cards, like a social or shopping app's home screen: each card is a header row
/// (avatar, title, badge), a wrapping row of fixed-size thumbnails and a footer of flex-grow buttons.
enum Feed {
    static let viewportWidth: Float = 390

    /// The feed as JSON text in the `trellis layout` tree shape, with about `nodeCount` nodes.
    static func json(nodeCount: Int, text: Bool) -> String {
        var cards: [String] = []
        var count = 1
        var index = 0
        while count < nodeCount {
            let (card, nodes) = cardJSON(index, text: text)
            cards.append(card)
            count += nodes
            index += 1
        }
        return #"{"id":"feed","style":{"width":\#(Int(viewportWidth)),"padding":8},"children":["# + cards.joined(separator: ",") + "]}"
    }

    private static func cardJSON(_ index: Int, text: Bool) -> (String, Int) {
        let thumbnails = 4 + index % 5
        let title = text
            ? #"{"style":{"flexGrow":1,"flexShrink":1,"marginHorizontal":8},"text":"Card \#(index) title with a few words that wrap"}"#
            : #"{"style":{"flexGrow":1,"flexShrink":1,"height":20,"marginHorizontal":8}}"#
        let body = text
            ? #",{"style":{"marginTop":6},"text":"Body text of card \#(index): some words to wrap across lines in the card"}"#
            : ""
        let header = #"{"style":{"flexDirection":"row","alignItems":"center"},"children":[{"style":{"width":40,"height":40}},\#(title),{"style":{"width":24,"height":16}}]}"#
        let tile = #"{"style":{"width":80,"height":60,"margin":4}}"#
        let grid = #"{"style":{"flexDirection":"row","flexWrap":"wrap","marginTop":8},"children":["#
            + Array(repeating: tile, count: thumbnails).joined(separator: ",") + "]}"
        let button = #"{"style":{"flexGrow":1,"height":32,"marginHorizontal":4}}"#
        let footer = #"{"style":{"flexDirection":"row","marginTop":8},"children":[\#(button),\#(button),\#(button)]}"#
        let card = #"{"style":{"padding":12,"marginBottom":8,"borderWidth":1},"children":[\#(header)\#(body),\#(grid),\#(footer)]}"#
            .replacingBorder()
        let nodes = 1 + 4 + (text ? 1 : 0) + 1 + thumbnails + 4
        return (card, nodes)
    }
}

private extension String {
    /// `border` is the Yoga name for all four borders.
    func replacingBorder() -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(of: "\"borderWidth\"") {
            result += rest[..<range.lowerBound] + "\"border\""
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

private extension Substring {
    func range(of needle: String) -> Range<Substring.Index>? {
        let needleChars = Array(needle)
        var index = startIndex
        while index < endIndex {
            var probe = index
            var matched = 0
            while matched < needleChars.count, probe < endIndex, self[probe] == needleChars[matched] {
                probe = self.index(after: probe)
                matched += 1
            }
            if matched == needleChars.count { return index..<probe }
            index = self.index(after: index)
        }
        return nil
    }
}

func buildTree(_ json: String) -> LayoutNode {
    do {
        return try LayoutTree.build(try JSONParser.parse(json), mode: .yoga)
    } catch {
        fatalError("bench tree: \(error)")
    }
}

func countNodes(_ node: LayoutNode) -> Int {
    node.children.reduce(1) { $0 + countNodes($1) }
}

func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

/// Median time of the first layout of a freshly built tree.
func timeFirstLayout(_ json: String, runs: Int) -> Double {
    let clock = ContinuousClock()
    var times: [Double] = []
    for _ in 0..<runs {
        let root = buildTree(json)
        let start = clock.now
        root.calculateLayout(availableWidth: Feed.viewportWidth, availableHeight: nil)
        times.append(milliseconds(clock.now - start))
    }
    return median(times)
}

/// Median time of a relayout after the viewport width changed (alternating 390 / 391 points).
func timeRelayout(_ json: String, runs: Int) -> Double {
    let clock = ContinuousClock()
    let root = buildTree(json)
    var style = root.style
    root.calculateLayout(availableWidth: Feed.viewportWidth, availableHeight: nil)
    var times: [Double] = []
    for run in 0..<runs {
        style.width = .points(Feed.viewportWidth + Float(run % 2 == 0 ? 1 : 0))
        root.style = style
        let start = clock.now
        root.calculateLayout(availableWidth: Feed.viewportWidth, availableHeight: nil)
        times.append(milliseconds(clock.now - start))
    }
    return median(times)
}

func format(_ value: Double) -> String {
    let hundredths = Int(value * 1000 + 0.5)
    let whole = hundredths / 1000, fraction = hundredths % 1000
    let digits = String(fraction)
    return "\(whole)." + String(repeating: "0", count: 3 - digits.count) + digits
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--emit-tree", let count = Int(arguments[2]) {
    print(Feed.json(nodeCount: count, text: false))
} else if arguments.count == 3, arguments[1] == "--profile", let count = Int(arguments[2]) {
    // For `perf record`: relayouts of the 1,000-node box tree at alternating widths, or (with a
    // negative count) first layouts of fresh 10,000-node trees.
    if count < 0 {
        let json = Feed.json(nodeCount: 10_000, text: false)
        let trees = (0..<(-count)).map { _ in buildTree(json) }
        for root in trees { root.calculateLayout(availableWidth: Feed.viewportWidth, availableHeight: nil) }
    } else {
        let root = buildTree(Feed.json(nodeCount: 1_000, text: false))
        var style = root.style
        for run in 0..<count {
            style.width = .points(Feed.viewportWidth + Float(run % 2))
            root.style = style
            root.calculateLayout(availableWidth: Feed.viewportWidth, availableHeight: nil)
        }
    }
} else if arguments.count == 3, arguments[1] == "--profile-relayout", let count = Int(arguments[2]) {
    // For callgrind (`--toggle-collect='*calculateLayout*'`): one first layout of a
    // 10,000-node box tree, then `count` relayouts at alternating widths.
    let root = buildTree(Feed.json(nodeCount: 10_000, text: false))
    var style = root.style
    root.calculateLayout(availableWidth: Feed.viewportWidth, availableHeight: nil)
    for run in 0..<count {
        style.width = .points(Feed.viewportWidth + Float(run % 2 == 0 ? 1 : 0))
        root.style = style
        root.calculateLayout(availableWidth: Feed.viewportWidth, availableHeight: nil)
    }
} else if arguments.count >= 2, arguments[1] == "--pins" {
    PinsFeed.run(runs: arguments.count == 3 ? Int(arguments[2]) ?? 21 : 21)
} else if arguments.count == 2, arguments[1] == "--scaling" {
    // Time per node as the tree grows: does anything grow faster than the node count?
    for count in [500, 1_000, 2_000, 5_000, 10_000, 20_000] {
        let json = Feed.json(nodeCount: count, text: false)
        let relayout = timeRelayout(json, runs: 21)
        print("\(count) nodes: relayout \(format(relayout)) ms, \(format(relayout * 1000 / Double(count))) µs per node")
    }
} else if arguments.count == 3, arguments[1] == "--emit-frames", let count = Int(arguments[2]) {
    let root = buildTree(Feed.json(nodeCount: count, text: false))
    root.calculateLayout(availableWidth: Feed.viewportWidth, availableHeight: nil)
    print(JSONWriter.string(LayoutTree.frames(root)))
} else {
    print("scenario\tnodes\tfirst layout ms (median)\trelayout ms (median)")
    for (count, text) in [(1_000, false), (10_000, false), (1_000, true), (10_000, true)] {
        let json = Feed.json(nodeCount: count, text: text)
        let nodes = countNodes(buildTree(json))
        let runs = count >= 10_000 ? 21 : 101
        let first = timeFirstLayout(json, runs: runs)
        let relayout = timeRelayout(json, runs: runs)
        print("trellis \(text ? "text" : "boxes")\t\(nodes)\t\(format(first))\t\(format(relayout))")
    }
}
