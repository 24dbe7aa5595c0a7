import TrellisStore

/// The runtime layer as the store last committed it. Every snapshot carries the one it was built
/// from, so admin reads answer from memory and the next write starts from it.
public struct RuntimeState: Sendable {
    public var rollouts: [String: StoredDocument] = [:]
    public var experiments: [String: StoredDocument] = [:]
    public var screens: [String: StoredScreen] = [:]

    public init() {}

    /// The body of a document that hands a value back to the configuration: kept (not deleted) so
    /// that revisions keep counting up and the history says who reset it.
    static let resetBody = Array("null".utf8)

    /// The runtime value of rollout `key`, unless there is none or it was reset.
    func rolloutOverride(_ key: String) -> StoredDocument? { rollouts[key].flatMap(Self.inForce) }
    /// The runtime value of experiment `key`, unless there is none or it was reset.
    func experimentOverride(_ key: String) -> StoredDocument? { experiments[key].flatMap(Self.inForce) }

    /// The stored document of `kind` and `key`, reset or not (revisions count on from it).
    func document(kind: String, key: String) -> StoredDocument? {
        kind == RolloutSettings.kind ? rollouts[key] : kind == ExperimentSettings.kind ? experiments[key] : nil
    }

    private static func inForce(_ document: StoredDocument) -> StoredDocument? { document.body == resetBody ? nil : document }

    public init(_ stored: StoredState) {
        for document in stored.documents {
            switch document.kind {
            case RolloutSettings.kind: rollouts[document.key] = document
            case ExperimentSettings.kind: experiments[document.key] = document
            default: break  // a kind a newer version writes; not ours to interpret
            }
        }
        for screen in stored.screens { screens[screen.head.screen] = screen }
    }
}
