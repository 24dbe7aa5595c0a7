import Foundation
import Testing
import TrellisStore

/// What every ``RuntimeStore`` promises of leases, webhook cursors, the delivery log and
/// retention, checked against each store.
@Suite(.postgresCluster) struct OperationsContractTests {
    @Test(arguments: StoreKind.allCases) func aLeaseHasOneHolderUntilItExpiresOrIsReleased(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        let other = try t.reopened()
        #expect(try t.store.claimLease("webhooks", holder: "a", now: 100, expiresAt: 130))
        #expect(try !other.claimLease("webhooks", holder: "b", now: 110, expiresAt: 140), "held by a")
        #expect(try t.store.claimLease("webhooks", holder: "a", now: 120, expiresAt: 150), "a renews")
        #expect(try !other.claimLease("webhooks", holder: "b", now: 140, expiresAt: 170), "the renewal holds until 150")
        #expect(try other.claimLease("webhooks", holder: "b", now: 151, expiresAt: 181), "expired: b takes it")
        #expect(try !t.store.claimLease("webhooks", holder: "a", now: 152, expiresAt: 182))
        #expect(try t.store.claimLease("retention", holder: "a", now: 152, expiresAt: 182), "leases are by name")
        try t.store.releaseLease("webhooks", holder: "a")  // not a's: nothing happens
        #expect(try !t.store.claimLease("webhooks", holder: "a", now: 153, expiresAt: 183))
        try other.releaseLease("webhooks", holder: "b")
        #expect(try t.store.claimLease("webhooks", holder: "a", now: 154, expiresAt: 184), "released: free at once")
    }

    @Test(arguments: StoreKind.allCases) func aCursorStartsBeforeItsWebhookAndMovesWithEachRecordedAttempt(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        for at in [10.0, 20, 30] {
            try t.store.commit(StoreChange(audit: [AuditDraft(at: at, actor: "ops", action: "rollout.update", resource: "rollouts/a", before: nil, after: nil)]))
        }
        // Created at 25: the entries of 10 and 20 are before it.
        #expect(try t.store.webhookCursor("chat", startingBefore: 25) == WebhookCursor(webhook: "chat", deliveredThrough: 2))
        // Once started, a cursor stays where it is.
        #expect(try t.store.webhookCursor("chat", startingBefore: 100).deliveredThrough == 2)
        #expect(try t.store.webhookCursor("empty-log", startingBefore: 5).deliveredThrough == 0)

        let failed = DeliveryAttempt(
            webhook: "chat", auditID: 3, event: "rollout.update", at: 40, attempt: 1, outcome: .failed, statusCode: 503,
            error: "HTTP 503", durationSeconds: 0.25)
        let retrying = WebhookCursor(webhook: "chat", deliveredThrough: 2, failedAttempts: 1, firstFailureAt: 40, nextAttemptAt: 41.5)
        try t.store.recordDelivery(failed, cursor: retrying)
        #expect(try t.reopened().webhookCursor("chat", startingBefore: 0) == retrying, "durable, and read back exactly")
        let delivered = DeliveryAttempt(
            webhook: "chat", auditID: 3, event: "rollout.update", at: 42, attempt: 2, outcome: .delivered, statusCode: 200,
            durationSeconds: 0.01)
        try t.store.recordDelivery(delivered, cursor: WebhookCursor(webhook: "chat", deliveredThrough: 3))
        #expect(try t.store.webhookCursor("chat", startingBefore: 0) == WebhookCursor(webhook: "chat", deliveredThrough: 3))

        let log = try t.store.deliveries(DeliveryQuery())
        #expect(log.map(\.outcome) == [.delivered, .failed], "newest first")
        var expected = failed
        expected.id = log[1].id
        #expect(log[1] == expected)
        #expect(log[0].id > log[1].id)
        #expect(try t.store.deliveries(DeliveryQuery(failuresOnly: true)).map(\.attempt) == [1])
        #expect(try t.store.deliveries(DeliveryQuery(webhook: "other")).isEmpty)
        #expect(try t.store.deliveries(DeliveryQuery(limit: 1)).count == 1)

        try t.store.forgetWebhooks(except: ["empty-log"])
        #expect(try t.store.deliveries(DeliveryQuery()).isEmpty)
        #expect(try t.store.webhookCursor("chat", startingBefore: 25).deliveredThrough == 2, "forgotten: starts again")
    }

    @Test(arguments: StoreKind.allCases) func theDeliveryLogKeepsTheNewestAttemptsOfEachWebhook(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        for index in 0..<(DeliveryAttempt.logLimit + 5) {
            let attempt = DeliveryAttempt(
                webhook: "busy", auditID: Int64(index + 1), event: "e", at: Double(index), attempt: 1, outcome: .delivered, durationSeconds: 0)
            try t.store.recordDelivery(attempt, cursor: WebhookCursor(webhook: "busy", deliveredThrough: Int64(index + 1)))
        }
        try t.store.recordDelivery(
            DeliveryAttempt(webhook: "quiet", auditID: 1, event: "e", at: 0, attempt: 1, outcome: .delivered, durationSeconds: 0),
            cursor: WebhookCursor(webhook: "quiet", deliveredThrough: 1))
        let busy = try t.store.deliveries(DeliveryQuery(limit: 5000, webhook: "busy"))
        #expect(busy.count == DeliveryAttempt.logLimit)
        #expect(busy.first?.auditID == Int64(DeliveryAttempt.logLimit + 5))
        #expect(busy.last?.auditID == 6)
        #expect(try t.store.deliveries(DeliveryQuery(webhook: "quiet")).count == 1)
    }

    @Test(arguments: StoreKind.allCases) func pruningKeepsTheNewestAndEveryServedRevision(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        // home: 1 (config), 2…9 published; current 3, staged 4; a pending request names 5.
        let revisions = [revision("home", 1, "c1", origin: .config)] + (2...9).map { revision("home", $0, "p\($0)") }
        try t.store.commit(StoreChange(
            revisions: revisions + [revision("about", 1, "a1", origin: .config), revision("about", 2, "a2", origin: .config)],
            heads: [
                DocumentHead(key: .screen("home"), current: 3, staged: 4, stagedBasisPoints: 500, version: 1, updatedAt: 0, updatedBy: "x"),
                DocumentHead(key: .screen("about"), current: 2, version: 1, updatedAt: 0, updatedBy: "x"),
            ]))
        let before = try t.store.load()
        let report = try t.store.prune(RetentionPolicy(revisionsPerScreen: 2, keepRevisions: ["home": [5], "about": [1]]))
        // home keeps 8, 9 (newest two), 3 and 4 (served), 1 (newest from the configuration), 5 (kept).
        #expect(try t.store.revisions(of: .screen("home")).map(\.number) == [1, 3, 4, 5, 8, 9])
        #expect(try t.store.revisions(of: .screen("about")).map(\.number) == [1, 2])
        #expect(report == PruneReport(revisions: 3, auditEntries: 0), "2, 6 and 7")
        #expect(try t.store.load() == before, "what is served, and the latest numbers and fingerprints, are as they were")
        #expect(try t.store.prune(RetentionPolicy(revisionsPerScreen: 2)) == PruneReport(revisions: 1, auditEntries: 0), "5 once unkept")
        #expect(try t.store.prune(RetentionPolicy()) == PruneReport(), "no limits: nothing goes")
        // The next revision still takes the next number.
        try t.store.commit(StoreChange(revisions: [revision("home", 10, "p10")]))
    }

    @Test(arguments: StoreKind.allCases) func pruningTheAuditSparesWhatAWebhookHasNotBeenGiven(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        for at in [10.0, 20, 30, 40] {
            try t.store.commit(StoreChange(audit: [AuditDraft(at: at, actor: "ops", action: "a", resource: "r", before: nil, after: nil)]))
        }
        _ = try t.store.webhookCursor("slow", startingBefore: 15)  // delivered through entry 1
        #expect(try t.store.prune(RetentionPolicy(auditBefore: 35)) == PruneReport(auditEntries: 1))
        #expect(try t.store.audit(AuditQuery()).map(\.id) == [2, 3, 4])
        try t.store.forgetWebhooks(except: [])
        #expect(try t.store.prune(RetentionPolicy(auditBefore: 35)) == PruneReport(auditEntries: 2))
        #expect(try t.store.audit(AuditQuery()).map(\.id) == [4])
        // Ids are never reused.
        try t.store.commit(StoreChange(audit: [audit("r")]))
        #expect(try t.store.audit(AuditQuery()).map(\.id) == [4, 5])
    }

    @Test(arguments: StoreKind.allCases) func aBackupOfAPrunedStoreHoldsWhatRemainsAndTheCursors(_ kind: StoreKind) throws {
        let t = try StoreUnderTest(kind)
        try t.store.commit(StoreChange(
            revisions: (1...4).map { revision("home", $0, "r\($0)") },
            heads: [DocumentHead(key: .screen("home"), current: 1, version: 1, updatedAt: 0, updatedBy: "x")],
            audit: [audit("screens/home")]))
        try t.store.prune(RetentionPolicy(revisionsPerScreen: 1))
        _ = try t.store.webhookCursor("chat", startingBefore: 2_000_000_000)
        let path = t.directory.appendingPathComponent("backup.sqlite").path
        try t.store.backup(to: path)
        let restored = try SQLiteStore(path: path)
        #expect(try restored.revisions(of: .screen("home")).map(\.number) == [1, 4])
        #expect(try restored.load() == (try t.store.load()))
        #expect(try restored.webhookCursor("chat", startingBefore: 0).deliveredThrough == 1)
    }
}
