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

/// What a revisioned document is: one screen, the route table, the targeting history, or one
/// locale's string table. Each is kept in immutable revisions with a head naming the one in force;
/// the store files them under ``name``, a screen's id or a name no screen id can take.
public enum RevisionedKey: Hashable, Sendable, CustomStringConvertible {
    case screen(String)
    case routeTable
    case targeting
    /// The string table of a locale (`de-AT`).
    case strings(String)

    public init(name: String) {
        switch name {
        case Self.routeTableName: self = .routeTable
        case Self.targetingName: self = .targeting
        case _ where name.hasPrefix(Self.stringsPrefix): self = .strings(String(name.dropFirst(Self.stringsPrefix.count)))
        default: self = .screen(name)
        }
    }

    /// The name the store files it under (a column of its rows).
    public var name: String {
        switch self {
        case .screen(let id): id
        case .routeTable: Self.routeTableName
        case .targeting: Self.targetingName
        case .strings(let locale): Self.stringsPrefix + locale
        }
    }

    public var description: String { name }

    /// Screen ids are identifiers, which never start with `@`.
    private static let routeTableName = "@routes"
    private static let targetingName = "@targeting"
    private static let stringsPrefix = "@strings/"
}

/// One immutable revision of a revisioned document (``RevisionedKey``): its JSON as published.
public struct DocumentRevision: Sendable, Equatable {
    public var key: RevisionedKey
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
        key: RevisionedKey, number: Int, document: [UInt8], fingerprint: String, origin: RevisionOrigin, copiedFrom: Int? = nil,
        createdAt: Double, createdBy: String
    ) {
        self.init(
            key: key, number: number, held: DocumentBytes(document), fingerprint: fingerprint, origin: origin, copiedFrom: copiedFrom,
            createdAt: createdAt, createdBy: createdBy)
    }

    public init(
        key: RevisionedKey, number: Int, held document: DocumentBytes, fingerprint: String, origin: RevisionOrigin, copiedFrom: Int? = nil,
        createdAt: Double, createdBy: String
    ) {
        self.key = key
        self.number = number
        heldDocument = document
        self.fingerprint = fingerprint
        self.origin = origin
        self.copiedFrom = copiedFrom
        self.createdAt = createdAt
        self.createdBy = createdBy
    }

    public var summary: DocumentRevisionSummary {
        DocumentRevisionSummary(
            number: number, fingerprint: fingerprint, origin: origin, copiedFrom: copiedFrom, createdAt: createdAt,
            createdBy: createdBy, bytes: heldDocument.count)
    }
}

/// A revision without its document, for listings.
public struct DocumentRevisionSummary: Sendable, Equatable {
    public var number: Int
    public var fingerprint: String
    public var origin: RevisionOrigin
    public var copiedFrom: Int?
    public var createdAt: Double
    public var createdBy: String
    /// The size of the document in bytes.
    public var bytes: Int
}

/// Which revisions of a revisioned document are in force: the current one for everybody, and
/// optionally (a screen's) a staged one for a share of users.
public struct DocumentHead: Sendable, Equatable {
    public var key: RevisionedKey
    public var current: Int
    public var staged: Int?
    /// The share of users the staged revision is served to, in basis points (0…10000).
    public var stagedBasisPoints: Int?
    /// 1 for the first head, then one more for each change; the compare-and-set token.
    public var version: Int
    public var updatedAt: Double
    public var updatedBy: String

    public init(
        key: RevisionedKey, current: Int, staged: Int? = nil, stagedBasisPoints: Int? = nil, version: Int, updatedAt: Double,
        updatedBy: String
    ) {
        self.key = key
        self.current = current
        self.staged = staged
        self.stagedBasisPoints = stagedBasisPoints
        self.version = version
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }
}

/// A revisioned document as the store holds it: its head and the revisions the head names.
public struct RevisionedDocument: Sendable, Equatable {
    public var head: DocumentHead
    public var current: DocumentRevision
    public var staged: DocumentRevision?
    /// The highest revision number so far (the next one is this plus one).
    public var latestRevision: Int
    /// The fingerprint of the newest revision that came from the configuration directory, to tell
    /// whether the file changed since.
    public var latestConfigFingerprint: String?

    public init(
        head: DocumentHead, current: DocumentRevision, staged: DocumentRevision?, latestRevision: Int, latestConfigFingerprint: String?
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
    public var revisioned: [RevisionedDocument]
    /// The sequence of the newest change these rows include (0: none); read on from here with
    /// ``RuntimeStore/changes(after:)``.
    public var sequence: Int64

    public init(documents: [StoredDocument] = [], revisioned: [RevisionedDocument] = [], sequence: Int64 = 0) {
        self.documents = documents
        self.revisioned = revisioned
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
    /// Every revisioned document whose head was written after the sequence, built as
    /// ``RuntimeStore/load()`` builds it (head, current and staged revisions, latest revision,
    /// latest config fingerprint).
    public var revisioned: [RevisionedDocument]

    public init(sequence: Int64, documents: [StoredDocument] = [], revisioned: [RevisionedDocument] = []) {
        self.sequence = sequence
        self.documents = documents
        self.revisioned = revisioned
    }

    /// Nothing was written after the sequence (audit-only changes write no rows here).
    public var isEmpty: Bool { documents.isEmpty && revisioned.isEmpty }
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
    public var revisions: [DocumentRevision] = []
    /// Screen heads to write; each replaces `version - 1` (0 means new).
    public var heads: [DocumentHead] = []
    public var audit: [AuditDraft] = []

    public init(documents: [StoredDocument] = [], revisions: [DocumentRevision] = [], heads: [DocumentHead] = [], audit: [AuditDraft] = []) {
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
