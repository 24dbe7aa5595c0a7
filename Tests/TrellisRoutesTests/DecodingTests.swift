import Testing
import TrellisJSON
import TrellisRoutes
import TrellisTargeting

@Suite struct DecodingTests {
    @Test func theExampleDecodes() throws {
        let routes = try table(exampleRoutes).routes
        #expect(routes.map(\.pattern).prefix(3) == ["app://product/:id(int)", "app://tab/:tab(home|profile)", "app://cart/add"])
        #expect(routes.map(\.path.description).prefix(2) == ["$.routes[0]", "$.routes[1]"])
        #expect(routes[0].target == .screen(.fixed("product")))
        #expect(routes[1].target == .screen(.parameter("tab")))
        #expect(routes[1].presentation == Presentation(style: .tab, tab: .parameter("tab")))
        #expect(routes[2].target == .native("cart.add"))
        #expect(routes[2].presentation == Presentation(style: .push))
        #expect(routes[3].presentation == Presentation(style: .external))
        #expect(routes[4].requires?.rule == .named("signed_in"))
        #expect(routes[4].redirects.map(\.when) == [.rollout("checkout-v2")])
        #expect(routes[5].target == nil)
        #expect(routes[5].presentation == nil)
    }

    @Test func emptyTableIsValid() throws {
        #expect(try decodeRoutes(#"{"routes": []}"#).get().routes.isEmpty)
    }

    @Test func documentErrors() {
        #expect(decodeRoutes("{}").failure?.diagnostics.map(\.description) == ["$ (line 1): missing required key \"routes\""])
        #expect(decodeRoutes(#"{"routes": {}, "route": 1}"#).failure?.diagnostics.map(\.description) == [
            "$.route (line 1): unknown key \"route\"; did you mean \"routes\"?",
            "$.routes (line 1): expected an array, found an object",
        ])
        #expect(decodeRoutes(#"{"routes": [1"#).failure?.diagnostics.count == 1)
    }

    @Test func unknownKeysAndPeoplesText() throws {
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "screne": "t", "title": 3}"#) == [
            "$.routes[0].screne (line 2): unknown key \"screne\"; did you mean \"screen\"?",
            "$.routes[0].title (line 2): expected a string, found a number",
        ])
        let route = try table(#"{"pattern": "app://x", "screen": "s", "title": "X", "description": "The x screen"}"#).routes[0]
        #expect(route.title == "X")
        #expect(route.description == "The x screen")
    }

    @Test func targets() {
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "native": "n"}"#) == [
            "$.routes[0] (line 2): a route has one target; found screen and native"
        ])
        #expect(errors(#"{"pattern": "app://x"}"#) == [
            "$.routes[0] (line 2): missing a target: \"screen\", \"native\" or \"external\" (only a route with a redirect without \"when\" has none)"
        ])
        #expect(errors(#"{"pattern": "app://x", "redirects": [{"when": {"rule": "r"}, "to": "app://y"}]}, {"pattern": "app://y", "screen": "y"}"#).first
            == "$.routes[0] (line 2): missing a target: \"screen\", \"native\" or \"external\" (only a route with a redirect without \"when\" has none)")
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "redirects": [{"to": "app://y"}]}, {"pattern": "app://y", "screen": "y"}"#) == [
            "$.routes[0].screen (line 2): \"screen\" is never opened: redirects[0] has no \"when\" and applies to everyone"
        ])
        #expect(errors(#"{"pattern": "app://x", "screen": "a b"}"#) == [
            "$.routes[0].screen (line 2): invalid screen id \"a b\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"
        ])
        #expect(errors(#"{"pattern": "app://x", "native": "cart/add"}"#) == [
            "$.routes[0].native (line 2): invalid handler name \"cart/add\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"
        ])
        #expect(errors(#"{"pattern": "app://x", "external": "ftp://x"}"#) == [
            "$.routes[0].external (line 2): an external URL starts with https:// or http://, found \"ftp://x\""
        ])
        #expect(errors(#"{"pattern": "app://x", "screen": 1}"#) == ["$.routes[0].screen (line 2): expected a string, found a number"])
    }

    @Test func screenTemplates() {
        #expect(errors(#"{"pattern": "app://x/:t", "screen": "{t}"}"#) == [
            "$.routes[0].screen (line 2): {t} must name a path parameter with choices, such as :t(home|profile)"
        ])
        #expect(errors(#"{"pattern": "app://x", "screen": "{t}", "query": {"t": "a|b"}}"#) == [
            "$.routes[0].screen (line 2): {t} must name a path parameter with choices, such as :t(home|profile)"
        ])
        #expect(errors(#"{"pattern": "app://x/:t(a|b~c)", "screen": "{t}"}"#) == [
            "$.routes[0].screen (line 2): choice \"b~c\" of {t} is not a valid screen id"
        ])
    }

    @Test func presentations() {
        let cases: [(String, String)] = [
            (#""presentation": "slide""#, "$.routes[0].presentation (line 2): unknown presentation \"slide\"; expected push, modal, sheet, fullScreen, replace or {\"style\": \"tab\", \"tab\": …}"),
            (#""presentation": "tab""#, "$.routes[0].presentation (line 2): style \"tab\" needs the tab: write {\"style\": \"tab\", \"tab\": \"…\"}"),
            (#""presentation": "external""#, "$.routes[0].presentation (line 2): style \"external\" is implied by an \"external\" target and given to no other"),
            (#""presentation": {"style": "tab"}"#, "$.routes[0].presentation (line 2): style \"tab\" needs \"tab\": a tab id or {p}"),
            (#""presentation": {"style": "modal", "tab": "home"}"#, "$.routes[0].presentation.tab (line 2): only style \"tab\" takes a \"tab\""),
            (#""presentation": {"style": "tab", "tab": "{x}"}"#, "$.routes[0].presentation.tab (line 2): {x} must name a path parameter with choices, such as :x(home|profile)"),
            (#""presentation": {"tab": "home"}"#, "$.routes[0].presentation (line 2): missing required key \"style\""),
            (#""presentation": {"style": "push", "animated": true}"#, "$.routes[0].presentation.animated (line 2): unknown key \"animated\"; expected one of: style, tab"),
            (#""presentation": 3"#, "$.routes[0].presentation (line 2): expected an object, found a number"),
        ]
        for (presentation, expected) in cases {
            #expect(errors(#"{"pattern": "app://x", "screen": "s", \#(presentation)}"#) == [expected])
        }
        #expect(errors(#"{"pattern": "app://x", "external": "https://x.example", "presentation": "push"}"#) == [
            "$.routes[0].presentation (line 2): an external target always opens in the browser; remove \"presentation\""
        ])
        #expect(errors(#"{"pattern": "app://x", "redirects": [{"to": "app://y"}], "presentation": "push"}, {"pattern": "app://y", "screen": "y"}"#) == [
            "$.routes[0].presentation (line 2): a route without a target has no presentation"
        ])
    }

    @Test func allStyles() throws {
        for style in ["push", "modal", "sheet", "fullScreen", "replace"] {
            let route = try table(#"{"pattern": "app://x", "screen": "s", "presentation": "\#(style)"}"#).routes[0]
            #expect(route.presentation?.style.rawValue == style)
        }
        let tab = try table(#"{"pattern": "app://x", "screen": "s", "presentation": {"style": "tab", "tab": "home"}}"#).routes[0]
        #expect(tab.presentation == Presentation(style: .tab, tab: .fixed("home")))
    }

    @Test func guardsAndRedirects() {
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "requires": {"rule": "r"}}"#) == [
            "$.routes[0].requires (line 2): \"requires\" needs \"otherwise\": where users the rule refuses are sent"
        ])
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "otherwise": "app://x"}"#) == [
            "$.routes[0].otherwise (line 2): \"otherwise\" needs \"requires\": the rule users must meet"
        ])
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "requires": {"rul": "r"}, "otherwise": "app://y"}, {"pattern": "app://y", "screen": "y"}"#) == [
            "$.routes[0].requires.rul (line 2): unknown expression \"rul\"; expected all, any, not, rule, rollout, experiment or attribute"
        ])
        #expect(errors("""
            {"pattern": "app://x", "redirects": [{"to": "app://y"}, {"when": {"rule": "r"}, "to": "app://y"}, {"to": "app://y", "if": 1}]},
            {"pattern": "app://y", "screen": "y"}
            """) == [
                "$.routes[0].redirects[1] (line 2): unreachable: redirects[0] has no \"when\" and applies to everyone",
                "$.routes[0].redirects[2].if (line 2): unknown key \"if\"; expected one of: to, when",
                "$.routes[0].redirects[2] (line 2): unreachable: redirects[0] has no \"when\" and applies to everyone",
            ])
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "redirects": [{"when": {"rule": "r"}}]}"#) == [
            "$.routes[0].redirects[0] (line 2): missing required key \"to\""
        ])
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "redirects": {"to": "app://x"}}"#) == [
            "$.routes[0].redirects (line 2): expected an array of {\"when\", \"to\"}, found an object"
        ])
    }

    @Test func templatePlaceholders() {
        #expect(errors(#"{"pattern": "app://x/:id", "screen": "s", "redirects": [{"when": {"rule": "r"}, "to": "app://y/{idd}?from={url}"}]}"#) == [
            "$.routes[0].redirects[0].to (line 2): unknown placeholder {idd}; the route's parameters: id ({url} is the URL being resolved)"
        ])
        #expect(errors(#"{"pattern": "app://x", "external": "https://e.example/{q}"}"#) == [
            "$.routes[0].external (line 2): unknown placeholder {q}; the route has no parameters ({url} is the URL being resolved)"
        ])
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "requires": {"rule": "r"}, "otherwise": "app://y/{a"}"#) == [
            "$.routes[0].otherwise (line 2): \"{\" without \"}\" in \"app://y/{a\""
        ])
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "requires": {"rule": "r"}, "otherwise": "app://y/a}"}"#) == [
            "$.routes[0].otherwise (line 2): \"}\" without \"{\" in \"app://y/a}\""
        ])
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "requires": {"rule": "r"}, "otherwise": "app://y/{a b}"}"#) == [
            "$.routes[0].otherwise (line 2): placeholder {a b}: invalid name \"a b\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"
        ])
    }

    @Test func hopsMustLeadToARoute() {
        #expect(errors(#"{"pattern": "app://x", "screen": "s", "requires": {"rule": "r"}, "otherwise": "app://nowhere"}"#) == [
            "$.routes[0].otherwise (line 2): otherwise \"app://nowhere\" leads nowhere: no route matches \"app://nowhere\""
        ])
        #expect(errors("""
            {"pattern": "app://x", "screen": "s", "redirects": [{"when": {"rule": "r"}, "to": "app://cart/add"}]},
            {"pattern": "app://cart/add", "native": "cart.add", "query": {"product": "int"}}
            """) == [
                "$.routes[0].redirects[0].to (line 2): to \"app://cart/add\" leads nowhere: app://cart/add (route app://cart/add): query parameter \"product\": required, but missing"
            ])
        // Every choice of an enum is tried.
        #expect(errors("""
            {"pattern": "app://t/:tab(home|bogus)", "redirects": [{"to": "app://{tab}"}]},
            {"pattern": "app://home", "screen": "home"}
            """) == [
                "$.routes[0].redirects[0].to (line 2): to \"app://{tab}\" leads nowhere: no route matches \"app://bogus\""
            ])
        // An optional parameter may be absent.
        #expect(errors("""
            {"pattern": "app://x", "query": {"q": "string?"}, "redirects": [{"to": "app://y/{q}/z"}]},
            {"pattern": "app://y/:q/z", "screen": "y"}
            """) == [
                "$.routes[0].redirects[0].to (line 2): to \"app://y/{q}/z\" leads nowhere: app://y//z: empty path segment at offset 8"
            ])
        #expect(errors(#"{"pattern": "app://x/*p", "external": "https://{p} x"}"#) == [
            "$.routes[0].external (line 2): external \"https://{p} x\" with sample values is not a URL: https://x x: space at offset 9"
        ])
    }

    @Test func hopsThatDoLeadSomewhere() throws {
        _ = try table("""
            {"pattern": "app://t/:tab(home|profile)", "redirects": [{"to": "app://{tab}?from={url}"}]},
            {"pattern": "app://home", "screen": "home", "query": {"from": "string"}},
            {"pattern": "app://profile", "native": "profile.open"},
            {"pattern": "app://cart", "screen": "cart", "query": {"id": "uuid"}, "redirects": [{"when": {"rule": "r"}, "to": "app://cart/add?product={id}"}]},
            {"pattern": "app://cart/add", "native": "cart.add", "query": {"product": "string"}}
            """)
    }

    @Test func unconditionalLoopsAreRefused() {
        #expect(errors("""
            {"pattern": "app://a", "redirects": [{"to": "app://b"}]},
            {"pattern": "app://b", "redirects": [{"to": "app://a?x=1"}]}
            """) == [
                "$.routes[0].redirects[0] (line 2): redirects without \"when\" loop for everyone: app://b → app://a?x=1 → app://b"
            ])
        #expect(errors(#"{"pattern": "app://s/:id", "redirects": [{"to": "app://s/{id}"}]}"#) == [
            "$.routes[0].redirects[0] (line 2): redirects without \"when\" loop for everyone: app://s/x → app://s/x"
        ])
        let chain = (0...6).map { i in
            i == 6 ? #"{"pattern": "app://a6", "screen": "end"}"# : #"{"pattern": "app://a\#(i)", "redirects": [{"to": "app://a\#(i + 1)"}]}"#
        }.joined(separator: ",\n")
        #expect(errors(chain) == [
            "$.routes[0].redirects[0] (line 2): redirects without \"when\" go on for more than 5 hops for everyone: app://a0 → app://a1 → app://a2 → app://a3 → app://a4 → app://a5 → app://a6"
        ])
    }

    @Test func guardedAndConditionalLoopsAreLeftToResolution() throws {
        _ = try table("""
            {"pattern": "app://a", "screen": "a", "redirects": [{"when": {"rule": "r"}, "to": "app://b"}]},
            {"pattern": "app://b", "redirects": [{"to": "app://a"}]},
            {"pattern": "app://c", "requires": {"rule": "r"}, "otherwise": "app://d", "redirects": [{"to": "app://d"}]},
            {"pattern": "app://d", "redirects": [{"to": "app://c"}]}
            """)
    }

    @Test func tooManyRoutes() {
        let routes = (0...RouteLimits.maximumRoutes).map { #"{"pattern": "app://r\#($0)", "screen": "s"}"# }.joined(separator: ",")
        #expect(errors(routes) == ["$.routes (line 1): more than 1000 routes (1001)"])
    }
}
