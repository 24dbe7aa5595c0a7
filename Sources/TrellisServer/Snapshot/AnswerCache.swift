import Atomics
import Synchronization
import TrellisRendering
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

/// The encoded answers of one snapshot (``Snapshot/answers``).
public typealias AnswerCache = SnapshotCache<EncodedBody>

/// The sizes of a snapshot's caches, in one place.
public enum SnapshotCacheLimits {
    /// Most answers one snapshot keeps. A screen with ten independent rules has 1,024 outcomes.
    public static let answers = 4096
    /// Most resolved screens one snapshot keeps for layout and preview misses
    /// (``Snapshot/resolvedScreens``): one per outcome, schema version and parameters in use.
    public static let resolvedScreens = 256
    /// Most layout plans one snapshot keeps (``Snapshot/layoutPlans``): one per resolved screen
    /// and viewport kind (scale, font scale, safe area, direction, mode, platform).
    public static let layoutPlans = 256
    /// Entries of capacity per shard: what a miss copies at most. A cache of less than twice
    /// this capacity is one shard, whose CLOCK runs over the whole table.
    public static let entriesPerShard = 32
}

/// Values made from one snapshot (encoded answers, resolved screens), shared by every request that
/// reads it, keyed by what they are a pure function of.
///
/// The table is split into shards by the key's hash (``shardCount``: one per
/// ``SnapshotCacheLimits/entriesPerShard`` entries of capacity, a power of two). Each shard is a
/// dictionary published by one atomic store, keyed by the key's hash so that copying it retains
/// one object per entry. A hit hashes the key once, loads its shard's dictionary (one atomic
/// load), looks the key up and, the first time the entry is hit since the clock hand last passed it, does
/// one relaxed store of its `referenced` bit: no lock in the request path. A miss encodes the
/// value outside any lock, then, under its shard's `Mutex` (misses only), publishes a copy of that
/// shard with it added: a miss copies at most ``SnapshotCacheLimits/entriesPerShard`` entries, not the whole table,
/// and misses in different shards do not wait for each other.
///
/// When a shard is full the miss evicts with CLOCK (second chance, as an OS pages): a hand goes
/// round the shard's entries of one class; an entry hit since the hand last passed loses its bit
/// and stays, the first one not hit makes room. New entries start unreferenced, so a sweep of keys
/// seen once replaces its own entries while answers asked for again survive it.
///
/// Viewports are the client's to choose, so entries with a viewport (layouts, previews) are a class
/// of their own, bounded to half of each shard: a full viewport class evicts only viewport entries,
/// and a client sweeping widths can never take more than half the table from screen answers.
public final class SnapshotCache<Value: Sendable>: Sendable {
    /// One cached answer; `referenced` is CLOCK's bit, set by hits, cleared by the hand.
    final class Entry: Sendable {
        let key: AnswerKey
        let body: Value
        let referenced = Atomic<Bool>(false)
        init(_ key: AnswerKey, _ body: Value) {
            self.key = key
            self.body = body
        }
    }

    /// The entries whose keys have one hash: one, or (two keys' 64-bit hashes are equal, which
    /// is all but impossible but must still be right) several. A table is keyed by the hash, so
    /// that copying a shard's table retains one object per entry rather than every string and
    /// array of its key.
    enum Bucket {
        case one(Entry)
        case several([Entry])

        func entry(for key: AnswerKey) -> Entry? {
            switch self {
            case .one(let entry): entry.key == key ? entry : nil
            case .several(let entries): entries.first { $0.key == key }
            }
        }

        var entries: [Entry] {
            switch self {
            case .one(let entry): [entry]
            case .several(let entries): entries
            }
        }
    }

    /// A key with its hash computed once: the same hash picks the shard and the bucket in the
    /// shard's table, so a lookup hashes the key's strings and arrays once.
    struct HashedKey {
        let key: AnswerKey
        let hash: Int
        init(_ key: AnswerKey, hash: Int? = nil) {  // a hash of the caller's: tests of colliding keys
            self.key = key
            self.hash = hash ?? key.hashValue
        }
    }

    final class Table: AtomicReference, Sendable {
        let entries: Entries
        init(_ entries: Entries = Entries()) { self.entries = entries }
    }

    /// A shard's entries: a table's, and the copy a miss changes and publishes as a new table.
    struct Entries {
        private(set) var buckets: [Int: Bucket] = [:]
        private(set) var count = 0

        subscript(key: HashedKey) -> Entry? { buckets[key.hash]?.entry(for: key.key) }
        var all: some Sequence<Entry> { buckets.values.lazy.flatMap(\.entries) }

        mutating func insert(_ entry: Entry, hash: Int) {
            count += 1
            guard let bucket = buckets[hash] else {
                buckets[hash] = .one(entry)
                return
            }
            buckets[hash] = .several(bucket.entries + [entry])
        }

        mutating func remove(_ key: HashedKey) {
            switch buckets[key.hash] {
            case .one(let entry) where entry.key == key.key:
                buckets[key.hash] = nil
            case .several(let entries) where entries.contains(where: { $0.key == key.key }):
                let rest = entries.filter { $0.key != key.key }  // a bucket of several holds two or more
                buckets[key.hash] = rest.count == 1 ? .one(rest[0]) : .several(rest)
            default:
                return
            }
            count -= 1
        }
    }

    /// The eviction order of one class of entries of a shard, kept by misses under its lock.
    struct Ring {
        var keys: [HashedKey] = []
        var hand = 0

        /// Finds the entry to replace: the first one from the hand on that has not been hit since
        /// the hand last passed it, clearing the bits it passes (at most one full turn plus one).
        mutating func victim(in entries: Entries) -> Int {
            while true {
                if hand >= keys.count { hand = 0 }
                let index = hand
                hand += 1
                guard let entry = entries[keys[index]], entry.referenced.load(ordering: .relaxed) else { return index }
                entry.referenced.store(false, ordering: .relaxed)
            }
        }
    }

    struct Rings {
        var screens = Ring()
        var viewports = Ring()
    }

    /// One part of the table: its entries, published whole, and its CLOCK rings.
    final class Shard: Sendable {
        let table = ManagedAtomic(Table())
        let rings = Mutex(Rings())
    }

    public let capacity: Int
    /// Most entries of one shard, and of those, most with a viewport (half).
    let shardCapacity: Int
    var shardViewportCapacity: Int { shardCapacity / 2 }
    /// Most entries with a viewport: half of every shard.
    public var viewportCapacity: Int { shardViewportCapacity * shards.count }
    private let shards: [Shard]
    private let shardMask: Int

    public init(capacity: Int = SnapshotCacheLimits.answers) {
        self.capacity = capacity
        var count = 1
        while count * 2 * SnapshotCacheLimits.entriesPerShard <= capacity { count *= 2 }
        shards = (0..<count).map { _ in Shard() }
        shardMask = count - 1
        shardCapacity = capacity / count
    }

    /// The number of shards (tests, diagnostics).
    public var shardCount: Int { shards.count }

    /// A cache starting with the answers of `other` that `keep` accepts. An answer is a pure
    /// function of its key (the resolver's contract), so a runtime change that leaves a screen
    /// revision served keeps its answers valid: a new rollout percentage changes which outcome a
    /// user gets, never the bytes of an outcome. The kept answers start unreferenced.
    public convenience init(carrying other: SnapshotCache, where keep: (AnswerKey) -> Bool) {
        self.init(capacity: other.capacity)
        for (from, to) in zip(other.shards, shards) {
            var entries = Entries()
            var carried = Rings()
            for entry in from.table.load(ordering: .acquiring).entries.all where keep(entry.key) {
                let key = HashedKey(entry.key)
                entries.insert(Entry(entry.key, entry.body), hash: key.hash)
                if key.key.viewport == nil { carried.screens.keys.append(key) } else { carried.viewports.keys.append(key) }
            }
            to.table.store(Table(entries), ordering: .releasing)
            to.rings.withLock { $0 = carried }
        }
    }

    public var count: Int { shards.reduce(0) { $0 + $1.table.load(ordering: .acquiring).entries.count } }

    /// Whether `key` is cached now, without counting as a hit (tests, diagnostics).
    public func contains(_ key: AnswerKey) -> Bool {
        let hashed = HashedKey(key)
        return shard(hashed).table.load(ordering: .acquiring).entries[hashed] != nil
    }

    /// Every key cached now (tests, diagnostics).
    var keys: [AnswerKey] { shards.flatMap { $0.table.load(ordering: .acquiring).entries.all.map(\.key) } }

    private func shard(_ key: HashedKey) -> Shard { shards[key.hash & shardMask] }

    /// The cached answer for `key`, or `make()`'s, stored for the next request (evicting one when full).
    /// - Returns: the body, and whether it came from the cache.
    @inline(never)  // inlined, it made its callers copy their request into `make`: 1.2 K instructions a hit
    public func answer<Failure: Error>(
        for key: AnswerKey, make: () throws(Failure) -> Value
    ) throws(Failure) -> (body: Value, hit: Bool) {
        let hashed = HashedKey(key)
        let shard = shard(hashed)
        if let entry = shard.table.load(ordering: .acquiring).entries[hashed] {
            // Only the first hit after the hand passed writes: a popular entry's line stays shared.
            if !entry.referenced.load(ordering: .relaxed) { entry.referenced.store(true, ordering: .relaxed) }
            return (entry.body, true)
        }
        let made = try make()
        return (store(made, for: hashed, in: shard), false)
    }

    /// Publishes `made` under `key` in its shard (misses of one shard serialize here), unless
    /// another miss stored the key first: then that body is returned, so every caller serves the
    /// bytes the cache holds.
    private func store(_ made: Value, for key: HashedKey, in shard: Shard) -> Value {
        let isViewport = key.key.viewport != nil
        if isViewport && shardViewportCapacity == 0 || shardCapacity == 0 { return made }
        return shard.rings.withLock { rings in
            let current = shard.table.load(ordering: .acquiring)
            if let raced = current.entries[key] { return raced.body }
            var entries = current.entries
            let entry = Entry(key.key, made)
            if isViewport && rings.viewports.keys.count >= shardViewportCapacity {
                Self.replace(in: &rings.viewports, &entries, with: key, entry)
            } else {
                // A full shard with this key's class under its share: the screen class holds more
                // than half, so it gives up one entry.
                if entries.count >= shardCapacity { Self.evict(from: &rings.screens, &entries) }
                entries.insert(entry, hash: key.hash)
                if isViewport { rings.viewports.keys.append(key) } else { rings.screens.keys.append(key) }
            }
            shard.table.store(Table(entries), ordering: .releasing)
            return made
        }
    }

    /// The victim's slot in the ring takes the new key.
    private static func replace(in ring: inout Ring, _ entries: inout Entries, with key: HashedKey, _ entry: Entry) {
        let index = ring.victim(in: entries)
        entries.remove(ring.keys[index])
        ring.keys[index] = key
        entries.insert(entry, hash: key.hash)
    }

    /// Removes the victim, closing the gap in the ring (the hand stays on the entry after it).
    private static func evict(from ring: inout Ring, _ entries: inout Entries) {
        let index = ring.victim(in: entries)
        entries.remove(ring.keys[index])
        ring.keys.remove(at: index)
        ring.hand = index
    }
}
