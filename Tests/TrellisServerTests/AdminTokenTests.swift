import Foundation
import Testing
import TrellisCrypto
import TrellisRuntime
import TrellisStore
import TrellisTesting

/// Tokens made and deleted through `/admin/tokens` on the real binary: a token works on the very
/// next request and fails on the very next request after its deletion; only `admin` manages
/// them; the bootstrap tokens of server.json cannot be deleted; no hash and no token is ever read
/// back, logged or audited.
@Suite(.serialized) struct AdminTokenTests {
    static let admin = ServedBinary.adminToken

    @Test func aTokenMadeLiveWorksAtOnceAndFailsAtOnceOnceDeleted() throws {
        let server = try AdminFlowTests.served()
        defer { server.stop() }
        // Only admin manages tokens: a writer may not even list them.
        #expect(try server.request("GET", "/admin/tokens").status == 403)
        #expect(try server.request("POST", "/admin/tokens", body: #"{"name": "ci", "role": "write"}"#).status == 403)

        let made = try server.request("POST", "/admin/tokens", token: Self.admin, body: #"{"name": "ci", "role": "write"}"#)
        #expect(made.status == 201)
        #expect(made.header("Location") == "/admin/tokens/ci")
        #expect(made.header("Cache-Control") == "no-store")
        let token = try #require(made.json["token"]?.string)
        #expect(token.hasPrefix("trl_") && token.utf8.count == 47)
        #expect(made.json["role"]?.string == "write")
        #expect(made.json["source"]?.string == "runtime")
        #expect(made.json["createdBy"]?.string == "root")

        // The very next request with it.
        #expect(try server.request("PUT", "/admin/rollouts/banner", token: token, body: #"{"percentage": 20}"#).status == 200)
        let audit = try server.request("GET", "/admin/audit?resource=rollouts/banner", token: token)
        #expect(audit.json["entries"]?.array.last?["actor"]?.string == "ci")
        #expect(try server.request("POST", "/admin/tokens", token: token, body: #"{"name": "x", "role": "admin"}"#).status == 403,
                "a write token cannot make itself an admin")

        let listed = try server.request("GET", "/admin/tokens", token: Self.admin)
        let byName = Dictionary(uniqueKeysWithValues: listed.json["tokens"]!.array.map { ($0["name"]!.string!, $0) })
        #expect(Set(byName.keys) == ["ops-bot", "auditor", "root", "ci"])
        #expect(byName["ci"]?["source"]?.string == "runtime")
        #expect(byName["ci"]?["lastUsedAt"]?.string != nil, "used just now")
        #expect(byName["ops-bot"]?["source"]?.string == "config")
        #expect(byName["auditor"]?["lastUsedAt"]?.isNull == true, "never used since start")
        let listing = String(decoding: listed.body, as: UTF8.self)
        #expect(!listing.contains("sha256") && !listing.contains(token) && !listing.contains(Hex.encode(SHA256.hash(Array(token.utf8)))))

        let deleted = try server.request("DELETE", "/admin/tokens/ci", token: Self.admin)
        #expect(deleted.status == 204)
        // The very next request with it.
        let refused = try server.request("GET", "/admin/rollouts", token: token)
        #expect(refused.status == 401)
        #expect(try server.request("DELETE", "/admin/tokens/ci", token: Self.admin).status == 404)

        // Audited, without the token or its hash; never logged either.
        let entries = try server.request("GET", "/admin/audit?resource=tokens", token: Self.admin).json["entries"]!.array
        #expect(entries.map { $0["action"]?.string } == ["token.create", "token.delete"])
        #expect(entries.map { $0["actor"]?.string } == ["root", "root"])
        #expect(entries[0]["after"]?["role"]?.string == "write")
        let auditText = String(decoding: try server.request("GET", "/admin/audit", token: Self.admin).body, as: UTF8.self)
        #expect(!auditText.contains(token) && !auditText.contains(Hex.encode(SHA256.hash(Array(token.utf8)))))
        #expect(!(server.log?.text.contains(token) ?? true))
    }

    /// `GET /admin/whoami` answers any token its own name and role — an admin's as `admin`, not
    /// as the highest role below it — and a token made at run time its own, until it is deleted.
    @Test func whoAmIAnswersEachTokenItsOwnNameAndRole() throws {
        let server = try AdminFlowTests.served()
        defer { server.stop() }
        for (token, name, role) in [
            (ServedBinary.adminToken, "root", "admin"), (ServedBinary.writeToken, "ops-bot", "write"),
            (ServedBinary.readToken, "auditor", "read"),
        ] {
            let me = try server.request("GET", "/admin/whoami", token: token)
            #expect(me.status == 200)
            #expect(me.header("Cache-Control") == "no-store")
            #expect(me.json["name"]?.string == name && me.json["role"]?.string == role, "\(name): \(me.text)")
        }
        let made = try server.request("POST", "/admin/tokens", token: Self.admin, body: #"{"name": "lead", "role": "approve"}"#)
        let token = try #require(made.json["token"]?.string)
        let me = try server.request("GET", "/admin/whoami", token: token)
        #expect(me.json["name"]?.string == "lead" && me.json["role"]?.string == "approve")
        #expect(try server.request("DELETE", "/admin/tokens/lead", token: Self.admin).status == 204)
        #expect(try server.request("GET", "/admin/whoami", token: token).status == 401)
        #expect(try server.request("GET", "/admin/whoami", token: nil).status == 401)
        #expect(try server.request("GET", "/admin/whoami?role=admin").status == 400)
    }

    @Test func theBootstrapTokensStayAndEveryRefusalChangesNothing() throws {
        let server = try AdminFlowTests.served()
        defer { server.stop() }
        let kept = try server.request("DELETE", "/admin/tokens/ops-bot", token: Self.admin)
        #expect(kept.status == 409)
        #expect(kept.json["detail"]?.string?.contains("server.json") == true)
        let taken = try server.request("POST", "/admin/tokens", token: Self.admin, body: #"{"name": "ops-bot", "role": "read"}"#)
        #expect(taken.status == 409)

        let invalid = try server.request("POST", "/admin/tokens", token: Self.admin, body: "{\"name\": \"has space\",\n \"role\": \"owner\"}")
        #expect(invalid.status == 422)
        let problems = invalid.json["errors"]?.array ?? []
        #expect(problems.contains { $0["path"]?.string == "$.name" && $0["line"]?.number == 1 })
        #expect(problems.contains { $0["path"]?.string == "$.role" && $0["line"]?.number == 2 && $0["message"]?.string?.contains("approve") == true })
        #expect(try server.request("POST", "/admin/tokens", token: Self.admin, body: #"{"name": "x"}"#).status == 422)
        // The names the audit log gives the runtime's own writers are no token's.
        for reserved in ["scheduler", "config", "unknown"] {
            let forged = try server.request("POST", "/admin/tokens", token: Self.admin, body: #"{"name": "\#(reserved)", "role": "write"}"#)
            #expect(forged.status == 422, "\(reserved): \(forged.text)")
        }
        #expect(try server.request("POST", "/admin/tokens", token: Self.admin, body: #"{"name": "x", "role": "read", "sha256": "00"}"#).status == 422)
        #expect(try server.request("POST", "/admin/tokens", token: Self.admin, body: "{").status == 400)
        #expect(try server.request("DELETE", "/admin/tokens/nobody", token: Self.admin).status == 404)

        let names = try server.request("GET", "/admin/tokens", token: Self.admin).json["tokens"]!.array.compactMap { $0["name"]?.string }
        #expect(names == ["ops-bot", "auditor", "root"])
        #expect(try server.request("GET", "/admin/audit?resource=tokens", token: Self.admin).json["entries"]?.array.isEmpty == true)
    }

    @Test func madeAndDeletedTokensOutliveARestart() throws {
        let server = try AdminFlowTests.served()
        defer { server.stop() }
        let kept = try #require(
            try server.request("POST", "/admin/tokens", token: Self.admin, body: #"{"name": "kept", "role": "approve"}"#).json["token"]?.string)
        let dropped = try #require(
            try server.request("POST", "/admin/tokens", token: Self.admin, body: #"{"name": "dropped", "role": "read"}"#).json["token"]?.string)
        #expect(try server.request("DELETE", "/admin/tokens/dropped", token: Self.admin).status == 204)
        server.killNine()
        try server.start()
        #expect(try server.request("PUT", "/admin/rollouts/banner", token: kept, body: #"{"percentage": 30}"#).status == 200)
        #expect(try server.request("GET", "/admin/rollouts", token: dropped).status == 401)
        // A name can be used again once its token is deleted; the old token stays dead.
        let again = try #require(
            try server.request("POST", "/admin/tokens", token: Self.admin, body: #"{"name": "dropped", "role": "read"}"#).json["token"]?.string)
        #expect(try server.request("GET", "/admin/rollouts", token: again).status == 200)
        #expect(try server.request("GET", "/admin/rollouts", token: dropped).status == 401)
    }

    /// A token made here whose name server.json takes later is shadowed: listed as such, and
    /// deletable, so that it does not come back to life when the configured one goes.
    @Test func aShadowedTokenIsListedAndDeletableAndDoesNotComeBack() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        var server = try ServedBinary(config: config)
        try server.start()
        let made = try #require(
            try server.request("POST", "/admin/tokens", token: Self.admin, body: #"{"name": "lead", "role": "write"}"#).json["token"]?.string)
        server.stop()
        server = try ServedBinary(config: config, approver: true)  // server.json now names a "lead" of its own
        try server.start()
        let listed = try server.request("GET", "/admin/tokens", token: Self.admin).json["tokens"]?.array ?? []
        #expect(listed.contains { $0["name"]?.string == "lead" && $0["shadowed"]?.bool == true })
        #expect(try server.request("GET", "/admin/rollouts", token: made).status == 401)
        #expect(try server.request("DELETE", "/admin/tokens/lead", token: Self.admin).status == 204)
        #expect(try server.request("DELETE", "/admin/tokens/lead", token: Self.admin).status == 409, "the configured one stays")
        server.stop()
        server = try ServedBinary(config: config)  // and server.json drops it again
        try server.start()
        defer { server.stop() }
        #expect(try server.request("GET", "/admin/rollouts", token: made).status == 401)
    }
}
