import Testing
import TrellisLayout

/// Lays `fixture` out and requires it to match its expected frames, or — where `reason` says why
/// it is known not to — to still differ, so that the list of known failures stays exact.
private func checkCase(_ fixture: FixtureCase, mode: LayoutMode, _ direction: Direction, expectedToFail reason: String?,
                   list: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let comparison = fixture.run(mode: mode, direction: direction, sourceLocation: sourceLocation)
    let label = "\(fixture.file)/\(fixture.name) \(direction == .rtl ? "RTL" : "LTR")"
    if let reason {
        #expect(comparison.differs || !comparison.problems.isEmpty,
                "\(label) now passes: remove it from \(list) (\(reason))", sourceLocation: sourceLocation)
    } else {
        #expect(comparison.matches, "\(label): \(comparison.summary)", sourceLocation: sourceLocation)
    }
}

/// Every name a list gives is a case of `fixtures`, and the list was read without problems.
private func checkList(_ list: ExpectedFailures, _ file: String, against fixtures: [FixtureCase],
                       sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    for problem in list.problems { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
    let names = Set(fixtures.map(\.name))
    for name in list.cases.keys.sorted() where !names.contains(name) {
        Issue.record("\(file) lists \(name), which is no case", sourceLocation: sourceLocation)
    }
}

/// Yoga's gentest fixtures: every case Yoga enables must match Chrome's frames in both directions,
/// and so must every case Yoga disables, except those `yoga_expected_failures.json` lists (per
/// direction, with the reason), which must still differ.
@Suite("Yoga conformance")
struct YogaConformanceTests {
    @Test("LTR", arguments: Fixtures.yoga)
    func leftToRight(_ fixture: FixtureCase) { check(fixture, .ltr) }

    @Test("RTL", arguments: Fixtures.yoga)
    func rightToLeft(_ fixture: FixtureCase) { check(fixture, .rtl) }

    private func check(_ fixture: FixtureCase, _ direction: Direction) {
        let reason = Fixtures.yogaExpectedFailures.reason(fixture.name, direction)
        if reason != nil {
            #expect(fixture.disabled, "\(fixture.name): only cases Yoga disables may be listed in yoga_expected_failures.json")
        }
        checkCase(fixture, mode: .yoga, direction, expectedToFail: reason, list: "yoga_expected_failures.json")
    }

    @Test("The fixture file and the expected-failure list are read; every listed name is a case Yoga disables")
    func files() {
        for problem in Fixtures.yogaFile.problems { Issue.record(Comment(rawValue: problem)) }
        #expect(Fixtures.yoga.count == 590)
        #expect(Fixtures.yogaEnabled.count == 544)
        #expect(Fixtures.yogaDisabled.count == 46)
        checkList(Fixtures.yogaExpectedFailures, "yoga_expected_failures.json", against: Fixtures.yogaDisabled)
    }

    @Test("Summary: 544/544 enabled cases in both directions")
    func summary() {
        var passed = (ltr: 0, rtl: 0)
        for fixture in Fixtures.yogaEnabled {
            if fixture.run(mode: .yoga, direction: .ltr).matches { passed.ltr += 1 }
            if fixture.run(mode: .yoga, direction: .rtl).matches { passed.rtl += 1 }
        }
        let disabled = Fixtures.yogaDisabled
        let disabledPassing = disabled.filter { $0.run(mode: .yoga, direction: .ltr).matches && $0.run(mode: .yoga, direction: .rtl).matches }
        let listed = Fixtures.yogaExpectedFailures.cases.count
        print("yoga: enabled LTR \(passed.ltr)/\(Fixtures.yogaEnabled.count), RTL \(passed.rtl)/\(Fixtures.yogaEnabled.count); "
              + "disabled by Yoga: \(disabledPassing.count) of \(disabled.count) pass in both directions, "
              + "\(listed) listed in yoga_expected_failures.json; \(Fixtures.yoga.count) total")
        #expect(passed.ltr == 544 && passed.rtl == 544)
        #expect(disabledPassing.count + listed == disabled.count)
    }
}

/// Taffy's flex fixtures, run with CSS (web) defaults, LTR. Every case must match Chrome's frames
/// except those `taffy_expected_failures.json` lists with the reason (features such as
/// `display: grid` or `flex-wrap: balance`), which must still differ.
@Suite("Taffy conformance")
struct TaffyConformanceTests {
    @Test("Web defaults, LTR", arguments: Fixtures.taffy)
    func webDefaults(_ fixture: FixtureCase) {
        checkCase(fixture, mode: .web, .ltr, expectedToFail: Fixtures.taffyExpectedFailures.reason(fixture.name, .ltr),
              list: "taffy_expected_failures.json")
    }

    @Test("The fixture file and the expected-failure list are read; every listed name is a case")
    func files() {
        for problem in Fixtures.taffyFile.problems { Issue.record(Comment(rawValue: problem)) }
        #expect(Fixtures.taffy.count == 659)
        checkList(Fixtures.taffyExpectedFailures, "taffy_expected_failures.json", against: Fixtures.taffy)
        for (name, directions) in Fixtures.taffyExpectedFailures.cases where directions.keys.contains("rtl") {
            Issue.record("taffy_expected_failures.json: \(name): Taffy's cases run LTR only")
        }
    }

    @Test("Summary")
    func summary() {
        let passed = Fixtures.taffy.filter { $0.run(mode: .web, direction: .ltr).matches }.count
        let listed = Fixtures.taffyExpectedFailures.cases.count
        print("taffy flex: \(passed)/\(Fixtures.taffy.count) passed, \(listed) listed in taffy_expected_failures.json")
        #expect(passed + listed == Fixtures.taffy.count)
    }
}
