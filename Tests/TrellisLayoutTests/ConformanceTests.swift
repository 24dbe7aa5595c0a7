import Testing
import TrellisLayout

/// Yoga's gentest fixtures: every enabled case must match Chrome's frames in both directions.
@Suite("Yoga conformance")
struct YogaConformanceTests {
    @Test("LTR", arguments: Fixtures.yogaEnabled)
    func leftToRight(_ fixture: FixtureCase) {
        let differences = fixture.run(mode: .yoga, direction: .ltr)
        #expect(differences.isEmpty, "\(fixture.file)/\(fixture.name) LTR: \(differences.prefix(4).joined(separator: "; "))")
    }

    @Test("RTL", arguments: Fixtures.yogaEnabled)
    func rightToLeft(_ fixture: FixtureCase) {
        let differences = fixture.run(mode: .yoga, direction: .rtl)
        #expect(differences.isEmpty, "\(fixture.file)/\(fixture.name) RTL: \(differences.prefix(4).joined(separator: "; "))")
    }

    @Test("Sizing keywords in min/max sizes and the cases Yoga disables",
          .disabled("min/max sizing keywords are not implemented; Yoga disables these cases"),
          arguments: Fixtures.yogaDisabledSizingKeywords)
    func disabledSizingKeywords(_ fixture: FixtureCase) {
        #expect(fixture.run(mode: .yoga, direction: .ltr).isEmpty)
    }

    @Test("Summary")
    func summary() {
        var passed = (ltr: 0, rtl: 0), failed = (ltr: 0, rtl: 0)
        for fixture in Fixtures.yogaEnabled {
            if fixture.run(mode: .yoga, direction: .ltr).isEmpty { passed.ltr += 1 } else { failed.ltr += 1 }
            if fixture.run(mode: .yoga, direction: .rtl).isEmpty { passed.rtl += 1 } else { failed.rtl += 1 }
        }
        let disabled = Fixtures.yoga.filter(\.disabled)
        let keywords = Fixtures.yoga.filter { !$0.disabled && !$0.unsupported.isEmpty }.count
        let disabledPassing = disabled.filter { $0.run(mode: .yoga, direction: .ltr).isEmpty && $0.run(mode: .yoga, direction: .rtl).isEmpty }.count
        print("yoga: LTR \(passed.ltr) passed, \(failed.ltr) failed; RTL \(passed.rtl) passed, \(failed.rtl) failed "
              + "(\(keywords) of them use sizing keywords); \(disabled.count) skipped as disabled by Yoga "
              + "(\(disabledPassing) of those pass anyway); \(Fixtures.yoga.count) total")
        #expect(Fixtures.yoga.count == 590)
    }
}

/// Taffy's flex fixtures, run with CSS (web) defaults. Not every case can pass (some need
/// features such as `display: grid` or `flex-wrap: balance`); the floor guards against regressions.
@Suite("Taffy conformance")
struct TaffyConformanceTests {
    static let passFloor = 560

    @Test("Web defaults")
    func webDefaults() {
        var passed = 0
        var failures: [String] = []
        for fixture in Fixtures.taffy {
            let differences = fixture.run(mode: .web, direction: .ltr)
            if differences.isEmpty { passed += 1 } else { failures.append("\(fixture.name): \(differences.prefix(2).joined(separator: "; "))") }
        }
        print("taffy flex: \(passed)/\(Fixtures.taffy.count) passed")
        for failure in failures { print("  taffy failure: \(failure)") }
        #expect(Fixtures.taffy.count == 659)
        #expect(passed >= Self.passFloor, "taffy flex pass count \(passed) fell below \(Self.passFloor)")
    }
}
