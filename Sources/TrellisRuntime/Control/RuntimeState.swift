import TrellisJSON
import TrellisStore

/// A rollout's or experiment's runtime document and the settings it holds, decoded once: when
/// the store is read, or by the write that planned them. Snapshots apply the settings; the bytes
/// are only for the store and its history.
public struct RuntimeValue<Settings: Sendable>: Sendable {
    public let document: StoredDocument
    /// The settings in force; nil when the document hands the value back to the configuration
    /// (``RuntimeState/resetBody``), or when it cannot be read (``problem``).
    package let settings: Settings?
    /// Why a stored document could not be read (written by a newer version, or damaged): the
    /// snapshot build reports it with its source.
    package let problem: DiagnosticsError?

    /// A value a write planned: its settings, encoded once into the document's body.
    package init(_ document: StoredDocument, settings: Settings?) {
        self.document = document
        self.settings = settings
        problem = nil
    }

    /// A value read from the store, decoded by `decode`.
    package init(stored document: StoredDocument, decode: ([UInt8], String) -> Result<Settings, DiagnosticsError>) {
        self.document = document
        guard document.body != RuntimeState.resetBody else {
            settings = nil
            problem = nil
            return
        }
        switch decode(document.body, "runtime \(document.kind) \(document.key)") {
        case .success(let decoded):
            settings = decoded
            problem = nil
        case .failure(let error):
            settings = nil
            problem = error
        }
    }

    /// Whether it overrides the configuration (stored and not reset).
    package var isOverride: Bool { document.body != RuntimeState.resetBody }
}

/// The runtime layer as the store last committed it. Every snapshot carries the one it was built
/// from, so admin reads answer from memory and the next write starts from it.
public struct RuntimeState: Sendable {
    package var rollouts: [String: RuntimeValue<RolloutValue>] = [:]
    package var experiments: [String: RuntimeValue<ExperimentValue>] = [:]
    package var rules: [String: RuntimeValue<RuleValue>] = [:]
    /// Admin writes waiting for approval or their time, and what became of them, by key.
    package var changeRequests: [String: RuntimeValue<ChangeRequest>] = [:]
    public var screens: ScreenMap<RevisionedDocument> = [:]
    /// The route table's revisions (``RevisionedKey/routeTable``).
    public var routes: RevisionedDocument?
    /// The targeting in force, one revision per change of it (``RevisionedKey/targeting``): the
    /// history `/admin/targeting/revisions` lists and a rollback copies from.
    public var targetingHistory: RevisionedDocument?
    /// Each locale's string table (``RevisionedKey/strings(_:)``), by locale.
    public var strings: [String: RevisionedDocument] = [:]
    /// Admin tokens and webhooks made at run time (RuntimeState+Operations.swift).
    public var operations = OperationalState()

    public init() {}

    /// The body of a document that hands a value back to the configuration: kept (not deleted) so
    /// that revisions keep counting up and the history says who reset it.
    package static let resetBody = Array("null".utf8)

    /// The stored document of `kind` and `key`, reset or not (revisions count on from it).
    package func document(kind: String, key: String) -> StoredDocument? {
        if OperationalState.kinds.contains(kind) { return operations.document(kind: kind, key: key) }
        return switch kind {
        case RolloutValue.kind: rollouts[key]?.document
        case ExperimentValue.kind: experiments[key]?.document
        case RuleValue.kind: rules[key]?.document
        case ChangeRequest.kind: changeRequests[key]?.document
        default: nil
        }
    }

    /// Whether `kind` `key` has a runtime value in force (stored and not reset).
    package func hasOverride(kind: String, key: String) -> Bool {
        document(kind: kind, key: key).map { $0.body != Self.resetBody } ?? false
    }

    /// Records a document the store holds (or will, once a change commits), decoding it unless the
    /// write that planned it gave its value.
    package mutating func record(_ document: StoredDocument, planned: PlannedSettings? = nil) {
        switch (document.kind, planned) {
        case (RolloutValue.kind, .rollout(let value)?): rollouts[document.key] = RuntimeValue(document, settings: value)
        case (ExperimentValue.kind, .experiment(let value)?): experiments[document.key] = RuntimeValue(document, settings: value)
        case (RuleValue.kind, .rule(let value)?): rules[document.key] = RuntimeValue(document, settings: value)
        case (RolloutValue.kind, _): rollouts[document.key] = RuntimeValue(stored: document, decode: RolloutValue.decode)
        case (ExperimentValue.kind, _): experiments[document.key] = RuntimeValue(stored: document, decode: ExperimentValue.decode)
        case (RuleValue.kind, _): rules[document.key] = RuntimeValue(stored: document, decode: RuleValue.decode)
        case (ChangeRequest.kind, _): changeRequests[document.key] = RuntimeValue(stored: document, decode: ChangeRequest.decode)
        case (let kind, _) where OperationalState.kinds.contains(kind): operations.record(document)
        default: break  // a kind a newer version writes; not ours to interpret
        }
    }

    /// How many targeting documents the store holds (reset ones too).
    public var documentCount: Int { rollouts.count + experiments.count + rules.count }

    /// The revisioned document of `key`: a screen, the route table or the targeting history.
    package func revisioned(_ key: RevisionedKey) -> RevisionedDocument? {
        switch key {
        case .screen(let id): screens[id]
        case .routeTable: routes
        case .targeting: targetingHistory
        case .strings(let locale): strings[locale]
        }
    }

    package mutating func setRevisioned(_ stored: RevisionedDocument) {
        switch stored.head.key {
        case .screen(let id): screens[id] = stored
        case .routeTable: routes = stored
        case .targeting: targetingHistory = stored
        case .strings(let locale): strings[locale] = stored
        }
    }

    public init(_ stored: StoredState) {
        for document in stored.documents { record(document) }
        for revisioned in stored.revisioned { setRevisioned(revisioned) }
    }
}

/// The value a write planned for one runtime document, so the snapshot it leads to applies it
/// without decoding the bytes it stores; a nil value hands the entry back to the configuration.
package enum PlannedSettings: Sendable {
    case rollout(RolloutValue?)
    case experiment(ExperimentValue?)
    case rule(RuleValue?)

    /// How a change's planned values are found by its documents: kinds share keys.
    package static func id(kind: String, key: String) -> String { kind + "/" + key }

    /// The document kind the value is stored under.
    package var kind: String {
        switch self {
        case .rollout: RolloutValue.kind
        case .experiment: ExperimentValue.kind
        case .rule: RuleValue.kind
        }
    }

    /// The document's body: the value encoded (the one time it is), or the reset body.
    package var body: [UInt8] {
        switch self {
        case .rollout(let value?): JSONWriter.encode(value.jsonValue)
        case .experiment(let value?): JSONWriter.encode(value.jsonValue)
        case .rule(let value?): JSONWriter.encode(value.jsonValue)
        case .rollout(nil), .experiment(nil), .rule(nil): RuntimeState.resetBody
        }
    }
}

extension RuntimeState {
    /// This state with each revision of `ids` that a snapshot serves holding the document of the
    /// screen served from it (``CheckedScreen/document``, deflated once prepared), instead of its own copy: read
    /// back from the store, or written by a publish, each is a second copy of that document (a
    /// catalogue of 10,000 screens would hold its JSON twice). Only a document byte for byte the
    /// same is shared: a revision served through a configuration file of equal content but other
    /// formatting keeps its own.
    package func sharingDocuments(
        of ids: some Collection<String>, served: ScreenMap<ScreenEntry>, staged: ScreenMap<StagedScreen>
    ) -> RuntimeState {
        @Sendable func shared(_ revision: DocumentRevision?, _ entry: ScreenEntry?) -> DocumentBytes? {
            guard let revision, let entry, revision.number == entry.revision, revision.fingerprint == entry.contentFingerprint,
                // One copy already (a start checks a file as its byte-equal stored revision), or two equal ones.
                revision.heldDocument.isShared(with: entry.checked.document) || entry.checked.document == revision.heldDocument
            else { return nil }
            return entry.checked.document
        }
        // Comparing the documents not shared yet (a publish's, a reload's), on every core.
        let found = ParallelMap.map(Array(ids)) { id in
            (id, current: shared(screens[id]?.current, served[id]), staged: shared(screens[id]?.staged, staged[id]?.entry))
        }
        var state = self
        for (id, current, staged) in found where current != nil || staged != nil {
            guard var stored = state.screens[id] else { continue }
            if let current, let entry = served[id] {
                stored.current.heldDocument = current
                // The equal fingerprints read from the store, as one string instead of three.
                stored.current.fingerprint = entry.contentFingerprint
                if stored.latestConfigFingerprint == entry.contentFingerprint { stored.latestConfigFingerprint = entry.contentFingerprint }
            }
            if let staged { stored.staged?.heldDocument = staged }
            state.screens[id] = stored
        }
        return state
    }
}
