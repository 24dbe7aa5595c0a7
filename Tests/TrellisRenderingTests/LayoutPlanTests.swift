import Foundation
import Synchronization
import Testing
import TrellisJSON
import TrellisLayout
import TrellisScreens
import TrellisTargeting
import TrellisText
@testable import TrellisRendering

/// Layout plans (what the layout endpoint caches per outcome and viewport kind): the answer they
/// write, relayouts at other sizes, and the node trees they keep, for every shipped screen.
@Suite struct LayoutPlanTests {
    /// Viewports of three kinds, each odd in its own way.
    static let awkwardViewports = [
        LayoutViewport(width: 390, height: 844, scale: 3, safeTop: 47, safeBottom: 34),
        LayoutViewport(width: 333.37, height: 700.5, scale: 2, fontScale: 1.35, direction: .rtl, platform: .android),
        LayoutViewport(width: 1, height: 1, scale: 1, fontScale: 0.5, mode: .web),
    ]

    /// Every shipped screen resolved for three users (parameters filled in with a quote in them).
    static func forEachShippedScreen(_ body: (String, ResolvedScreen, FontCollection) throws -> Void) throws {
        let shipped = try ScreenSet.shipped.get(), fonts = try ShippedFonts.collection()
        for (id, screen) in shipped.screens {
            for user in ["u1", "u2", "u3"] {
                let context = UserContext(userID: user, platform: "ios", appVersion: SemanticVersion("5.3"))
                var resolved = try shipped.resolve(id, for: context)
                if !screen.parameterNames.isEmpty {
                    resolved = try resolved.substituting(Dictionary(uniqueKeysWithValues: screen.parameterNames.map { ($0, JSONValue.string("p\"1")) }))
                }
                try body("\(id), \(user)", resolved, fonts)
            }
        }
    }

    /// A miss writes the layout answer straight from the laid-out nodes; the bytes are those of the
    /// `JSONValue` the pretty form is made from, for every shipped screen and awkward viewports.
    @Test func theDirectlyWrittenAnswerIsTheEncodedJSONValue() throws {
        try Self.forEachShippedScreen { name, resolved, fonts in
            for viewport in Self.awkwardViewports {
                let frames = ScreenLayout(viewport: viewport, fonts: fonts).layOut(resolved)
                let layout = ScreenLayout(viewport: viewport, fonts: fonts, keepsLines: false)
                let plan = layout.plan(resolved, revision: 7)
                let answer = layout.answer(plan)
                #expect(answer == JSONWriter.encode(frames.jsonValue(revision: 7)), "\(name), \(viewport)")
                // Written into memory of the plan's bound, and kept in no more than an eighth over its size.
                #expect(answer.count <= plan.answerCapacity && answer.capacity - answer.count <= answer.count / 8 + 32, "\(name)")
            }
        }
    }

    /// A plan leaves the viewport's size out: laid out at any size, it gives what a plan made at
    /// that size gives, for every shipped screen and viewport kind, previews included. Each layout
    /// after the first reuses the plan's nodes as the last one left them, sizes back and forth.
    @Test func aPlanLaysOutEverySizeAsAPlanMadeAtThatSize() throws {
        let sizes: [(Float, Float)] = [(1, 1), (320, 568), (375.5, 667), (414, 896), (1024, 1366), (375.5, 667), (320, 568), (320, 812)]
        try Self.forEachShippedScreen { name, resolved, fonts in
            for kind in Self.awkwardViewports {
                let plan = ScreenLayout(viewport: kind, fonts: fonts).plan(resolved, revision: 1)
                for (width, height) in sizes {
                    var viewport = kind
                    viewport.width = width
                    viewport.height = height
                    let layout = ScreenLayout(viewport: viewport, fonts: fonts)
                    let reused = layout.layOut(plan), fresh = layout.layOut(resolved)
                    #expect(JSONWriter.encode(reused.jsonValue(revision: 1)) == JSONWriter.encode(fresh.jsonValue(revision: 1)), "\(name), \(viewport)")
                    #expect(PreviewSVG.render(reused, fontFaces: "") == PreviewSVG.render(fresh, fontFaces: ""), "\(name), \(viewport)")
                    let compact = ScreenLayout(viewport: viewport, fonts: fonts, keepsLines: false)
                    #expect(compact.answer(plan) == compact.answer(compact.plan(resolved, revision: 1)), "\(name), \(viewport)")
                }
            }
        }
    }

    /// Layouts of one plan on several threads at once: each takes the plan's nodes or, while
    /// another holds them, makes its own; every answer is the one a plan of its own gives.
    @Test func concurrentLayoutsOfOnePlanGiveFreshAnswers() throws {
        try Self.forEachShippedScreen { name, resolved, fonts in
            guard name.hasPrefix("home") else { return }
            let kind = Self.awkwardViewports[0]
            let plan = ScreenLayout(viewport: kind, fonts: fonts, keepsLines: false).plan(resolved, revision: 1)
            let widths = (0..<24).map { 320 + Float($0) * 3.25 }
            let expected = widths.map { width in
                var viewport = kind
                viewport.width = width
                let layout = ScreenLayout(viewport: viewport, fonts: fonts, keepsLines: false)
                return layout.answer(layout.plan(resolved, revision: 1))
            }
            let mismatches = Mutex(0)
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for round in 0..<6 {
                    for index in widths.indices.shuffled() where (index + round + thread) % 2 == 0 {
                        var viewport = kind
                        viewport.width = widths[index]
                        let answer = ScreenLayout(viewport: viewport, fonts: fonts, keepsLines: false).answer(plan)
                        if answer != expected[index] { mismatches.withLock { $0 += 1 } }
                    }
                }
            }
            #expect(mismatches.withLock { $0 } == 0, "\(name)")
        }
    }

    /// A plan keeps its nodes unless a style has a percentage that may resolve against a height
    /// (a relayout is proven to equal a fresh layout only without): the shipped home screen has none.
    @Test func aPlanKeepsItsNodesUnlessAPercentageMayResolveAgainstAHeight() throws {
        try Self.forEachShippedScreen { name, resolved, fonts in
            let plan = ScreenLayout(viewport: Self.awkwardViewports[0], fonts: fonts).plan(resolved, revision: 1)
            func anyHeightPercentage(_ planned: PlannedComponent) -> Bool {
                planned.style.resolvesPercentagesAgainstHeight || planned.children.contains(where: anyHeightPercentage)
            }
            #expect(plan.keepsNodes == !(plan.root.map(anyHeightPercentage) ?? false), "\(name)")
            if name.hasPrefix("home") { #expect(plan.keepsNodes, "\(name)") }
        }
        var style = Style()
        #expect(!style.resolvesPercentagesAgainstHeight)
        style.width = .percent(50)
        #expect(!style.resolvesPercentagesAgainstHeight)
        for change in [{ (s: inout Style) in s.minHeight = .percent(50) }, { $0.flexBasis = .percent(10) }, { $0.position.top = .percent(5) }] {
            var changed = Style()
            change(&changed)
            #expect(changed.resolvesPercentagesAgainstHeight)
        }
    }

    /// The shelf lends each tree to one taker and keeps as many trees as it has places: two event
    /// loops laying one plan out at once each get a tree back, where one place made every other
    /// layout build new nodes and lay them out from nothing.
    @Test func aNodeTreeShelfLendsEachTreeToOneTaker() {
        let shelf = NodeTreeShelf(places: 2)
        #expect(shelf.take() == nil)
        let trees = (0..<3).map { _ in NodeTree(screen: LayoutNode(), root: nil) }
        trees.forEach(shelf.put)
        let first = shelf.take(), second = shelf.take()
        #expect(first === trees[0] && second === trees[1], "the third tree found no place")
        #expect(shelf.take() == nil)
        shelf.put(trees[2])
        #expect(shelf.take() === trees[2])
        #expect(NodeTreeShelf(places: 0).places == 1, "a plan always has a place for its last tree")
    }

    /// A layout that runs while another holds the plan's tree, as on a second event loop, makes a
    /// tree of its own, and the plan keeps both: the next two layouts at once make no new nodes.
    @Test func aPlanKeepsATreeForEachLayoutThatRanAtOnce() throws {
        var checked = 0
        try Self.forEachShippedScreen { name, resolved, fonts in
            guard name.hasPrefix("home,") else { return }
            checked += 1
            var viewport = Self.awkwardViewports[0]
            let plan = ScreenLayout(viewport: viewport, fonts: fonts).plan(resolved, revision: 1, concurrentLayouts: 2)
            func answer(width: Float) {
                viewport.width = width
                _ = ScreenLayout(viewport: viewport, fonts: fonts, keepsLines: false).answer(plan)
            }
            answer(width: 320)
            let held = try #require(plan.nodeTrees.take(), "the first layout keeps its tree")
            answer(width: 330)  // while `held` is out: a new tree
            plan.nodeTrees.put(held)
            let first = plan.nodeTrees.take(), second = plan.nodeTrees.take()
            #expect(first != nil && second != nil && first !== second)
            #expect(first === held || second === held)
        }
        #expect(checked == 3, "the shipped home screen, for three users")
    }
}
