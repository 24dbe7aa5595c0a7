import Foundation
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisRoutes
import TrellisRuntime
import TrellisScreens
import TrellisTargeting
@testable import TrellisServer

/// `GET /v1/routes`, `GET /v1/routes/resolve` and the preview's links, on the shipped `Config/`:
/// its route table, its screens' links and its rules, as a client meets them.
@Suite struct RouteEndpointTests {
    let config: TemporaryConfig
    let app: InProcessApp

    init() throws {
        config = try TemporaryConfig.copyOfRepository()
        app = try InProcessApp(config)
    }

    func resolve(_ query: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        app.request("/v1/routes/resolve?" + query, headers: headers)
    }

    /// A user id whose bucket in rollout group `group` is in `buckets`.
    static func user(group: String, buckets: ClosedRange<Int>) -> String {
        (0...).lazy.map { "user-\($0)" }.first { buckets.contains(Bucketing.rolloutBucket(groupID: group, userID: $0)) }!
    }

    @Test func everyLinkOfTheSampleScreensHasARoute() throws {
        let snapshot = app.state.published.snapshot
        let table = try #require(snapshot.routes?.table)
        var urls: Set<String> = []
        for entry in snapshot.screens.values {
            for target in entry.checked.links {
                if case .url(let url) = target {
                    urls.insert(url)
                    #expect(table.linkProblem(url) == nil, "\(entry.id): \(url)")
                }
            }
        }
        #expect(urls.count >= 26)
    }

    @Test func aProductLinkResolvesToTheProductScreenWithTypedParameters() throws {
        let response = resolve("url=app://product/42?ref=push")
        #expect(response.status == .ok)
        let json = try #require(response.json)
        #expect(json["url"]?.stringValue == "app://product/42?ref=push")
        #expect(json["route"]?.stringValue == "app://product/:id(int)")
        #expect(json["screen"]?.stringValue == "product")
        #expect(json["params"]?["id"]?.numberValue == 42)
        #expect(json["params"]?["ref"]?.stringValue == "push")
        #expect(json["presentation"]?["style"]?.stringValue == "push")
        #expect(json["redirects"]?.arrayValue?.isEmpty == true)
        #expect(response.headers["ETag"] != nil)
        #expect(response.headers["Vary"]?.contains("X-User-Id") == true)
    }

    @Test func aGuardSendsAnonymousUsersToLoginWithTheURLToComeBackTo() throws {
        let anonymous = try #require(resolve("url=app://orders/88412").json)
        #expect(anonymous["native"]?.stringValue == "auth.signIn")
        #expect(anonymous["url"]?.stringValue == "app://login?next=app%3A%2F%2Forders%2F88412")
        #expect(anonymous["params"]?["next"]?.stringValue == "app://orders/88412")
        #expect(anonymous["redirects"]?[0]?["from"]?.stringValue == "app://orders/88412")
        #expect(anonymous["redirects"]?[0]?["because"]?.stringValue?.contains("signed_in") == true)

        let signedIn = try #require(resolve("url=app://orders/88412&user=u-1").json)
        #expect(signedIn["screen"]?.stringValue == "order")
        #expect(signedIn["params"]?["order"]?.numberValue == 88412)
        #expect(signedIn["redirects"]?.arrayValue?.isEmpty == true)
        // The same user, named by header instead of query.
        #expect(resolve("url=app://orders/88412", headers: ["X-User-Id": "u-1"]).json?["screen"]?.stringValue == "order")
    }

    @Test func aRolloutRedirectsOnlyItsUsers() throws {
        let inside = Self.user(group: "checkout-v2", buckets: 1...10)
        let outside = Self.user(group: "checkout-v2", buckets: 11...100)
        let redirected = try #require(resolve("url=app://checkout&user=\(inside)").json)
        #expect(redirected["native"]?.stringValue == "checkout.v2")
        #expect(redirected["redirects"]?[0]?["to"]?.stringValue == "app://checkout-v2")
        #expect(redirected["redirects"]?[0]?["because"]?.stringValue?.contains("checkout-v2") == true)
        let kept = try #require(resolve("url=app://checkout&user=\(outside)").json)
        #expect(kept["native"]?.stringValue == "checkout")
        #expect(kept["presentation"]?["style"]?.stringValue == "fullScreen")
        #expect(kept["redirects"]?.arrayValue?.isEmpty == true)
    }

    @Test func tabsExternalPagesAndWildcards() throws {
        let tab = try #require(resolve("url=app://tab/profile&user=u-1").json)
        #expect(tab["screen"]?.stringValue == "profile")
        #expect(tab["presentation"]?["style"]?.stringValue == "tab")
        #expect(tab["presentation"]?["tab"]?.stringValue == "profile")
        #expect(tab["redirects"]?[0]?["from"]?.stringValue == "app://tab/profile")
        let help = try #require(resolve("url=app://help/orders/returns").json)
        #expect(help["external"]?.stringValue == "https://help.shop.example/orders/returns")
        #expect(help["presentation"]?["style"]?.stringValue == "external")
        #expect(help["params"]?["topic"]?.stringValue == "orders/returns")
        #expect(resolve("url=app://help").json?["route"]?.stringValue == "app://help")
    }

    @Test func badURLsAreExplained() throws {
        let nowhere = resolve("url=app://prodcut/42")
        #expect(nowhere.status == .notFound)
        #expect(nowhere.text.contains("app://product/:id(int)"))
        #expect(resolve("url=product-42").status == .badRequest)
        #expect(resolve("url=app://product/forty-two").status == .notFound)
        #expect(resolve("").status == .badRequest)
        #expect(resolve("url=app://cart/add").status == .badRequest)  // a required query parameter is missing
        let split = resolve("url=app://cart/add?product=1042&size=4")
        #expect(split.status == .badRequest)
        #expect(split.text.contains("%26"))
        #expect(resolve("url=app://cart/add?product=1042%26size=4").json?["params"]?["size"]?.numberValue == 4)
        #expect(resolve("url=app://home&include=everything").status == .badRequest)
        #expect(resolve("url=app://home&width=390").status == .badRequest)
    }

    @Test func includeScreenAnswersWithTheCachedScreenInOneRoundTrip() throws {
        let direct = app.request("/v1/screens/product?user=u-7")
        let routed = resolve("url=app://product/1042&user=u-7&include=screen")
        #expect(routed.status == .ok)
        let content = try #require(routed.json?["content"])
        #expect(JSONWriter.encode(content) == direct.body)
        let etag = try #require(routed.headers["ETag"])
        #expect(resolve("url=app://product/1042&user=u-7&include=screen", headers: ["If-None-Match": etag]).status == .notModified)
        #expect(resolve("url=app://product/1043&user=u-7&include=screen").headers["ETag"] != etag)

        let layout = try #require(resolve("url=app://product/1042&user=u-7&include=layout&width=390&height=844").json)
        #expect(layout["content"]?["viewport"]?["width"]?.numberValue == 390)
        // A native handler has no screen to include.
        #expect(resolve("url=app://live&include=screen").json?["content"]?.isNull == true)
        let pretty = resolve("url=app://product/1042&user=u-7&include=screen&pretty=1")
        #expect(pretty.json?["content"].map { JSONWriter.encode($0) } == direct.body)
    }

    @Test func routeParametersReachTheScreen() throws {
        let order = app.request("/v1/screens/order?param.order=88412&user=u-1")
        #expect(order.status == .ok)
        #expect(order.text.contains("Order #88412"))
        #expect(app.request("/v1/screens/order?param.order=87105&user=u-1").text.contains("Order #87105"))
        let missing = app.request("/v1/screens/order?user=u-1")
        #expect(missing.status == .badRequest)
        #expect(missing.text.contains("order"))
        let routed = try #require(resolve("url=app://orders/87105&user=u-1&include=screen").json)
        #expect(JSONWriter.string(routed["content"] ?? .null).contains("Order #87105"))
    }

    /// The cache keys a screen's answer by its parameters' values alone, joined (the names are the
    /// screen's): values that would join alike if they were not each written as JSON stay apart.
    @Test func answersForOtherParameterValuesAreCachedApart() throws {
        try config.write(screen: "pair", #"""
            {"id": "pair", "schemaVersion": 3, "root": {"type": "VStack", "subviews": [
              {"type": "Text", "values": {"text": {"$format": "a={a}"}}},
              {"type": "Text", "values": {"text": {"$param": "b", "default": "none"}}}]}}
            """#)
        let app = try InProcessApp(config)
        // a = `1"&"2` and b not given, against a = `1` and b = `2`; then b given as `-`.
        let cases = ["param.a=1%22%26%222", "param.a=1&param.b=2", "param.a=1%22%26%222&param.b=-", "param.a=1"]
        var texts: [String] = []
        for query in cases {
            let answer = app.request("/v1/screens/pair?user=u-1&" + query)
            #expect(answer.status == .ok, "\(query)")
            texts.append(answer.text)
        }
        #expect(Set(texts).count == cases.count, "each parameter set has its own answer")
        #expect(texts[0].contains(#"a=1\"&\"2"#) && texts[0].contains("none"))
        #expect(texts[1].contains("a=1") && texts[1].contains(#""2""#))
        #expect(texts[2].contains(#""-""#))
        // Asked again, each is a hit that gives the same bytes.
        for (query, text) in zip(cases, texts) {
            #expect(app.request("/v1/screens/pair?user=u-1&" + query).text == text, "\(query)")
        }
    }

    @Test func theTableIsListed() throws {
        let list = try #require(app.request("/v1/routes").json)
        let routes = try #require(list["routes"]?.arrayValue)
        #expect(list["revision"]?.numberValue == 1)
        #expect(routes.count == app.state.published.snapshot.routes?.table.routes.count)
        #expect(routes.contains { $0["pattern"]?.stringValue == "app://product/:id(int)" && $0["screen"]?.stringValue == "product" })
        #expect(app.request("/v1/routes?pretty=1").status == .ok)
    }

    @Test func previewsFollowLinks() throws {
        let page = app.request("/preview/home?width=390&height=844&user=u-1")
        #expect(page.status == .ok)
        #expect(page.text.contains("href=\"/preview?url=app%3A%2F%2Fproduct%2F1042&amp;width=390&amp;height=844&amp;user=u-1\""))
        let follow = app.request("/preview?url=app://product/1042&width=390&height=844&user=u-1")
        #expect(follow.status == .seeOther)
        #expect(follow.headers["Location"] == "/preview/product?width=390&height=844&user=u-1&param.id=1042")
        let native = app.request("/preview?url=app://cart/add?product=1042%26size=4&user=u-1")
        #expect(native.status == .ok)
        #expect(native.text.contains("cart.add"))
        #expect(app.request("/preview?url=app://help").headers["Location"] == "https://help.shop.example/")
        // Another user's page has their own links (the query is part of the cache key).
        #expect(app.request("/preview/home?width=390&height=844&user=u-2").text.contains("user=u-2"))
    }

    @Test func aLoopOnlySomeUsersHitIsA508WithTheChain() throws {
        let config = try TemporaryConfig(screens: ["home": TemporaryConfig.screen(id: "home", text: "Hi")])
        try config.write(targeting: #"{"rules": {"vip": {"attribute": "tier", "op": "equals", "value": "vip"}}}"#)
        try config.write(routes: """
            {"routes": [
              {"pattern": "app://home", "screen": "home"},
              {"pattern": "app://a", "screen": "home", "redirects": [{"when": {"rule": "vip"}, "to": "app://b"}]},
              {"pattern": "app://b", "screen": "home", "redirects": [{"when": {"rule": "vip"}, "to": "app://a"}]}
            ]}
            """)
        let app = try InProcessApp(config)
        #expect(app.request("/v1/routes/resolve?url=app://a").json?["route"]?.stringValue == "app://a")
        let looped = app.request("/v1/routes/resolve?url=app://a&attr.tier=vip")
        #expect(looped.status == .loopDetected)
        #expect(looped.text.contains("app://b"))
    }

    @Test func withoutATableThereIsNothingToResolve() throws {
        let app = try InProcessApp(try TemporaryConfig())
        #expect(app.request("/v1/routes").status == .notFound)
        #expect(app.request("/v1/routes/resolve?url=app://home").status == .notFound)
    }
}
