import Foundation
import Logging
import Prometheus
import Synchronization
import Testing
import TrellisCrypto
import TrellisRuntime
import TrellisTargeting
import TrellisTesting
@testable import TrellisServer

/// Four eyes on the real binary: with `admin.requireApproval`, a write becomes a change request
/// that a second token with the approve role approves; never its author; stale when its target
/// moved; its approvals reset when it is edited; refused at once when it could not apply.
@Suite(.serialized) struct ChangeRequestTests {
    static func served(admin: String = #""requireApproval": true"#) throws -> ServedBinary {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let binary = try ServedBinary(config: config, adminExtra: admin, approver: true)
        try binary.start()
        return binary
    }

    static let lead = ServedBinary.approveToken

    /// Approves or rejects change request `id` as the version the reviewer just read.
    static func review(
        _ server: ServedBinary, _ id: String, _ verb: String, token: String? = ServedBinary.writeToken, body: String? = nil
    ) throws -> WireResponse {
        let etag = try server.request("GET", "/admin/changes/\(id)").header("ETag") ?? ""
        return try server.request("POST", "/admin/changes/\(id)/\(verb)", token: token, headers: ["If-Match": etag], body: body)
    }

    @Test func aWriteWaitsForASecondTokensApproval() throws {
        let server = try Self.served()
        let held = try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 40}"#)
        #expect(held.status == 202)
        #expect(held.json["status"]?.string == "pending")
        #expect(held.json["author"]?.string == "ops-bot")
        let id = try #require(held.json["id"]?.number).formatted()
        #expect(held.header("Location") == "/admin/changes/\(id)")
        #expect(try server.request("GET", "/admin/rollouts/banner").json["percentage"]?.number == 10)

        // A writer cannot approve; the approver can, and the write is made as its author.
        #expect(try Self.review(server, id, "approve").status == 403)
        let approved = try Self.review(server, id, "approve", token: Self.lead, body: #"{"comment": "ok"}"#)
        #expect(approved.status == 200)
        #expect(approved.json["status"]?.string == "applied")
        #expect(approved.json["reviews"]?[0]?["by"]?.string == "lead")
        let banner = try server.request("GET", "/admin/rollouts/banner").json
        #expect(banner["percentage"]?.number == 40)
        #expect(banner["updatedBy"]?.string == "ops-bot")
        let audit = try server.request("GET", "/admin/audit?limit=2").json["entries"]?.array ?? []
        #expect(audit.compactMap { $0["action"]?.string } == ["rollout.update", "change.approve"])
        #expect(audit.compactMap { $0["actor"]?.string } == ["ops-bot", "lead"])
        #expect(try Self.review(server, id, "approve", token: Self.lead).status == 409)

        // Held requests survive a restart, as everything acknowledged does.
        let second = try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 45}"#)
        server.stop()
        try server.start()
        let pending = try server.request("GET", "/admin/changes?status=pending").json["changes"]?.array ?? []
        #expect(pending.compactMap { $0["id"]?.number } == [second.json["id"]?.number].compactMap { $0 })
    }

    @Test func theAuthorCannotApproveTheirOwnAndARejectedRequestIsClosed() throws {
        let server = try Self.served()
        // The approver's own write is held too, and needs someone else.
        let own = try server.request("POST", "/admin/rollouts/banner/kill", token: Self.lead)
        #expect(own.status == 202)
        let id = try #require(own.json["id"]?.number).formatted()
        let refused = try Self.review(server, id, "approve", token: Self.lead)
        #expect(refused.status == 403)
        #expect(refused.json["detail"]?.string?.contains("another token") == true)
        #expect(try server.request("GET", "/admin/rollouts/banner").json["enabled"]?.bool == true)

        let mine = try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 11}"#)
        let mineID = try #require(mine.json["id"]?.number).formatted()
        let rejected = try Self.review(server, mineID, "reject", token: Self.lead, body: #"{"comment": "no"}"#)
        #expect(rejected.json["status"]?.string == "rejected")
        #expect(try Self.review(server, mineID, "approve", token: Self.lead).status == 409)
        #expect(try server.request("GET", "/admin/rollouts/banner").json["percentage"]?.number == 10)
    }

    @Test func aRequestWhoseTargetMovedIsStale() throws {
        let server = try Self.served()
        let first = try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 60}"#)
        let second = try server.request("POST", "/admin/rollouts/banner/kill")
        let firstID = try #require(first.json["id"]?.number).formatted()
        let secondID = try #require(second.json["id"]?.number).formatted()
        #expect(try Self.review(server, secondID, "approve", token: Self.lead).status == 200)
        // The first was made against the rollout before the kill: approving it would undo a change
        // nobody reviewed together with it.
        let stale = try Self.review(server, firstID, "approve", token: Self.lead)
        #expect(stale.status == 409)
        #expect(stale.json["detail"]?.string?.contains("stale") == true)
        #expect(try server.request("GET", "/admin/changes/\(firstID)").json["status"]?.string == "stale")
        let banner = try server.request("GET", "/admin/rollouts/banner").json
        #expect(banner["enabled"]?.bool == false)
        #expect(banner["percentage"]?.number == 10)
    }

    @Test func editingARequestTakesItsApprovalsBack() throws {
        let server = try Self.served()
        let later = RFC3339.string(fromSeconds: Date().timeIntervalSince1970 + 3600)
        let held = try server.request(
            "POST", "/admin/changes",
            body: #"{"method": "PUT", "path": "/admin/rollouts/banner", "body": {"percentage": 70}, "applyAt": "\#(later)"}"#)
        #expect(held.status == 202)
        let id = try #require(held.json["id"]?.number).formatted()
        let approved = try Self.review(server, id, "approve", token: Self.lead)
        #expect(approved.json["status"]?.string == "approved")  // it waits for its time
        #expect(try server.request("GET", "/admin/rollouts/banner").json["percentage"]?.number == 10)

        // Only its author edits it, and the edit needs a new approval.
        #expect(try server.request("PUT", "/admin/changes/\(id)", token: Self.lead, body: #"{"body": {"percentage": 99}}"#).status == 403)
        let edited = try server.request("PUT", "/admin/changes/\(id)", body: #"{"body": {"percentage": 99}}"#)
        #expect(edited.status == 200)
        #expect(edited.json["status"]?.string == "pending")
        #expect(edited.json["reviews"]?.array.count == 0)
        #expect(edited.json["body"]?.string == #"{"percentage":99}"#)
        // An approved request waiting for its time can still be rejected; null takes applyAt away.
        #expect(try server.request("PUT", "/admin/changes/\(id)", body: #"{"applyAt": null}"#).json["applyAt"]?.isNull == true)
        #expect(try server.request("PUT", "/admin/changes/\(id)", body: #"{"applyAt": "\#(later)"}"#).status == 200)
        #expect(try Self.review(server, id, "approve", token: Self.lead).json["status"]?.string == "approved")
        let rejected = try Self.review(server, id, "reject", token: Self.lead)
        #expect(rejected.json["status"]?.string == "rejected")

        // A request whose write could not apply is refused at once, with the write's own problems.
        let invalid = try server.request("PUT", "/admin/rollouts/banner", body: "{\n \"percentage\": 101}")
        #expect(invalid.status == 422)
        #expect(invalid.json["errors"]?[0]?["line"]?.number == 2)
        let past = try server.request("POST", "/admin/changes", body: #"{"method": "PUT", "path": "/admin/rollouts/banner", "body": {"percentage": 5}, "applyAt": "2020-01-01T00:00:00Z"}"#)
        #expect(past.status == 422)
        #expect(try server.request("POST", "/admin/changes", body: #"{"method": "GET", "path": "/admin/rollouts"}"#).status == 422)
        #expect(try server.request("GET", "/admin/changes").json["changes"]?.array.count == 1)
    }

    @Test func aReviewIsBoundToTheVersionTheReviewerRead() throws {
        let server = try Self.served()
        let held = try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 26}"#)
        let id = try #require(held.json["id"]?.number).formatted()
        let read = try #require(try server.request("GET", "/admin/changes/\(id)", token: Self.lead).header("ETag"))
        // Without the version read, no decision; after an edit, the version read is not the request.
        #expect(try server.request("POST", "/admin/changes/\(id)/approve", token: Self.lead).status == 428)
        #expect(try server.request("PUT", "/admin/changes/\(id)", body: #"{"body": {"percentage": 100}}"#).status == 200)
        let approved = try server.request("POST", "/admin/changes/\(id)/approve", token: Self.lead, headers: ["If-Match": read])
        #expect(approved.status == 412)
        #expect(try server.request("GET", "/admin/rollouts/banner").json["percentage"]?.number == 10)
    }

    @Test func aTargetingWriteThatChangesAGuardedRolloutIsHeld() throws {
        let server = try Self.served(admin: #""approvalRequiredFor": ["rollouts/banner"]"#)
        let document = try server.request("GET", "/admin/targeting")
        var text = document.text
        text = text.replacingOccurrences(of: #""percentage" : 10"#, with: #""percentage" : 90"#)
        text = text.replacingOccurrences(of: #""percentage": 10"#, with: #""percentage": 90"#)
        let held = try server.request("PUT", "/admin/targeting", body: text)
        #expect(held.status == 202)
        #expect(try server.request("GET", "/admin/rollouts/banner").json["percentage"]?.number == 10)
        // A document that leaves the guarded rollout alone is made at once.
        #expect(try server.request("PUT", "/admin/targeting", body: document.text).status == 200)
    }

    @Test func onlyTheResourcesNamedNeedApprovalAndAScreenIsPublishedThroughOne() throws {
        let server = try Self.served(admin: #""approvalRequiredFor": ["screens/home"]"#)
        #expect(try server.request("PUT", "/admin/rollouts/banner", body: #"{"percentage": 12}"#).status == 200)
        let held = try server.request("PUT", "/admin/screens/home", body: AdminFlowTests.screen("Reviewed"))
        #expect(held.status == 202)
        let id = try #require(held.json["id"]?.number).formatted()
        #expect(try Self.review(server, id, "approve", token: Self.lead).status == 200)
        let screen = try server.request("GET", "/v1/screens/home?user=u1", token: nil)
        #expect(screen.text.contains("Reviewed"))
    }
}

/// Rollout schedules, in process with a clock the test moves: each step applied at its time,
/// once, across a restart between two steps; a kill cancels the rest.
@Suite(.serialized) struct ScheduledRampTests {
    final class Clock: Sendable {
        let now = Mutex<Double>(1_800_000_000)
        func advance(to t: Double) { now.withLock { $0 = t } }
        var read: @Sendable () -> Double { { [self] in now.withLock { $0 } } }
    }

    static func application(_ config: TemporaryConfig, clock: Clock) throws -> Application {
        var settings = ServerConfiguration.live(dataDirectory: config.url.appendingPathComponent("data").path)
        settings.admin.tokens = [.init(name: "ops", sha256: SHA256.hash(Array(ControlPlaneLiveTests.token.utf8)), role: .write)]
        let application = try Application(
            configDirectory: config.url, configuration: settings, logger: Logger(label: "test"), metrics: PrometheusCollectorRegistry(),
            clock: clock.read)
        try application.start()
        return application
    }

    static func rollout(_ application: Application) throws -> JSONTree {
        try TestClient(port: application.port).exchange("GET", "/admin/rollouts/banner", token: ControlPlaneLiveTests.token).json
    }

    @Test func threeStepsApplyAtTheirTimesOnceAcrossARestart() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let clock = Clock()
        let t0 = clock.read()
        func at(_ seconds: Double) -> String { RFC3339.string(fromSeconds: t0 + seconds) }
        var application = try Self.application(config, clock: clock)
        let client = try TestClient(port: application.port)
        let past = try client.exchange("PUT", "/admin/rollouts/banner", token: ControlPlaneLiveTests.token, body: #"{"schedule": [{"at": "\#(at(-1))", "percentage": 20}]}"#)
        #expect(past.status == 422)
        let scheduled = try client.exchange(
            "PUT", "/admin/rollouts/banner", token: ControlPlaneLiveTests.token,
            body: #"{"schedule": [{"at": "\#(at(60))", "percentage": 20}, {"at": "\#(at(120))", "percentage": 30}, {"at": "\#(at(180))", "percentage": 50}]}"#)
        #expect(scheduled.status == 200)
        #expect(scheduled.json["schedule"]?.array.count == 3)

        application.runScheduledWork()
        #expect(try Self.rollout(application)["percentage"]?.number == 10)
        clock.advance(to: t0 + 60)
        application.runScheduledWork()
        #expect(try Self.rollout(application)["percentage"]?.number == 20)
        #expect(try Self.rollout(application)["schedule"]?.array.count == 2)

        // A restart between two steps applies nothing twice.
        application.shutdown()
        application.waitUntilStopped()
        clock.advance(to: t0 + 90)
        application = try Self.application(config, clock: clock)
        application.runScheduledWork()
        #expect(try Self.rollout(application)["percentage"]?.number == 20)
        clock.advance(to: t0 + 121)
        application.runScheduledWork()
        application.runScheduledWork()
        #expect(try Self.rollout(application)["percentage"]?.number == 30)
        clock.advance(to: t0 + 500)
        application.runScheduledWork()
        let last = try Self.rollout(application)
        #expect(last["percentage"]?.number == 50)
        #expect(last["schedule"]?.array.count == 0)
        defer { application.shutdown(); application.waitUntilStopped() }

        let audit = try TestClient(port: application.port).exchange("GET", "/admin/audit?resource=rollouts/banner", token: ControlPlaneLiveTests.token).json
        let steps = (audit["entries"]?.array ?? []).filter { $0["action"]?.string == "rollout.schedule" }
        #expect(steps.count == 3)
        #expect(steps.allSatisfy { $0["actor"]?.string == "scheduler" })
    }

    @Test func aKillCancelsTheRestOfTheSchedule() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let clock = Clock()
        let t0 = clock.read()
        let application = try Self.application(config, clock: clock)
        defer { application.shutdown(); application.waitUntilStopped() }
        let client = try TestClient(port: application.port)
        let body = #"{"schedule": [{"at": "\#(RFC3339.string(fromSeconds: t0 + 60))", "percentage": 80}]}"#
        #expect(try client.exchange("PUT", "/admin/rollouts/banner", token: ControlPlaneLiveTests.token, body: body).status == 200)
        #expect(try client.exchange("POST", "/admin/rollouts/banner/kill", token: ControlPlaneLiveTests.token).status == 200)
        clock.advance(to: t0 + 61)
        application.runScheduledWork()
        let banner = try Self.rollout(application)
        #expect(banner["percentage"]?.number == 10)
        #expect(banner["enabled"]?.bool == false)
        #expect(banner["schedule"]?.array.count == 0)
    }
}
