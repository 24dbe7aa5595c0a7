import Foundation
import Testing
import TrellisHTTP
import TrellisRuntime
import TrellisTesting
@testable import TrellisServer

/// Webhooks on the real binary with a receiver on a local port: every audit event arrives, in
/// order, signed; a receiver that is down gets everything once it is back, across a kill -9 of
/// Trellis; a delivery that keeps failing is abandoned after the retry period and the next goes on.
@Suite(.serialized) struct WebhookTests {
    static let admin = ServedBinary.adminToken
    /// The receivers of these tests listen on 127.0.0.1, which webhooks reach only when allowed.
    static let allowLoopback = #""webhookAllowPrivate": true"#
    static let secret = "a-shared-secret-of-some-length"

    /// Polls `condition` every 50 ms for up to `seconds`.
    static func eventually(within seconds: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }

    /// The deliveries to `target`, each delivery id once (deliveries are at least once).
    static func unique(_ receiver: WebhookReceiver, target: String) -> [WebhookReceiver.Delivery] {
        var seen: Set<String> = []
        return receiver.deliveries.filter { $0.target == target && seen.insert($0.id).inserted }
    }

    static func percentages(_ deliveries: [WebhookReceiver.Delivery]) -> [Double] {
        deliveries.compactMap { $0.event == "rollout.update" ? $0.json["entry"]?["after"]?["percentage"]?.number : nil }
    }

    /// By default a webhook reaches only the public internet: an internal address literal is
    /// refused when the webhook is made, and every name or numeric form that resolves inside is
    /// refused at connect time, nothing sent and nothing of the other side echoed.
    @Test func aWebhookCannotReachInsideUnlessAllowed() throws {
        let receiver = try WebhookReceiver()
        let server = try AdminFlowTests.served()
        defer { server.stop() }
        for host in ["127.0.0.1:\(receiver.port)", "169.254.169.254", "[::1]:\(receiver.port)", "[::ffff:127.0.0.1]:\(receiver.port)", "10.0.0.1"] {
            let made = try server.request(
                "POST", "/admin/webhooks", token: Self.admin, body: #"{"name": "inside", "url": "http://\#(host)/", "secret": "\#(Self.secret)"}"#)
            #expect(made.status == 422, "\(host): \(made.text)")
            #expect(made.json["errors"]?[0]?["path"]?.string == "$.url", "\(host)")
        }
        // Names and numeric forms resolve at delivery; the address connected to is the one judged.
        let refusing = WebhookHTTPClient(tls: try TLSClientContext())
        let allowing = WebhookHTTPClient(tls: try TLSClientContext(), allowPrivate: true)
        for host in ["localhost", "2130706433", "0x7f000001", "017700000001", "127.1"] {
            let url = try WebhookURL("http://\(host):\(receiver.port)/\(host)")
            #expect(throws: WebhookTransportFailure.self, "\(host)") { _ = try refusing.post(url, headers: [], body: []) }
            do throws(WebhookTransportFailure) {
                _ = try refusing.post(url, headers: [], body: [])
            } catch {
                #expect(error.description.contains("refused"), "\(host): \(error.description)")
            }
            #expect(try allowing.post(url, headers: [("Content-Type", "application/json")], body: Array("{}".utf8)) < 600, "\(host)")
        }
        #expect(receiver.deliveries.allSatisfy { ["localhost", "2130706433", "0x7f000001", "017700000001", "127.1"].map { "/" + $0 }.contains($0.target) })
    }

    @Test func everyEventArrivesInOrderSignedEvenAfterTheReceiverWasDownAndTrellisKilled() throws {
        let receiver = try WebhookReceiver()
        let server = try AdminFlowTests.served(adminExtra: Self.allowLoopback)
        defer { server.stop() }
        let url = "http://127.0.0.1:\(receiver.port)"
        let made = try server.request(
            "POST", "/admin/webhooks", token: Self.admin,
            body: #"{"name": "chat", "url": "\#(url)/hooks?team=ops", "secret": "\#(Self.secret)", "events": ["rollout.*", "webhook.*"]}"#)
        #expect(made.status == 201)
        #expect(made.json["source"]?.string == "runtime")
        #expect(try server.request(
            "POST", "/admin/webhooks", token: Self.admin,
            body: #"{"name": "kills", "url": "\#(url)/kills", "secret": "\#(Self.secret)", "events": ["rollout.kill"]}"#).status == 201)
        let listed = try server.request("GET", "/admin/webhooks", token: Self.admin)
        #expect(listed.json["webhooks"]?.array.map { $0["name"]?.string } == ["chat", "kills"])
        // A webhook's URL is often a secret: a read token sees its origin only in the audit log.
        func madeURL(_ token: String) throws -> String? {
            let entries = try server.request("GET", "/admin/audit?resource=webhooks/chat", token: token).json["entries"]?.array ?? []
            return entries.first { $0["action"]?.string == "webhook.create" }?["after"]?["url"]?.string
        }
        #expect(try madeURL(Self.admin) == "\(url)/hooks?team=ops")
        #expect(try madeURL(ServedBinary.readToken) == "\(url)/…")
        #expect(!String(decoding: made.body + listed.body, as: UTF8.self).contains(Self.secret), "secrets never come back")

        for percentage in [11, 12] {
            #expect(try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": \#(percentage)}"#).status == 200)
        }
        #expect(try server.request("POST", "/admin/rollouts/banner/kill").status == 200)
        #expect(try Self.eventually { Self.unique(receiver, target: "/hooks?team=ops").count >= 5 })
        let first = Self.unique(receiver, target: "/hooks?team=ops")
        #expect(first.map(\.event) == ["webhook.create", "webhook.create", "rollout.update", "rollout.update", "rollout.kill"])
        #expect(first.allSatisfy { $0.isSigned(with: Self.secret) })
        #expect(!first.contains { $0.isSigned(with: Self.secret + "x") })
        let ids = first.compactMap { $0.json["entry"]?["id"]?.number }
        #expect(ids == ids.sorted() && Set(ids).count == ids.count, "in audit order")
        #expect(first.allSatisfy { $0.id == "\(Int($0.json["entry"]?["id"]?.number ?? 0)).chat" && $0.json["delivery"]?.string == $0.id })
        #expect(Self.percentages(first) == [11, 12])
        #expect(first[2].json["entry"]?["actor"]?.string == "ops-bot")
        #expect(!String(decoding: first[0].body, as: UTF8.self).contains(Self.secret), "the audit of a webhook holds no secret")
        #expect(try Self.eventually { Self.unique(receiver, target: "/kills").count == 1 })
        #expect(Self.unique(receiver, target: "/kills").map(\.event) == ["rollout.kill"], "only the events it asked for")

        // The receiver goes down; changes go on, their deliveries fail and are retried.
        receiver.down()
        for percentage in [13, 14] {
            #expect(try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": \#(percentage)}"#).status == 200)
        }
        #expect(try Self.eventually {
            try server.request("GET", "/admin/webhooks/deliveries?webhook=chat&failed=true", token: Self.admin).json["deliveries"]?.array.count ?? 0 >= 2
        })
        let failure = try server.request("GET", "/admin/webhooks/deliveries?failed=true&limit=1", token: Self.admin).json["deliveries"]?[0]
        #expect(failure?["outcome"]?.string == "failed")
        #expect(failure?["error"]?.string?.contains("connect") == true)
        #expect(failure?["delivery"]?.string?.hasSuffix(".chat") == true)

        // Trellis dies without warning, comes back, and the receiver comes back too.
        server.killNine()
        try server.start()
        #expect(try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 15}"#).status == 200)
        try receiver.up()
        #expect(try Self.eventually(within: 40) { Self.percentages(Self.unique(receiver, target: "/hooks?team=ops")) == [11, 12, 13, 14, 15] })
        let all = Self.unique(receiver, target: "/hooks?team=ops")
        #expect(all.allSatisfy { $0.isSigned(with: Self.secret) })
        let allIDs = all.compactMap { $0.json["entry"]?["id"]?.number }
        #expect(allIDs == allIDs.sorted(), "in order across the outage and the kill")
        let recent = try server.request("GET", "/admin/webhooks/deliveries?webhook=chat", token: Self.admin).json["deliveries"]?.array ?? []
        #expect(recent.first?["outcome"]?.string == "delivered")
        #expect(recent.first?["statusCode"]?.number == 200)
    }

    @Test func aDeliveryThatKeepsFailingIsAbandonedAndTheNextGoesOn() throws {
        let receiver = try WebhookReceiver()
        receiver.answer(503)
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let server = try ServedBinary(
            config: config,
            adminExtra: """
                "webhookRetrySeconds": 2, \(Self.allowLoopback),
                "webhooks": [{"name": "ops-chat", "url": "http://127.0.0.1:\(receiver.port)/cfg", "secret": "\(Self.secret)", "events": ["rollout.update"]}]
                """)
        try server.start()
        defer { server.stop() }
        let listed = try server.request("GET", "/admin/webhooks", token: Self.admin)
        #expect(listed.json["webhooks"]?[0]?["source"]?.string == "config")
        #expect(!String(decoding: listed.body, as: UTF8.self).contains(Self.secret))
        let kept = try server.request("DELETE", "/admin/webhooks/ops-chat", token: Self.admin)
        #expect(kept.status == 409)
        #expect(kept.json["detail"]?.string?.contains("server.json") == true)

        #expect(try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 21}"#).status == 200)
        #expect(try Self.eventually {
            try server.request("GET", "/admin/webhooks/deliveries?failed=true", token: Self.admin).json["deliveries"]?.array
                .contains { $0["outcome"]?.string == "abandoned" } == true
        })
        let attempts = try server.request("GET", "/admin/webhooks/deliveries", token: Self.admin).json["deliveries"]?.array ?? []
        #expect(attempts.count >= 2, "retried before giving up")
        #expect(attempts.allSatisfy { $0["statusCode"]?.number == 503 })
        #expect(attempts.first?["attempt"]?.number == Double(attempts.count), "numbered, newest first")

        receiver.answer(200)
        #expect(try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 22}"#).status == 200)
        #expect(try Self.eventually { Self.percentages(Self.unique(receiver, target: "/cfg")).last == 22 })
        #expect(Set(Self.percentages(Self.unique(receiver, target: "/cfg"))) == [21, 22])
    }

    @Test func badWebhooksAreRefusedWithTheirPathAndChangeNothing() throws {
        let server = try AdminFlowTests.served(adminExtra: Self.allowLoopback)
        defer { server.stop() }
        #expect(try server.request("GET", "/admin/webhooks").status == 403, "admin only")
        let refused = try server.request(
            "POST", "/admin/webhooks", token: Self.admin,
            body: "{\"name\": \"x\",\n \"url\": \"ftp://example.com/h\",\n \"secret\": \"short\",\n \"events\": [\"rollout.*\", \"Bad Event\"]}")
        #expect(refused.status == 422)
        let errors = refused.json["errors"]?.array ?? []
        #expect(errors.contains { $0["path"]?.string == "$.url" && $0["line"]?.number == 2 })
        #expect(errors.contains { $0["path"]?.string == "$.secret" && $0["line"]?.number == 3 && $0["message"]?.string?.contains("short") != true })
        #expect(errors.contains { $0["path"]?.string == "$.events[1]" && $0["line"]?.number == 4 })
        #expect(try server.request(
            "POST", "/admin/webhooks", token: Self.admin,
            body: #"{"name": "deliveries", "url": "http://127.0.0.1:1/", "secret": "\#(Self.secret)"}"#).status == 422)
        #expect(try server.request("DELETE", "/admin/webhooks/none", token: Self.admin).status == 404)
        #expect(try server.request("GET", "/admin/webhooks/deliveries?limit=0", token: Self.admin).status == 400)
        #expect(try server.request("GET", "/admin/webhooks", token: Self.admin).json["webhooks"]?.array.isEmpty == true)
        #expect(try server.request("GET", "/admin/audit?resource=webhooks", token: Self.admin).json["entries"]?.array.isEmpty == true)

        let made = try server.request(
            "POST", "/admin/webhooks", token: Self.admin, body: #"{"name": "h", "url": "http://127.0.0.1:1/", "secret": "\#(Self.secret)"}"#)
        #expect(made.json["events"]?.array.map(\.string) == ["*"])
        #expect(try server.request("DELETE", "/admin/webhooks/h", token: Self.admin).status == 204)
        #expect(try server.request("GET", "/admin/webhooks", token: Self.admin).json["webhooks"]?.array.isEmpty == true)
        let audit = try server.request("GET", "/admin/audit?resource=webhooks", token: Self.admin).json["entries"]?.array ?? []
        #expect(audit.map { $0["action"]?.string } == ["webhook.create", "webhook.delete"])
    }
}
