import Foundation
import Synchronization
import Testing
import TrellisJSON
import TrellisStore
import TrellisTesting
@testable import TrellisServer

/// The real binary killed with SIGKILL while apps send events: what was acknowledged is there
/// when it comes back, and the exposures it records itself come back with users' next requests.
@Suite(.serialized) struct EventsCrashTests {
    @Test func aKillDuringIngestLosesNoAcknowledgedEvent() throws {
        let config = try ExperimentEventsTests.config()
        let served = try ServedBinary(config: config)
        try served.start()
        let port = served.port
        let acknowledged = Mutex<Set<String>>([])
        let senders = DispatchGroup()
        for sender in 0..<4 {
            DispatchQueue.global().async(group: senders) {
                guard let client = try? TestClient(port: port, timeout: 5) else { return }
                for batch in 0..<10_000 {
                    let ids = (0..<50).map { "s\(sender)-b\(batch)-e\($0)" }
                    let body = "[" + ids.map { ExperimentEventsTests.purchase($0, user: "u\(sender)") }.joined(separator: ",") + "]"
                    guard let answer = try? ExperimentEventsTests.post(client, body) else { return }
                    guard answer.status == 202 else { return }
                    acknowledged.withLock { $0.formUnion(ids) }
                }
            }
        }
        // Kill once some batches are in, while the senders keep sending.
        let deadline = Date().addingTimeInterval(30)
        while acknowledged.withLock({ $0.count }) < 2_000, Date() < deadline { usleep(5_000) }
        served.killNine()
        senders.wait()
        let sent = acknowledged.withLock { $0 }
        #expect(sent.count >= 2_000)
        try served.start()
        defer { served.stop() }
        let store = try ExperimentEventsTests.events(config)
        var stored = Set<String>()
        var cursor: EventCursor?
        while true {
            let page = try store.events(after: cursor, limit: 10_000)
            guard let last = page.last else { break }
            stored.formUnion(page.map(\.id))
            cursor = last.cursor
        }
        let lost = sent.subtracting(stored)
        #expect(lost.isEmpty, "\(lost.count) acknowledged events were lost, e.g. \(lost.prefix(3))")
    }

    @Test func serverExposuresLostToAKillAreRecordedAgainOnTheUsersNextRequests() throws {
        let config = try ExperimentEventsTests.config()
        // A flush interval longer than the test: the kill takes every exposure still in memory.
        let served = try ServedBinary(config: config, extra: #""events": {"exposureFlushSeconds": 60}"#)
        try served.start()
        #expect(try served.request("PUT", "/admin/experiments/hero", body: #"{"exposures": "server"}"#).status == 200)
        let users = (0..<50).map { "k\($0)" }
        let client = try TestClient(port: served.port)
        for user in users { #expect(try client.exchange("GET", "/v1/screens/home?user=\(user)", token: nil).status == 200) }
        served.killNine()
        let store = try ExperimentEventsTests.events(config)
        let before = try store.exposures(of: .experiment("hero"), after: nil, limit: 1_000)
        #expect(before.isEmpty, "the exposures were written before the kill: the test does not test the loss")
        try served.start()
        let again = try TestClient(port: served.port)
        for user in users { #expect(try again.exchange("GET", "/v1/screens/home?user=\(user)", token: nil).status == 200) }
        served.stop()  // a graceful stop writes what gathered
        let after = try store.exposures(of: .experiment("hero"), after: nil, limit: 1_000)
        #expect(Set(after.map(\.user)) == Set(users))
    }
}
