import Dispatch
import Foundation
import Logging
import Metrics
import Synchronization
import TrellisStore

/// Delivers the audit log to webhooks: the log is the outbox. An audit entry is committed in the
/// same transaction as its change, and each webhook's cursor (the last entry handled) is in the
/// store, so nothing committed is lost to a crash or a restart between commit and send; an entry
/// whose delivery was not recorded is sent again (at least once, each delivery id the same).
///
/// Per webhook, in audit order: one entry at a time, the next only once it was delivered (2xx) or
/// abandoned — retried with exponential backoff and jitter for ``retrySeconds`` (a day), then
/// recorded as abandoned and skipped. Only the replica holding the `webhooks` lease in the store
/// delivers, so replicas sharing PostgreSQL do not send twice. All of it runs on one queue of its
/// own, never on an event loop or the write queue.
package final class WebhookDeliverer: Sendable {
    package static let leaseName = "webhooks"
    /// How long a claim holds; renewed when less than ``renewWithinSeconds`` is left. Longer than
    /// one attempt can take (connect and answer timeouts), so a holder renews between attempts.
    package static let leaseSeconds = 30.0
    package static let renewWithinSeconds = 20.0
    /// How often the log is read for new entries.
    package static let pollSeconds = 0.5
    /// Entries read per webhook per look.
    package static let batchSize = 100
    /// The first retry comes after about this long, each next one after twice as long, up to ``maximumBackoffSeconds``.
    package static let firstBackoffSeconds = 1.0
    package static let maximumBackoffSeconds = 600.0

    private let store: any RuntimeStore
    private let published: PublishedSnapshot
    private let configured: [WebhookSubscription]
    private let retrySeconds: Double
    private let clock: @Sendable () -> Double
    private let logger: Logger
    private let transport: any WebhookTransport
    private let queue = DispatchQueue(label: "trellis.webhooks")
    /// Who this process is in the lease.
    private let holder: String
    /// When this process started: webhooks from `server.json` get what happens from then on.
    private let startedAt: Double
    private let outcomes: [DeliveryOutcome: Counter]
    /// Touched only on `queue`.
    private let work = Mutex(Work())

    private struct Work {
        /// When the lease this process holds runs out; nil when it holds none.
        package var leaseUntil: Double?
        /// The cursors, read once the lease is claimed: while it holds the lease, this process is
        /// their only writer.
        package var cursors: [String: WebhookCursor] = [:]
        /// Whether the store's cursors of deleted webhooks are still to be dropped: once per lease.
        package var forgetPending = true
        /// The last store failure logged, so that an outage is logged once, not on every look.
        package var storeProblem: String?
        package var stopped = false
    }

    /// - Parameter holder: who this process is in the lease: the same for a restart of the same
    ///   node (host and data directory), so that a restarted node takes its lease back at once
    ///   instead of waiting for it to run out; different for every replica.
    package init(
        store: any RuntimeStore, published: PublishedSnapshot, webhooks: [WebhookSubscription], retrySeconds: Double, holder: String,
        transport: any WebhookTransport, clock: @escaping @Sendable () -> Double, metricsFactory: any MetricsFactory, logger: Logger
    ) {
        self.transport = transport
        self.store = store
        self.published = published
        configured = webhooks
        self.retrySeconds = retrySeconds
        self.clock = clock
        self.logger = logger
        startedAt = clock()
        self.holder = holder
        var outcomes: [DeliveryOutcome: Counter] = [:]
        for outcome in DeliveryOutcome.allCases {
            outcomes[outcome] = Counter(
                label: "trellis_webhook_deliveries_total", dimensions: [("outcome", outcome.rawValue)], factory: metricsFactory)
        }
        self.outcomes = outcomes
    }

    /// Looks at the log every ``pollSeconds`` from now on.
    package func start() { schedule(after: 0) }

    private func schedule(after seconds: Double) {
        queue.asyncAfter(deadline: .now() + seconds) { [self] in
            guard !work.withLock({ $0.stopped }) else { return }
            deliverDue()
            schedule(after: Self.pollSeconds)
        }
    }

    /// Stops looking, and gives the lease up so another replica takes over at once (without
    /// waiting for an attempt in progress, which ends within its timeouts).
    package func stop() {
        work.withLock { $0.stopped = true }
        queue.async { [store, holder] in try? store.releaseLease(Self.leaseName, holder: holder) }
    }

    private func webhooks() -> [WebhookSubscription] { published.snapshot.runtime.operations.webhooks(configured: configured) }

    /// One look: every webhook's due entries, while the lease is held.
    private func deliverDue() {
        dispatchPrecondition(condition: .onQueue(queue))
        let webhooks = webhooks()
        // Nobody to deliver to: no lease claimed, nothing written (the retention sweep drops the
        // cursors of webhooks deleted while no replica held the lease).
        guard !webhooks.isEmpty || !work.withLock({ $0.cursors.isEmpty }) else { return }
        guard !work.withLock({ $0.stopped }), holdsLease() else { return }
        forgetDeleted(webhooks)
        for webhook in webhooks {
            guard holdsLease() else { return }
            do {
                try deliver(to: webhook)
            } catch {
                noteStoreProblem("the store failed while delivering to \(webhook.name)", error)
                return
            }
        }
        let recovered = work.withLock { work in
            defer { work.storeProblem = nil }
            return work.storeProblem != nil
        }
        if recovered { logger.info("webhook deliveries resumed") }
    }

    /// Claims or renews the lease when it is missing or near its end. A process that loses it
    /// forgets its cursors: another replica may move them meanwhile.
    private func holdsLease() -> Bool {
        let now = clock()
        if let until = work.withLock({ $0.leaseUntil }), until - now > Self.leaseSeconds - Self.renewWithinSeconds {
            return true
        }
        let held: Bool
        do {
            held = try store.claimLease(Self.leaseName, holder: holder, now: now, expiresAt: now + Self.leaseSeconds)
        } catch {
            noteStoreProblem("cannot claim the webhook delivery lease", error)
            return false
        }
        work.withLock { work in
            if held != (work.leaseUntil != nil) {
                work.cursors = [:]
                work.forgetPending = true
            }
            work.leaseUntil = held ? now + Self.leaseSeconds : nil
        }
        return held
    }

    /// Drops the cursors of webhooks that were deleted, here and in the store: at the first look
    /// with the lease (deleted while nobody delivered), then whenever one goes.
    private func forgetDeleted(_ webhooks: [WebhookSubscription]) {
        let names = Set(webhooks.map(\.name))
        let (pending, gone) = work.withLock { work in (work.forgetPending, work.cursors.keys.filter { !names.contains($0) }) }
        guard pending || !gone.isEmpty else { return }
        do {
            try store.forgetWebhooks(except: names)
            work.withLock { work in
                for name in gone { work.cursors[name] = nil }
                work.forgetPending = false
            }
        } catch {
            noteStoreProblem("cannot forget deleted webhooks", error)
        }
    }

    /// Logs a store failure once until another one, or success, comes.
    private func noteStoreProblem(_ what: String, _ error: StoreError) {
        let problem = "\(what): \(error)"
        let isNew = work.withLock { work in
            defer { work.storeProblem = problem }
            return work.storeProblem != problem
        }
        if isNew { logger.error("webhook deliveries paused", metadata: ["problem": "\(problem)"]) }
    }

    /// Sends `webhook` its entries after its cursor, in order, until one fails or none are left.
    private func deliver(to webhook: WebhookSubscription) throws(StoreError) {
        var cursor = try currentCursor(of: webhook)
        if let next = cursor.nextAttemptAt, clock() < next { return }
        let entries = try store.audit(AuditQuery(limit: Self.batchSize, after: cursor.deliveredThrough))
        var skipped = false
        for entry in entries {
            guard webhook.wants(entry.draft.action) else {
                cursor.deliveredThrough = entry.id
                skipped = true
                continue
            }
            guard !work.withLock({ $0.stopped }), holdsLease() else { break }
            let attempt = attemptDelivery(of: entry, to: webhook, cursor: &cursor)
            try record(attempt, cursor)
            skipped = false
            if attempt.outcome == .failed { break }
        }
        if skipped { try record(nil, cursor) }
    }

    private func currentCursor(of webhook: WebhookSubscription) throws(StoreError) -> WebhookCursor {
        if let cursor = work.withLock({ $0.cursors[webhook.name] }) { return cursor }
        let cursor = try store.webhookCursor(webhook.name, startingBefore: webhook.createdAt ?? startedAt)
        work.withLock { $0.cursors[webhook.name] = cursor }
        return cursor
    }

    /// Writes the attempt (if any) and the cursor, and keeps the cursor for the next look.
    private func record(_ attempt: DeliveryAttempt?, _ cursor: WebhookCursor) throws(StoreError) {
        try store.recordDelivery(attempt, cursor: cursor)
        work.withLock { $0.cursors[cursor.webhook] = cursor }
        if let attempt { outcomes[attempt.outcome]?.increment() }
    }

    /// One POST of `entry`; `cursor` moves past it when it was delivered or abandoned, and
    /// otherwise counts the failure and says when to try again.
    private func attemptDelivery(of entry: AuditEntry, to webhook: WebhookSubscription, cursor: inout WebhookCursor) -> DeliveryAttempt {
        let started = clock()
        let number = cursor.failedAttempts + 1
        let request = WebhookRequest(entry: entry, webhook: webhook, attempt: number, at: started)
        var statusCode: Int?
        var error: String?
        do {
            statusCode = try transport.post(webhook.url, headers: request.headers, body: request.body)
            if let code = statusCode, !(200...299).contains(code) { error = "the receiver answered \(code)" }
        } catch let failure {
            error = failure.description
        }
        let now = clock()
        var outcome = DeliveryOutcome.delivered
        if error != nil {
            let firstFailure = cursor.firstFailureAt ?? started
            outcome = now - firstFailure >= retrySeconds ? .abandoned : .failed
            if outcome == .failed {
                cursor.failedAttempts = number
                cursor.firstFailureAt = firstFailure
                cursor.nextAttemptAt = now + Self.backoff(afterFailures: number)
            } else {
                logger.error(
                    "webhook delivery abandoned after retrying", metadata: ["webhook": "\(webhook.name)", "delivery": "\(entry.id)", "error": "\(error ?? "")"])
            }
        }
        if outcome != .failed { cursor = WebhookCursor(webhook: webhook.name, deliveredThrough: entry.id) }
        return DeliveryAttempt(
            webhook: webhook.name, auditID: entry.id, event: entry.draft.action, at: started, attempt: number, outcome: outcome,
            statusCode: statusCode, error: error, durationSeconds: now - started)
    }

    /// The wait before the attempt after `failures` failed ones: doubling from
    /// ``firstBackoffSeconds`` up to ``maximumBackoffSeconds``, each drawn between half and all of
    /// it (jitter, so receivers coming back are not hit by every sender at once).
    package static func backoff(afterFailures failures: Int) -> Double {
        let full = min(maximumBackoffSeconds, firstBackoffSeconds * pow(2, Double(min(failures - 1, 30))))
        return full * Double.random(in: 0.5...1.0)
    }
}

/// How a delivery reaches its receiver: one POST, answered with the receiver's status code, or
/// thrown why not. The server's is ``WebhookHTTPClient`` (HTTP/1.1, TLS through TrellisHTTP);
/// delivery itself knows only this.
package protocol WebhookTransport: Sendable {
    func post(_ url: WebhookURL, headers: [(String, String)], body: [UInt8]) throws(WebhookTransportFailure) -> Int
}

/// Why a POST got no status code, for the delivery log.
package struct WebhookTransportFailure: Error, CustomStringConvertible {
    package var description: String

    package init(description: String) { self.description = description }
}
