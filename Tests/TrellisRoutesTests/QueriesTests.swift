import Testing
import TrellisJSON
import TrellisRoutes
import TrellisTargeting

/// What the integrator asks of a table: dead links, screens, references, the JSON it serves.
@Suite struct QueriesTests {
    let routes: RouteTable
    init() throws { routes = try table(exampleRoutes) }

    @Test func goodLinks() {
        for url in ["app://product/42", "app://product/42?ref=home", "app://cart/add?product=1", "app://help", "app://old-deals", "APP://deals/"] {
            #expect(routes.linkProblem(url) == nil, "\(url)")
        }
    }

    @Test func deadLinks() {
        #expect(routes.linkProblem("app://prodcut/42") == "no route matches \"app://prodcut/42\"; closest: app://product/:id(int)")
        #expect(routes.linkProblem("app://product/4x") == "no route matches \"app://product/4x\"; closest: app://product/:id(int)")
        #expect(routes.linkProblem("app://cart/add?size=2")
            == "app://cart/add?size=2 (route app://cart/add): query parameter \"product\": required, but missing")
        #expect(routes.linkProblem("app://cart/add?product=1&size=L")
            == "app://cart/add?product=1&size=L (route app://cart/add): query parameter \"size\": \"L\" is not an int")
        #expect(routes.linkProblem("app://product//42") == "app://product//42: empty path segment at offset 14")
        #expect(routes.linkProblem("app://tab/settings") == "no route matches \"app://tab/settings\"; closest: app://tab/:tab(home|profile)")
    }

    @Test func templateLinks() {
        #expect(routes.linkProblem(template: "app://product/{id}", parameters: ["id": .int]) == nil)
        #expect(routes.linkProblem(template: "app://cart/add?product={p}&size={s}", parameters: ["p": .int, "s": .int]) == nil)
        #expect(routes.linkProblem(template: "app://product/{id}", parameters: ["id": .string])
            == "no route matches \"app://product/x\"; closest: app://product/:id(int)")
        #expect(routes.linkProblem(template: "app://tab/{t}", parameters: ["t": .choice(["home", "settings"])])
            == "no route matches \"app://tab/settings\"; closest: app://tab/:tab(home|profile)")
        #expect(routes.linkProblem(template: "app://product/{id}", parameters: [:])
            == "unknown placeholder {id} in \"app://product/{id}\"")
        #expect(routes.linkProblem(template: "app://product/{id", parameters: ["id": .int]) == "\"{\" without \"}\" in \"app://product/{id\"")
    }

    @Test func screens() throws {
        let references = routes.screenReferences()
        #expect(references.map(\.screen) == ["product", "home", "profile", "checkout", "deals", "checkout-v2", "login"])
        #expect(references.map(\.path.description) == [
            "$.routes[0].screen", "$.routes[1].screen", "$.routes[1].screen", "$.routes[4].screen", "$.routes[6].screen",
            "$.routes[7].screen", "$.routes[8].screen",
        ])
        #expect(references[1].route.pattern == "app://tab/:tab(home|profile)")
        #expect(routes.routesOpening(screen: "profile").map(\.pattern) == ["app://tab/:tab(home|profile)"])
        #expect(routes.routesOpening(screen: "checkout").map(\.pattern) == ["app://checkout"])
        #expect(routes.routesOpening(screen: "cart").isEmpty)
    }

    @Test func references() throws {
        let configuration = try TargetingConfiguration.decode(
            Array(#"{"rules": {"signed_in": {"attribute": "a", "op": "equals", "value": "b"}}, "rollouts": {"other": {"percentage": 5}}}"#.utf8),
            source: "targeting.json"
        ).get()
        #expect(routes.checkReferences(in: configuration).map(\.description) == [
            "$.routes[4].redirects[0].when.rollout (line 7): unknown rollout \"checkout-v2\"; known rollouts: other"
        ])
        let full = try TargetingConfiguration.decode(Array(exampleTargeting.utf8), source: "targeting.json").get()
        #expect(routes.checkReferences(in: full).isEmpty)
        #expect(routes.checkReferences(in: .empty).map(\.description) == [
            "$.routes[4].requires.rule (line 6): unknown rule \"signed_in\"; the targeting configuration defines no rules",
            "$.routes[4].redirects[0].when.rollout (line 7): unknown rollout \"checkout-v2\"; the targeting configuration defines no rollouts",
        ])
    }

    @Test func resolutionJSON() throws {
        let resolution = try routes.resolve(
            "app://checkout?src=mail", context: user("u1", signedIn: false), evaluator: try evaluator()
        ).get()
        #expect(JSONWriter.string(resolution.jsonValue) == #"""
            {"url":"app://login?next=app%3A%2F%2Fcheckout%3Fsrc%3Dmail","route":"app://login","screen":"login",\#
            "params":{"next":"app://checkout?src=mail"},"presentation":{"style":"modal"},\#
            "redirects":[{"from":"app://checkout?src=mail","to":"app://login?next=app%3A%2F%2Fcheckout%3Fsrc%3Dmail",\#
            "route":"app://checkout","because":"requires {\"rule\":\"signed_in\"}"}]}
            """#)
        let external = try routes.resolve("app://help/a/b", context: UserContext(), evaluator: try evaluator()).get()
        #expect(JSONWriter.string(external.jsonValue) == #"""
            {"url":"app://help/a/b","route":"app://help/*path","external":"https://help.example.com/a/b",\#
            "params":{"path":"a/b"},"presentation":{"style":"external","url":"https://help.example.com/a/b"},"redirects":[]}
            """#)
        let tab = try routes.resolve("app://tab/home", context: UserContext(), evaluator: try evaluator()).get()
        #expect(JSONWriter.string(tab.jsonValue) == #"""
            {"url":"app://tab/home","route":"app://tab/:tab(home|profile)","screen":"home",\#
            "params":{"tab":"home"},"presentation":{"style":"tab","tab":"home"},"redirects":[]}
            """#)
        let native = try routes.resolve("app://cart/add?product=7", context: UserContext(), evaluator: try evaluator()).get()
        #expect(JSONWriter.string(native.jsonValue) == #"""
            {"url":"app://cart/add?product=7","route":"app://cart/add","native":"cart.add",\#
            "params":{"product":7},"presentation":{"style":"push"},"redirects":[]}
            """#)
    }

    @Test func tableJSON() throws {
        let routes = try table("""
            {"pattern": "app://product/:id(int)", "screen": "product", "title": "Product", "query": {"ref": "string?"}},
            {"pattern": "app://tab/:tab(home|profile)", "screen": "{tab}", "presentation": {"style": "tab", "tab": "{tab}"}},
            {"pattern": "app://help/*path", "external": "https://help.example.com/{path}"},
            {"pattern": "app://checkout", "native": "checkout.open", "presentation": "sheet", "requires": {"rule": "signed_in"}, "otherwise": "app://product/1",
             "redirects": [{"when": {"not": {"rollout": "r"}}, "to": "app://tab/home"}]},
            {"pattern": "app://old", "redirects": [{"to": "app://product/2"}]}
            """)
        #expect(JSONWriter.string(routes.jsonValue, style: .pretty) == """
            {
              "routes": [
                {
                  "pattern": "app://product/:id(int)",
                  "title": "Product",
                  "screen": "product",
                  "presentation": {
                    "style": "push"
                  },
                  "parameters": {
                    "id": {
                      "type": "int",
                      "in": "path",
                      "required": true
                    },
                    "ref": {
                      "type": "string",
                      "in": "query",
                      "required": false
                    }
                  }
                },
                {
                  "pattern": "app://tab/:tab(home|profile)",
                  "screen": "{tab}",
                  "presentation": {
                    "style": "tab",
                    "tab": "{tab}"
                  },
                  "parameters": {
                    "tab": {
                      "type": "home|profile",
                      "in": "path",
                      "required": true
                    }
                  }
                },
                {
                  "pattern": "app://help/*path",
                  "external": "https://help.example.com/{path}",
                  "presentation": {
                    "style": "external"
                  },
                  "parameters": {
                    "path": {
                      "type": "wildcard",
                      "in": "path",
                      "required": true
                    }
                  }
                },
                {
                  "pattern": "app://checkout",
                  "native": "checkout.open",
                  "presentation": {
                    "style": "sheet"
                  },
                  "parameters": {},
                  "requires": {
                    "rule": "signed_in"
                  },
                  "otherwise": "app://product/1",
                  "redirects": [
                    {
                      "when": {
                        "not": {
                          "rollout": "r"
                        }
                      },
                      "to": "app://tab/home"
                    }
                  ]
                },
                {
                  "pattern": "app://old",
                  "parameters": {},
                  "redirects": [
                    {
                      "to": "app://product/2"
                    }
                  ]
                }
              ]
            }

            """)
    }
}
