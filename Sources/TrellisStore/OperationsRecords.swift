/// Where one webhook's deliveries stand: every audit entry up to ``deliveredThrough`` was delivered
/// to it (or given up on, or did not match its events), and the next one is being tried.
///
/// Cursors are operational state, not runtime state: writing one takes no change sequence and no
/// replica follows it; only the replica holding the delivery lease reads and writes them.
public struct WebhookCursor: Sendable, Equatable {
    public var webhook: String
    /// The id of the last audit entry handled; the next delivery is the first matching entry after it.
    public var deliveredThrough: Int64
    /// Failed attempts at the entry after ``deliveredThrough`` (0 when none failed).
    public var failedAttempts: Int
    /// When the first of those attempts failed (seconds since 1970), to give up a day later.
    public var firstFailureAt: Double?
    /// When to try that entry again.
    public var nextAttemptAt: Double?

    public init(webhook: String, deliveredThrough: Int64, failedAttempts: Int = 0, firstFailureAt: Double? = nil, nextAttemptAt: Double? = nil) {
        self.webhook = webhook
        self.deliveredThrough = deliveredThrough
        self.failedAttempts = failedAttempts
        self.firstFailureAt = firstFailureAt
        self.nextAttemptAt = nextAttemptAt
    }
}

/// How one attempt to deliver an audit entry to a webhook ended.
public enum DeliveryOutcome: String, Sendable, Equatable, CaseIterable {
    /// The receiver answered 2xx.
    case delivered
    /// No 2xx answer; it will be tried again.
    case failed
    /// No 2xx answer for the whole retry period: recorded and skipped, the next entry goes on.
    case abandoned
}

/// One attempt, as the delivery log keeps it.
public struct DeliveryAttempt: Sendable, Equatable {
    /// How many attempts of each webhook the delivery log keeps (the newest).
    public static let logLimit = 1000

    /// Increases with every attempt recorded (0 before it is).
    public var id: Int64
    public var webhook: String
    /// The audit entry delivered: with the webhook's name, the delivery's identity.
    public var auditID: Int64
    /// The entry's action, e.g. `rollout.update`.
    public var event: String
    /// When the attempt started (seconds since 1970).
    public var at: Double
    /// 1 for the first attempt at this entry, then one more for each.
    public var attempt: Int
    public var outcome: DeliveryOutcome
    /// The receiver's status code, when it answered.
    public var statusCode: Int?
    /// Why it failed, when it did (never the secret or the signature).
    public var error: String?
    public var durationSeconds: Double

    public init(
        id: Int64 = 0, webhook: String, auditID: Int64, event: String, at: Double, attempt: Int, outcome: DeliveryOutcome,
        statusCode: Int? = nil, error: String? = nil, durationSeconds: Double
    ) {
        self.id = id
        self.webhook = webhook
        self.auditID = auditID
        self.event = event
        self.at = at
        self.attempt = attempt
        self.outcome = outcome
        self.statusCode = statusCode
        self.error = error
        self.durationSeconds = durationSeconds
    }
}

/// Which delivery attempts to read: newest first.
public struct DeliveryQuery: Sendable, Equatable {
    public var limit: Int
    /// Only this webhook's.
    public var webhook: String?
    /// Only attempts that did not deliver (failed or abandoned).
    public var failuresOnly: Bool

    public init(limit: Int = 100, webhook: String? = nil, failuresOnly: Bool = false) {
        self.limit = limit
        self.webhook = webhook
        self.failuresOnly = failuresOnly
    }
}

/// What ``RuntimeStore/prune(_:)`` removes; nil limits keep everything of their kind.
public struct RetentionPolicy: Sendable, Equatable {
    /// Keep this many newest revisions of each screen (and of the route table); older ones go,
    /// except the ones a head serves (current or staged), the newest that came from a
    /// configuration file (the store tells a changed file by it), and ``keepRevisions``.
    public var revisionsPerScreen: Int?
    /// Audit entries written before this time (seconds since 1970) go, except those a webhook has
    /// not been given yet.
    public var auditBefore: Double?
    /// Revisions to keep whatever their age, by screen: those a pending change request names.
    public var keepRevisions: [String: Set<Int>]

    public init(revisionsPerScreen: Int? = nil, auditBefore: Double? = nil, keepRevisions: [String: Set<Int>] = [:]) {
        self.revisionsPerScreen = revisionsPerScreen
        self.auditBefore = auditBefore
        self.keepRevisions = keepRevisions
    }
}

/// How many rows a prune removed.
public struct PruneReport: Sendable, Equatable {
    public var revisions: Int
    public var auditEntries: Int

    public init(revisions: Int = 0, auditEntries: Int = 0) {
        self.revisions = revisions
        self.auditEntries = auditEntries
    }
}
