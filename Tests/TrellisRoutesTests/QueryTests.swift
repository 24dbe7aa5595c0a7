import Testing
import TrellisJSON
import TrellisRoutes
import TrellisTargeting

@Suite struct QueryTests {
    let routes: RouteTable
    init() throws { routes = try table(exampleRoutes) }

    func resolve(_ url: String) -> Result<RouteResolution, RouteFailure> {
        routes.resolve(url, context: UserContext(), evaluator: Evaluator(.empty))
    }

    @Test func declaredAreTypedUndeclaredAreStringsInURLOrder() throws {
        let resolution = try resolve("app://cart/add?utm=mail&size=3&product=42&x=").get()
        #expect(resolution.target == .native("cart.add"))
        #expect(resolution.parameters.map(\.name) == ["utm", "size", "product", "x"])
        #expect(resolution.parameters.map(\.value) == [.string("mail"), .number(3), .number(42), .string("")])
    }

    @Test func pathParametersComeFirst() throws {
        let resolution = try resolve("app://product/42?ref=home&from=push").get()
        #expect(resolution.parameters.map(\.name) == ["id", "ref", "from"])
        #expect(resolution.parameters.map(\.value) == [.number(42), .string("home"), .string("push")])
    }

    @Test func optionalMayBeAbsent() throws {
        let resolution = try resolve("app://cart/add?product=42").get()
        #expect(resolution.parameters.map(\.name) == ["product"])
    }

    @Test(arguments: [
        ("app://cart/add", "product", "required, but missing"),
        ("app://cart/add?size=1", "product", "required, but missing"),
        ("app://cart/add?product=x", "product", "\"x\" is not an int"),
        ("app://cart/add?product=1&size=1.5", "size", "\"1.5\" is not an int"),
        ("app://product/1?id=2", "id", "is a path parameter of this route; it cannot also be given in the query"),
    ])
    func badParameters(url: String, name: String, reason: String) {
        let route = url.hasPrefix("app://cart") ? "app://cart/add" : "app://product/:id(int)"
        #expect(resolve(url).failure == .badParameter(url: url, route: route, name: name, reason: reason, after: []))
    }

    @Test func badParameterDescription() {
        #expect(resolve("app://cart/add?product=x").failure?.description
            == "app://cart/add?product=x (route app://cart/add): query parameter \"product\": \"x\" is not an int")
    }

    @Test func duplicatedQueryParameterIsUnparsable() {
        guard case .unparsable(let error, let after)? = resolve("app://cart/add?product=1&product=2").failure else {
            Issue.record("expected .unparsable")
            return
        }
        #expect(error.description == "app://cart/add?product=1&product=2: query parameter \"product\" given twice at offset 25")
        #expect(after.isEmpty)
    }

    @Test func declarationErrors() {
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "query": {"a": "itn", "b": 5, "c d": "int", "e": "int??"}}"#) == [
            "$.routes[0].query.a (line 2): unknown type \"itn\"; expected int, number, uuid, bool, string or choices such as a|b",
            "$.routes[0].query.b (line 2): expected a type such as \"int\" or \"string?\", found a number",
            "$.routes[0].query[\"c d\"] (line 2): invalid name \"c d\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots",
            "$.routes[0].query.e (line 2): unknown type \"int?\"; expected int, number, uuid, bool, string or choices such as a|b",
        ])
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "query": ["a"]}"#) == [
            "$.routes[0].query (line 2): expected an object of name → type such as {\"ref\": \"string?\"}, found an array"
        ])
    }

    @Test func declaredTypes() throws {
        let route = try table(#"{"pattern": "app://x", "screen": "s", "query": {"a": "string", "b": "uuid?", "c": "x|y"}}"#).routes[0]
        #expect(route.parameters.map(\.name) == ["a", "b", "c"])
        #expect(route.parameters.map(\.type) == [.string, .uuid, .choice(["x", "y"])])
        #expect(route.parameters.map(\.required) == [true, false, true])
        #expect(route.parameters.allSatisfy { !$0.inPath })
    }
}
