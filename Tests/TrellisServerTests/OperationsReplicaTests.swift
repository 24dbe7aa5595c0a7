import Foundation
import Logging
import Prometheus
import Testing
import TrellisCrypto
import TrellisRuntime
import TrellisTesting
@testable import TrellisServer

/// Tokens and webhooks on replicas sharing one PostgreSQL: a token made through one replica
/// works on the other, and stops working there once deleted; a webhook gets each event once,
/// though both replicas could deliver it (the lease lets only one).
@Suite(.serialized) struct OperationsReplicaTests {
    static let admin = "trl_replica-admin-token"

    static func replica(_ url: String) throws -> Application {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        var settings = ServerConfiguration.live(dataDirectory: config.url.appendingPathComponent("data").path)
        settings.admin.tokens = [.init(name: "root", sha256: SHA256.hash(Array(admin.utf8)), role: .admin)]
        settings.storage.url = url
        settings.storage.pollSeconds = 0.2
        settings.admin.webhookAllowPrivate = true  // the receiver listens on 127.0.0.1
        let application = try Application(
            configDirectory: config.url, configuration: settings, logger: Logger(label: "replica"), metrics: PrometheusCollectorRegistry())
        try application.start()
        return application
    }

    @Test func aTokenMadeOnOneReplicaWorksOnTheOtherAndDiesThereWhenDeleted() throws {
        let url = try ReplicaTests.postgres.get().makeDatabase()
        let replicas = try (0..<2).map { _ in try Self.replica(url) }
        defer { for application in replicas { application.shutdown(); application.waitUntilStopped() } }
        let (a, b) = (try TestClient(port: replicas[0].port), try TestClient(port: replicas[1].port))
        let made = try a.exchange("POST", "/admin/tokens", token: Self.admin, body: #"{"name": "ci", "role": "write"}"#)
        let token = try #require(made.json["token"]?.string)
        #expect(try ReplicaTests.eventually { try b.exchange("GET", "/admin/rollouts", token: token).status == 200 })
        #expect(try b.exchange("PUT", "/admin/rollouts/banner", token: token, body: #"{"percentage": 44}"#).status == 200)
        #expect(try a.exchange("DELETE", "/admin/tokens/ci", token: Self.admin).status == 204)
        #expect(try ReplicaTests.eventually { try b.exchange("GET", "/admin/rollouts", token: token).status == 401 })
        #expect(try a.exchange("GET", "/admin/rollouts", token: token).status == 401)
    }

    @Test func twoReplicasDeliverEachEventOnce() throws {
        let url = try ReplicaTests.postgres.get().makeDatabase()
        let receiver = try WebhookReceiver()
        let replicas = try (0..<2).map { _ in try Self.replica(url) }
        defer { for application in replicas { application.shutdown(); application.waitUntilStopped() } }
        let clients = try replicas.map { try TestClient(port: $0.port) }
        #expect(try clients[0].exchange(
            "POST", "/admin/webhooks", token: Self.admin,
            body: #"{"name": "chat", "url": "http://127.0.0.1:\#(receiver.port)/", "secret": "\#(WebhookTests.secret)", "events": ["rollout.*"]}"#
        ).status == 201)
        for percentage in 1...6 {
            #expect(try clients[0].exchange("PUT", "/admin/rollouts/banner", token: Self.admin, body: #"{"percentage": \#(percentage)}"#).status == 200)
        }
        let expected: [Double] = [1, 2, 3, 4, 5, 6]
        let arrived = ReplicaTests.eventually(within: 20) { WebhookTests.percentages(receiver.deliveries) == expected }
        #expect(arrived, "\(WebhookTests.percentages(receiver.deliveries))")
        usleep(1_500_000)  // three looks more by each replica: nothing is sent again
        #expect(receiver.deliveries.count == 6, "\(receiver.deliveries.map(\.id))")
        #expect(receiver.deliveries.allSatisfy { $0.isSigned(with: WebhookTests.secret) })
    }
}
