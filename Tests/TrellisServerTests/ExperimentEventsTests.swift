import Foundation
import GRDB
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisStore
import TrellisTargeting
import TrellisTesting
import TrellisCrypto
@testable import TrellisServer

/// `POST /v1/events`, metrics, results, analysis and export on a live server: real sockets on
/// 127.0.0.1 and a real SQLite event store in the data directory.
@Suite(.serialized) struct ExperimentEventsTests {
    static let token = ControlPlaneLiveTests.token

    static func config() throws -> TemporaryConfig {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        return config
    }

    static func events(_ config: TemporaryConfig) throws -> SQLiteEventStore {
        try SQLiteEventStore(path: config.url.appendingPathComponent("data/\(SQLiteEventStore.fileName)").path)
    }

    static func post(_ client: TestClient, _ body: String, type: String = "application/json", headers: [String: String] = [:]) throws -> WireResponse {
        var all = headers
        all["Content-Type"] = type
        var head = "POST /v1/events HTTP/1.1\r\nHost: t\r\n"
        for (name, value) in all { head += "\(name): \(value)\r\n" }
        let bytes = Array(body.utf8)
        head += "Content-Length: \(bytes.count)\r\n\r\n"
        client.send(Array(head.utf8) + bytes)
        guard let response = client.readResponse() else { throw NoResponse(request: "POST /v1/events") }
        return response
    }

    static func purchase(_ id: String, user: String, value: Double? = nil) -> String {
        #"{"id": "\#(id)", "context": {"targetingKey": "\#(user)"}, "name": "purchase"\#(value.map { ", \"value\": \($0)" } ?? "")}"#
    }

    static func exposure(_ id: String, user: String, variant: String) -> String {
        #"{"id": "\#(id)", "context": {"targetingKey": "\#(user)", "platform": "ios"}, "exposure": {"experiment": "hero", "variant": "\#(variant)"}}"#
    }

    @Test func aBatchIsAcknowledgedOnceDurableAndARepeatedIdIsStoredOnce() throws {
        let config = try Self.config()
        let application = try ControlPlaneLiveTests.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        let batch = "[\(Self.exposure("x1", user: "u1", variant: "big")), \(Self.purchase("p1", user: "u1", value: 9.5)), \(Self.purchase("p2", user: "u2"))]"
        let first = try Self.post(client, batch)
        #expect(first.status == 202, "\(first.text)")
        #expect(first.json["accepted"]?.number == 3)
        // Sent again after a timeout: acknowledged, and stored once.
        #expect(try Self.post(client, batch).status == 202)
        // Another connection to the file, as a crash would leave it: the events are there.
        let stored = try Self.events(config).events(after: nil, limit: 100)
        #expect(stored.map(\.id) == ["p1", "p2"])
        #expect(stored.first?.value == 9.5)
    }

    @Test func batchesThatArriveWhileOneIsWrittenShareTheNextTransaction() throws {
        let config = try Self.config()
        let application = try ControlPlaneLiveTests.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        let tracking = try #require(application.tracking)
        // The first batch's transaction waits for a lock another connection holds.
        let holder = try DatabaseQueue(path: config.url.appendingPathComponent("data/\(SQLiteEventStore.fileName)").path)
        let locked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? holder.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                locked.signal()
                release.wait()
                try db.execute(sql: "COMMIT")
            }
        }
        locked.wait()
        let before = tracking.ingest.transactions
        let clients = try (0..<20).map { _ in try TestClient(port: application.port, timeout: 30) }
        for (i, client) in clients.enumerated() {
            let body = "[\(Self.purchase("g\(i)", user: "u\(i)"))]"
            client.send("POST /v1/events HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        }
        // Ordering, not wall time: every batch is waiting (none answered) before the lock goes.
        let deadline = Date().addingTimeInterval(20)
        while tracking.ingest.pendingEvents < 20, Date() < deadline { usleep(10_000) }
        #expect(tracking.ingest.pendingEvents == 20)
        #expect(clients.allSatisfy { !$0.hasBytesWaiting() }, "a batch was acknowledged before it was durable")
        release.signal()
        for client in clients { #expect(client.readResponse()?.status == 202) }
        // The first transaction took the first batch; every other went in at most one more.
        #expect(tracking.ingest.transactions - before <= 2)
        #expect(try Self.events(config).events(after: nil, limit: 100).count == 20)
    }

    @Test func aBadBatchIsRefusedWholeWithEveryMistakeByIndexPathAndLine() throws {
        let config = try Self.config()
        let application = try ControlPlaneLiveTests.application(config) { $0.events.maxBatchEvents = 3 }
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        let bad = "[\(Self.purchase("ok", user: "u1")),\n\(Self.exposure("e", user: "u1", variant: "huge")),\n{\"id\": \"n\", \"name\": \"purchase\"}]"
        let refused = try Self.post(client, bad)
        #expect(refused.status == 422)
        let errors = try #require(refused.json["errors"]?.array)
        #expect(errors.map { $0["index"]?.number } == [1, 2])
        #expect(errors.map { $0["path"]?.string } == ["$[1].exposure.variant", "$[2].context"])
        #expect(errors.map { $0["line"]?.number } == [2, 3])
        #expect(try Self.events(config).events(after: nil, limit: 10).isEmpty, "a refused batch stored an event")
        // NDJSON, the limits, the media type.
        let lines = Self.purchase("l1", user: "u1") + "\n" + Self.purchase("l2", user: "u2") + "\n"
        #expect(try Self.post(client, lines, type: "application/x-ndjson").status == 202)
        let four = "[" + (1...4).map { Self.purchase("m\($0)", user: "u") }.joined(separator: ",") + "]"
        #expect(try Self.post(client, four).status == 413)
        #expect(try Self.post(client, "id,name", type: "text/csv").status == 415)
        #expect(try Self.post(client, "[{\"id\": ").status == 400)
    }

    @Test func eventsNeedAnOFREPKeyWhenTheServerHasSome() throws {
        let config = try Self.config()
        let application = try ControlPlaneLiveTests.application(config) {
            $0.ofrep.keys = [ServerConfiguration.APIKey(name: "app", sha256: SHA256.hash(Array("app-key".utf8)))]
        }
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        let batch = "[\(Self.purchase("k1", user: "u1"))]"
        #expect(try Self.post(client, batch).status == 401)
        #expect(try Self.post(client, batch, headers: ["X-API-Key": "app-key"]).status == 202)
    }

    @Test func theServerRecordsTheFirstExposureOfAnExperimentThatAsksForIt() throws {
        let config = try Self.config()
        let application = try ControlPlaneLiveTests.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        // Not asked for: screens record nothing.
        #expect(try client.exchange("GET", "/v1/screens/home?user=before", token: nil).status == 200)
        #expect(try client.exchange("PUT", "/admin/experiments/hero", token: Self.token, body: #"{"exposures": "server"}"#).status == 200)
        for user in ["u1", "u2", "u1"] {
            #expect(try client.exchange("GET", "/v1/screens/home?user=\(user)&platform=android", token: nil).status == 200)
        }
        #expect(try client.exchange("POST", "/ofrep/v1/evaluate/flags/hero", token: nil, body: #"{"context": {"targetingKey": "u3"}}"#).status == 200)
        let tracking = try #require(application.tracking)
        tracking.serverExposures.flush()
        let exposures = try Self.events(config).exposures(of: .experiment("hero"), after: nil, limit: 10)
        #expect(exposures.map(\.user) == ["u1", "u2", "u3"])
        #expect(exposures.allSatisfy { $0.source == .server })
        #expect(exposures.first?.dimensions.platform == "android")
        let snapshot = application.state.published.snapshot
        for exposure in exposures {
            let context = UserContext(userID: exposure.user)
            #expect(exposure.variant == snapshot.evaluator.variantDecision(of: "hero", for: context)?.variant)
        }
    }
}
