import TrellisStore

/// The runtime layer as the store last committed it. Every snapshot carries the one it was built
/// from, so admin reads answer from memory and the next write starts from it.
public struct RuntimeState: Sendable {
    public var rollouts: [String: StoredDocument] = [:]
    public var experiments: [String: StoredDocument] = [:]
    public var screens: [String: StoredScreen] = [:]

    public init() {}

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
