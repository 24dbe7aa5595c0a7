import Dispatch
import Foundation
import Logging
import Prometheus
import Synchronization
import Testing
import TrellisCrypto
import TrellisJSON
import TrellisRuntime
import TrellisStore
import TrellisTargeting
import TrellisTesting
@testable import TrellisServer

/// Replicas sharing one real PostgreSQL (started in a temporary directory): a change through one
/// is served by the others, notifications lost while a listener reconnects are caught up, racing
/// writes are decided by the database, and a database outage stops writes, never screens.
@Suite(.serialized) struct ReplicaTests {
    static let token = "trl_replica-test-token"
    /// One cluster for this suite and the others on PostgreSQL, stopped when the tests end; each
    /// test has a database of its own.
    static var postgres: Result<TemporaryPostgres, any Error> { TemporaryPostgres.processWide }

    /// A replica: its own configuration copy and data directory, the shared database.
    static func replica(
        _ url: String, config: TemporaryConfig? = nil, clock: @escaping @Sendable () -> Double = ServerState.wallClock
    ) throws -> (Application, TemporaryConfig) {
        let config = try config ?? {
            let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
            try config.write(targeting: AdminFlowTests.targeting)
            return config
        }()
        var settings = ServerConfiguration.live(dataDirectory: config.url.appendingPathComponent("data").path)
        settings.admin.tokens = [.init(name: "ops", sha256: SHA256.hash(Array(token.utf8)), role: .write)]
        settings.storage.url = url
        settings.storage.pollSeconds = 0.2
        let application = try Application(
            configDirectory: config.url, configuration: settings, logger: Logger(label: "replica"), metrics: PrometheusCollectorRegistry(),
            clock: clock)
        try application.start()
        return (application, config)
    }

    static func percentage(_ client: TestClient) throws -> Double? {
        try client.exchange("GET", "/admin/rollouts/banner", token: token).json["percentage"]?.number
    }

    /// Polls `condition` every 20 ms for up to `seconds`.
    static func eventually(within seconds: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    @Test func aChangeThroughOneReplicaIsServedByTheOthers() throws {
        let url = try Self.postgres.get().makeDatabase()
        let replicas = try (0..<3).map { _ in try Self.replica(url) }
        defer { for (application, _) in replicas { application.shutdown(); application.waitUntilStopped() } }
        let clients = try replicas.map { try TestClient(port: $0.0.port) }
        #expect(try clients[0].exchange("PUT", "/admin/rollouts/banner", token: Self.token, body: #"{"percentage": 37}"#).status == 200)
        for client in clients[1...] {
            #expect(try Self.eventually { try Self.percentage(client) == 37 }, "every replica serves the change")
        }
        let screen = try clients[2].exchange("GET", "/v1/screens/home?user=u1", token: nil)
        #expect(screen.status == 200)
        // A follower publishes a change before it records the sequence as applied (it copies the
        // rows to its local copy in between), so the readiness report may lag the served change.
        var ready = try clients[1].exchange("GET", "/readyz", token: nil)
        #expect(try Self.eventually {
            ready = try clients[1].exchange("GET", "/readyz", token: nil)
            return (ready.json["store"]?["sequence"]?.number ?? 0) >= 2
        }, "the import and the change")
        #expect(ready.json["store"]?["kind"]?.string == "postgres")
        #expect(ready.json["store"]?["reachable"]?.bool == true)
        let metrics = String(decoding: try clients[1].exchange("GET", "/metrics", token: nil).body, as: UTF8.self)
        #expect(metrics.contains("trellis_store_staleness_seconds"))
    }

    /// Every replica runs the scheduler; the store's compare-and-set lets one make each step.
    @Test func aScheduleStepIsMadeOnceWhateverTheNumberOfReplicas() throws {
        let url = try Self.postgres.get().makeDatabase()
        let replicas = try (0..<3).map { _ in try Self.replica(url) }
        defer { for (application, _) in replicas { application.shutdown(); application.waitUntilStopped() } }
        let clients = try replicas.map { try TestClient(port: $0.0.port) }
        let at = ServerState.wallClock() + 1.5
        let body = #"{"schedule": [{"at": "\#(RFC3339.string(fromSeconds: at))", "percentage": 64}]}"#
        #expect(try clients[0].exchange("PUT", "/admin/rollouts/banner", token: Self.token, body: body).status == 200)
        for client in clients { #expect(try Self.eventually { try client.exchange("GET", "/admin/rollouts/banner", token: Self.token).json["schedule"]?.array.count == 1 }) }
        usleep(UInt32(max(0, at + 0.05 - ServerState.wallClock()) * 1e6))
        let applications = replicas.map(\.0)
        DispatchQueue.concurrentPerform(iterations: applications.count) { applications[$0].runScheduledWork() }
        for client in clients { #expect(try Self.eventually { try Self.percentage(client) == 64 }) }
        let audit = try clients[1].exchange("GET", "/admin/audit?resource=rollouts/banner", token: Self.token).json["entries"]?.array ?? []
        #expect(audit.filter { $0["action"]?.string == "rollout.schedule" }.count == 1)
    }

    /// Replicas whose clocks are ten minutes fast and slow go by the database's: a schedule step is
    /// made once, at its time by that clock (this machine's, the database's too), and each replica
    /// says in /readyz and /metrics how far off its own clock is.
    @Test func aScheduleStepIsMadeAtTheDatabasesTimeWhateverTheReplicasClocks() throws {
        let url = try Self.postgres.get().makeDatabase()
        let skews: [Double] = [600, -600, 0]
        let replicas = try skews.map { skew in try Self.replica(url, clock: { ServerState.wallClock() + skew }) }
        defer { for (application, _) in replicas { application.shutdown(); application.waitUntilStopped() } }
        let clients = try replicas.map { try TestClient(port: $0.0.port) }
        for (client, skew) in zip(clients, skews) {
            let ahead = try client.exchange("GET", "/readyz", token: nil).json["store"]?["clockAheadSeconds"]?.number
            #expect(ahead.map { abs($0 - skew) < 0.5 } == true, "skew \(skew): /readyz says \(String(describing: ahead))")
            let metrics = String(decoding: try client.exchange("GET", "/metrics", token: nil).body, as: UTF8.self)
            #expect(metrics.contains("trellis_clock_ahead_of_database_seconds"), "skew \(skew)")
        }
        let at = (ServerState.wallClock() + 3).rounded(.up)
        let body = #"{"schedule": [{"at": "\#(RFC3339.string(fromSeconds: at))", "percentage": 64}]}"#
        #expect(try clients[1].exchange("PUT", "/admin/rollouts/banner", token: Self.token, body: body).status == 200)
        var seen: Double?
        _ = try Self.eventually(within: 8) {
            guard try Self.percentage(clients[2]) == 64 else { return false }
            seen = ServerState.wallClock()
            return true
        }
        let made = try #require(seen, "the step was made")
        // The scheduler looks every second; the change reaches the third replica within milliseconds.
        #expect(made >= at && made < at + 2, "made \(made - at) s after its time")
        let audit = try clients[2].exchange("GET", "/admin/audit?resource=rollouts/banner", token: Self.token).json["entries"]?.array ?? []
        #expect(audit.filter { $0["action"]?.string == "rollout.schedule" }.count == 1)
    }

    /// A change written through one replica reaches the change streams of another, with the
    /// store's sequence as its id, once that replica has followed it from PostgreSQL.
    @Test func aChangeThroughOneReplicaReachesAnotherReplicasStreams() throws {
        let url = try Self.postgres.get().makeDatabase()
        let replicas = try (0..<2).map { _ in try Self.replica(url) }
        defer { for (application, _) in replicas { application.shutdown(); application.waitUntilStopped() } }
        let stream = try EventStreamClient(port: replicas[1].0.port, target: "/v1/changes")
        #expect(stream.next()?.comment == "trellis change stream")
        let writer = try TestClient(port: replicas[0].0.port)
        #expect(try writer.exchange("PUT", "/admin/rollouts/banner", token: Self.token, body: #"{"enabled": false}"#).status == 200)
        let event = try #require(stream.next(timeout: 5))
        #expect(event.event == "targeting")
        let sequence = try writer.exchange("GET", "/readyz", token: nil).json["store"]?["sequence"]?.number
        #expect(event.id == sequence.map { String(Int($0)) })
    }

    @Test func aReplicaWhoseListenerWasCutConverges() throws {
        let postgres = try Self.postgres.get()
        let url = try postgres.makeDatabase()
        let (writer, _) = try Self.replica(url)
        let (follower, _) = try Self.replica(url)
        defer { for application in [writer, follower] { application.shutdown(); application.waitUntilStopped() } }
        let write = try TestClient(port: writer.port)
        let read = try TestClient(port: follower.port)
        #expect(try Self.eventually { try Self.percentage(read) == 10 })
        #expect(try postgres.terminateBackends(applicationName: PostgresChangeListener.applicationName) >= 2)
        for percentage in [11, 12, 13] {
            #expect(try write.exchange("PUT", "/admin/rollouts/banner", token: Self.token, body: #"{"percentage": \#(percentage)}"#).status == 200)
        }
        #expect(try Self.eventually { try Self.percentage(read) == 13 }, "caught up after reconnecting, or by the periodic check")
    }

    @Test func ofTwoRacingWritesWithOneIfMatchExactlyOneWins() throws {
        let url = try Self.postgres.get().makeDatabase()
        let (a, _) = try Self.replica(url)
        let (b, _) = try Self.replica(url)
        defer { for application in [a, b] { application.shutdown(); application.waitUntilStopped() } }
        for round in 0..<5 {
            let clients = [try TestClient(port: a.port), try TestClient(port: b.port)]
            #expect(try Self.eventually { try clients.allSatisfy { try $0.exchange("GET", "/admin/rollouts/banner", token: Self.token).header("ETag") == clients[0].exchange("GET", "/admin/rollouts/banner", token: Self.token).header("ETag") } })
            let etag = try #require(try clients[0].exchange("GET", "/admin/rollouts/banner", token: Self.token).header("ETag"))
            let statuses = Mutex<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let client = try? TestClient(port: index == 0 ? a.port : b.port)
                let status = (try? client?.exchange(
                    "PUT", "/admin/rollouts/banner", token: Self.token, headers: ["If-Match": etag],
                    body: #"{"percentage": \#(20 + round * 2 + index)}"#).status) ?? 0
                statuses.withLock { $0.append(status) }
            }
            let answered = statuses.withLock { $0.sorted() }
            #expect(answered.filter { $0 == 200 }.count == 1, "round \(round): \(answered)")
            #expect(answered.filter { $0 == 409 || $0 == 412 }.count == 1, "round \(round): \(answered)")
        }
    }

    @Test func aDatabaseOutageStopsWritesNeverScreens() throws {
        let postgres = try TemporaryPostgres()
        defer { postgres.shutdown() }
        let url = try postgres.makeDatabase()
        let (a, configA) = try Self.replica(url)
        let (b, _) = try Self.replica(url)
        let client = try TestClient(port: a.port)
        let other = try TestClient(port: b.port)
        #expect(try client.exchange("PUT", "/admin/rollouts/banner", token: Self.token, body: #"{"percentage": 40}"#).status == 200)
        #expect(try Self.eventually { try Self.percentage(other) == 40 })

        try postgres.stop()
        for _ in 0..<20 { #expect(try client.exchange("GET", "/v1/screens/home?user=u1", token: nil).status == 200) }
        let refused = try client.exchange("PUT", "/admin/rollouts/banner", token: Self.token, body: #"{"percentage": 50}"#)
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") != nil)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("unreachable"))
        #expect(try Self.eventually { try client.exchange("GET", "/readyz", token: nil).json["store"]?["reachable"]?.bool == false })
        let readiness = try client.exchange("GET", "/readyz", token: nil)
        #expect(readiness.status == 200, "a stale answer beats none")
        // Public: it says what is wrong, not where the database is nor what its driver said.
        #expect(readiness.json["store"]?["problem"]?.string == "the runtime store is unreachable; the server log says why")
        #expect(!readiness.text.contains("127.0.0.1") && !readiness.text.contains("\(postgres.port)"), "\(readiness.text)")
        #expect(try Self.percentage(client) == 40)

        // A replica started while the database is down serves its local copy.
        a.shutdown()
        a.waitUntilStopped()
        let (restarted, _) = try Self.replica(url, config: configA)
        let again = try TestClient(port: restarted.port)
        #expect(try Self.percentage(again) == 40)
        #expect(try again.exchange("GET", "/readyz", token: nil).json["store"]?["startedFrom"]?.string == "local copy")
        #expect(try again.exchange("GET", "/v1/screens/home?user=u1", token: nil).status == 200)

        try postgres.start()
        #expect(try Self.eventually(within: 15) {
            try again.exchange("PUT", "/admin/rollouts/banner", token: Self.token, body: #"{"percentage": 60}"#).status == 200
        })
        #expect(try Self.eventually(within: 10) { try Self.percentage(other) == 60 }, "new writes propagate after the outage")
        for application in [restarted, b] { application.shutdown(); application.waitUntilStopped() }
    }
}
