import Atomics
import TrellisJSON
import TrellisScreens
import TrellisTargeting
import TrellisText

/// One screen ready to resolve: the model, its revision, and its decision points.
public struct ScreenEntry: Sendable {
    public let screen: Screen
    public let revision: Int
    /// Every Rule and Experiment of the screen, found once at load time.
    public let decisions: ScreenDecisions
    /// Identifies the screen's content regardless of revision, to tell a changed file on reload.
    public let contentFingerprint: String

    public init(screen: Screen, revision: Int, resolver: ScreenResolver) {
        self.screen = screen
        self.revision = revision
        decisions = resolver.decisions(of: screen)
        contentFingerprint = Self.contentFingerprint(of: screen)
    }

    static func contentFingerprint(of screen: Screen) -> String {
        EncodedBody.fingerprint(JSONWriter.encode(screen.jsonValue(revision: 0)))
    }
}

/// Everything a request reads, frozen. A reload builds a new snapshot beside the old one and
/// publishes it by swapping one reference; a request keeps the snapshot it started with.
public final class Snapshot: Sendable, AtomicReference {
    public let screens: [String: ScreenEntry]
    public let targeting: TargetingConfiguration
    public let evaluator: Evaluator
    public let resolver: ScreenResolver
    /// The font metrics packs of `fonts/*.trfm`, for measuring text in layouts; empty without them.
    public let fonts: FontCollection
    /// `GET /v1/screens`, pre-encoded: compact and pretty.
    public let screenList: (compact: EncodedBody, pretty: EncodedBody)
    /// Answers resolved from this snapshot; a new snapshot starts with an empty cache.
    public let answers: AnswerCache
    /// Counts the snapshots this process has published, starting at 1.
    public let generation: Int

    public init(
        screens: [String: ScreenEntry], targeting: TargetingConfiguration, resolver: ScreenResolver, generation: Int,
        fonts: FontCollection = FontCollection()
    ) {
        self.screens = screens
        self.fonts = fonts
        self.targeting = targeting
        self.evaluator = Evaluator(targeting)
        self.resolver = resolver
        self.generation = generation
        self.answers = AnswerCache()
        let list = Self.listValue(screens.values.sorted { $0.screen.id < $1.screen.id })
        screenList = (EncodedBody(bytes: JSONWriter.encode(list)), EncodedBody(bytes: JSONWriter.encode(list, style: .pretty)))
    }

    private static func listValue(_ entries: [ScreenEntry]) -> JSONValue {
        .object([
            (
                "screens",
                .array(
                    entries.map { entry in
                        var members: [(String, JSONValue)] = [
                            ("id", .string(entry.screen.id)), ("revision", .number(entry.revision)),
                            ("schemaVersion", .number(entry.screen.schemaVersion)),
                        ]
                        if let title = entry.screen.title { members.append(("title", .string(title))) }
                        return .object(members)
                    })
            )
        ])
    }
}

/// Holds the current snapshot. Reads are one atomic load: no lock in the request path.
public final class SnapshotStore: Sendable {
    private let current: ManagedAtomic<Snapshot>

    public init(_ snapshot: Snapshot) { current = ManagedAtomic(snapshot) }

    /// The snapshot to use for the whole of one request.
    public var snapshot: Snapshot { current.load(ordering: .acquiring) }

    /// Publishes `snapshot` for every request that starts from now on.
    public func publish(_ snapshot: Snapshot) { current.store(snapshot, ordering: .releasing) }
}
