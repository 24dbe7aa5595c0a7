import Testing
import TrellisJSON
import TrellisRoutes
import TrellisTargeting

/// Decodes a route table given as text.
func decodeRoutes(_ text: String) -> Result<RouteTable, DiagnosticsError> {
    RouteTable.decode(Array(text.utf8), source: "routes.json")
}

/// A table that must decode; the routes are written one per line, without the `{"routes": [...]}`.
func table(_ routes: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> RouteTable {
    switch decodeRoutes("{\"routes\": [\n\(routes)\n]}") {
    case .success(let table): return table
    case .failure(let error):
        Issue.record("did not decode:\n\(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// The diagnostics of a table that must not decode, each as `path (line n): message`.
func errors(_ routes: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [String] {
    switch decodeRoutes("{\"routes\": [\n\(routes)\n]}") {
    case .success:
        Issue.record("decoded", sourceLocation: sourceLocation)
        return []
    case .failure(let error): return error.diagnostics.map(\.description)
    }
}

/// The example of the brief: every kind of target, presentation, guard and redirect.
let exampleRoutes = """
    { "pattern": "app://product/:id(int)", "screen": "product", "presentation": "push", "query": {"ref": "string?"} },
    { "pattern": "app://tab/:tab(home|profile)", "screen": "{tab}", "presentation": {"style": "tab", "tab": "{tab}"} },
    { "pattern": "app://cart/add", "native": "cart.add", "query": {"product": "int", "size": "int?"} },
    { "pattern": "app://help/*path", "external": "https://help.example.com/{path}" },
    { "pattern": "app://checkout", "screen": "checkout", "requires": {"rule": "signed_in"}, "otherwise": "app://login?next={url}",
      "redirects": [ {"when": {"rollout": "checkout-v2"}, "to": "app://checkout-v2"} ] },
    { "pattern": "app://old-deals", "redirects": [ {"to": "app://deals"} ] },
    { "pattern": "app://deals", "screen": "deals" },
    { "pattern": "app://checkout-v2", "screen": "checkout-v2" },
    { "pattern": "app://login", "screen": "login", "presentation": "modal", "query": {"next": "string?"} }
    """

/// Targeting for the example: `signed_in` reads the attribute `signedIn`; `checkout-v2` admits half.
let exampleTargeting = """
    { "rules": { "signed_in": {"attribute": "signedIn", "op": "equals", "value": "true"} },
      "rollouts": { "checkout-v2": {"percentage": 50}, "everyone": {"percentage": 100}, "nobody": {"percentage": 0} } }
    """

func evaluator(_ targeting: String = exampleTargeting) throws -> Evaluator {
    Evaluator(try TargetingConfiguration.decode(Array(targeting.utf8), source: "targeting.json").get())
}

/// A signed-in or signed-out user with the given id.
func user(_ id: String, signedIn: Bool) -> UserContext {
    UserContext(userID: id, attributes: ["signedIn": signedIn ? "true" : "false"])
}

/// The first user id (`u0`, `u1`, …) the 50% rollout `checkout-v2` admits, or refuses.
func userID(inCheckoutV2 admitted: Bool) -> String {
    (0...).lazy.map { "u\($0)" }.first {
        Bucketing.isInRollout(percentage: 50, groupID: "checkout-v2", userID: $0) == admitted
    }!
}

extension Result {
    /// The failure, or nil on success (for `#expect(result.failure == …)`).
    var failure: Failure? {
        if case .failure(let failure) = self { failure } else { nil }
    }
}
