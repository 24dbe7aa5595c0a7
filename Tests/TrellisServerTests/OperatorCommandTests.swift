import Foundation
import Testing
import TrellisCrypto
import TrellisRuntime
import TrellisStore
import TrellisTargeting
import TrellisTesting

/// The commands ops run beside the server: tokens, signed contexts, buckets, backups — each used
/// for real against the real binary.
@Suite(.serialized) struct OperatorCommandTests {
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        try CommandLineTests.run(arguments, environment: environment)
    }

    @Test func aNewTokenPrintsItselfAndTheHashThatServerJSONTakes() throws {
        let (status, output) = try run(["token", "new", "--name", "ops-bot", "--role", "write"])
        #expect(status == 0)
        let lines = output.split(separator: "\n").map(String.init)
        let token = try #require(lines.first)
        #expect(token.hasPrefix("trl_"))
        let entry = try #require(lines.dropFirst().first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] })
        #expect(entry == ["name": "ops-bot", "sha256": Hex.encode(SHA256.hash(Array(token.utf8))), "role": "write"])
        #expect(try run(["token", "new", "--name", "ops-bot"]).output != output)  // fresh every time
        #expect(try run(["token", "new", "--name", "ops bot", "--role", "write"]).status != 0)
    }

    @Test func aSignedContextFromTheCommandIsTheUserTheServerSees() throws {
        let secret = Base64URL.encode(try SecureRandom.bytes(count: 32))
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let server = try ServedBinary(config: config, extra: #""context": {"signingKeys": [{"id": "k1", "secret": "\#(secret)"}]}"#)
        try server.start()
        defer { server.stop() }
        let user = AdminFlowTests.user(group: "banner", buckets: 1...10)
        let (status, header) = try run(["context", "sign", "--key-id", "k1", "--secret-env", "KEY", "--user", user], environment: ["KEY": secret])
        #expect(status == 0, "\(header)")
        let signed = header.trimmingCharacters(in: .whitespacesAndNewlines)

        let answer = try server.request("GET", "/v1/screens/home", token: nil, headers: ["X-Trellis-Context": signed])
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.json["assignments"]?["rollouts"]?["banner"]?.bool == true)
        // An unsigned user id is ignored once signing is on: this one is anonymous.
        let unsigned = try server.request("GET", "/v1/screens/home?user=\(user)", token: nil)
        #expect(unsigned.json["assignments"]?["rollouts"]?["banner"]?.bool == false)
        // Explain takes the user as ops give it: the admin token vouches for the question.
        let explained = try server.request("GET", "/admin/explain?screen=home&user=\(user)", token: ServedBinary.readToken)
        #expect(explained.json["rollouts"]?[0]?["decision"]?["bucket"]?.number == Double(Bucketing.rolloutBucket(groupID: "banner", userID: user)))
        // A forged signature is 401.
        let forged = signed.dropLast(2) + (signed.hasSuffix("AA") ? "BB" : "AA")
        #expect(try server.request("GET", "/v1/screens/home", token: nil, headers: ["X-Trellis-Context": String(forged)]).status == 401)
    }

    @Test func bucketPrintsWhatTheServerDecides() throws {
        let (status, output) = try run(["bucket", "--group", "banner", "--user", "u7", "--percentage", "12.5"])
        #expect(status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let placement = Bucketing.rolloutPlacement(groupID: "banner", userID: "u7")
        #expect((json["bucket"] as? NSNumber)?.intValue == placement.bucket)
        #expect((json["admitted"] as? Bool) == placement.isAdmitted(by: try RolloutPercentage(12.5)))
    }

    @Test func aBackupOfALiveStoreIsWholeAndNeverOverwrites() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let server = try ServedBinary(config: config)
        try server.start()
        defer { server.stop() }
        #expect(try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 42}"#).status == 200)

        let copy = config.url.appendingPathComponent("backup.sqlite").path
        let (status, output) = try run(["backup", "--data-dir", server.dataDirectory.path, "--to", copy])
        #expect(status == 0, "\(output)")
        let restored = try SQLiteStore(path: copy)
        #expect(try restored.load().document(kind: "rollout", key: "banner").map { String(decoding: $0.body, as: UTF8.self) }?.contains("42") == true)
        #expect(try restored.audit(AuditQuery()).map(\.draft.action).contains("rollout.update"))

        let again = try run(["backup", "--data-dir", server.dataDirectory.path, "--to", copy])
        #expect(again.status == 1)
        #expect(again.output.contains("exists"))
        let nowhere = try run(["backup", "--data-dir", config.url.appendingPathComponent("nope").path, "--to", copy + "2"])
        #expect(nowhere.status == 1)
        #expect(nowhere.output.contains("no runtime store"))
    }

    @Test func validateWithADataDirectoryChecksTheRuntimeStateOverTheConfigAndWritesNothing() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let server = try ServedBinary(config: config)
        try server.start()
        #expect(try server.request("PUT", "/admin/experiments/hero", body: #"{"overrides": {"qa-1": "big"}}"#).status == 200)
        server.stop()
        let data = server.dataDirectory.path

        try config.write(screen: "home", AdminFlowTests.screen("Edited"))
        let ok = try run(["validate", "--config", config.url.path, "--data-dir", data])
        #expect(ok.status == 0, "\(ok.output)")
        #expect(ok.output.contains("ok: server.json, 1 screen, 0 templates, 1 rule, 1 rollout, 1 experiment and the runtime store"), "\(ok.output)")
        #expect(ok.output.contains("(1 runtime value)"), "\(ok.output)")
        let store = try SQLiteStore(path: server.dataDirectory.appendingPathComponent(SQLiteStore.fileName).path)
        #expect(try store.load().revisioned.first { $0.head.key.name == "home" }?.latestRevision == 1)  // the edited file was not recorded

        // targeting.json drops the variant an override names: refused, with the source named.
        // (the file moves to the new variant too, so only the runtime value is wrong).
        try config.write(targeting: AdminFlowTests.targeting.replacingOccurrences(of: "\"big\": 50", with: "\"huge\": 50"))
        try config.write(screen: "home", AdminFlowTests.screen("Edited").replacingOccurrences(of: "\"big\":", with: "\"huge\":"))
        let refused = try run(["validate", "--config", config.url.path, "--data-dir", data])
        #expect(refused.status == 1)
        #expect(refused.output.contains("runtime targeting"), "\(refused.output)")
        #expect(refused.output.contains("qa-1"), "\(refused.output)")
    }
}
