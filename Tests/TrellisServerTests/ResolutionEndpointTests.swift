import Foundation
import Testing
import TrellisAnswers
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
@testable import TrellisServer

/// `GET /v1/screens/{id}` resolves the screen for the user the query describes.
@Suite struct ResolutionEndpointTests {
    static let screen = """
        {
          "id": "feed", "schemaVersion": 2,
          "root": {
            "type": "VStack", "id": "root",
            "subviews": [
              {"type": "Rule", "id": "cards-gate", "rule": {"rollout": "new-cards"},
               "child": {"type": "Text", "id": "new-cards", "values": {"text": "new cards"}}},
              {"type": "Experiment", "id": "hero", "experiment": "hero",
               "variants": {"small": {"type": "Text", "id": "hero-small", "values": {"text": "hi"}},
                            "big": {"type": "Text", "id": "hero-big", "properties": {"font": "largeTitle"}, "values": {"text": "HI"}}}},
              {"type": "Rule", "rule": {"attribute": "tier", "op": "equals", "value": "gold"},
               "child": {"type": "Text", "id": "gold", "values": {"text": "gold"}}},
              {"type": "Rule", "rule": {"attribute": "now", "op": "after", "value": "2027-01-01"},
               "child": {"type": "Text", "id": "new-year", "values": {"text": "2027"}}},
              {"type": "Carousel", "id": "carousel", "fallback": {"type": "HStack", "id": "carousel-fallback"},
               "subviews": [{"type": "Text", "values": {"text": "slide"}}]}
            ]
          }
        }
        """

    static func targeting(percentage: Int, enabled: Bool = true) -> String {
        """
        {
          "rollouts": {"new-cards": {"percentage": \(percentage), "enabled": \(enabled)}},
          "experiments": {"hero": {"variants": {"small": 50, "big": 50}, "defaultVariant": "small"}}
        }
        """
    }

    let config: TemporaryConfig

    init() throws {
        config = try TemporaryConfig(screens: ["feed": Self.screen])
        try config.write(targeting: Self.targeting(percentage: 100))
    }

    func ids(_ response: HTTPResponse) -> [String] {
        response.json?["root"]?["subviews"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    @Test func rulesAndExperimentsAreDecidedAndTheAssignmentsReported() throws {
        let app = try InProcessApp(config)
        let response = app.request("/v1/screens/feed?user=u1")
        #expect(response.status == .ok)
        let shown = ids(response)
        #expect(shown.first == "new-cards")
        #expect(shown.contains("hero-small") != shown.contains("hero-big"))
        let assignments = try #require(response.json?["assignments"])
        #expect(assignments["rollouts"]?["new-cards"]?.boolValue == true)
        let variant = try #require(assignments["experiments"]?["hero"]?.stringValue)
        #expect(shown.contains("hero-\(variant)"))
        #expect(!response.text.contains("\"Rule\"") && !response.text.contains("\"Experiment\""))
    }

    @Test func theSameUserGetsTheSameBytesEveryTime() throws {
        let app = try InProcessApp(config)
        let first = app.request("/v1/screens/feed?user=u42&platform=ios")
        for _ in 0..<5 { #expect(app.request("/v1/screens/feed?user=u42&platform=ios").body == first.body) }
    }

    @Test func usersSplitAcrossVariantsAndShareCachedAnswersPerOutcome() throws {
        let app = try InProcessApp(config)
        var variants: Set<String> = []
        for n in 0..<200 {
            let response = app.request("/v1/screens/feed?user=user-\(n)")
            variants.insert(response.json?["assignments"]?["experiments"]?["hero"]?.stringValue ?? "?")
        }
        #expect(variants == ["small", "big"])
        // 200 users, two outcomes (rollout at 100 %, tier and date rules false): two encoded answers.
        #expect(app.state.published.snapshot.answers.count == 2)
    }

    @Test func aKilledRolloutDisappearsOnTheNextRequestAfterReload() throws {
        let app = try InProcessApp(config)
        #expect(ids(app.request("/v1/screens/feed?user=u1")).contains("new-cards"))
        try config.write(targeting: Self.targeting(percentage: 100, enabled: false))
        app.state.published.publish(try loadSnapshot(config, previous: app.state.published.snapshot))
        let after = app.request("/v1/screens/feed?user=u1")
        #expect(!ids(after).contains("new-cards"))
        #expect(after.json?["assignments"]?["rollouts"]?["new-cards"]?.boolValue == false)
    }

    @Test func usersWithoutAnIdAreOutsideRollouts() throws {
        let app = try InProcessApp(config)
        #expect(!ids(app.request("/v1/screens/feed")).contains("new-cards"))
    }

    @Test func freeAttributesReachConditions() throws {
        let app = try InProcessApp(config)
        #expect(ids(app.request("/v1/screens/feed?user=u1&attr.tier=gold")).contains("gold"))
        #expect(!ids(app.request("/v1/screens/feed?user=u1&attr.tier=silver")).contains("gold"))
    }

    @Test func dateRulesCompareWithTheServersClock() throws {
        let before = try InProcessApp(config, clock: { RFC3339Seconds.of("2026-12-31T23:59:59Z") })
        let after = try InProcessApp(config, clock: { RFC3339Seconds.of("2027-01-01T00:00:01Z") })
        #expect(!ids(before.request("/v1/screens/feed?user=u1")).contains("new-year"))
        #expect(ids(after.request("/v1/screens/feed?user=u1")).contains("new-year"))
    }

    @Test func olderClientsGetFallbacksAndAreToldWhatWasReplaced() throws {
        let app = try InProcessApp(config)
        let modern = app.request("/v1/screens/feed?user=u1&schemaVersion=2")
        #expect(ids(modern).contains("carousel"))
        let old = app.request("/v1/screens/feed?user=u1&schemaVersion=1")
        #expect(ids(old).contains("carousel-fallback"))
        #expect(old.json?["schemaVersion"]?.numberValue == 1)
        let replaced = try #require(old.json?["replaced"]?.arrayValue)
        #expect(replaced.contains { $0["type"]?.stringValue == "Carousel" })
        #expect(old.headers["ETag"] != modern.headers["ETag"])
    }

    @Test func aClientNewerThanTheScreenSharesTheScreensAnswer() throws {
        let app = try InProcessApp(config)
        #expect(app.request("/v1/screens/feed?user=u1&schemaVersion=9").body == app.request("/v1/screens/feed?user=u1").body)
    }

    @Test func theETagOfAPersonalAnswerRevalidates() throws {
        let app = try InProcessApp(config)
        let etag = try #require(app.request("/v1/screens/feed?user=u7").headers["ETag"])
        #expect(app.request("/v1/screens/feed?user=u7", headers: ["If-None-Match": etag]).status == .notModified)
    }

    @Test(arguments: [
        ("appVersion=five", "appVersion"),
        ("schemaVersion=0", "schemaVersion"),
        ("user=", "user"),
    ])
    func aBadContextIsA400NamingTheParameter(query: String, parameter: String) throws {
        let app = try InProcessApp(config)
        let response = app.request("/v1/screens/feed?\(query)")
        #expect(response.status == .badRequest)
        let errors = try #require(response.json?["errors"]?.arrayValue)
        #expect(errors.first?["parameter"]?.stringValue == parameter)
        #expect(errors.first?["message"]?.stringValue?.isEmpty == false)
    }
}

/// RFC 3339 text to seconds, for setting the mock clock readably.
enum RFC3339Seconds {
    static func of(_ text: String) -> Double {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text)!.timeIntervalSince1970
    }
}
