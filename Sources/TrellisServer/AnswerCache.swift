import Atomics
import TrellisScreens

/// What identifies one encoded answer: DESIGN.md's cache key (request pipeline, step 4).
public struct AnswerKey: Hashable, Sendable {
    public var screen: String
    public var revision: Int
    /// The schema version the answer is resolved for (the client's, capped at the screen's).
    public var schemaVersion: Int
    public var outcomes: Outcomes
    public var pretty: Bool
    /// What the bytes are: the resolved screen, its layout, or a preview page.
    public var format: AnswerFormat = .screen
    /// The viewport of a layout or preview; nil for the screen itself.
    public var viewport: LayoutViewport? = nil
    /// The values of the parameters the screen uses (`$param`), canonically; empty for a screen without.
    public var parameters: String = ""
    /// The query a preview's links carry on (who is looking, at what size); empty for every other answer.
    public var linkQuery: String = ""
}

/// The kinds of answer built from one resolved screen.
public enum AnswerFormat: Hashable, Sendable {
    /// `GET /v1/screens/{id}`: JSON.
    case screen
    /// `GET /v1/screens/{id}?format=drivenui|matrioska`: a third-party client's body.
    case client(ClientFormat)
    /// `GET /v1/screens/{id}/layout`: JSON with frames.
    case layout
    /// `GET /preview/{id}`: HTML; `check` adds the script that reports drawn positions.
    case html(check: Bool)
    /// `GET /preview/{id}/preview.svg`.
    case svg
    /// `GET /v1/routes/resolve?include=…`: the route's resolution (its JSON, which depends on the URL
    /// and the user's guards and redirects) with the screen answer, or its layout, in it.
    case route(resolution: [UInt8], layout: Bool)
}

/// Encoded answers of one snapshot, shared by every request that reads it.
///
/// Reads are one atomic load and a dictionary lookup: no lock in the request path. A miss encodes
/// the answer and publishes a copy of the table with it added (compare-and-swap; on a lost race the
/// winner's entry is used). Copying is O(entries), but entries are added only while a screen's few
/// dozen outcomes are first seen; past `capacity` answers are still served, just not stored.
public final class AnswerCache: Sendable {
    final class Table: AtomicReference, Sendable {
        let entries: [AnswerKey: EncodedBody]
        /// How many entries have a viewport (layouts, previews).
        let viewportEntries: Int
        init(_ entries: [AnswerKey: EncodedBody], viewportEntries: Int = 0) {
            self.entries = entries
            self.viewportEntries = viewportEntries
        }
    }

    /// Most answers one snapshot keeps. A screen with ten independent rules has 1,024 outcomes.
    public static let defaultCapacity = 4096

    public let capacity: Int
    private let table = ManagedAtomic(Table([:]))

    public init(capacity: Int = AnswerCache.defaultCapacity) { self.capacity = capacity }

    /// A cache starting with the answers of `other` that `keep` accepts. An answer is a pure
    /// function of its key (the resolver's contract), so a runtime change that leaves a screen
    /// revision served keeps its answers valid: a new rollout percentage changes which outcome a
    /// user gets, never the bytes of an outcome.
    public init(carrying other: AnswerCache, where keep: (AnswerKey) -> Bool) {
        capacity = other.capacity
        let entries = other.table.load(ordering: .acquiring).entries.filter { keep($0.key) }
        table.store(Table(entries, viewportEntries: entries.keys.count { $0.viewport != nil }), ordering: .releasing)
    }

    public var count: Int { table.load(ordering: .acquiring).entries.count }

    /// The cached answer for `key`, or `make()`'s, stored for the next request.
    /// - Returns: the body, and whether it came from the cache.
    public func answer<Failure: Error>(
        for key: AnswerKey, make: () throws(Failure) -> EncodedBody
    ) throws(Failure) -> (body: EncodedBody, hit: Bool) {
        var current = table.load(ordering: .acquiring)
        if let hit = current.entries[key] { return (hit, true) }
        let made = try make()
        let hasViewport = key.viewport != nil
        // Viewports are the client's to choose, so layouts and previews may fill at most half the
        // table: a client sweeping widths cannot keep screen answers out of it.
        while current.entries.count < capacity && (!hasViewport || current.viewportEntries < capacity / 2) {
            var entries = current.entries
            entries[key] = made
            let desired = Table(entries, viewportEntries: current.viewportEntries + (hasViewport ? 1 : 0))
            let (exchanged, original) = table.compareExchange(expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged { break }
            if let raced = original.entries[key] { return (raced, false) }
            current = original
        }
        return (made, false)
    }
}
