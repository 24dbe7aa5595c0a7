import Testing
import TrellisJSON
import TrellisRoutes
import TrellisTargeting

@Suite struct MatchingTests {
    /// The pattern the URL resolves to (for a user nothing redirects), or the failure's text.
    func winner(_ table: RouteTable, _ url: String) throws -> String {
        switch table.resolve(url, context: UserContext(), evaluator: Evaluator(.empty)) {
        case .success(let resolution): resolution.route
        case .failure(let failure): "failure: \(failure)"
        }
    }

    @Test func staticBeatsTypedBeatsUntypedBeatsWildcard() throws {
        let routes = try table("""
            {"pattern": "app://p/*rest", "screen": "wildcard"},
            {"pattern": "app://p/:any", "screen": "untyped"},
            {"pattern": "app://p/:n(int)", "screen": "typed"},
            {"pattern": "app://p/new", "screen": "static"}
            """)
        #expect(try winner(routes, "app://p/new") == "app://p/new")
        #expect(try winner(routes, "app://p/42") == "app://p/:n(int)")
        #expect(try winner(routes, "app://p/old") == "app://p/:any")
        #expect(try winner(routes, "app://p/a/b") == "app://p/*rest")
        #expect(try winner(routes, "app://p") == "app://p/*rest")
    }

    @Test func theFirstDifferingSegmentDecides() throws {
        let routes = try table("""
            {"pattern": "app://:kind/edit", "screen": "a"},
            {"pattern": "app://user/:id", "screen": "b"}
            """)
        // Static `user` beats `:kind` at the first segment, though `edit` would beat `:id` later.
        #expect(try winner(routes, "app://user/edit") == "app://user/:id")
    }

    @Test func anEndedPatternBeatsAWildcard() throws {
        let routes = try table("""
            {"pattern": "app://help/*path", "external": "https://help.example.com/{path}"},
            {"pattern": "app://help", "screen": "help"}
            """)
        #expect(try winner(routes, "app://help") == "app://help")
        #expect(try winner(routes, "app://help/") == "app://help")
        #expect(try winner(routes, "app://help/a") == "app://help/*path")
    }

    @Test func schemeIsCaseInsensitiveSegmentsAreNot() throws {
        let routes = try table(#"{"pattern": "App://Deals", "screen": "deals"}"#)
        #expect(try winner(routes, "APP://Deals") == "App://Deals")
        #expect(try winner(routes, "app://deals").hasPrefix("failure: no route matches"))
    }

    @Test func typedParametersAndEnums() throws {
        let routes = try table("""
            {"pattern": "app://a/:i(int)/:n(number)/:u(uuid)/:b(bool)/:e(x|y)/:s/*rest", "screen": "s"}
            """)
        let resolution = try routes.resolve(
            "app://a/-3/2.5/123e4567-e89b-12d3-a456-426614174000/false/y/t%20t/r/s", context: UserContext(),
            evaluator: Evaluator(.empty)
        ).get()
        #expect(resolution.parameters.map(\.name) == ["i", "n", "u", "b", "e", "s", "rest"])
        #expect(resolution.parameters.map(\.value) == [
            .number(-3), .number(2.5), .string("123e4567-e89b-12d3-a456-426614174000"), .bool(false), .string("y"),
            .string("t t"), .string("r/s"),
        ])
        #expect(try winner(routes, "app://a/3/2.5/123e4567-e89b-12d3-a456-426614174000/false/z/s").hasPrefix("failure"))
        #expect(try winner(routes, "app://a/3.5/2.5/123e4567-e89b-12d3-a456-426614174000/false/x/s").hasPrefix("failure"))
        let empty = try routes.resolve(
            "app://a/1/1/123e4567-e89b-12d3-a456-426614174000/true/x/s", context: UserContext(), evaluator: Evaluator(.empty)
        ).get()
        #expect(empty.parameters.last?.value == .string(""))
    }

    @Test(arguments: [
        ("app://p/:a(int)", "app://p/:b(number)", "app://p/1"),
        ("app://p/:a(int)", "app://p/:b(int)", "app://p/1"),
        ("app://p/:a(x|1)", "app://p/:b(int)", "app://p/1"),
        ("app://p/:a(x|y)", "app://p/:b(z|y)", "app://p/y"),
        ("app://p/:a(true|no)", "app://p/:b(bool)", "app://p/true"),
        ("app://p/:a/q", "APP://p/:b/q", "app://p/x/q"),
        ("app://p/*a", "app://p/*b", "app://p"),
        ("app://p/:a/*r", "app://p/:b/*s", "app://p/x"),
        ("app://p", "app://p", "app://p"),
    ])
    func ambiguity(first: String, second: String, witness: String) {
        #expect(errors("""
            {"pattern": "\(first)", "screen": "a"},
            {"pattern": "\(second)", "screen": "b"}
            """) == [
                "$.routes[1].pattern (line 3): \(first) at $.routes[0] and \(second) at $.routes[1] both match \(witness) with equal precedence"
            ])
    }

    @Test(arguments: [
        ("app://p/:a(int)", "app://p/:b(uuid)"),
        ("app://p/:a(int)", "app://p/:b(bool)"),
        ("app://p/:a(uuid)", "app://p/:b(bool)"),
        ("app://p/:a(number)", "app://p/:b(uuid)"),
        ("app://p/:a(x|y)", "app://p/:b(int)"),
        ("app://p/:a(x|y)", "app://p/:b(z|w)"),
        ("app://p/:a(int)", "app://p/:b"),
        ("app://p/:a", "app://p/*b"),
        ("app://p", "app://p/*b"),
        ("app://p/:a", "app://p/:b/c"),
        ("app://p/a", "app://p/b"),
        ("app://p/:a", "web://p/:b"),
    ])
    func noAmbiguity(first: String, second: String) throws {
        _ = try table("""
            {"pattern": "\(first)", "screen": "a"},
            {"pattern": "\(second)", "screen": "b"}
            """)
    }

    @Test func noMatchSuggestsTheClosestPatterns() throws {
        let routes = try table(exampleRoutes)
        let failure = routes.resolve("app://prodcut/42", context: UserContext(), evaluator: try evaluator()).failure
        #expect(failure == .noMatch(url: "app://prodcut/42", closest: ["app://product/:id(int)"], after: []))
        #expect(failure?.description == "no route matches \"app://prodcut/42\"; closest: app://product/:id(int)")
        let none = routes.resolve("web://product/42", context: UserContext(), evaluator: try evaluator()).failure
        #expect(none?.description == "no route matches \"web://product/42\"")
        let many = routes.resolve("app://product/abc", context: UserContext(), evaluator: try evaluator()).failure
        #expect(many == .noMatch(url: "app://product/abc", closest: ["app://product/:id(int)"], after: []))
        let checkout = routes.resolve("app://checkout-v", context: UserContext(), evaluator: try evaluator()).failure
        #expect(checkout == .noMatch(url: "app://checkout-v", closest: ["app://checkout-v2", "app://checkout"], after: []))
    }
}
