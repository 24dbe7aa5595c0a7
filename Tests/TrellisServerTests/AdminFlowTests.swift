import Foundation
import Testing
import TrellisRuntime
import TrellisTargeting
import TrellisTesting

/// The control plane end to end, as ops use it: the real binary, a real SQLite file, curl-shaped
/// requests. Publish, stage, promote, roll back, kill, pause, override, audit, explain, and every
/// refusal (401/403/404/412/422) changing nothing.
@Suite(.serialized) struct AdminFlowTests {
    static let targeting = """
        {
          "rules": {"is_gold": {"attribute": "tier", "op": "equals", "value": "gold"}},
          "rollouts": {"banner": {"percentage": 10, "description": "the banner"}},
          "experiments": {"hero": {"variants": {"control": 50, "big": 50}, "defaultVariant": "control"}}
        }
        """

    static func screen(_ text: String) -> String {
        """
        {
          "id": "home", "schemaVersion": 1,
          "root": {"type": "VStack", "id": "root", "subviews": [
            {"type": "Rule", "id": "banner-rule", "rule": {"all": [{"rollout": "banner"}, {"not": {"rule": "is_gold"}}]},
             "child": {"type": "Text", "id": "banner", "values": {"text": "Banner"}}},
            {"type": "Experiment", "id": "hero-experiment", "experiment": "hero", "variants": {
              "control": {"type": "Text", "id": "hero-a", "values": {"text": "A"}},
              "big": {"type": "Text", "id": "hero-b", "values": {"text": "B"}}}},
            {"type": "Text", "id": "greeting", "values": {"text": "\(text)"}}
          ]}
        }
        """
    }

    static func served(adminExtra: String = "") throws -> ServedBinary {
        let config = try TemporaryConfig(screens: ["home": screen("Hello")])
        try config.write(targeting: targeting)
        let binary = try ServedBinary(config: config, adminExtra: adminExtra)
        try binary.start()
        return binary
    }

    /// A user id whose rollout bucket for `group` is in `buckets`.
    static func user(group: String, buckets: ClosedRange<Int>) -> String {
        (0...).lazy.map { "user-\($0)" }.first { buckets.contains(Bucketing.rolloutBucket(groupID: group, userID: $0)) }!
    }

    @Test func rolloutsRampKillAndReviveWithAuditAndPreconditions() throws {
        let server = try Self.served()
        let user = Self.user(group: "banner", buckets: 11...25)
        let screenPath = "/v1/screens/home?user=\(user)"
        #expect(try server.request("GET", screenPath, token: nil).json["assignments"]?["rollouts"]?["banner"]?.bool == false)

        // Who may: nobody without a token, only writers write.
        let anonymous = try server.request("GET", "/admin/rollouts", token: nil)
        #expect(anonymous.status == 401)
        #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(try server.request("GET", "/admin/rollouts", token: "trl_wrong").status == 401)
        // Nothing is looked at before the token: not the path, the query, the body or the resource.
        #expect(try server.request("GET", "/admin/screens/nope/revisions", token: nil).status == 401)
        #expect(try server.request("PUT", "/admin/rollouts/banner", token: nil, body: #"{"percentag": 1}"#).status == 401)
        #expect(try server.request("GET", "/admin/audit?limit=0", token: nil).status == 401)
        #expect(try server.request("GET", "/admin/rollouts?prety=1", token: ServedBinary.readToken).status == 400)
        let reader = try server.request("PUT", "/admin/rollouts/banner", token: ServedBinary.readToken, body: #"{"percentage": 25}"#)
        #expect(reader.status == 403)

        let before = try server.request("GET", "/admin/rollouts/banner", token: ServedBinary.readToken)
        #expect(before.status == 200)
        #expect(before.json["source"]?.string == "config")
        #expect(before.json["percentage"]?.number == 10)
        let etag = try #require(before.header("ETag"))

        // Invalid changes: 422 with path and line, nothing changed.
        let tooMuch = try server.request("PUT", "/admin/rollouts/banner", body: "{\n  \"percentage\": 101\n}")
        #expect(tooMuch.status == 422)
        #expect(tooMuch.json["errors"]?[0]?["path"]?.string == "$.percentage")
        #expect(tooMuch.json["errors"]?[0]?["line"]?.number == 2)
        let typo = try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentag": 25}"#)
        #expect(typo.status == 422)
        #expect(typo.json["errors"]?[0]?["message"]?.string?.contains("did you mean \"percentage\"") == true)
        #expect(try server.request("PUT", "/admin/rollouts/banner", body: "{").status == 400)
        let missing = try server.request("PUT", "/admin/rollouts/nope", body: #"{"percentage": 25}"#)
        #expect(missing.status == 404)
        #expect(missing.json["detail"]?.string?.contains("banner") == true)

        // The ramp: acknowledged, in force on the next request, attributed.
        let ramp = try server.request("PUT", "/admin/rollouts/banner", headers: ["If-Match": etag], body: #"{"percentage": 25}"#)
        #expect(ramp.status == 200)
        #expect(ramp.json["source"]?.string == "runtime")
        #expect(ramp.json["updatedBy"]?.string == "ops-bot")
        #expect(ramp.json["config"]?["percentage"]?.number == 10)
        #expect(try server.request("GET", screenPath, token: nil).json["assignments"]?["rollouts"]?["banner"]?.bool == true)

        // A stale If-Match: 412, nothing changed.
        let stale = try server.request("PUT", "/admin/rollouts/banner", headers: ["If-Match": etag], body: #"{"percentage": 50}"#)
        #expect(stale.status == 412)
        #expect(try server.request("GET", "/admin/rollouts/banner").json["percentage"]?.number == 25)

        // The kill switch keeps the percentage for a revive.
        let killed = try server.request("POST", "/admin/rollouts/banner/kill")
        #expect(killed.status == 200)
        #expect(killed.json["enabled"]?.bool == false)
        #expect(killed.json["percentage"]?.number == 25)
        #expect(try server.request("GET", screenPath, token: nil).json["assignments"]?["rollouts"]?["banner"]?.bool == false)
        #expect(try server.request("PUT", "/admin/rollouts/banner", body: #"{"enabled": true, "percentage": 12.5}"#).status == 200)

        // Every write in the audit log, in order, with before and after.
        let audit = try server.request("GET", "/admin/audit?resource=rollouts/banner", token: ServedBinary.readToken)
        let actions = audit.json["entries"]?.array.compactMap { $0["action"]?.string }
        #expect(actions == ["rollout.update", "rollout.kill", "rollout.update"])
        #expect(audit.json["entries"]?[0]?["before"]?["percentage"]?.number == 10)
        #expect(audit.json["entries"]?[0]?["after"]?["percentage"]?.number == 25)
        #expect(audit.json["entries"]?[2]?["after"]?["percentage"]?.number == 12.5)
        #expect(audit.json["entries"]?[1]?["actor"]?.string == "ops-bot")

        // Ops can watch it: changes stored, and refused before the store.
        let metrics = try server.request("GET", "/metrics", token: nil).text
        #expect(metrics.contains("trellis_runtime_changes_total{result=\"committed\"} 3"), "\(metrics)")
        #expect(metrics.contains("trellis_runtime_changes_total{result=\"refused\"} 2"))
        #expect(metrics.contains("trellis_runtime_commit_seconds"))

        // A restart keeps every acknowledged change.
        server.stop()
        try server.start()
        let after = try server.request("GET", "/admin/rollouts/banner")
        #expect(after.json["percentage"]?.number == 12.5)
        #expect(after.json["enabled"]?.bool == true)
        #expect(after.json["revision"]?.number == 3)

        // Back to the configuration's value: recorded, attributed, and the revision keeps counting.
        let reset = try server.request("POST", "/admin/rollouts/banner/reset")
        #expect(reset.status == 200)
        #expect(reset.json["source"]?.string == "config")
        #expect(reset.json["percentage"]?.number == 10)
        #expect(reset.json["revision"]?.number == 4)
        #expect(reset.json["updatedBy"]?.string == "ops-bot")
        #expect(try server.request("POST", "/admin/rollouts/banner/reset").status == 409)
        let last = try server.request("GET", "/admin/audit?resource=rollouts/banner&limit=1", token: ServedBinary.readToken)
        #expect(last.json["entries"]?[0]?["action"]?.string == "rollout.reset")
        #expect(try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 20}"#).json["revision"]?.number == 5)
    }

    @Test func experimentsPauseOverrideAndConclude() throws {
        let server = try Self.served()
        func variant(_ user: String) throws -> String? {
            try server.request("GET", "/v1/screens/home?user=\(user)", token: nil).json["assignments"]?["experiments"]?["hero"]?.string
        }
        let users = (0..<40).map { "u\($0)" }
        #expect(Set(try users.map(variant)) == ["control", "big"])

        let unknown = try server.request("PUT", "/admin/experiments/hero", body: "{\"overrides\": {\"qa-1\": \"huge\"}}")
        #expect(unknown.status == 422)
        #expect(unknown.json["errors"]?[0]?["message"]?.string?.contains("unknown variant \"huge\"") == true)
        #expect(try server.request("PUT", "/admin/experiments/hero", body: #"{"weights": {"control": -1}}"#).status == 422)
        #expect(try server.request("PUT", "/admin/experiments/hero", body: #"{"status": "concluded"}"#).status == 422)

        let paused = try server.request("PUT", "/admin/experiments/hero", body: #"{"status": "paused", "overrides": {"qa-1": "big"}}"#)
        #expect(paused.status == 200)
        #expect(paused.json["status"]?.string == "paused")
        #expect(Set(try users.map(variant)) == ["control"])
        #expect(try variant("qa-1") == "big")

        let concluded = try server.request("PUT", "/admin/experiments/hero", body: #"{"status": "concluded", "winner": "big", "overrides": {"qa-1": null}}"#)
        #expect(concluded.status == 200)
        #expect(concluded.json["winner"]?.string == "big")
        #expect(Set(try users.map(variant)) == ["big"])

        let running = try server.request("PUT", "/admin/experiments/hero", body: #"{"status": "running", "weights": {"big": 0}}"#)
        #expect(running.status == 200)
        #expect(Set(try users.map(variant)) == ["control"])

        let reset = try server.request("POST", "/admin/experiments/hero/reset")
        #expect(reset.status == 200)
        #expect(reset.json["source"]?.string == "config")
        #expect(Set(try users.map(variant)) == ["control", "big"])
    }

    @Test func screensPublishStagePromoteAndRollBack() throws {
        let server = try Self.served()
        func greeting(_ user: String, revision: Int? = nil) throws -> (revision: Double?, text: String?) {
            // A revision by number is ops' to read (a read token); the one served needs none.
            let json = try server.request("GET", "/v1/screens/home?user=\(user)" + (revision.map { "&revision=\($0)" } ?? ""), token: revision.map { _ in ServedBinary.writeToken }).json
            let text = json["root"]?["subviews"]?.array.first { $0["id"]?.string == "greeting" }?["values"]?["text"]?.string
            return (json["revision"]?.number, text)
        }
        #expect(try greeting("u1") == (1, "Hello"))

        // An invalid screen: every error with path and line, nothing published.
        let invalid = try server.request("PUT", "/admin/screens/home", body: "{\n\"id\": \"home\", \"schemaVersion\": 1,\n\"root\": {\"type\": \"Txt\"}\n}")
        #expect(invalid.status == 422)
        #expect(invalid.json["errors"]?[0]?["path"]?.string == "$.root.type")
        #expect(invalid.json["errors"]?[0]?["line"]?.number == 3)
        let unknownRollout = Self.screen("x").replacingOccurrences(of: "\"rollout\": \"banner\"", with: "\"rollout\": \"banner2\"")
        #expect(try server.request("PUT", "/admin/screens/home", body: unknownRollout).status == 422)
        #expect(try greeting("u1") == (1, "Hello"))

        let published = try server.request("PUT", "/admin/screens/home", body: Self.screen("Published"))
        #expect(published.status == 200)
        #expect(published.json["revision"]?.number == 2)
        #expect(published.json["source"]?.string == "runtime")
        #expect(try greeting("u1") == (2, "Published"))

        // Staged to 30 %: those users get revision 3, the rest keep 2; a promote serves 3 to all.
        let staged = try server.request("PUT", "/admin/screens/home?stage=30", body: Self.screen("Staged"))
        #expect(staged.status == 200)
        #expect(staged.json["staged"]?["revision"]?.number == 3)
        let inside = Self.user(group: "screen:home", buckets: 1...30)
        let outside = Self.user(group: "screen:home", buckets: 31...100)
        #expect(try greeting(inside) == (3, "Staged"))
        #expect(try greeting(outside) == (2, "Published"))
        #expect(try server.request("POST", "/admin/screens/home/promote").status == 200)
        #expect(try greeting(outside) == (3, "Staged"))
        #expect(try server.request("POST", "/admin/screens/home/promote").status == 409)

        // Rollback to 1 is a new revision with revision 1's content.
        let rollback = try server.request("POST", "/admin/screens/home/rollback", body: #"{"revision": 1}"#)
        #expect(rollback.status == 200)
        #expect(rollback.json["revision"]?.number == 4)
        #expect(try greeting("u1") == (4, "Hello"))
        #expect(try server.request("POST", "/admin/screens/home/rollback", body: #"{"revision": 99}"#).status == 404)

        // Old revisions stay readable.
        #expect(try greeting("u1", revision: 2) == (2, "Published"))
        let revisions = try server.request("GET", "/admin/screens/home/revisions", token: ServedBinary.readToken)
        #expect(revisions.json["revisions"]?.array.compactMap { $0["origin"]?.string } == ["config", "publish", "publish", "rollback"])
        #expect(revisions.json["revisions"]?[3]?["copiedFrom"]?.number == 1)
        let document = try server.request("GET", "/admin/screens/home/revisions/3", token: ServedBinary.readToken)
        #expect(document.text == Self.screen("Staged"))

        // A new screen through the API.
        let created = try server.request("PUT", "/admin/screens/promo", body: Self.screen("Promo").replacingOccurrences(of: "\"id\": \"home\"", with: "\"id\": \"promo\""))
        #expect(created.status == 201)
        #expect(try server.request("GET", "/v1/screens/promo", token: nil).status == 200)

        let audit = try server.request("GET", "/admin/audit?resource=screens", token: ServedBinary.readToken)
        #expect(audit.json["entries"]?.array.compactMap { $0["action"]?.string } == [
            "screen.import", "screen.publish", "screen.stage", "screen.promote", "screen.rollback", "screen.publish",
        ])

        server.stop()
        try server.start()
        #expect(try greeting("u1") == (4, "Hello"))
        #expect(try server.request("GET", "/v1/screens/promo", token: nil).status == 200)
    }

    @Test func explainSaysWhyAUserSeesWhatTheySee() throws {
        let server = try Self.served()
        let user = Self.user(group: "banner", buckets: 1...10)
        let explain = try server.request("GET", "/admin/explain?screen=home&user=\(user)&attr.tier=silver", token: ServedBinary.readToken)
        #expect(explain.status == 200)
        let rule = try #require(explain.json["decisions"]?[0])
        #expect(rule["kind"]?.string == "rule")
        #expect(rule["value"]?.bool == true)
        let experiment = try #require(explain.json["decisions"]?[1])
        #expect(experiment["kind"]?.string == "experiment")
        #expect(experiment["decision"]?["reason"] != nil)
        let rollout = try #require(explain.json["rollouts"]?[0])
        #expect(rollout["key"]?.string == "banner")
        #expect(rollout["decision"]?["bucket"]?.number == Double(Bucketing.rolloutBucket(groupID: "banner", userID: user)))
        #expect(try server.request("GET", "/admin/explain?screen=nope", token: ServedBinary.readToken).status == 404)
        #expect(try server.request("GET", "/admin/explain", token: ServedBinary.readToken).status == 400)
    }

    @Test func aReloadKeepsWhatOpsPublishedUnlessTheFileChanged() throws {
        let server = try Self.served()
        func greeting() throws -> String? {
            let json = try server.request("GET", "/v1/screens/home", token: nil).json
            return json["root"]?["subviews"]?.array.first { $0["id"]?.string == "greeting" }?["values"]?["text"]?.string
        }
        #expect(try server.request("PUT", "/admin/screens/home", body: Self.screen("Published")).status == 200)
        #expect(try server.reload().contains("reloaded"))
        #expect(try greeting() == "Published")  // the file did not change: the published revision stays

        try server.config.write(screen: "home", Self.screen("From the file"))
        #expect(try server.reload().contains("reloaded"))
        #expect(try greeting() == "From the file")
        let audit = try server.request("GET", "/admin/audit?resource=screens/home&limit=1", token: ServedBinary.readToken)
        #expect(audit.json["entries"]?[0]?["action"]?.string == "screen.config")
        #expect(audit.json["entries"]?[0]?["actor"]?.string == "config")

        // A file the runtime no longer fits is refused whole; the served state stays.
        try server.config.write(screen: "home", Self.screen("x").replacingOccurrences(of: "\"rollout\": \"banner\"", with: "\"rollout\": \"gone\""))
        #expect(try server.reload().contains("reload refused"))
        #expect(try greeting() == "From the file")
        server.stop()
    }
}
