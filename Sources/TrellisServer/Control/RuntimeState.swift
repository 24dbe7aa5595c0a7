import TrellisJSON
import TrellisStore

/// A rollout's or experiment's runtime document and the settings it holds, decoded once: when
/// the store is read, or by the write that planned them. Snapshots apply the settings; the bytes
/// are only for the store and its history.
public struct RuntimeValue<Settings: Sendable>: Sendable {
    public let document: StoredDocument
    /// The settings in force; nil when the document hands the value back to the configuration
    /// (``RuntimeState/resetBody``), or when it cannot be read (``problem``).
    let settings: Settings?
    /// Why a stored document could not be read (written by a newer version, or damaged): the
    /// snapshot build reports it with its source.
    let problem: DiagnosticsError?

    /// A value a write planned: its settings, encoded once into the document's body.
    init(_ document: StoredDocument, settings: Settings?) {
        self.document = document
        self.settings = settings
        problem = nil
    }

    /// A value read from the store, decoded by `decode`.
    init(stored document: StoredDocument, decode: ([UInt8], String) -> Result<Settings, DiagnosticsError>) {
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
    var isOverride: Bool { document.body != RuntimeState.resetBody }
}

/// The runtime layer as the store last committed it. Every snapshot carries the one it was built
/// from, so admin reads answer from memory and the next write starts from it.
public struct RuntimeState: Sendable {
    var rollouts: [String: RuntimeValue<RolloutSettings>] = [:]
    var experiments: [String: RuntimeValue<ExperimentSettings>] = [:]
    public var screens: ScreenMap<StoredScreen> = [:]
    /// The route table's revisions, kept by the store as a screen's are, under ``routeTableName``.
    public var routes: StoredScreen?
    /// Admin tokens and webhooks made at run time (RuntimeState+Operations.swift).
    public var operations = OperationalState()

    /// The name the route table's revisions and head are stored under. The store keeps revisions
    /// per name and knows nothing of what they are; no screen id can start with `@`.
    public static let routeTableName = "@routes"

    public init() {}

    /// The body of a document that hands a value back to the configuration: kept (not deleted) so
    /// that revisions keep counting up and the history says who reset it.
    static let resetBody = Array("null".utf8)

    /// The stored document of `kind` and `key`, reset or not (revisions count on from it).
    func document(kind: String, key: String) -> StoredDocument? {
        if OperationalState.kinds.contains(kind) { return operations.document(kind: kind, key: key) }
        return kind == RolloutSettings.kind ? rollouts[key]?.document : kind == ExperimentSettings.kind ? experiments[key]?.document : nil
    }

    /// Whether `kind` `key` has a runtime value in force (stored and not reset).
    func hasOverride(kind: String, key: String) -> Bool {
        kind == RolloutSettings.kind ? rollouts[key]?.isOverride ?? false : experiments[key]?.isOverride ?? false
    }

    /// Records a document the store holds (or will, once a change commits), decoding it unless the
    /// write that planned it gave its settings.
    mutating func record(_ document: StoredDocument, planned: PlannedSettings? = nil) {
        switch (document.kind, planned) {
        case (RolloutSettings.kind, .rollout(let settings)?): rollouts[document.key] = RuntimeValue(document, settings: settings)
        case (ExperimentSettings.kind, .experiment(let settings)?): experiments[document.key] = RuntimeValue(document, settings: settings)
        case (RolloutSettings.kind, _): rollouts[document.key] = RuntimeValue(stored: document, decode: RolloutSettings.decode)
        case (ExperimentSettings.kind, _): experiments[document.key] = RuntimeValue(stored: document, decode: ExperimentSettings.decode)
        case (let kind, _) where OperationalState.kinds.contains(kind): operations.record(document)
        default: break  // a kind a newer version writes; not ours to interpret
        }
    }

    /// How many rollout and experiment documents the store holds (reset ones too).
    public var documentCount: Int { rollouts.count + experiments.count }

    /// The revisioned document stored under `name`: a screen, or the route table.
    func revisioned(_ name: String) -> StoredScreen? { name == Self.routeTableName ? routes : screens[name] }

    mutating func setRevisioned(_ stored: StoredScreen) {
        if stored.head.screen == Self.routeTableName { routes = stored } else { screens[stored.head.screen] = stored }
    }

    public init(_ stored: StoredState) {
        for document in stored.documents { record(document) }
        for screen in stored.screens { setRevisioned(screen) }
    }
}

/// The settings a write planned for one runtime document, so the snapshot it leads to applies them
/// without decoding the bytes it stores; nil settings hand the value back to the configuration.
enum PlannedSettings: Sendable {
    case rollout(RolloutSettings?)
    case experiment(ExperimentSettings?)

    /// The document kind the settings are stored under.
    var kind: String {
        switch self {
        case .rollout: RolloutSettings.kind
        case .experiment: ExperimentSettings.kind
        }
    }

    /// The document's body: the settings encoded (the one time they are), or the reset body.
    var body: [UInt8] {
        switch self {
        case .rollout(let settings?): JSONWriter.encode(settings.jsonValue)
        case .experiment(let settings?): JSONWriter.encode(settings.jsonValue)
        case .rollout(nil), .experiment(nil): RuntimeState.resetBody
        }
    }
}

extension RuntimeState {
    /// This state with every served revision whose document is byte for byte a configuration
    /// file's holding the file's buffer instead of its own: read back from the store at start, each
    /// is a second copy of the file (a catalogue of 10,000 screens would hold its JSON twice).
    func sharingDocuments(with baseline: ConfigBaseline) -> RuntimeState {
        var shared = self
        for (id, stored) in screens {
            guard let file = baseline.screens[id], stored.current.fingerprint == file.fingerprint, stored.current.document == file.bytes
            else { continue }
            var revision = stored
            revision.current.document = file.bytes
            shared.screens[id] = revision
        }
        return shared
    }
}
