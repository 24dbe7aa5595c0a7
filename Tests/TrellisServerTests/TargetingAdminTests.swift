import Foundation
import Testing
import TrellisRuntime
import TrellisTargeting
import TrellisTesting

/// Targeting authored at run time, end to end on the real binary: rules, rollouts and experiments
/// created, changed and retired through the admin API, each checked with every screen and route
/// that refers to it; the whole document with its revisions and rollback; the stale-flag report.
@Suite(.serialized) struct TargetingAdminTests {
    /// A screen that shows `text` to users in rollout `rollout` (when given) and the variants of
    /// `experiment` (when given).
    static func screen(id: String, rollout: String? = nil, experiment: (key: String, variants: [String])? = nil) -> String {
        var subviews = [#"{"type": "Text", "id": "plain", "values": {"text": "plain"}}"#]
        if let rollout {
            subviews.append(
                #"{"type": "Rule", "id": "gate", "rule": {"rollout": "\#(rollout)"}, "child": {"type": "Text", "id": "gated", "values": {"text": "in"}}}"#)
        }
        if let experiment {
            let variants = experiment.variants.map { #""\#($0)": {"type": "Text", "id": "v-\#($0)", "values": {"text": "\#($0)"}}"# }
            subviews.append(
                #"{"type": "Experiment", "id": "exp", "experiment": "\#(experiment.key)", "variants": {\#(variants.joined(separator: ", "))}}"#)
        }
        return """
            {"id": "\(id)", "schemaVersion": 1, "root": {"type": "VStack", "id": "root", "subviews": [
            \(subviews.joined(separator: ",\n"))
            ]}}
            """
    }

    static func served() throws -> ServedBinary { try AdminFlowTests.served() }

    @Test func aRolloutIsCreatedUsedRampedAndRetiredOnlyOnceNothingUsesIt() throws {
        let server = try Self.served()
        let created = try server.request("POST", "/admin/rollouts", body: #"{"key": "new-cards", "percentage": 30, "description": "cards"}"#)
        #expect(created.status == 201)
        #expect(created.header("Location") == "/admin/rollouts/new-cards")
        #expect(created.json["groupId"]?.string == "new-cards")
        #expect(created.json["source"]?.string == "runtime")
        #expect(try server.request("POST", "/admin/rollouts", body: #"{"key": "new-cards", "percentage": 5}"#).status == 409)
        let bad = try server.request("POST", "/admin/rollouts", body: "{\"key\": \"x y\",\n \"percentage\": 101}")
        #expect(bad.status == 422)
        #expect(bad.json["errors"]?.array.count == 2)
        #expect(bad.json["errors"]?[1]?["line"]?.number == 2)

        // A screen published now may refer to it; users are admitted exactly as Unleash would, on the key.
        #expect(try server.request("PUT", "/admin/screens/cards", body: Self.screen(id: "cards", rollout: "new-cards")).status == 201)
        let users = (0..<60).map { "u\($0)" }
        func admitted(_ user: String) throws -> Bool? {
            try server.request("GET", "/v1/screens/cards?user=\(user)", token: nil).json["assignments"]?["rollouts"]?["new-cards"]?.bool
        }
        for user in users {
            #expect(try admitted(user) == Bucketing.isInRollout(percentage: 30, groupID: "new-cards", userID: user))
        }
        #expect(try server.request("PUT", "/admin/rollouts/new-cards", body: #"{"percentage": 100}"#).json["percentage"]?.number == 100)
        #expect(try users.allSatisfy { try admitted($0) == true })

        // Retiring what a screen uses is refused, naming the screen, the path and the line.
        let refused = try server.request("DELETE", "/admin/rollouts/new-cards")
        #expect(refused.status == 409)
        let error = refused.json["errors"]?[0]
        #expect(error?["source"]?.string == "screens/cards revision 1")
        #expect(error?["path"]?.string?.contains("rule") == true)
        #expect(error?["line"]?.number == 3)
        #expect(try admitted("u1") == true)

        // Once the screen no longer refers to it, it goes; a retired key can be created again.
        #expect(try server.request("PUT", "/admin/screens/cards", body: Self.screen(id: "cards")).status == 200)
        let retired = try server.request("DELETE", "/admin/rollouts/new-cards")
        #expect(retired.status == 200)
        #expect(try server.request("GET", "/admin/rollouts/new-cards").status == 404)
        let audit = try server.request("GET", "/admin/audit?resource=rollouts/new-cards").json["entries"]
        #expect((audit?.array ?? []).compactMap { $0["action"]?.string } == ["rollout.create", "rollout.update", "rollout.retire"])

        // Everything acknowledged survives a restart.
        server.stop()
        try server.start()
        #expect(try server.request("GET", "/admin/rollouts/new-cards").status == 404)
        #expect(try server.request("POST", "/admin/rollouts", body: #"{"key": "new-cards", "percentage": 1, "groupId": "g"}"#).json["groupId"]?.string == "g")
    }

    @Test func aConfiguredRolloutUsedByAScreenCannotBeRetiredAndResetHandsItBack() throws {
        let server = try Self.served()
        let refused = try server.request("DELETE", "/admin/rollouts/banner")
        #expect(refused.status == 409)
        #expect(refused.json["errors"]?[0]?["source"]?.string?.hasPrefix("screens/home") == true)
        #expect(try server.request("POST", "/admin/rollouts/banner/reset").status == 409)
        #expect(try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 40}"#).status == 200)
        let reset = try server.request("POST", "/admin/rollouts/banner/reset")
        #expect(reset.status == 200)
        #expect(reset.json["percentage"]?.number == 10)
        #expect(reset.json["source"]?.string == "config")
    }

    @Test func anExperimentIsCreatedAndSplitsUsersByWeight() throws {
        let server = try Self.served()
        let bad = try server.request("POST", "/admin/experiments", body: #"{"key": "cta", "variants": {"a": 0, "b": 0}}"#)
        #expect(bad.status == 422)
        let wrongDefault = try server.request("POST", "/admin/experiments", body: #"{"key": "cta", "variants": {"a": 1, "b": 1}, "defaultVariant": "c"}"#)
        #expect(wrongDefault.status == 422)
        #expect(wrongDefault.json["errors"]?[0]?["path"]?.string == "$.defaultVariant")
        let created = try server.request("POST", "/admin/experiments", body: #"{"key": "cta", "variants": {"a": 20, "b": 80}, "description": "d"}"#)
        #expect(created.status == 201)
        #expect(created.json["defaultVariant"]?.string == "a")
        #expect(try server.request("PUT", "/admin/screens/cta", body: Self.screen(id: "cta", experiment: ("cta", ["a", "b"]))).status == 201)
        var counts: [String: Int] = [:]
        for i in 0..<200 {
            let user = "user-\(i)"
            let variant = try server.request("GET", "/v1/screens/cta?user=\(user)", token: nil).json["assignments"]?["experiments"]?["cta"]?.string
            let index = Bucketing.variantIndex(key: "cta", userID: user, weights: [20, 80])
            #expect(variant == index.map { ["a", "b"][$0] })
            counts[variant ?? "none", default: 0] += 1
        }
        #expect((20...60).contains(counts["a"] ?? 0))

        // A PUT on a created experiment changes it whole, and a screen must show every variant.
        #expect(try server.request("PUT", "/admin/experiments/cta", body: #"{"status": "concluded", "winner": "b"}"#).json["winner"]?.string == "b")
        let retire = try server.request("DELETE", "/admin/experiments/cta")
        #expect(retire.status == 409)
        #expect(retire.json["errors"]?[0]?["source"]?.string == "screens/cta revision 1")
    }

    @Test func anExperimentsGoalsGuardrailsAndExposuresAreSetShownAndRefusedWithTheirPath() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: """
            {"rules": {"is_gold": {"attribute": "tier", "op": "equals", "value": "gold"}},
             "rollouts": {"banner": {"percentage": 10}},
             "experiments": {"hero": {"variants": {"control": 50, "big": 50}},
                             "home-hero": {"variants": {"control": 50, "big": 50}, "guardrails": ["client-errors"]}}}
            """)
        let server = try ServedBinary(config: config)
        try server.start()
        // Experiments name only metrics that exist (targeting.json's client-errors is let be).
        for name in ["x", "y", "a", "clicks", "client-errors"] {
            #expect(try server.request("PUT", "/admin/metrics/\(name)", body: #"{"type": "proportion", "event": "e"}"#).status == 201)
        }
        let before = try server.request("GET", "/admin/experiments/home-hero").json
        #expect(before["goals"]?.array.count == 0)
        #expect(before["guardrails"]?[0]?.string == "client-errors")
        #expect(before["exposures"]?.string == "client")

        let put = try server.request("PUT", "/admin/experiments/home-hero", body: #"{"goals": ["x"], "exposures": "server"}"#)
        #expect(put.status == 200)
        let after = try server.request("GET", "/admin/experiments/home-hero").json
        #expect(after["goals"]?.array.compactMap(\.string) == ["x"])
        #expect(after["guardrails"]?.array.compactMap(\.string) == ["client-errors"])
        #expect(after["exposures"]?.string == "server")
        #expect(after["source"]?.string == "runtime")
        #expect(after["config"]?["weights"] != nil && after["config"]?["exposures"]?.string == nil)
        #expect(try server.request("GET", "/admin/targeting").json["experiments"]?["home-hero"]?["exposures"]?.string == "server")

        // Bad bodies: 422 with the path and line of each mistake; nothing changed.
        for (body, path, line) in [
            ("{\"guardrails\": [\"y\",\n \"x\"]}", "$.guardrails[1]", 2),
            ("{\"goals\": [\"x\",\n \"client-errors\"]}", "$.goals[1]", 2),
            ("{\"goals\": [\"a\",\n \"a\"]}", "$.goals[1]", 2),
            ("{\n\"exposures\": \"both\"}", "$.exposures", 2),
        ] {
            let bad = try server.request("PUT", "/admin/experiments/home-hero", body: body)
            #expect(bad.status == 422, "\(body)")
            #expect(bad.header("Content-Type")?.hasPrefix("application/problem+json") == true)
            #expect(bad.json["errors"]?[0]?["path"]?.string == path)
            #expect(bad.json["errors"]?[0]?["line"]?.number == Double(line))
        }
        #expect(try server.request("PUT", "/admin/experiments/home-hero", body: #"{"goals": ["x"#).status == 400)
        #expect(try server.request("GET", "/admin/experiments/home-hero").json["guardrails"]?.array.compactMap(\.string) == ["client-errors"])

        // Created with them; kept across a restart; a reset hands back targeting.json's.
        let created = try server.request(
            "POST", "/admin/experiments", body: #"{"key": "cta", "variants": {"a": 1, "b": 1}, "goals": ["clicks"], "exposures": "server"}"#)
        #expect(created.status == 201)
        #expect(created.json["goals"]?[0]?.string == "clicks")
        server.stop()
        try server.start()
        #expect(try server.request("GET", "/admin/experiments/home-hero").json["goals"]?[0]?.string == "x")
        #expect(try server.request("GET", "/admin/experiments/cta").json["exposures"]?.string == "server")
        let reset = try server.request("POST", "/admin/experiments/home-hero/reset")
        #expect(reset.status == 200)
        #expect(reset.json["goals"]?.array.count == 0)
        #expect(reset.json["exposures"]?.string == "client")
    }

    @Test func rulesAreDefinedCheckedForCyclesAndRetiredOnlyWhenUnused() throws {
        let server = try Self.served()
        let malformed = try server.request("PUT", "/admin/rules/beta", body: "{\n  \"attribute\": \"tier\",\n  \"op\": \"sort-of\", \"value\": 1}")
        #expect(malformed.status == 422)
        #expect(malformed.json["errors"]?[0]?["line"]?.number == 3)
        #expect(malformed.json["errors"]?[0]?["column"] != nil)
        #expect(try server.request("PUT", "/admin/rules/beta", body: #"{"rule": "nope"}"#).status == 422)

        let created = try server.request("PUT", "/admin/rules/beta", body: #"{"attribute": "tier", "op": "equals", "value": "beta"}"#)
        #expect(created.status == 201)
        #expect(created.json["source"]?.string == "runtime")
        #expect(try server.request("PUT", "/admin/rules/beta2", body: #"{"any": [{"rule": "beta"}, {"rule": "is_gold"}]}"#).status == 201)
        // beta → beta2 → beta is a cycle: refused, and beta is as it was.
        let cycle = try server.request("PUT", "/admin/rules/beta", body: #"{"not": {"rule": "beta2"}}"#)
        #expect(cycle.status == 422)
        #expect(cycle.json["errors"]?[0]?["message"]?.string?.contains("cycle") == true)
        #expect(try server.request("GET", "/admin/rules/beta").json["rule"]?["op"]?.string == "equals")

        // A rule another rule uses stays; the user is seen through it.
        #expect(try server.request("DELETE", "/admin/rules/beta").status == 409)
        #expect(try server.request("DELETE", "/admin/rules/beta2").status == 200)
        #expect(try server.request("DELETE", "/admin/rules/beta").status == 200)
        // is_gold is the home screen's: retiring it would leave the screen naming nothing.
        let used = try server.request("DELETE", "/admin/rules/is_gold")
        #expect(used.status == 409)
        #expect(used.json["errors"]?[0]?["source"]?.string?.hasPrefix("screens/home") == true)
    }

    @Test func theWholeDocumentIsReadReplacedListedAndRolledBack() throws {
        let server = try Self.served()
        let first = try server.request("GET", "/admin/targeting")
        #expect(first.status == 200)
        let etag = try #require(first.header("ETag"))
        #expect(first.json["rollouts"]?["banner"]?["percentage"]?.number == 10)

        // Replace: banner to 50, a new rollout, hero reweighted; the rule untouched.
        let replacement = """
            {"rules": {"is_gold": {"attribute": "tier", "op": "equals", "value": "gold"}},
             "rollouts": {"banner": {"percentage": 50, "description": "the banner"}, "extra": {"percentage": 5}},
             "experiments": {"hero": {"variants": {"control": 10, "big": 90}, "defaultVariant": "control"}}}
            """
        let replaced = try server.request("PUT", "/admin/targeting", headers: ["If-Match": etag], body: replacement)
        #expect(replaced.status == 200)
        #expect(replaced.json["rollouts"]?["extra"]?["groupId"]?.string == "extra")
        #expect(try server.request("PUT", "/admin/targeting", headers: ["If-Match": etag], body: replacement).status == 412)
        #expect(try server.request("GET", "/admin/rollouts/banner").json["percentage"]?.number == 50)

        // Removing what a screen uses is refused whole; a document that does not parse says where.
        let missingHero = """
            {"rules": {"is_gold": {"attribute": "tier", "op": "equals", "value": "gold"}}, "rollouts": {"banner": {"percentage": 50}}}
            """
        #expect(try server.request("PUT", "/admin/targeting", body: missingHero).status == 409)
        #expect(try server.request("PUT", "/admin/targeting", body: "{\"rollouts\": ").status == 400)
        let broken = try server.request("PUT", "/admin/targeting", body: "{\"rollouts\": {\n \"banner\": {\"percentage\": \"half\"}}}")
        #expect(broken.status == 422)
        #expect(broken.json["errors"]?[0]?["line"]?.number == 2)
        #expect(try server.request("GET", "/admin/rollouts/extra").status == 200)

        // The history: the configuration's import, then the replacement.
        let revisions = try server.request("GET", "/admin/targeting/revisions").json
        #expect(revisions["revisions"]?.array.count == 2)
        #expect(revisions["revisions"]?[0]?["origin"]?.string == "config")
        #expect(revisions["revisions"]?[1]?["createdBy"]?.string == "ops-bot")
        let one = try server.request("GET", "/admin/targeting/revisions/1")
        #expect(one.json["rollouts"]?["banner"]?["percentage"]?.number == 10)

        // Back to revision 1: the new rollout is retired, banner's configured value is in force again.
        let rolledBack = try server.request("POST", "/admin/targeting/rollback", body: #"{"revision": 1}"#)
        #expect(rolledBack.status == 200)
        #expect(rolledBack.json["rollouts"]?["extra"] == nil)
        let banner = try server.request("GET", "/admin/rollouts/banner").json
        #expect(banner["percentage"]?.number == 10)
        #expect(banner["source"]?.string == "config")
        let after = try server.request("GET", "/admin/targeting/revisions").json
        #expect(after["revisions"]?.array.count == 3)
        #expect(after["revisions"]?[2]?["copiedFrom"]?.number == 1)
        #expect(try server.request("GET", "/admin/targeting").header("ETag") == etag)
        #expect(try server.request("POST", "/admin/targeting/rollback", body: #"{"revision": 9}"#).status == 404)
    }

    @Test func theStaleReportListsFinishedRolloutsConcludedExperimentsAndUnusedNames() throws {
        let server = try Self.served()
        #expect(try server.request("POST", "/admin/rollouts", body: #"{"key": "unused", "percentage": 100}"#).status == 201)
        #expect(try server.request("PUT", "/admin/experiments/hero", body: #"{"status": "concluded", "winner": "big"}"#).status == 200)
        let now = try server.request("GET", "/admin/targeting/stale?days=0").json
        #expect(now["rollouts"]?[0]?["key"]?.string == "unused")
        #expect(now["rollouts"]?[0]?["reason"]?.string == "at 100 %")
        #expect(now["experiments"]?[0]?["winner"]?.string == "big")
        #expect(now["unreferenced"]?["rollouts"]?[0]?.string == "unused")
        #expect(now["unreferenced"]?["rollouts"]?.array.count == 1)
        #expect(now["unreferenced"]?["rules"]?.array.count == 0)
        let month = try server.request("GET", "/admin/targeting/stale").json
        #expect(month["days"]?.number == 30)
        #expect(month["rollouts"]?.array.count == 0)
        #expect(try server.request("GET", "/admin/targeting/stale?days=soon").status == 400)
    }
}
