import Foundation
import Synchronization
import Testing
import TrellisStore
import TrellisTesting

/// Acknowledged means durable: a stream of admin writes, SIGKILL in the middle of it, a restart,
/// and every acknowledged write is there, nothing half-written is, and the audit log agrees.
@Suite(.serialized) struct DurabilityTests {
    /// What one writer thread sent and what came back 200.
    final class Ledger: Sendable {
        private let state = Mutex<(acknowledged: [Int], inFlight: Int?)>(([], nil))
        func sending(_ i: Int) { state.withLock { $0.inFlight = i } }
        func acknowledged(_ i: Int) { state.withLock { $0.acknowledged.append(i); $0.inFlight = nil } }
        var snapshot: (acknowledged: [Int], inFlight: Int?) { state.withLock { $0 } }
    }

    static func percentage(_ i: Int) -> Double { Double(i % 10_000) / 100 }

    /// Writes until the connection fails (the server is gone); each write is acknowledged or not.
    static func writeUntilKilled(port: Int, ledger: Ledger, request: @escaping @Sendable (Int) -> (String, String, String)) -> Thread {
        let thread = Thread {
            guard let client = try? TestClient(port: port, timeout: 5) else { return }
            for i in 1... {
                let (method, target, body) = request(i)
                ledger.sending(i)
                guard let response = try? client.exchange(method, target, body: body) else { return }
                guard response.status == 200 else { return }
                ledger.acknowledged(i)
            }
        }
        thread.start()
        return thread
    }

    @Test func sigkillMidStreamLosesNothingAcknowledged() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("start")])
        try config.write(targeting: AdminFlowTests.targeting)
        let server = try ServedBinary(config: config)
        try server.start()

        let rollouts = Ledger()
        let screens = Ledger()
        _ = Self.writeUntilKilled(port: server.port, ledger: rollouts) { i in
            ("PUT", "/admin/rollouts/banner", #"{"percentage": \#(Self.percentage(i))}"#)
        }
        _ = Self.writeUntilKilled(port: server.port, ledger: screens) { i in
            ("PUT", "/admin/screens/home", AdminFlowTests.screen("write \(i)"))
        }
        let deadline = Date().addingTimeInterval(20)
        while (rollouts.snapshot.acknowledged.count < 40 || screens.snapshot.acknowledged.count < 20) && Date() < deadline {
            usleep(2_000)
        }
        server.killNine()
        let rolloutsSent = rollouts.snapshot
        let screensSent = screens.snapshot
        #expect(rolloutsSent.acknowledged.count >= 40)
        #expect(screensSent.acknowledged.count >= 20)

        // The file as the crash left it: it opens, and holds whole changes only.
        let store = try SQLiteStore(path: server.dataDirectory.appendingPathComponent(SQLiteStore.fileName).path)
        let audit = try store.audit(AuditQuery(limit: 1000, after: 0))
        let rolloutAudit = audit.filter { $0.draft.resource == "rollouts/banner" }
        let screenAudit = audit.filter { $0.draft.resource == "screens/home" && $0.draft.action == "screen.publish" }
        // Every acknowledged write was logged, in order; at most the one in flight besides.
        #expect(rolloutAudit.count - rolloutsSent.acknowledged.count == 0 || (rolloutAudit.count - rolloutsSent.acknowledged.count == 1 && rolloutsSent.inFlight != nil))
        #expect(screenAudit.count - screensSent.acknowledged.count == 0 || (screenAudit.count - screensSent.acknowledged.count == 1 && screensSent.inFlight != nil))
        let stored = try store.load()
        let home = try #require(stored.screens.first { $0.head.screen == "home" })
        // Revision 1 came from the file; each publish after it is one revision, with its audit entry.
        #expect(home.latestRevision == 1 + screenAudit.count)
        #expect(home.head.current == home.latestRevision)

        try server.start()
        let rollout = try server.request("GET", "/admin/rollouts/banner", token: ServedBinary.readToken)
        let expectedPercentages = ([rolloutsSent.acknowledged.last] + [rolloutsSent.inFlight]).compactMap { $0 }.map(Self.percentage)
        #expect(expectedPercentages.contains(rollout.json["percentage"]?.number ?? -1), "\(rollout.text)")
        #expect(rollout.json["revision"]?.number == Double(rolloutAudit.count))

        let screen = try server.request("GET", "/v1/screens/home", token: nil)
        let greeting = screen.json["root"]?["subviews"]?.array.first { $0["id"]?.string == "greeting" }?["values"]?["text"]?.string
        let expectedGreetings = ([screensSent.acknowledged.last] + [screensSent.inFlight]).compactMap { $0 }.map { "write \($0)" }
        #expect(greeting.map(expectedGreetings.contains) == true, "\(greeting ?? "none") not in \(expectedGreetings)")
        server.stop()
    }
}
