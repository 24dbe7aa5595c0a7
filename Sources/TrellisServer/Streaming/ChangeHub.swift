import CoreMetrics
import Synchronization
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTargeting

/// Tells connected apps what changed, the moment a snapshot holding the change is published
/// (`GET /v1/changes`, server-sent events): `targeting` (a rollout or experiment value, a reload of
/// targeting.json), `screens` (the ids whose served or staged revision changed, with the new ones)
/// and `routes`. Only what changed for everyone is said, never anything about a user; an app
/// refetches what it shows.
///
/// Each event's `id` is the store's change sequence the snapshot holds. A reload that changes only
/// files the store does not record (targeting.json) publishes at the same sequence: its events are
/// `S.1`, `S.2`, … so that ids keep increasing and `Last-Event-ID` resumes exactly.
///
/// Two renditions of each change: Trellis's events, and OpenFeature's (`?format=ofrep`): one
/// `message` event `{"type": "refetchEvaluation", "etag": …}` when the targeting changed
/// (open-feature/protocol `service/event-streams.yaml`); screens and routes are no flags.
public final class ChangeHub: Sendable {
    enum Rendition: Int, CaseIterable {
        case trellis = 0
        case openFeature = 1
    }

    /// The streams, on the HTTP server's event loops.
    let channel: HTTPEventChannel
    private struct Last {
        var snapshot: Snapshot
        var sequence: Int64
        /// Events already published at `sequence` beyond the first.
        var step: UInt64
    }
    private let last: Mutex<Last>
    private let refused: CoreMetrics.Counter
    private let dropped: CoreMetrics.Counter
    private let open: CoreMetrics.Gauge
    private let droppedReported = Mutex(0)

    /// Positions are the sequence shifted past room for this many events at one sequence.
    static let stepBits: UInt64 = 16

    /// - Parameters:
    ///   - snapshot: the snapshot being served, which later ones are compared with.
    ///   - sequence: the store change it holds (a client resuming from it misses nothing).
    init(snapshot: Snapshot, sequence: Int64, limits: ServerConfiguration.Changes, metricsFactory: any MetricsFactory) {
        last = Mutex(Last(snapshot: snapshot, sequence: sequence, step: 0))
        let position = UInt64(max(sequence, 0)) << Self.stepBits
        channel = HTTPEventChannel(
            limits: limits.channelLimits, position: position, resets: Self.resets(id: Self.id(sequence: sequence, step: 0), sequence: sequence, snapshot))
        refused = CoreMetrics.Counter(label: "trellis_change_streams_refused_total", factory: metricsFactory)
        dropped = CoreMetrics.Counter(label: "trellis_change_streams_dropped_total", factory: metricsFactory)
        open = CoreMetrics.Gauge(label: "trellis_change_streams_open", factory: metricsFactory)
    }

    /// Called once `snapshot`, holding every store change up to `sequence`, is published: streams
    /// get what changed since the snapshot published before it (nothing, if nothing did).
    /// - Parameter screens: the screens the change touched, when the caller knows (an admin write,
    ///   a followed store change): only those are compared, so a change costs what it touched;
    ///   nil compares every screen (a reload, a restart from the store).
    func published(_ snapshot: Snapshot, sequence: Int64, screens touched: Set<String>? = nil) {
        let event = last.withLock { last -> HTTPEventChannel.Event? in
            let changes = ChangeSummary(from: last.snapshot, to: snapshot, screens: touched)
            last.snapshot = snapshot
            guard !changes.isEmpty else { return nil }
            last.step = sequence > last.sequence ? 0 : last.step + 1
            last.sequence = max(sequence, last.sequence)
            let id = Self.id(sequence: last.sequence, step: last.step)
            return HTTPEventChannel.Event(
                position: UInt64(max(last.sequence, 0)) << Self.stepBits | last.step,
                renditions: [changes.trellisFrames(id: id, sequence: last.sequence), changes.openFeatureFrame(id: id)],
                resets: Self.resets(id: id, sequence: last.sequence, snapshot))
        }
        if let event { channel.publish(event) }
    }

    /// The position `Last-Event-ID` names: `S` or `S.k` as this hub writes them; anything else
    /// is a position no stream can resume from (it gets a `reset`).
    static func position(lastEventID: String?) -> UInt64? {
        guard let text = lastEventID?.filter({ $0 != " " && $0 != "\t" }), !text.isEmpty else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let sequence = UInt64(parts[0]), sequence < 1 << (64 - stepBits) else { return .max }
        guard parts.count == 2 else { return sequence << stepBits }
        guard let step = UInt64(parts[1]), step > 0, step < 1 << stepBits else { return .max }
        return sequence << stepBits | step
    }

    /// Counts a stream refused for `changes.maxStreams`.
    func streamRefused() { refused.increment() }

    /// Sets the stream gauges and counts the streams dropped since the last reading: called by `/metrics`.
    func recordMetrics() {
        open.record(channel.openStreams)
        let now = channel.droppedStreams
        let new = droppedReported.withLock { reported in
            defer { reported = now }
            return now - reported
        }
        if new > 0 { dropped.increment(by: new) }
    }

    static func id(sequence: Int64, step: UInt64) -> String {
        step == 0 ? String(sequence) : "\(sequence).\(step)"
    }

    /// What a stream that cannot be told what it missed gets: Trellis's `reset` (refetch
    /// everything), OpenFeature's `refetchEvaluation`.
    private static func resets(id: String, sequence: Int64, _ snapshot: Snapshot) -> [[UInt8]] {
        [
            frame(id: id, event: "reset", data: .object([("sequence", .number(Double(sequence)))])),
            frame(id: id, event: "message", data: refetch(snapshot.targetingRevision)),
        ]
    }

    static func refetch(_ targetingRevision: String) -> JSONValue {
        .object([("type", .string("refetchEvaluation")), ("etag", .string("\"" + targetingRevision + "\""))])
    }

    /// One event: `id`, `event` and one `data` line (compact JSON has no line breaks).
    static func frame(id: String, event: String, data: JSONValue) -> [UInt8] {
        Array("id: \(id)\nevent: \(event)\ndata: ".utf8) + JSONWriter.encode(data) + Array("\n\n".utf8)
    }
}

/// What changed between two published snapshots, as far as apps care.
struct ChangeSummary {
    var targetingRevision: String?
    /// Screens whose served or staged revision changed: id, served revision (nil: gone), staged.
    var screens: [(id: String, revision: Int?, staged: StagedScreen?)] = []
    var routesRevision: Int??

    /// - Parameter touched: the only screens that may differ; nil: any may.
    init(from old: Snapshot, to new: Snapshot, screens touched: Set<String>? = nil) {
        if old.targetingRevision != new.targetingRevision { targetingRevision = new.targetingRevision }
        // Compared by revision, which is what clients know a screen by.
        func compare(_ id: String) {
            let entry = new.screens[id]
            let staged = new.staged[id]
            if old.screens[id]?.revision != entry?.revision || !Self.sameStaging(old.staged[id], staged) {
                screens.append((id, entry?.revision, entry == nil ? nil : staged))
            }
        }
        if let touched {
            for id in touched { compare(id) }
        } else {
            for (id, _) in new.screens { compare(id) }
            for (id, _) in old.screens where new.screens[id] == nil { compare(id) }
        }
        screens.sort { $0.id < $1.id }
        if old.routes?.revision != new.routes?.revision || old.routes?.fingerprint != new.routes?.fingerprint {
            routesRevision = .some(new.routes?.revision)
        }
    }

    var isEmpty: Bool { targetingRevision == nil && screens.isEmpty && routesRevision == nil }

    private static func sameStaging(_ a: StagedScreen?, _ b: StagedScreen?) -> Bool {
        a?.entry.revision == b?.entry.revision && a?.percentage == b?.percentage
    }

    /// `targeting`, `screens`, `routes`: one event each for what changed, all with the same id.
    func trellisFrames(id: String, sequence: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        let sequenceMember = ("sequence", JSONValue.number(Double(sequence)))
        if let targetingRevision {
            bytes += ChangeHub.frame(id: id, event: "targeting", data: .object([sequenceMember, ("revision", .string(targetingRevision))]))
        }
        if !screens.isEmpty {
            let list: [JSONValue] = screens.map { screen in
                // Anyone may listen: a staged revision's share of users is said (the apps in it
                // refetch), never its number, which is not public.
                let staged: JSONValue = screen.staged.map { .object([("percentage", $0.percentage.jsonValue)]) } ?? .null
                return .object([("id", .string(screen.id)), ("revision", screen.revision.map { .number($0) } ?? .null), ("staged", staged)])
            }
            bytes += ChangeHub.frame(id: id, event: "screens", data: .object([sequenceMember, ("screens", .array(list))]))
        }
        if let routesRevision {
            bytes += ChangeHub.frame(
                id: id, event: "routes", data: .object([sequenceMember, ("revision", routesRevision.map { .number($0) } ?? .null)]))
        }
        return bytes
    }

    /// OpenFeature's one event when flags may have changed; nothing otherwise.
    func openFeatureFrame(id: String) -> [UInt8] {
        targetingRevision.map { ChangeHub.frame(id: id, event: "message", data: ChangeHub.refetch($0)) } ?? []
    }
}
