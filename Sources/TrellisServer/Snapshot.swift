import Atomics
import TrellisJSON
import TrellisScreens

/// One screen ready to serve: the model and its answer, pre-encoded compact and pretty.
public struct ScreenEntry: Sendable {
    public let screen: Screen
    public let revision: Int
    public let compact: EncodedBody
    public let pretty: EncodedBody
    /// Identifies the screen's content regardless of revision, to tell a changed file on reload.
    public let contentFingerprint: String

    /// Encodes `screen` at `revision` once, for every answer that serves it.
    public init(screen: Screen, revision: Int, compress: ([UInt8]) -> [UInt8]?) {
        self.screen = screen
        self.revision = revision
        let value = screen.jsonValue(revision: revision)
        compact = EncodedBody(bytes: JSONWriter.encode(value), compress: compress)
        pretty = EncodedBody(bytes: JSONWriter.encode(value, style: .pretty), compress: compress)
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
    /// `GET /v1/screens`, pre-encoded.
    public let screenList: ScreenEntryList
    /// Counts the snapshots this process has published, starting at 1.
    public let generation: Int

    public init(screens: [String: ScreenEntry], generation: Int, compress: ([UInt8]) -> [UInt8]?) {
        self.screens = screens
        self.generation = generation
        self.screenList = ScreenEntryList(screens.values.sorted { $0.screen.id < $1.screen.id }, compress: compress)
    }
}

/// The list of screens, as served by `GET /v1/screens`.
public struct ScreenEntryList: Sendable {
    public let compact: EncodedBody
    public let pretty: EncodedBody

    init(_ entries: [ScreenEntry], compress: ([UInt8]) -> [UInt8]?) {
        let list: JSONValue = .object([
            (
                "screens",
                .array(
                    entries.map { entry in
                        var members: [(String, JSONValue)] = [
                            ("id", .string(entry.screen.id)), ("revision", .number(entry.revision)),
                            ("schemaVersion", .number(entry.screen.schemaVersion)),
                        ]
                        if let title = entry.screen.title { members.append(("title", .string(title))) }
                        members.append(("etag", .string(entry.compact.etag)))
                        return .object(members)
                    })
            )
        ])
        compact = EncodedBody(bytes: JSONWriter.encode(list), compress: compress)
        pretty = EncodedBody(bytes: JSONWriter.encode(list, style: .pretty), compress: compress)
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
