import Testing
import TrellisJSON
import TrellisLint
import TrellisScreens

/// A finding names where an author finds the component: its path in the document, through the
/// Rules and Experiments the resolved screen no longer has.
@Suite struct AuthoredPathsTests {
    static let grey = ##"{"type": "Text", "properties": {"foregroundColor": "#9CA3AF"}, "values": {"text": "grey"}}"##

    @Test func aComponentAfterABranchThatShowsNothingKeepsItsAuthoredIndex() throws {
        let s = try screen(root: ##"{"type": "VStack", "subviews": [{"type": "Rule", "rule": {"attribute": "plan", "op": "equals", "value": "gold"}, "child": {"type": "Spacer"}}, \##(Self.grey)]}"##)
        let found = try findings(s)
        // Shown (child) and not shown (nothing): the Text is subviews[1] in both, though the
        // resolved screen without the Spacer has it at subviews[0].
        #expect(found.lines == ["$.root.subviews[1] contrast contrast 2.54:1 (needs 4.5:1)"])
        #expect(s.reachableScreens().count == 2)
    }

    @Test func everyVariantOfAnExperimentIsLintedAtItsPath() throws {
        let s = try screen(root: ##"{"type": "Experiment", "experiment": "hero", "variants": {"a": {"type": "Spacer"}, "b": \##(Self.grey)}}"##)
        #expect(try findings(s).lines == ["$.root.variants.b contrast contrast 2.54:1 (needs 4.5:1)"])
    }

    @Test func aNestedDecisionIsVariedOnlyWhereItsBranchIsShown() throws {
        let inner = ##"{"type": "Rule", "rule": {"attribute": "beta", "op": "equals", "value": "yes"}, "child": \##(Self.grey), "else": {"type": "Spacer"}}"##
        let s = try screen(root: ##"{"type": "Rule", "rule": {"attribute": "plan", "op": "equals", "value": "gold"}, "child": \##(inner)}"##)
        // Outer shown × inner both ways, and outer not shown: 3, not 4.
        #expect(s.reachableScreens().count == 3)
        #expect(try findings(s).lines == ["$.root.child.child contrast contrast 2.54:1 (needs 4.5:1)"])
    }
}
