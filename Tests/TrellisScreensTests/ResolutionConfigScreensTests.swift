import Testing
import TrellisJSON
import TrellisScreens
import TrellisTargeting

/// The real Config screens resolved for real contexts against Config/targeting.json.
@Suite struct ResolutionConfigScreensTests {
    let configuration: TargetingConfiguration
    let home: Screen
    init() throws {
        configuration = try configTargetingConfiguration()
        home = try configScreen("home")
    }

    func inGoldBanner(_ user: String) -> Bool { Bucketing.rolloutBucket(groupID: "gold-banner", userID: user) <= 25 }

    @Test func decisionPointsAreInTreeOrder() throws {
        let resolver = ScreenResolver()
        #expect(
            resolver.decisions(of: home).points.map(\.id) == ["gold-banner-rule", "home-hero-experiment", "live-shopping-gate", "wallet-promo-rule"])
        #expect(resolver.decisions(of: home).rollouts == ["gold-banner"])
        #expect(resolver.decisions(of: home).points[1].path.description == "$.root.subviews[0].subviews[2]")
        #expect(resolver.decisions(of: try configScreen("product")).points.map(\.id) == ["free-shipping-rule", "related-experiment"])
        #expect(resolver.decisions(of: try configScreen("profile")).points.map(\.id) == ["gold-status-rule"])
        #expect(resolver.decisions(of: try configScreen("profile")).count == 1)
    }

    @Test func goldMemberInTheRolloutSeesTheBanner() throws {
        let user = firstUser(where: inGoldBanner)
        let answer = resolved(home, try context([("user", user), ("attr.membership", "gold")]), configuration: configuration)
        #expect(answer.ids.contains("gold-banner"))
        #expect(answer.assignments.rollouts == [.init("gold-banner", true)])
    }

    @Test func goldMemberOutsideTheRolloutDoesNot() throws {
        let user = firstUser { !inGoldBanner($0) }
        let answer = resolved(home, try context([("user", user), ("attr.membership", "gold")]), configuration: configuration)
        #expect(!answer.ids.contains("gold-banner"))
        #expect(answer.assignments.rollouts == [.init("gold-banner", false)])
    }

    @Test func nonMemberInTheRolloutDoesNot() throws {
        let user = firstUser(where: inGoldBanner)
        let answer = resolved(home, try context([("user", user), ("attr.membership", "silver")]), configuration: configuration)
        #expect(!answer.ids.contains("gold-banner"))
        #expect(answer.assignments.rollouts == [.init("gold-banner", true)])
    }

    @Test func userWithoutIDGetsNoRolloutAndTheDefaultVariant() throws {
        let answer = resolved(home, try context([("attr.membership", "gold")]), configuration: configuration)
        #expect(!answer.ids.contains("gold-banner"))
        #expect(answer.ids.contains("hero-control"))
        #expect(answer.assignments.experiments == [.init("home-hero", "control")])
        #expect(answer.assignments.rollouts == [.init("gold-banner", false)])
    }

    @Test func heroVariantFollowsTheExperiment() throws {
        let evaluator = Evaluator(configuration)
        for variant in ["control", "big"] {
            let user = firstUser { evaluator.variant(of: "home-hero", for: UserContext(userID: $0)) == variant }
            let answer = resolved(home, UserContext(userID: user), configuration: configuration)
            #expect(answer.ids.contains("hero-\(variant)"))
            #expect(!answer.ids.contains(variant == "big" ? "hero-control" : "hero-big"))
            #expect(answer.assignments.experiments == [.init("home-hero", variant)])
        }
    }

    @Test func attributeRulesOnHome() throws {
        let old = resolved(home, try context([("user", "u1"), ("platform", "android"), ("appVersion", "5.1.9")]), configuration: configuration)
        #expect(!old.ids.contains("live-shopping-section"))
        let new = resolved(home, try context([("user", "u1"), ("platform", "iOS"), ("appVersion", "5.2")]), configuration: configuration)
        #expect(new.ids.contains("live-shopping-section"))
        #expect(new.ids.contains("apple-pay-promo") && !new.ids.contains("google-pay-promo"))
        #expect(old.ids.contains("google-pay-promo") && !old.ids.contains("apple-pay-promo"))
    }

    @Test func relatedProductsHoldout() throws {
        let product = try configScreen("product")
        let evaluator = Evaluator(configuration)
        let hidden = firstUser { evaluator.variant(of: "product-related", for: UserContext(userID: $0)) == "hidden" }
        let shown = firstUser { evaluator.variant(of: "product-related", for: UserContext(userID: $0)) == "control" }
        let a = resolved(product, UserContext(userID: hidden), configuration: configuration)
        let b = resolved(product, UserContext(userID: shown), configuration: configuration)
        #expect(!a.ids.contains("related-section"))
        #expect(a.assignments.experiments == [.init("product-related", "hidden")])
        #expect(b.ids.contains("related-section"))
        // Free shipping: Gold members, or anyone in DE/AT/CH.
        #expect(!b.ids.contains("free-shipping-note"))
        let swiss = resolved(product, try context([("user", shown), ("country", "ch")]), configuration: configuration)
        #expect(swiss.ids.contains("free-shipping-note"))
    }

    /// A schema-1 client: Carousels get their fallbacks, Buttons without one are dropped, version-2
    /// containers become VStacks, and no `action` property is left.
    @Test func schemaVersion1ClientOnHome() throws {
        let evaluator = Evaluator(configuration)
        let user = firstUser { evaluator.variant(of: "home-hero", for: UserContext(userID: $0)) == "big" }
        let answer = resolved(home, UserContext(userID: user, schemaVersion: 1), schemaVersion: 1, configuration: configuration)
        #expect(answer.schemaVersion == 1)
        #expect(answer.types.isSubset(of: ["Text", "Image", "HStack", "VStack", "ZStack", "List", "Rectangle", "Circle", "Spacer", "Divider"]))
        #expect(answer.root?.type == "VStack")
        #expect(answer.root?.id == "home-navigation")
        #expect(answer.root?.values.isEmpty == true)  // Navigation's title: VStack has no values
        #expect(answer.ids.contains("deals-carousel-fallback"))
        #expect(!answer.ids.contains("deals-carousel"))
        #expect(answer.ids.contains("hero-big-button-fallback"))
        #expect(!answer.ids.contains("recommended-see-all"))
        #expect(!JSONWriter.string(answer.jsonValue(revision: 1)).contains("\"action\""))
        let replaced = Dictionary(answer.replaced.compactMap { r in r.id.map { ($0, r) } }, uniquingKeysWith: { a, _ in a })
        #expect(replaced["home-navigation"] == .init(id: "home-navigation", path: JSONPath.root.appending("root"), type: "Navigation", how: .defaultFallback, replacement: "VStack"))
        #expect(replaced["home-scroll"]?.how == .defaultFallback)
        #expect(replaced["deals-carousel"]?.how == .fallback)
        #expect(replaced["deals-carousel"]?.replacement == "HStack")
        #expect(replaced["hero-big-button"]?.replacement == "Text")
        #expect(replaced["recommended-see-all"]?.how == .dropped)
        #expect(replaced["recommended-see-all"]?.replacement == nil)
        #expect(answer.replaced.first?.id == "home-navigation")
    }

    @Test func schemaVersion2ClientOnHomeKeepsEverything() throws {
        let answer = resolved(home, UserContext(userID: "u1"), configuration: configuration)
        #expect(answer.replaced.isEmpty)
        #expect(answer.root?.type == "Navigation")
        #expect(answer.types.contains("Carousel") && answer.types.contains("Button"))
        #expect(answer.ids.contains("deals-carousel") && !answer.ids.contains("deals-carousel-fallback"))
    }

    @Test func schemaVersion1ClientOnProductAndProfile() throws {
        let product = resolved(try configScreen("product"), UserContext(userID: "u1"), schemaVersion: 1, configuration: configuration)
        #expect(product.ids.contains("gallery-fallback"))
        #expect(product.ids.contains("add-to-cart-fallback"))
        #expect(!product.types.contains("Button") && !product.types.contains("Carousel"))
        let profile = resolved(try configScreen("profile"), UserContext(userID: "u1"), schemaVersion: 1, configuration: configuration)
        #expect(profile.root?.type == "VStack")
        #expect(profile.ids.isSuperset(of: ["profile-tabs", "tab-overview", "tab-orders", "tab-settings", "orders-list"]))
        #expect(!profile.ids.contains("gold-join"))  // a Button: dropped
        #expect(profile.replaced.map(\.how).filter { $0 == .dropped }.count == 4)  // gold-join and three settings buttons
    }

    /// Resolution depends on nothing but (screen, outcomes, schema version): users with equal
    /// outcomes get byte-identical answers, and resolving again gives the same bytes.
    @Test(arguments: ["home", "product", "profile"])
    func equalOutcomesGiveIdenticalBytes(name: String) throws {
        let screen = try configScreen(name)
        let resolver = ScreenResolver()
        let decisions = resolver.decisions(of: screen)
        let evaluator = Evaluator(configuration)
        let memberships = ["gold", "silver"], platforms = ["ios", "android"], countries = ["DE", "US"]
        var answers: [Outcomes: [UInt8]] = [:]
        for i in 0..<400 {
            let context = try context([
                ("user", "user-\(i)"), ("attr.membership", memberships[i % 2]), ("platform", platforms[i / 2 % 2]),
                ("country", countries[i / 4 % 2]), ("appVersion", i % 3 == 0 ? "5.2" : "5.1"),
            ])
            let outcomes = resolver.outcomes(of: decisions, for: context, evaluator: evaluator)
            #expect(outcomes.bytes.count == decisions.count)
            for schemaVersion in [1, 2] {
                let bytes = JSONWriter.encode(resolver.resolve(screen, outcomes: outcomes, clientSchemaVersion: schemaVersion).jsonValue(revision: 7))
                let key = Outcomes(outcomes.bytes + [UInt8(schemaVersion)])
                if let cached = answers[key] { #expect(cached == bytes) } else { answers[key] = bytes }
            }
        }
        #expect(answers.count <= 2 << decisions.count)
        #expect(answers.count >= 2)
    }
}
