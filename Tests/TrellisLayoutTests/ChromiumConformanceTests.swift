import Testing
import TrellisJSON
import TrellisLayout

/// Random trees that `scripts/layout-vs-chromium` shrank to their smallest form, with the frames
/// headless Chromium gave them (Yoga's gentest template, Ahem text): the engine must give the same
/// frames in both directions within Chromium's own precision, 1/64 px (every value Chromium gives is
/// a multiple of it: its LayoutUnit), except where a case is marked `expectedToDiffer` for that
/// direction, and then it must still differ (a case that starts to match loses its mark).
@Suite("Chromium conformance")
struct ChromiumConformanceTests {
    /// Chromium's LayoutUnit. The fixtures' `tolerance` field (0.6) is the judge's, when the tree was
    /// shrunk; the tests compare at this one.
    static let tolerance = 1.0 / 64
    /// The largest distance from Chromium's value of any frame value of a matching layout, measured
    /// (0.00626 px, `core-seed7-0-ltr-match`; every other value is exact) and asserted: the engine's
    /// Float arithmetic against Chromium's values, which it rounds to its 1/64 px LayoutUnit.
    static let maximumDeviation = 0.0063

    @Test("LTR", arguments: Fixtures.chromium)
    func leftToRight(_ fixture: FixtureCase) { check(fixture, .ltr, "ltr") }

    @Test("RTL", arguments: Fixtures.chromium)
    func rightToLeft(_ fixture: FixtureCase) { check(fixture, .rtl, "rtl") }

    private func check(_ fixture: FixtureCase, _ direction: Direction, _ name: String) {
        let comparison = fixture.run(mode: .yoga, direction: direction, tolerance: Self.tolerance)
        if let reason = fixture.expectedToDiffer[name] {
            #expect(comparison.differs, "\(fixture.name) \(name) now equals Chromium: remove its expectedToDiffer mark (\(reason))")
        } else {
            #expect(comparison.matches, "\(fixture.name) \(name): \(comparison.summary)")
        }
    }

    @Test("The largest deviation of a matching layout from Chromium")
    func deviation() {
        var largest = (deviation: 0.0, where: "")
        for fixture in Fixtures.chromium {
            for (direction, name) in [(Direction.ltr, "ltr"), (.rtl, "rtl")] where fixture.expectedToDiffer[name] == nil {
                let comparison = fixture.run(mode: .yoga, direction: direction, tolerance: Self.tolerance)
                if comparison.matches && comparison.maximumDeviation > largest.deviation {
                    largest = (comparison.maximumDeviation, "\(fixture.name) \(name)")
                }
            }
        }
        print("chromium: the largest deviation of a matching layout is \(largest.deviation) px (\(largest.where))")
        #expect(largest.deviation <= Self.maximumDeviation, "\(largest.where)")
    }

    @Test("Every fixture file is read, and marks name a direction and a reason")
    func fixturesRead() {
        for problem in Fixtures.chromiumFile.problems { Issue.record(Comment(rawValue: problem)) }
        #expect(Fixtures.chromium.count >= 20)
        for fixture in Fixtures.chromium {
            #expect(fixture.expectedLTR.objectValue != nil && fixture.expectedRTL.objectValue != nil, "\(fixture.name)")
            for (direction, reason) in fixture.expectedToDiffer {
                #expect(["ltr", "rtl"].contains(direction) && !reason.isEmpty, "\(fixture.name): \(direction): \(reason)")
            }
        }
        let marked = Fixtures.chromium.reduce(0) { $0 + $1.expectedToDiffer.count }
        print("chromium: \(Fixtures.chromium.count) trees, \(2 * Fixtures.chromium.count - marked) of "
              + "\(2 * Fixtures.chromium.count) layouts (both directions) equal Chromium within 1/64 px, \(marked) marked expected to differ")
    }
}
