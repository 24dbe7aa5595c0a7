import Testing
import TrellisJSON
import TrellisLayout

/// Random trees that `scripts/layout-vs-chromium` shrank to their smallest form, with the frames
/// headless Chromium gave them (Yoga's gentest template, Ahem text): the engine must give the same
/// frames within 0.6 px in both directions, except where a case is marked `expectedToDiffer` for
/// that direction, and then it must still differ (a case that starts to match loses its mark).
@Suite("Chromium conformance")
struct ChromiumConformanceTests {
    @Test("LTR", arguments: Fixtures.chromium)
    func leftToRight(_ fixture: FixtureCase) { check(fixture, .ltr, "ltr") }

    @Test("RTL", arguments: Fixtures.chromium)
    func rightToLeft(_ fixture: FixtureCase) { check(fixture, .rtl, "rtl") }

    private func check(_ fixture: FixtureCase, _ direction: Direction, _ name: String) {
        let differences = fixture.run(mode: .yoga, direction: direction)
        if let reason = fixture.expectedToDiffer[name] {
            #expect(!differences.isEmpty, "\(fixture.name) \(name) now equals Chromium: remove its expectedToDiffer mark (\(reason))")
        } else {
            #expect(differences.isEmpty, "\(fixture.name) \(name): \(differences.prefix(4).joined(separator: "; "))")
        }
    }

    @Test("Every fixture file is read, and marks name a direction and a reason")
    func fixturesRead() {
        #expect(Fixtures.chromium.count == Fixtures.chromiumFileCount)
        #expect(Fixtures.chromium.count >= 20)
        for fixture in Fixtures.chromium {
            #expect(fixture.tolerance == 0.6, "\(fixture.name)")
            #expect(fixture.expectedLTR != .null && fixture.expectedRTL != .null, "\(fixture.name)")
            for (direction, reason) in fixture.expectedToDiffer {
                #expect(["ltr", "rtl"].contains(direction) && !reason.isEmpty, "\(fixture.name): \(direction): \(reason)")
            }
        }
        let marked = Fixtures.chromium.reduce(0) { $0 + $1.expectedToDiffer.count }
        print("chromium: \(Fixtures.chromium.count) shrunk random trees, \(2 * Fixtures.chromium.count - marked) of "
              + "\(2 * Fixtures.chromium.count) layouts (both directions) equal Chromium, \(marked) marked expected to differ")
    }
}
