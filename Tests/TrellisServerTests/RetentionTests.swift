import Foundation
import Testing
import TrellisRuntime
import TrellisStore
import TrellisTesting

/// `storage.retention` on the real binary: old revisions and audit entries go in the background,
/// never a revision in service, and `trellis backup` takes everything that remains.
@Suite(.serialized) struct RetentionTests {
    @Test func retentionPrunesOldRevisionsAndAuditButNeverServedOnesAndBackupStillWorks() throws {
        let config = try TemporaryConfig(screens: ["home": AdminFlowTests.screen("Hello")])
        try config.write(targeting: AdminFlowTests.targeting)
        let server = try ServedBinary(
            config: config, extra: #""storage": {"retention": {"revisionsPerScreen": 1, "auditDays": 1, "intervalSeconds": 1}}"#)
        // An audit entry from long ago, in the store the server will open.
        try FileManager.default.createDirectory(at: server.dataDirectory, withIntermediateDirectories: true)
        let seeded = try SQLiteStore(path: server.dataDirectory.appendingPathComponent(SQLiteStore.fileName).path)
        try seeded.commit(StoreChange(audit: [
            AuditDraft(at: 1_600_000_000, actor: "old", action: "rollout.update", resource: "rollouts/banner", before: nil, after: nil)
        ]))
        try server.start()
        defer { server.stop() }

        // Revision 1 from the file; 2, 3, 4 published (4 current); 5 staged.
        for text in ["Two", "Three", "Four"] {
            #expect(try server.request("PUT", "/admin/screens/home", body: AdminFlowTests.screen(text)).status == 200)
        }
        #expect(try server.request("PUT", "/admin/screens/home?stage=50", body: AdminFlowTests.screen("Five")).status == 200)

        func numbers() throws -> [Double] {
            try server.request("GET", "/admin/screens/home/revisions").json["revisions"]?.array.compactMap { $0["revision"]?.number } ?? []
        }
        // Kept: 5 (the newest one, and staged), 4 (current, though not among the newest one), 1
        // (the newest from the file, which tells the next start that the file did not change).
        let kept: [Double] = [1, 4, 5]
        let pruned = try WebhookTests.eventually { try numbers() == kept }
        #expect(pruned, "\((try? numbers()) ?? [])")
        let audit = try server.request("GET", "/admin/audit?limit=1000").json["entries"]?.array ?? []
        #expect(!audit.contains { $0["actor"]?.string == "old" }, "older than a day")
        #expect(audit.filter { $0["resource"]?.string == "screens/home" }.count == 5, "this session's entries stay: the import, three publishes, a stage")
        let texts = Set((0..<40).compactMap { index in
            try? server.request("GET", "/v1/screens/home?user=u\(index)", token: nil).json["root"]?["subviews"]?.array
                .first { $0["id"]?.string == "greeting" }?["values"]?["text"]?.string
        })
        #expect(texts == ["Four", "Five"], "both served revisions still serve")

        let copy = config.url.appendingPathComponent("backup.sqlite").path
        let (status, output) = try CommandLineTests.run(["backup", "--data-dir", server.dataDirectory.path, "--to", copy])
        #expect(status == 0, "\(output)")
        let restored = try SQLiteStore(path: copy)
        #expect(try restored.revisions(of: .screen("home")).map(\.number) == [1, 4, 5])
        #expect(try restored.audit(AuditQuery(limit: 1000)).count == audit.count)

        // A restart finds the file unchanged (revision 1 is still the newest from it) and serves on.
        server.stop()
        try server.start()
        #expect(try numbers() == [1, 4, 5])
        #expect(try server.request("GET", "/v1/screens/home?user=u1", token: nil).status == 200)
    }
}
