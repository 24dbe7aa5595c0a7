import Foundation
import GRDB
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisStats
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
        let tracking = application.tracking
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
        let tracking = application.tracking
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

    @Test func resultsAreGrowthBooksFiguresOfTheStatisticsTheStoreSums() throws {
        let config = try Self.config()
        let application = try ControlPlaneLiveTests.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        #expect(try client.exchange("PUT", "/admin/metrics/purchase-rate", token: Self.token, body: #"{"type": "proportion", "event": "purchase"}"#).status == 201)
        #expect(try client.exchange("PUT", "/admin/metrics/revenue", token: Self.token, body: #"{"type": "mean", "event": "purchase", "cuped": true}"#).status == 201)
        let unknown = try client.exchange("PUT", "/admin/experiments/hero", token: Self.token, body: #"{"goals": ["purchase-rate", "nope"]}"#)
        #expect(unknown.status == 422, "\(unknown.text)")
        #expect(try client.exchange("PUT", "/admin/experiments/hero", token: Self.token, body: #"{"goals": ["purchase-rate"], "guardrails": ["revenue"]}"#).status == 200)
        #expect(try client.exchange("DELETE", "/admin/metrics/revenue", token: Self.token).status == 409)
        // 200 users, alternating variants; every third converts in control, every second in big.
        var lines: [String] = []
        var expected: [String: (users: Int, sum: Double, sumSquares: Double)] = ["control": (0, 0, 0), "big": (0, 0, 0)]
        for i in 0..<200 {
            let variant = i.isMultiple(of: 2) ? "control" : "big"
            lines.append(Self.exposure("x\(i)", user: "u\(i)", variant: variant))
            let converts = variant == "control" ? i % 3 == 0 : i % 4 == 1
            if converts { lines.append(Self.purchase("p\(i)", user: "u\(i)", value: Double(i % 7) + 0.5)) }
            expected[variant]!.users += 1
            if converts { expected[variant]!.sum += 1; expected[variant]!.sumSquares += 1 }
        }
        for chunk in stride(from: 0, to: lines.count, by: 100) {
            #expect(try Self.post(client, "[" + lines[chunk..<min(chunk + 100, lines.count)].joined(separator: ",") + "]").status == 202)
        }
        let answer = try client.exchange("GET", "/admin/experiments/hero/results", token: Self.token)
        #expect(answer.status == 200, "\(answer.text)")
        let results = try JSONParser.parse(answer.text)
        #expect(results["variants"]?.arrayValue?.map { $0["users"]?.numberValue } == [100, 100])
        #expect(results["srm"]?["warning"]?.isNull == true)
        let rate = try #require(results["metrics"]?.arrayValue?.first)
        #expect(rate["metric"]?.stringValue == "purchase-rate")
        let variants = try #require(rate["variants"]?.arrayValue)
        for variant in variants {
            let name = try #require(variant["variant"]?.stringValue)
            #expect(variant["statistics"]?["users"]?.numberValue == Double(expected[name]!.users))
            #expect(variant["statistics"]?["sum"]?.numberValue == expected[name]!.sum)
        }
        // The figures are the engine's on those statistics, and POST /admin/analysis says the same.
        let stats = { (name: String) in SufficientStatistics(users: expected[name]!.users, sum: expected[name]!.sum, sumSquares: expected[name]!.sumSquares) }
        let comparison = compare(.proportion, control: stats("control"), treatment: stats("big"), settings: AnalysisSettings())
        #expect(variants[1]["relative"]?["pValue"]?.numberValue == comparison.relative.pValue)
        #expect(variants[1]["bayesian"]?["chanceToWin"]?.numberValue == comparison.bayesian.chanceToWin)
        let analysis = try client.exchange(
            "POST", "/admin/analysis", token: Self.token,
            body: #"{"type": "proportion", "variants": [{"name": "control", "users": 100, "sum": \#(expected["control"]!.sum)}, {"name": "big", "users": 100, "sum": \#(expected["big"]!.sum)}]}"#)
        #expect(analysis.status == 200, "\(analysis.text)")
        #expect(try JSONParser.parse(analysis.text)["variants"]?.arrayValue?.last?["relative"] == variants[1]["relative"])
        // Export reads every tracked event once, a page at a time.
        var seen: [String] = []
        var after: String?
        repeat {
            let page = try client.exchange("GET", "/admin/events/export?limit=30" + (after.map { "&after=\(PercentEncoding.encode($0))" } ?? ""), token: Self.token)
            #expect(page.status == 200)
            seen += page.text.split(separator: "\n").compactMap { try? JSONParser.parse(String($0))["id"]?.stringValue }
            after = page.header("Next-After")
        } while after != nil
        #expect(seen.count == Set(seen).count)
        var exposed: [String] = []
        after = nil
        repeat {
            let page = try client.exchange("GET", "/admin/experiments/hero/exposures?limit=70" + (after.map { "&after=\(PercentEncoding.encode($0))" } ?? ""), token: Self.token)
            #expect(page.status == 200)
            exposed += page.text.split(separator: "\n").compactMap { try? JSONParser.parse(String($0))["user"]?.stringValue }
            after = page.header("Next-After")
        } while after != nil
        #expect(exposed.count == 200 && Set(exposed).count == 200)
        #expect(Set(seen) == Set(lines.compactMap { try? JSONParser.parse($0)["name"] != nil ? JSONParser.parse($0)["id"]?.stringValue : nil }))
    }

    @Test func aStagedRevisionsHealthIsItsUsersRenderFailureRateBesideTheCurrentOnes() throws {
        let config = try Self.config()
        let application = try ControlPlaneLiveTests.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        let staged = try client.exchange("PUT", "/admin/screens/home?stage=50", token: Self.token, body: AdminFlowTests.screen("Staged"))
        #expect(staged.status == 200 || staged.status == 201, "\(staged.text)")
        let snapshot = application.state.published.snapshot
        let stagedRevision = try #require(snapshot.staged["home"]?.entry.revision)
        let currentRevision = try #require(snapshot.screens["home"]?.revision)
        // The server records which revision each user was served; apps report what failed.
        var served: [String: Int] = [:]
        for i in 0..<60 {
            let user = "h\(i)"
            #expect(try client.exchange("GET", "/v1/screens/home?user=\(user)", token: nil).status == 200)
            served[user] = snapshot.entry("home", for: UserContext(userID: user))?.revision
        }
        application.tracking.serverExposures.flush()
        let failing = served.filter { $0.value == stagedRevision }.keys.sorted().prefix(5) + served.filter { $0.value == currentRevision }.keys.sorted().prefix(1)
        let beacons = failing.enumerated().map { i, user in
            #"{"id": "r\#(i)", "context": {"targetingKey": "\#(user)"}, "render": {"screen": "home", "revision": \#(served[user]!), "component": "root/hero", "reason": "unknown_type"}}"#
        }
        #expect(try Self.post(client, "[" + beacons.joined(separator: ",") + "]").status == 202)
        // A name with ':' is the server's; a reason is one of the known ones.
        #expect(try Self.post(client, #"[{"id": "z", "context": {"targetingKey": "u"}, "name": "render_failure:home"}]"#).status == 422)
        let unknownReason = try Self.post(client, #"[{"id": "z", "context": {"targetingKey": "u"}, "render": {"screen": "home", "revision": 1, "reason": "sad"}}]"#)
        #expect(unknownReason.status == 422)
        #expect(unknownReason.text.contains("unknown_type"))
        let health = try client.exchange("GET", "/admin/screens/home/revisions/\(stagedRevision)/health", token: Self.token)
        #expect(health.status == 200, "\(health.text)")
        let stagedUsers = served.values.filter { $0 == stagedRevision }.count
        #expect(health.json["served"]?.string == "staged")
        #expect(health.json["users"]?.number == Double(stagedUsers))
        #expect(health.json["usersWithRenderFailures"]?.number == 5)
        #expect(health.json["against"]?["revision"]?.number == Double(currentRevision))
        #expect(health.json["against"]?["users"]?.number == Double(60 - stagedUsers))
        #expect(health.json["against"]?["usersWithRenderFailures"]?.number == 1)
        #expect(try client.exchange("GET", "/admin/screens/home/revisions/99/health", token: Self.token).status == 404)
    }

    @Test func aGuardAbandonsAStagedRevisionWhoseUsersFailToRenderIt() throws {
        let config = try Self.config()
        let application = try ControlPlaneLiveTests.application(config)
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        #expect(try client.exchange("PUT", "/admin/screens/home?stage=50", token: Self.token, body: AdminFlowTests.screen("Staged")).status < 300)
        let guarded = try client.exchange(
            "PUT", "/admin/screens/home/guard", token: Self.token, body: #"{"checks": [{"metric": "render-failures", "tolerance": 0.1}], "minimumUsers": 100}"#)
        #expect(guarded.status == 201, "\(guarded.text)")
        let snapshot = application.state.published.snapshot
        let staged = try #require(snapshot.staged["home"]?.entry.revision)
        // 1,000 users fetch the screen; two in five of the staged revision's fail to render it, one in twenty of the current's.
        var beacons: [String] = []
        let readers = try (0..<2).map { _ in try TestClient(port: application.port) }
        for i in 0..<1_000 {
            let user = "g\(i)"
            #expect(try readers[i % 2].exchange("GET", "/v1/screens/home?user=\(user)", token: nil).status == 200)
            let revision = try #require(snapshot.entry("home", for: UserContext(userID: user))?.revision)
            if (revision == staged && i % 5 < 2) || (revision != staged && i % 20 == 0) {
                beacons.append(#"{"id": "b\#(i)", "context": {"targetingKey": "\#(user)"}, "render": {"screen": "home", "revision": \#(revision), "reason": "decode_failure"}}"#)
            }
        }
        application.tracking.serverExposures.flush()
        #expect(try Self.post(client, "[" + beacons.joined(separator: ",") + "]").status == 202)
        #expect(application.guardRunner.runOnce() == [.screen("home")])
        #expect(application.state.published.snapshot.staged["home"] == nil)
        // An app served the abandoned revision just before the halt still reports on it.
        let late = #"[{"id": "late", "context": {"targetingKey": "g0"}, "render": {"screen": "home", "revision": \#(staged), "reason": "decode_failure"}}]"#
        #expect(try Self.post(client, late).status == 202)
        #expect(try client.exchange("GET", "/admin/screens/home/revisions/\(staged)/health", token: Self.token).json["served"]?.string == "earlier")
        let view = try client.exchange("GET", "/admin/guards", token: Self.token)
        #expect(view.json["guards"]?[0]?["lastEvaluation"]?["verdict"]?.string == "regression")
        let audit = try client.exchange("GET", "/admin/audit?resource=screens/home&limit=2", token: Self.token)
        #expect(audit.text.contains("guard.halt"), "\(audit.text)")
        #expect(try client.exchange("DELETE", "/admin/screens/home/guard", token: Self.token).status == 204)
    }

    @Test func trellisResultsPrintsWhatTheResultsEndpointAnswers() throws {
        let config = try Self.config()
        let served = try ServedBinary(config: config)
        try served.start()
        #expect(try served.request("PUT", "/admin/metrics/purchase-rate", body: #"{"type": "proportion", "event": "purchase"}"#).status == 201)
        #expect(try served.request("PUT", "/admin/experiments/hero", body: #"{"goals": ["purchase-rate"]}"#).status == 200)
        var lines: [String] = []
        for i in 0..<40 {
            lines.append(Self.exposure("x\(i)", user: "u\(i)", variant: i.isMultiple(of: 2) ? "control" : "big"))
            if i % 3 == 0 { lines.append(Self.purchase("p\(i)", user: "u\(i)")) }
        }
        #expect(try Self.post(TestClient(port: served.port), "[" + lines.joined(separator: ",") + "]").status == 202)
        let answer = try JSONParser.parse(try served.request("GET", "/admin/experiments/hero/results").text)
        served.stop()
        let arguments = ["results", "hero", "--config", config.url.path, "--data-dir", served.dataDirectory.path]
        let json = try CommandLineTests.run(arguments + ["--json"])
        #expect(json.status == 0, "\(json.output)")
        let printed = try JSONParser.parse(json.output)
        #expect(printed["metrics"] == answer["metrics"])
        #expect(printed["variants"] == answer["variants"])
        let table = try CommandLineTests.run(arguments)
        #expect(table.status == 0)
        #expect(table.output.contains("hero as of"))
        #expect(table.output.contains("control 20, big 20 users"))
        #expect(table.output.contains("purchase-rate (goal, proportion)"))
        let unknown = try CommandLineTests.run(["results", "nope", "--config", config.url.path, "--data-dir", served.dataDirectory.path])
        #expect(unknown.status == 1)
        #expect(unknown.output.contains("no experiment \"nope\""))
    }
}
