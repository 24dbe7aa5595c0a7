import TrellisStore

/// The runtime layer as the store last committed it. Every snapshot carries the one it was built
/// from, so admin reads answer from memory and the next write starts from it.
public struct RuntimeState: Sendable {
    public var rollouts: [String: StoredDocument] = [:]
    public var experiments: [String: StoredDocument] = [:]
    public var screens: [String: StoredScreen] = [:]
    /// The route table's revisions, kept by the store as a screen's are, under ``routeTableName``.
    public var routes: StoredScreen?

    /// The name the route table's revisions and head are stored under. The store keeps revisions
    /// per name and knows nothing of what they are; no screen id can start with `@`.
    public static let routeTableName = "@routes"

    public init() {}

    /// The body of a document that hands a value back to the configuration: kept (not deleted) so
    /// that revisions keep counting up and the history says who reset it.
    static let resetBody = Array("null".utf8)

    /// The stored document of `kind` and `key`, reset or not (revisions count on from it).
    func document(kind: String, key: String) -> StoredDocument? {
        kind == RolloutSettings.kind ? rollouts[key] : kind == ExperimentSettings.kind ? experiments[key] : nil
    }

    /// Whether `kind` `key` has a runtime value in force (stored and not reset).
    func hasOverride(kind: String, key: String) -> Bool { document(kind: kind, key: key).map { $0.body != Self.resetBody } ?? false }

    /// The revisioned document stored under `name`: a screen, or the route table.
    func revisioned(_ name: String) -> StoredScreen? { name == Self.routeTableName ? routes : screens[name] }

    mutating func setRevisioned(_ stored: StoredScreen) {
        if stored.head.screen == Self.routeTableName { routes = stored } else { screens[stored.head.screen] = stored }
    }

    public init(_ stored: StoredState) {
        for document in stored.documents {
            switch document.kind {
            case RolloutSettings.kind: rollouts[document.key] = document
            case ExperimentSettings.kind: experiments[document.key] = document
            default: break  // a kind a newer version writes; not ours to interpret
            }
        }
        for screen in stored.screens { setRevisioned(screen) }
    }
}
