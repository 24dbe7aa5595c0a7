import Atomics
import Synchronization
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
/// A hit is one atomic load, a dictionary lookup and, the first time the entry is hit since the
/// clock hand last passed it, one relaxed store of its `referenced` bit: no lock in the request
/// path. A miss encodes the answer outside any lock, then, under the cache's one `Mutex` (misses
/// only), publishes a copy of the table with it added. Copying is O(entries), paid by misses only.
///
/// When the table is full the miss evicts with CLOCK (second chance, as an OS pages): a hand goes
/// round the entries of one class; an entry hit since the hand last passed loses its bit and stays,
/// the first one not hit makes room. New entries start unreferenced, so a sweep of keys seen once
/// replaces its own entries while answers asked for again survive it.
///
/// Viewports are the client's to choose, so entries with a viewport (layouts, previews) are a class
/// of their own, bounded to `capacity / 2`: a full viewport class evicts only viewport entries, and
/// a client sweeping widths can never take more than half the table from screen answers.
public final class AnswerCache: Sendable {
    /// One cached answer; `referenced` is CLOCK's bit, set by hits, cleared by the hand.
    final class Entry: Sendable {
        let body: EncodedBody
        let referenced = Atomic<Bool>(false)
        init(_ body: EncodedBody) { self.body = body }
    }

    final class Table: AtomicReference, Sendable {
        let entries: [AnswerKey: Entry]
        init(_ entries: [AnswerKey: Entry]) { self.entries = entries }
    }

    /// The eviction order of one class of entries, kept by misses under the lock.
    private struct Ring {
        var keys: [AnswerKey] = []
        var hand = 0

        /// Finds the entry to replace: the first one from the hand on that has not been hit since
        /// the hand last passed it, clearing the bits it passes (at most one full turn plus one).
        mutating func victim(in entries: [AnswerKey: Entry]) -> Int {
            while true {
                if hand >= keys.count { hand = 0 }
                let index = hand
                hand += 1
                guard let entry = entries[keys[index]], entry.referenced.load(ordering: .relaxed) else { return index }
                entry.referenced.store(false, ordering: .relaxed)
            }
        }
    }

    private struct Rings {
        var screens = Ring()
        var viewports = Ring()
    }

    /// Most answers one snapshot keeps. A screen with ten independent rules has 1,024 outcomes.
    public static let defaultCapacity = 4096

    public let capacity: Int
    /// Most entries with a viewport: half the capacity.
    public var viewportCapacity: Int { capacity / 2 }
    private let table = ManagedAtomic(Table([:]))
    private let rings = Mutex(Rings())

    public init(capacity: Int = AnswerCache.defaultCapacity) { self.capacity = capacity }

    /// A cache starting with the answers of `other` that `keep` accepts. An answer is a pure
    /// function of its key (the resolver's contract), so a runtime change that leaves a screen
    /// revision served keeps its answers valid: a new rollout percentage changes which outcome a
    /// user gets, never the bytes of an outcome. The kept answers start unreferenced.
    public init(carrying other: AnswerCache, where keep: (AnswerKey) -> Bool) {
        capacity = other.capacity
        let kept = other.table.load(ordering: .acquiring).entries.filter { keep($0.key) }
        var entries: [AnswerKey: Entry] = [:]
        var carried = Rings()
        for (key, entry) in kept {
            entries[key] = Entry(entry.body)
            if key.viewport == nil { carried.screens.keys.append(key) } else { carried.viewports.keys.append(key) }
        }
        table.store(Table(entries), ordering: .releasing)
        rings.withLock { $0 = carried }
    }

    public var count: Int { table.load(ordering: .acquiring).entries.count }

    /// Whether `key` is cached now, without counting as a hit (tests, diagnostics).
    public func contains(_ key: AnswerKey) -> Bool { table.load(ordering: .acquiring).entries[key] != nil }

    /// Every key cached now (tests, diagnostics).
    var keys: [AnswerKey] { Array(table.load(ordering: .acquiring).entries.keys) }

    /// The cached answer for `key`, or `make()`'s, stored for the next request (evicting one when full).
    /// - Returns: the body, and whether it came from the cache.
    public func answer<Failure: Error>(
        for key: AnswerKey, make: () throws(Failure) -> EncodedBody
    ) throws(Failure) -> (body: EncodedBody, hit: Bool) {
        if let entry = table.load(ordering: .acquiring).entries[key] {
            // Only the first hit after the hand passed writes: a popular entry's line stays shared.
            if !entry.referenced.load(ordering: .relaxed) { entry.referenced.store(true, ordering: .relaxed) }
            return (entry.body, true)
        }
        let made = try make()
        return (store(made, for: key), false)
    }

    /// Publishes `made` under `key` (misses serialize here), unless another miss stored the key
    /// first: then that body is returned, so every caller serves the bytes the cache holds.
    private func store(_ made: EncodedBody, for key: AnswerKey) -> EncodedBody {
        let isViewport = key.viewport != nil
        if isViewport && viewportCapacity == 0 || capacity == 0 { return made }
        return rings.withLock { rings in
            let current = table.load(ordering: .acquiring)
            if let raced = current.entries[key] { return raced.body }
            var entries = current.entries
            let entry = Entry(made)
            if isViewport && rings.viewports.keys.count >= viewportCapacity {
                Self.replace(in: &rings.viewports, &entries, with: key, entry)
            } else {
                // A full table with this key's class under its share: the screen class holds more
                // than half, so it gives up one entry.
                if entries.count >= capacity { Self.evict(from: &rings.screens, &entries) }
                entries[key] = entry
                if isViewport { rings.viewports.keys.append(key) } else { rings.screens.keys.append(key) }
            }
            table.store(Table(entries), ordering: .releasing)
            return made
        }
    }

    /// The victim's slot in the ring takes the new key.
    private static func replace(in ring: inout Ring, _ entries: inout [AnswerKey: Entry], with key: AnswerKey, _ entry: Entry) {
        let index = ring.victim(in: entries)
        entries[ring.keys[index]] = nil
        ring.keys[index] = key
        entries[key] = entry
    }

    /// Removes the victim, closing the gap in the ring (the hand stays on the entry after it).
    private static func evict(from ring: inout Ring, _ entries: inout [AnswerKey: Entry]) {
        let index = ring.victim(in: entries)
        entries[ring.keys[index]] = nil
        ring.keys.remove(at: index)
        ring.hand = index
    }
}
