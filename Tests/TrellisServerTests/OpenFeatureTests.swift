import Foundation
import Testing
import TrellisCrypto
import TrellisRuntime
import TrellisTargeting
import TrellisTesting

/// OFREP 0.3 on the real binary: every reason and error code, typed variant values, bulk ETag and
/// 304, API keys with their 429, and the same assignments a screen reports for the same user.
@Suite(.serialized) struct OpenFeatureTests {
    static let targeting = """
        {
          "rules": {"is_gold": {"attribute": "tier", "op": "equals", "value": "gold"}},
          "rollouts": {
            "banner": {"percentage": 50},
            "everyone": {"percentage": 100},
            "killed": {"percentage": 50, "enabled": false}
          },
          "experiments": {
            "hero": {"variants": {"control": 50, "big": 50}, "overrides": {"qa-kim": "big"}},
            "theme": {"variants": {
              "light": {"weight": 1, "value": {"background": "#ffffff", "contrast": 4.5, "rounded": true}},
              "dark": {"weight": 1, "value": {"background": "#000000", "contrast": 7, "rounded": false}}}},
            "limit": {"variants": {"low": {"weight": 1, "value": 10}, "high": {"weight": 1, "value": 100}},
                      "status": "paused", "defaultVariant": "high"},
            "onboarding": {"variants": {"short": 1, "long": 1}, "status": "concluded", "winner": "long"}
          }
        }
        """

    static func served(extra: String = "") throws -> ServedBinary {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: targeting)
        let binary = try ServedBinary(config: config, extra: extra)
        try binary.start()
        return binary
    }

    static func evaluate(
        _ server: ServedBinary, _ key: String, _ body: String, headers: [String: String] = [:]
    ) throws -> WireResponse {
        try server.request("POST", "/ofrep/v1/evaluate/flags/\(key)", token: nil, headers: headers, body: body)
    }

    static func context(_ user: String, _ more: String = "") -> String {
        #"{"context": {"targetingKey": "\#(user)"\#(more)}}"#
    }

    @Test func everyReasonWithItsValueAndVariant() throws {
        let server = try Self.served()
        defer { server.stop() }
        func flag(_ key: String, _ body: String) throws -> JSONTree {
            let response = try Self.evaluate(server, key, body)
            #expect(response.status == 200, "\(key): \(response.text)")
            #expect(response.json["key"]?.string == key)
            #expect(response.json["metadata"]?["targetingRevision"]?.string?.count == 16)
            return response.json
        }
        let user = AdminFlowTests.user(group: "banner", buckets: 1...50)
        let banner = try flag("banner", Self.context(user))
        #expect(banner["reason"]?.string == "SPLIT")
        #expect(banner["value"]?.bool == true)
        #expect(banner["variant"]?.string == "on")
        #expect(banner["metadata"]?["kind"]?.string == "rollout")
        let outUser = AdminFlowTests.user(group: "banner", buckets: 51...100)
        #expect(try flag("banner", Self.context(outUser))["value"]?.bool == false)
        let everyone = try flag("everyone", Self.context(user))
        #expect(everyone["reason"]?.string == "STATIC")
        #expect(everyone["value"]?.bool == true)
        let killed = try flag("killed", Self.context(user))
        #expect(killed["reason"]?.string == "DISABLED")
        #expect(killed["value"]?.bool == false)
        #expect(killed["variant"]?.string == "off")
        let forced = try flag("hero", Self.context("qa-kim"))
        #expect(forced["reason"]?.string == "TARGETING_MATCH")
        #expect(forced["variant"]?.string == "big")
        #expect(forced["value"]?.string == "big")
        #expect(forced["metadata"]?["kind"]?.string == "experiment")
        let bucketed = try flag("hero", Self.context(user))
        #expect(bucketed["reason"]?.string == "SPLIT")
        #expect(bucketed["value"]?.string == bucketed["variant"]?.string)
        let paused = try flag("limit", Self.context(user))
        #expect(paused["reason"]?.string == "DISABLED")
        #expect(paused["variant"]?.string == "high")
        #expect(paused["value"]?.number == 100)
        let concluded = try flag("onboarding", Self.context(user))
        #expect(concluded["reason"]?.string == "STATIC")
        #expect(concluded["value"]?.string == "long")
        // An empty targeting key is an anonymous user: what screens give users without an id.
        let anonymousBanner = try flag("banner", Self.context(""))
        #expect(anonymousBanner["reason"]?.string == "DEFAULT")
        #expect(anonymousBanner["value"]?.bool == false)
        let anonymousHero = try flag("hero", Self.context(""))
        #expect(anonymousHero["reason"]?.string == "DEFAULT")
        #expect(anonymousHero["variant"]?.string == "control")
    }

    @Test func aVariantWithATypedValueAnswersThatValue() throws {
        let server = try Self.served()
        defer { server.stop() }
        var seen: Set<String> = []
        for n in 0..<40 {
            let theme = try Self.evaluate(server, "theme", Self.context("user-\(n)")).json
            let variant = try #require(theme["variant"]?.string)
            seen.insert(variant)
            #expect(theme["value"]?["background"]?.string == (variant == "light" ? "#ffffff" : "#000000"))
            #expect(theme["value"]?["contrast"]?.number == (variant == "light" ? 4.5 : 7))
            #expect(theme["value"]?["rounded"]?.bool == (variant == "light"))
        }
        #expect(seen == ["light", "dark"])
    }

    @Test func everyErrorCodeNamesWhatIsWrong() throws {
        let server = try Self.served()
        defer { server.stop() }
        func failure(_ key: String?, _ body: String, status: Int = 400) throws -> (code: String?, details: String) {
            let path = key.map { "/ofrep/v1/evaluate/flags/\($0)" } ?? "/ofrep/v1/evaluate/flags"
            let response = try server.request("POST", path, token: nil, body: body)
            #expect(response.status == status, "\(body): \(response.text)")
            #expect(response.json["key"]?.string == key)
            return (response.json["errorCode"]?.string, response.json["errorDetails"]?.string ?? "")
        }
        let parse = try failure("banner", "{\"context\": {\n  \"targetingKey\": }")
        #expect(parse.code == "PARSE_ERROR")
        #expect(parse.details.contains("line 2"))
        #expect(try failure("banner", "").code == "PARSE_ERROR")
        let general = try failure("banner", "[1, 2]")
        #expect(general.code == "GENERAL")
        #expect(general.details.contains("found an array"))
        let version = try failure("banner", "{\"context\": {\n  \"targetingKey\": \"u1\",\n  \"appVersion\": \"five\"}}")
        #expect(version.code == "INVALID_CONTEXT")
        #expect(version.details == #"$.context.appVersion (line 3): "five" is not a version such as "5.2.1" or "17.4-beta.1""#)
        let nested = try failure("banner", #"{"context": {"targetingKey": "u1", "plan": {"tier": "gold"}}}"#)
        #expect(nested.code == "INVALID_CONTEXT")
        #expect(nested.details.hasPrefix("$.context.plan (line 1): expected a string, number or boolean"))
        #expect(try failure("banner", #"{"context": "u1"}"#).code == "INVALID_CONTEXT")
        // Not saying who is asking is an error for the flags that bucket users, and only for them.
        let missing = try failure("banner", #"{"context": {"platform": "ios"}}"#)
        #expect(missing.code == "TARGETING_KEY_MISSING")
        #expect(missing.details.contains("rollout \"banner\" buckets users"))
        #expect(try failure("hero", "{}").code == "TARGETING_KEY_MISSING")
        let killed = try Self.evaluate(server, "killed", "{}")
        #expect(killed.status == 200)
        #expect(killed.json["reason"]?.string == "DISABLED")
        let unknown = try failure("nope", Self.context("u1"), status: 404)
        #expect(unknown.code == "FLAG_NOT_FOUND")
        #expect(unknown.details.contains("banner, everyone, hero, killed, limit, onboarding, theme"))
        // The bulk endpoint's failures have no key; a missing key fails the flags that need it, item by item.
        #expect(try failure(nil, "[]").code == "GENERAL")
        let partial = try server.request("POST", "/ofrep/v1/evaluate/flags", token: nil, body: #"{"context": {}}"#)
        #expect(partial.status == 200)
        let items = Dictionary(uniqueKeysWithValues: (partial.json["flags"]?.array ?? []).map { ($0["key"]?.string ?? "", $0) })
        #expect(items["banner"]?["errorCode"]?.string == "TARGETING_KEY_MISSING")
        #expect(items["hero"]?["errorCode"]?.string == "TARGETING_KEY_MISSING")
        #expect(items["killed"]?["reason"]?.string == "DISABLED")
        #expect(items["onboarding"]?["value"]?.string == "long")
        // Liberal in what it reads: unknown members, numbers and booleans as text, null as nothing.
        let liberal = try Self.evaluate(
            server, "banner", #"{"context": {"targetingKey": "u1", "age": 42, "beta": true, "nickname": null}, "flagConfigEtag": "x"}"#)
        #expect(liberal.status == 200)
    }

    @Test func keysAreCheckedAndGuessingIsSlowedDown() throws {
        let key = "trl_ofrep-test-key-0123456789abcdef"
        let server = try Self.served(extra: #""ofrep": {"keys": [{"name": "app", "sha256": "\#(Hex.encode(SHA256.hash(Array(key.utf8))))"}]}"#)
        defer { server.stop() }
        let body = Self.context("u1")
        let anonymous = try Self.evaluate(server, "banner", body)
        #expect(anonymous.status == 401)
        #expect(anonymous.json["errorCode"]?.string == "GENERAL")
        #expect(try Self.evaluate(server, "banner", body, headers: ["X-API-Key": key]).status == 200)
        #expect(try Self.evaluate(server, "banner", body, headers: ["Authorization": "Bearer \(key)"]).status == 200)
        // Ten failures a minute from one address (the limiter's default), the keyless one included.
        var statuses: [Int] = []
        for _ in 0..<9 { statuses.append(try Self.evaluate(server, "banner", body, headers: ["X-API-Key": "wrong"]).status) }
        #expect(statuses.allSatisfy { $0 == 401 })
        let limited = try Self.evaluate(server, "banner", body, headers: ["X-API-Key": "wrong"])
        #expect(limited.status == 429)
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
        // A good key still passes: the limiter slows guessing, it does not lock out the app.
        #expect(try Self.evaluate(server, "banner", body, headers: ["X-API-Key": key]).status == 200)
    }

    @Test func bulkHasAnETagA304AndTheEventStream() throws {
        let server = try Self.served()
        defer { server.stop() }
        let body = Self.context("u1", #", "tier": "gold""#)
        let first = try server.request("POST", "/ofrep/v1/evaluate/flags", token: nil, body: body)
        #expect(first.status == 200)
        let etag = try #require(first.header("ETag"))
        #expect(first.json["flags"]?.array.map { $0["key"]?.string ?? "" } == ["banner", "everyone", "hero", "killed", "limit", "onboarding", "theme"])
        #expect(first.json["flags"]?.array.allSatisfy { $0["reason"]?.string != nil && $0["variant"]?.string != nil } == true)
        #expect(first.json["eventStreams"]?[0]?["type"]?.string == "sse")
        #expect(first.json["eventStreams"]?[0]?["endpoint"]?["requestUri"]?.string == "/v1/changes?format=ofrep")
        let revision = try #require(first.json["metadata"]?["targetingRevision"]?.string)
        let again = try server.request("POST", "/ofrep/v1/evaluate/flags", token: nil, headers: ["If-None-Match": etag], body: body)
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        let otherUser = try server.request("POST", "/ofrep/v1/evaluate/flags", token: nil, headers: ["If-None-Match": etag], body: Self.context("qa-kim"))
        #expect(otherUser.status == 200)
        // A change to the targeting changes every answer's ETag.
        #expect(try server.request("PUT", "/admin/rollouts/everyone", body: #"{"percentage": 90}"#).status == 200)
        let changed = try server.request("POST", "/ofrep/v1/evaluate/flags", token: nil, headers: ["If-None-Match": etag], body: body)
        #expect(changed.status == 200)
        #expect(changed.header("ETag") != etag)
        #expect(changed.json["metadata"]?["targetingRevision"]?.string != revision)
    }

    /// The flags a user gets are the assignments a screen reports for the same user and context,
    /// through query parameters for the screen and the OFREP context for the flags.
    @Test func theSameAssignmentsAsTheScreensXTrellisAssignments() throws {
        let server = try Self.served()
        defer { server.stop() }
        var compared = 0
        for n in 0..<24 {
            let user = "user-\(n)", tier = n % 3 == 0 ? "gold" : "silver"
            let screen = try server.request("GET", "/v1/screens/home?user=\(user)&attr.tier=\(tier)&format=drivenui", token: nil)
            #expect(screen.status == 200)
            let header = try #require(screen.header("X-Trellis-Assignments"))
            let assignments = JSONTree(try JSONSerialization.jsonObject(with: Data(header.utf8)))
            let bulk = try server.request("POST", "/ofrep/v1/evaluate/flags", token: nil, body: Self.context(user, #", "tier": "\#(tier)""#))
            let flags = Dictionary(uniqueKeysWithValues: bulk.json["flags"]!.array.map { ($0["key"]!.string!, $0) })
            for key in ((assignments["rollouts"]?.value as? [String: Any]) ?? [:]).keys {
                #expect(flags[key]?["value"]?.bool == assignments["rollouts"]?[key]?.bool, "\(user) \(key)")
                compared += 1
            }
            for key in ((assignments["experiments"]?.value as? [String: Any]) ?? [:]).keys {
                #expect(flags[key]?["variant"]?.string == assignments["experiments"]?[key]?.string, "\(user) \(key)")
                compared += 1
            }
        }
        #expect(compared >= 24)
    }
}
