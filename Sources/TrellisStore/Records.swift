/// A named JSON document ops can change: a rollout's or an experiment's runtime settings.
public struct StoredDocument: Sendable, Equatable {
    /// What kind of thing the document describes, e.g. `rollout` or `experiment`.
    public var kind: String
    public var key: String
    /// The JSON text of the settings, as the server encoded it.
    public var body: [UInt8]
    /// 1 for the first write, then one more for each.
    public var revision: Int
    /// Seconds since 1970 (UTC).
    public var updatedAt: Double
    /// The name of the token that made the change.
    public var updatedBy: String

    public init(kind: String, key: String, body: [UInt8], revision: Int, updatedAt: Double, updatedBy: String) {
        self.kind = kind
        self.key = key
        self.body = body
        self.revision = revision
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }
}

/// Where a screen revision came from.
public enum RevisionOrigin: String, Sendable, Equatable, CaseIterable {
    /// A file in the configuration directory, first seen or changed.
    case config
    /// Published through the admin API.
    case publish
    /// A copy of an earlier revision, made current by a rollback.
    case rollback
}

/// One immutable revision of one screen: the authored JSON as published.
public struct ScreenRevision: Sendable, Equatable {
    public var screen: String
    public var number: Int
    /// The authored screen document (JSON text).
    public var document: [UInt8] {
        get { heldDocument.bytes }
        set { heldDocument = DocumentBytes(newValue) }
    }
    /// The document as this revision holds it: deflated when it shares the copy a served screen keeps.
    public var heldDocument: DocumentBytes
    /// Identifies the content regardless of formatting, to tell a changed file from an unchanged one.
    public var fingerprint: String
    public var origin: RevisionOrigin
    /// For a rollback, the revision it copies.
    public var copiedFrom: Int?
    public var createdAt: Double
    public var createdBy: String

    public init(
        screen: String, number: Int, document: [UInt8], fingerprint: String, origin: RevisionOrigin, copiedFrom: Int? = nil,
        createdAt: Double, createdBy: String
    ) {
        self.init(
            screen: screen, number: number, held: DocumentBytes(document), fingerprint: fingerprint, origin: origin, copiedFrom: copiedFrom,
            createdAt: createdAt, createdBy: createdBy)
    }

    public init(
        screen: String, number: Int, held document: DocumentBytes, fingerprint: String, origin: RevisionOrigin, copiedFrom: Int? = nil,
        createdAt: Double, createdBy: String
    ) {
        self.screen = screen
        self.number = number
        heldDocument = document
        self.fingerprint = fingerprint
        self.origin = origin
        self.copiedFrom = copiedFrom
        self.createdAt = createdAt
        self.createdBy = createdBy
    }

    public var summary: ScreenRevisionSummary {
        ScreenRevisionSummary(
            number: number, fingerprint: fingerprint, origin: origin, copiedFrom: copiedFrom, createdAt: createdAt,
            createdBy: createdBy, bytes: heldDocument.count)
    }
}

/// A revision without its document, for listings.
public struct ScreenRevisionSummary: Sendable, Equatable {
    public var number: Int
    public var fingerprint: String
    public var origin: RevisionOrigin
    public var copiedFrom: Int?
    public var createdAt: Double
    public var createdBy: String
    /// The size of the document in bytes.
    public var bytes: Int
}

/// Which revisions of a screen are served: the current one to everybody, and optionally a staged
/// one to a share of users.
public struct ScreenHead: Sendable, Equatable {
    public var screen: String
    public var current: Int
    public var staged: Int?
    /// The share of users the staged revision is served to, in basis points (0…10000).
    public var stagedBasisPoints: Int?
    /// 1 for the first head, then one more for each change; the compare-and-set token.
    public var version: Int
    public var updatedAt: Double
    public var updatedBy: String

    public init(
        screen: String, current: Int, staged: Int? = nil, stagedBasisPoints: Int? = nil, version: Int, updatedAt: Double,
        updatedBy: String
    ) {
        self.screen = screen
        self.current = current
        self.staged = staged
        self.stagedBasisPoints = stagedBasisPoints
        self.version = version
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }
}

/// A screen as the store holds it: its head and the revisions the head names.
public struct StoredScreen: Sendable, Equatable {
    public var head: ScreenHead
    public var current: ScreenRevision
    public var staged: ScreenRevision?
    /// The highest revision number so far (the next one is this plus one).
    public var latestRevision: Int
    /// The fingerprint of the newest revision that came from the configuration directory, to tell
    /// whether the file changed since.
    public var latestConfigFingerprint: String?

    public init(
        head: ScreenHead, current: ScreenRevision, staged: ScreenRevision?, latestRevision: Int, latestConfigFingerprint: String?
    ) {
        self.head = head
        self.current = current
        self.staged = staged
        self.latestRevision = latestRevision
        self.latestConfigFingerprint = latestConfigFingerprint
    }
}

/// Everything ``RuntimeStore/load()`` returns.
public struct StoredState: Sendable, Equatable {
    public var documents: [StoredDocument]
    public var screens: [StoredScreen]
    /// The sequence of the newest change these rows include (0: none); read on from here with
    /// ``RuntimeStore/changes(after:)``.
    public var sequence: Int64

    public init(documents: [StoredDocument] = [], screens: [StoredScreen] = [], sequence: Int64 = 0) {
        self.documents = documents
        self.screens = screens
        self.sequence = sequence
    }

    public func document(kind: String, key: String) -> StoredDocument? {
        documents.first { $0.kind == kind && $0.key == key }
    }
}

/// What ``RuntimeStore/changes(after:)`` returns: the current rows of what changed after a sequence.
public struct StoredChanges: Sendable, Equatable {
    /// The sequence of the newest change included (audit-only changes count, though they write no
    /// rows here): the argument itself when nothing is new. Less than the argument only if the store
    /// went back (restored from a backup): then load it whole again.
    public var sequence: Int64
    /// Every document written after the sequence, as it is now.
    public var documents: [StoredDocument]
    /// Every screen whose head was written after the sequence, built as ``RuntimeStore/load()``
    /// builds it (head, current and staged revisions, latest revision, latest config fingerprint).
    public var screens: [StoredScreen]

    public init(sequence: Int64, documents: [StoredDocument] = [], screens: [StoredScreen] = []) {
        self.sequence = sequence
        self.documents = documents
        self.screens = screens
    }

    /// Nothing was written after the sequence (audit-only changes write no rows here).
    public var isEmpty: Bool { documents.isEmpty && screens.isEmpty }
}

/// One audit record as written: who did what to which resource, with the state before and after.
public struct AuditDraft: Sendable, Equatable {
    public var at: Double
    public var actor: String
    /// What was done, e.g. `rollout.update`, `rollout.kill`, `screen.publish`.
    public var action: String
    /// What it was done to, e.g. `rollouts/new-cards`, `screens/home`.
    public var resource: String
    /// The resource before and after, as JSON text; nil when it did not exist before or after.
    public var before: [UInt8]?
    public var after: [UInt8]?

    public init(at: Double, actor: String, action: String, resource: String, before: [UInt8]?, after: [UInt8]?) {
        self.at = at
        self.actor = actor
        self.action = action
        self.resource = resource
        self.before = before
        self.after = after
    }
}

/// A committed audit record with its position in the log.
public struct AuditEntry: Sendable, Equatable {
    /// Increases with every entry; pass it as ``AuditQuery/after`` to read on from here.
    public var id: Int64
    public var draft: AuditDraft
}

/// Which audit entries to read.
public struct AuditQuery: Sendable, Equatable {
    /// At most this many entries.
    public var limit: Int
    /// Only entries after this id, oldest first; nil means the newest `limit` entries.
    public var after: Int64?
    /// Only entries about this resource or anything under it (`screens` matches `screens/home`).
    public var resource: String?

    public init(limit: Int = 100, after: Int64? = nil, resource: String? = nil) {
        self.limit = limit
        self.after = after
        self.resource = resource
    }
}

/// What one admin action writes, all or nothing.
public struct StoreChange: Sendable, Equatable {
    /// Documents to write; each replaces the revision before it (`revision - 1`; 0 means new).
    public var documents: [StoredDocument] = []
    /// New screen revisions (never replaced).
    public var revisions: [ScreenRevision] = []
    /// Screen heads to write; each replaces `version - 1` (0 means new).
    public var heads: [ScreenHead] = []
    public var audit: [AuditDraft] = []

    public init(documents: [StoredDocument] = [], revisions: [ScreenRevision] = [], heads: [ScreenHead] = [], audit: [AuditDraft] = []) {
        self.documents = documents
        self.revisions = revisions
        self.heads = heads
        self.audit = audit
    }

    public var isEmpty: Bool { documents.isEmpty && revisions.isEmpty && heads.isEmpty && audit.isEmpty }

    /// Adds what `other` writes to this change, to be committed in the same transaction.
    public mutating func append(_ other: StoreChange) {
        documents += other.documents
        revisions += other.revisions
        heads += other.heads
        audit += other.audit
    }
}
