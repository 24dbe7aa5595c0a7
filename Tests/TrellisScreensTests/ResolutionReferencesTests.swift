import Testing
import TrellisJSON
import TrellisScreens
import TrellisTargeting

/// Screens against the targeting configuration: every name a screen uses must be defined.
@Suite struct ResolutionReferencesTests {
    @Test(arguments: ["home", "product", "profile"])
    func configScreensUseOnlyKnownNames(name: String) throws {
        let screen = try configScreen(name)
        #expect(screen.unknownReferences(in: try configTargetingConfiguration()).isEmpty)
        try screen.checkReferences(in: try configTargetingConfiguration(), source: "screens/\(name).json")
    }

    @Test func missingRolloutIsReportedAtItsPath() throws {
        let full = try configTargetingConfiguration()
        let configuration = try TargetingConfiguration(rules: full.rules, experiments: full.experiments)
        let home = try configScreen("home")
        #expect(throws: DiagnosticsError.self) { try home.checkReferences(in: configuration, source: "screens/home.json") }
        #expect(
            home.unknownReferences(in: configuration).map(\.description) == [
                "$.root.subviews[0].subviews[1].rule.all[1].rollout: unknown rollout \"gold-banner\"; the targeting configuration defines no rollouts"
            ])
    }

    @Test func missingRuleAndExperiment() throws {
        let full = try configTargetingConfiguration()
        var rules = full.rules
        rules["is_gold_member"] = nil
        var experiments = full.experiments
        experiments["product-related"] = nil
        let configuration = try TargetingConfiguration(rules: rules, rollouts: full.rollouts, experiments: experiments)
        #expect(
            try configScreen("product").unknownReferences(in: configuration).map(\.description) == [
                "$.root.subviews[0].subviews[4].rule.any[0].rule: unknown rule \"is_gold_member\"; known rules: is_modern_client, is_staff, signed_in",
                "$.root.subviews[0].subviews[6].experiment: unknown experiment \"product-related\"; known experiments: home-hero",
            ])
    }

    /// An Experiment node shows exactly the experiment's variants.
    @Test func variantsMustMatchTheExperiment() throws {
        let full = try configTargetingConfiguration()
        var experiments = full.experiments
        experiments["home-hero"] = .init(variants: [.init(name: "control", weight: 1), .init(name: "huge", weight: 1)], defaultVariant: "control")
        let configuration = try TargetingConfiguration(rules: full.rules, rollouts: full.rollouts, experiments: experiments)
        #expect(
            try configScreen("home").unknownReferences(in: configuration).map(\.description) == [
                "$.root.subviews[0].subviews[2].variants.big: experiment \"home-hero\" has no variant \"big\"; its variants are: control, huge",
                "$.root.subviews[0].subviews[2].variants: the Experiment node does not show the variant \"huge\" of \"home-hero\"; add it (null shows nothing)",
            ])
    }

    @Test func experimentTestsInRules() throws {
        let screen = try inlineScreen("""
            {"type": "Rule", "rule": {"any": [{"experiment": "home-hero", "variant": "huge"}, {"experiment": "nope", "variant": "a"}]}, "child": {"type": "Spacer"}}
            """)
        #expect(
            screen.unknownReferences(in: try configTargetingConfiguration()).map(\.description) == [
                "$.root.rule.any[0].experiment: experiment \"home-hero\" has no variant \"huge\"; its variants are: control, big",
                "$.root.rule.any[1].experiment: unknown experiment \"nope\"; known experiments: home-hero, product-related",
            ])
    }
}
