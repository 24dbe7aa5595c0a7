import Testing
import TrellisJSON
import TrellisRoutes
import TrellisTargeting

@Suite struct ResolutionTests {
    let routes: RouteTable
    let evaluator: Evaluator
    init() throws {
        routes = try table(exampleRoutes)
        evaluator = try TrellisRoutesTests.evaluator()
    }

    func resolve(_ url: String, _ context: UserContext = UserContext()) -> Result<RouteResolution, RouteFailure> {
        routes.resolve(url, context: context, evaluator: evaluator)
    }

    @Test func aSignedOutUserIsSentToLoginWithTheURLEncoded() throws {
        let resolution = try resolve("app://checkout", user(userID(inCheckoutV2: true), signedIn: false)).get()
        #expect(resolution.url == "app://login?next=app%3A%2F%2Fcheckout")
        #expect(resolution.route == "app://login")
        #expect(resolution.target == .screen("login"))
        #expect(resolution.presentation.jsonValue == .object([("style", .string("modal"))]))
        #expect(resolution.parameters.map(\.name) == ["next"])
        #expect(resolution.parameters.map(\.value) == [.string("app://checkout")])
        #expect(resolution.redirects == [
            Redirect(from: "app://checkout", to: "app://login?next=app%3A%2F%2Fcheckout", route: "app://checkout", because: .requires(.named("signed_in")))
        ])
        #expect(resolution.redirects[0].because.description == #"requires {"rule":"signed_in"}"#)
    }

    @Test func aSignedInUserInTheRolloutGoesToTheNewCheckout() throws {
        let resolution = try resolve("app://checkout", user(userID(inCheckoutV2: true), signedIn: true)).get()
        #expect(resolution.target == .screen("checkout-v2"))
        #expect(resolution.redirects.map(\.because.description) == [#"when {"rollout":"checkout-v2"}"#])
        #expect(resolution.redirects.map(\.to) == ["app://checkout-v2"])
    }

    @Test func aSignedInUserOutsideTheRolloutGetsTheCheckout() throws {
        let resolution = try resolve("app://checkout", user(userID(inCheckoutV2: false), signedIn: true)).get()
        #expect(resolution.target == .screen("checkout"))
        #expect(resolution.url == "app://checkout")
        #expect(resolution.redirects.isEmpty)
    }

    @Test func anUnconditionalRedirect() throws {
        let resolution = try resolve("app://old-deals?utm=x").get()
        #expect(resolution.url == "app://deals")
        #expect(resolution.redirects.map(\.description) == ["app://old-deals?utm=x → app://deals by app://old-deals (always)"])
    }

    @Test func tabsTakeTheRawParameter() throws {
        let resolution = try resolve("app://tab/profile").get()
        #expect(resolution.target == .screen("profile"))
        #expect(resolution.presentation.style == .tab)
        #expect(resolution.presentation.tab == "profile")
    }

    @Test func externalKeepsTheWildcardsSlashesAndEncodesTheRest() throws {
        let resolution = try resolve("app://help/guides/caf%C3%A9%20au%20lait").get()
        #expect(resolution.target == .external("https://help.example.com/guides/caf%C3%A9%20au%20lait"))
        #expect(resolution.presentation.style == .external)
        #expect(resolution.presentation.url == "https://help.example.com/guides/caf%C3%A9%20au%20lait")
        #expect(resolution.parameters.map(\.value) == [.string("guides/café au lait")])
    }

    @Test func substitutedValuesArePercentEncoded() throws {
        let routes = try table("""
            {"pattern": "app://search/:q", "redirects": [{"to": "app://find?q={q}&from={url}"}]},
            {"pattern": "app://find", "screen": "find", "query": {"q": "string", "from": "string"}}
            """)
        let resolution = try routes.resolve("app://search/a%2Fb%20c&d~", context: UserContext(), evaluator: evaluator).get()
        #expect(resolution.url == "app://find?q=a%2Fb%20c%26d~&from=app%3A%2F%2Fsearch%2Fa%252Fb%2520c%26d~")
        #expect(resolution.parameters.map(\.value) == [.string("a/b c&d~"), .string("app://search/a%2Fb%20c&d~")])
    }

    @Test func theFirstRedirectThatAppliesWins() throws {
        let routes = try table("""
            {"pattern": "app://r", "redirects": [
              {"when": {"rollout": "nobody"}, "to": "app://a"}, {"when": {"rollout": "everyone"}, "to": "app://b"}, {"to": "app://c"}]},
            {"pattern": "app://:name(a|b|c)", "screen": "{name}"}
            """)
        let admitted = try routes.resolve("app://r", context: UserContext(userID: "u"), evaluator: evaluator).get()
        #expect(admitted.target == .screen("b"))
        #expect(admitted.redirects.map(\.because) == [.when(.rollout("everyone"))])
        let anonymous = try routes.resolve("app://r", context: UserContext(), evaluator: evaluator).get()
        #expect(anonymous.target == .screen("c"))
        #expect(anonymous.redirects.map(\.because) == [.always])
    }

    /// `app://a0` … `app://a6`, each redirecting to the next for everyone in the 100% rollout.
    func chain() throws -> RouteTable {
        try table((0...6).map { i in
            i == 6
                ? #"{"pattern": "app://a6", "screen": "end"}"#
                : #"{"pattern": "app://a\#(i)", "screen": "s", "redirects": [{"when": {"rollout": "everyone"}, "to": "app://a\#(i + 1)"}]}"#
        }.joined(separator: ",\n"))
    }

    @Test func atMostFiveHops() throws {
        let chain = try chain()
        let five = try chain.resolve("app://a1", context: UserContext(userID: "u"), evaluator: evaluator).get()
        #expect(five.url == "app://a6")
        #expect(five.redirects.count == RouteLimits.maximumHops)
        let six = chain.resolve("app://a0", context: UserContext(userID: "u"), evaluator: evaluator).failure
        #expect(six == .tooManyRedirects((0...6).map { "app://a\($0)" }))
        #expect(six?.description == "more than 5 redirects: app://a0 → app://a1 → app://a2 → app://a3 → app://a4 → app://a5 → app://a6")
        // Without the rollout nothing redirects.
        #expect(try chain.resolve("app://a0", context: UserContext(), evaluator: evaluator).get().url == "app://a0")
    }

    @Test func aLoopThroughConditionalRedirectsIsReportedWithItsChain() throws {
        let routes = try table("""
            {"pattern": "app://x", "screen": "x", "redirects": [{"when": {"rollout": "everyone"}, "to": "app://y"}]},
            {"pattern": "app://y/*rest", "screen": "y", "redirects": [{"when": {"rollout": "everyone"}, "to": "app://x"}]}
            """)
        let failure = routes.resolve("app://x", context: UserContext(userID: "u"), evaluator: evaluator).failure
        #expect(failure == .loop(["app://x", "app://y", "app://x"]))
        #expect(failure?.description == "redirect loop: app://x → app://y → app://x")
        #expect(try routes.resolve("app://x", context: UserContext(), evaluator: evaluator).get().target == .screen("x"))
    }

    @Test func aLoopThroughAGuard() throws {
        let routes = try table("""
            {"pattern": "app://account", "screen": "account", "requires": {"rule": "signed_in"}, "otherwise": "app://login"},
            {"pattern": "app://login", "screen": "login", "requires": {"rule": "signed_in"}, "otherwise": "app://account"}
            """)
        let failure = routes.resolve("app://login", context: user("u", signedIn: false), evaluator: evaluator).failure
        #expect(failure == .loop(["app://login", "app://account", "app://login"]))
    }

    @Test func aHopThatLeadsNowhereNamesTheHop() throws {
        let routes = try table("""
            {"pattern": "app://w/*rest", "redirects": [{"to": "app://item/{rest}/end"}]},
            {"pattern": "app://item/:id/end", "screen": "item"}
            """)
        let hop = Redirect(from: "app://w/a/b", to: "app://item/a/b/end", route: "app://w/*rest", because: .always)
        let failure = routes.resolve("app://w/a/b", context: UserContext(), evaluator: evaluator).failure
        #expect(failure == .noMatch(url: "app://item/a/b/end", closest: ["app://item/:id/end"], after: [hop]))
        #expect(failure?.description
            == "no route matches \"app://item/a/b/end\"; closest: app://item/:id/end; reached from app://w/a/b by app://w/*rest (always)")
        guard case .unparsable(let error, let after)? = routes.resolve("app://w", context: UserContext(), evaluator: evaluator).failure else {
            Issue.record("expected .unparsable")
            return
        }
        #expect(error.description == "app://item//end: empty path segment at offset 11")
        #expect(after.map(\.to) == ["app://item//end"])
    }

    @Test func theRequestedURLMayBeUnparsable() {
        guard case .unparsable(let error, let after)? = resolve("app://product//42").failure else {
            Issue.record("expected .unparsable")
            return
        }
        #expect(error.description == "app://product//42: empty path segment at offset 14")
        #expect(after.isEmpty)
    }

    @Test func emptyTableMatchesNothing() throws {
        let empty = try decodeRoutes(#"{"routes": []}"#).get()
        #expect(empty.routes.isEmpty)
        #expect(empty.resolve("app://x", context: UserContext(), evaluator: evaluator).failure == .noMatch(url: "app://x", closest: [], after: []))
    }
}
