import Dispatch
import Synchronization
import Foundation
import GRDB
import Logging
import Prometheus
import Testing
import TrellisAnswers
import TrellisCrypto
import TrellisHTTP
import TrellisRuntime
import TrellisScreens
import TrellisTargeting
import TrellisTesting
@testable import TrellisServer

/// The control plane in process, over real sockets: writes never make screen requests wait, and
/// the admin API can live on a port of its own.
@Suite struct ControlPlaneLiveTests {
    static let token = "trl_live-test-token"

    /// A started application over `config` with the `ops` write token, its settings as `configure` leaves them.
    static func application(
        _ config: TemporaryConfig, adminPort: Int? = nil, requireIfMatch: Bool = false,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws -> Application {
        var settings = ServerConfiguration.live(dataDirectory: config.url.appendingPathComponent("data").path)
        settings.admin.tokens = [.init(name: "ops", sha256: SHA256.hash(Array(token.utf8)), role: .write)]
        settings.admin.port = adminPort
        settings.admin.requireIfMatch = requireIfMatch
        configure(&settings)
        let application = try Application(
            configDirectory: config.url, configuration: settings, logger: Logger(label: "test"), metrics: PrometheusCollectorRegistry())
        try application.start()
        return application
    }

    /// Ordering, not wall time: the database stays locked until every screen request has been
    /// answered, so they were all answered while the write waited, however slow the machine.
    @Test func aWriteWaitingForTheDatabaseNeverHoldsUpScreens() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try Self.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }

        // Another connection (an operator's sqlite3 shell, a backup) holds the write lock until told.
        let holder = try DatabaseQueue(path: config.url.appendingPathComponent("data/trellis.sqlite").path)
        let locked = DispatchSemaphore(value: 0)
        let screensAnswered = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? holder.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                locked.signal()
                screensAnswered.wait()
                try db.execute(sql: "COMMIT")
            }
            released.signal()
        }
        locked.wait()

        let writer = try TestClient(port: application.port, timeout: 30)
        let body = #"{"percentage": 42}"#
        writer.send("PUT /admin/rollouts/banner HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(Self.token)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")

        // Meanwhile, screens keep coming, on new connections and on kept-alive ones, on every loop.
        let reader = try TestClient(port: application.port)
        for i in 0..<20 {
            let client = i.isMultiple(of: 2) ? reader : try TestClient(port: application.port)
            client.send("GET /v1/screens/home?user=u\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try #require(client.readResponse(), "screen request \(i) got no answer while the write waited")
            #expect(response.status == 200)
        }
        #expect(!writer.hasBytesWaiting(), "the write was answered while the database was locked")
        screensAnswered.signal()

        let written = try #require(writer.readResponse())
        #expect(written.status == 200, "\(written.text)")
        released.wait()
        #expect(application.state.published.snapshot.targeting.rollouts["banner"]?.percentage.basisPoints == 4200)
    }

    /// `?revision=N` decodes a stored revision again and expands its templates with the ones the
    /// snapshot it serves from was built with.
    @Test func anEarlierRevisionIsExpandedWithTheSnapshotsTemplates() throws {
        let config = try TemporaryConfig(screens: [
            "home": #"{"id": "home", "schemaVersion": 2, "root": {"type": "Template", "template": "greeting", "args": {"name": "Ada"}}}"#
        ])
        try FileManager.default.createDirectory(at: config.url.appendingPathComponent("templates"), withIntermediateDirectories: true)
        try Data(TemplateLoadingTests.template.utf8).write(to: config.url.appendingPathComponent("templates/greeting.json"))
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try Self.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        #expect(application.state.published.snapshot.templates.templates["greeting"] != nil)

        let client = try TestClient(port: application.port)
        #expect(try client.exchange("PUT", "/admin/screens/home", token: Self.token, body: AdminFlowTests.screen("New")).status == 200)
        #expect(try client.exchange("GET", "/v1/screens/home?revision=1", token: nil).status == 401)
        let earlier = try client.exchange("GET", "/v1/screens/home?revision=1", token: Self.token)
        #expect(earlier.status == 200, "\(earlier.text)")
        #expect(earlier.text.contains("Hello, Ada"), "\(earlier.text)")
        #expect(earlier.json["revision"]?.number == 1)
    }

    @Test func theAdminAPICanHaveAPortOfItsOwn() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try Self.application(config, adminPort: 0)
        defer { application.shutdown(); application.waitUntilStopped() }
        #expect(application.adminPort != application.port)

        let public_ = try TestClient(port: application.port)
        #expect(try public_.exchange("GET", "/admin/rollouts", token: Self.token).status == 404)
        #expect(try public_.exchange("GET", "/v1/screens/home", token: nil).status == 200)
        let admin = try TestClient(port: application.adminPort)
        #expect(try admin.exchange("GET", "/admin/rollouts", token: Self.token).status == 200)
        #expect(try admin.exchange("GET", "/v1/screens/home", token: nil).status == 404)

        // One registry for both listeners: their connections add up, and an admin write is counted.
        #expect(try admin.exchange("PUT", "/admin/rollouts/banner", token: Self.token, body: #"{"percentage": 30}"#).status == 200)
        let metrics = try public_.exchange("GET", "/metrics", token: nil).text
        #expect(metrics.contains("\nhttp_open_connections 2.0\n"), "\(metrics)")
        #expect(metrics.contains(#"trellis_runtime_changes_total{result="committed"} 1"#), "\(metrics)")
    }

    @Test func tooManyFailedTokensFromOneAddressAre429AndAValidTokenStillPasses() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try Self.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        let statuses = try (0..<12).map { _ in try client.exchange("GET", "/admin/rollouts", token: "trl_guess").status }
        #expect(statuses.prefix(10).allSatisfy { $0 == 401 })
        let limited = try client.exchange("GET", "/admin/rollouts", token: "trl_guess")
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") != nil)
        // Guessing is slowed; the operators are never locked out by it.
        #expect(try client.exchange("GET", "/admin/rollouts", token: Self.token).status == 200)
        // Screens are public and never limited.
        #expect(try client.exchange("GET", "/v1/screens/home", token: nil).status == 200)
    }

    @Test func runtimeChangesKeepTheCachedAnswers() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try Self.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        func cached() -> Int { application.state.published.snapshot.answers.count }

        #expect(try client.exchange("GET", "/v1/screens/home?user=u1", token: nil).status == 200)
        #expect(try client.exchange("GET", "/v1/screens/home?user=u2&schemaVersion=1", token: nil).status == 200)
        let before = cached()
        #expect(before >= 1)
        // A rollout change: outcomes may change per user, the bytes of an outcome cannot.
        #expect(try client.exchange("PUT", "/admin/rollouts/banner", token: Self.token, body: #"{"percentage": 100}"#).status == 200)
        #expect(cached() == before)
        let admitted = try client.exchange("GET", "/v1/screens/home?user=u1", token: nil)
        #expect(admitted.json["assignments"]?["rollouts"]?["banner"]?.bool == true)
        // A new revision: its answers are new keys, in the same cache; the old revision's are
        // never asked for again and are the first to make room.
        let beforePublish = cached()
        #expect(try client.exchange("PUT", "/admin/screens/home", token: Self.token, body: AdminFlowTests.screen("New")).status == 200)
        #expect(cached() == beforePublish)
        let revised = try client.exchange("GET", "/v1/screens/home?user=u1", token: nil)
        #expect(revised.json["revision"]?.number == 2)
        #expect(String(decoding: revised.body, as: UTF8.self).contains("New"))
        #expect(cached() == beforePublish + 1)
        // A reload may bring new fonts: it starts empty.
        _ = application.reload()
        #expect(cached() == 0)
    }

    @Test func concurrentWritersAreSerialisedAndNoneIsLost() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try Self.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        let port = application.port
        let acknowledged = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { writer in
            guard let client = try? TestClient(port: port, timeout: 10) else { return }
            for i in 0..<20 {
                let body = #"{"percentage": \#(writer * 10 + i % 10)}"#
                if (try? client.exchange("PUT", "/admin/rollouts/banner", token: Self.token, body: body))?.status == 200 {
                    acknowledged.withLock { $0 += 1 }
                }
            }
        }
        #expect(acknowledged.withLock { $0 } == 160)
        let rollout = try TestClient(port: port).exchange("GET", "/admin/rollouts/banner", token: Self.token)
        #expect(rollout.json["revision"]?.number == 160)
        let audit = try TestClient(port: port).exchange("GET", "/admin/audit?resource=rollouts/banner&limit=1000", token: Self.token)
        let entries = audit.json["entries"]?.array ?? []
        #expect(entries.count == 160)
        // One after the other: each entry's "before" is the previous entry's "after".
        for (earlier, later) in zip(entries, entries.dropFirst()) {
            #expect(earlier["after"]?["percentage"]?.number == later["before"]?["percentage"]?.number)
        }
    }

    @Test func aServerThatRequiresIfMatchRefusesBlindWrites() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let application = try Self.application(config, requireIfMatch: true)
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        let blind = try client.exchange("PUT", "/admin/rollouts/banner", token: Self.token, body: #"{"percentage": 30}"#)
        #expect(blind.status == 428)
        let etag = try #require(try client.exchange("GET", "/admin/rollouts/banner", token: Self.token).header("ETag"))
        #expect(try client.exchange("PUT", "/admin/rollouts/banner", token: Self.token, headers: ["If-Match": etag], body: #"{"percentage": 30}"#).status == 200)
        #expect(try client.exchange("POST", "/admin/rollouts/banner/kill", token: Self.token, headers: ["If-Match": etag]).status == 412)
    }
}
