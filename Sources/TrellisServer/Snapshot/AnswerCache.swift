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

extension AnswerKey {
    /// The bytes the key's strings and arrays hold, by their lengths (a short string is stored in
    /// the key itself, so this errs high): part of what an answer costs the cache.
    var heapBytes: Int {
        var total = screen.utf8.count + outcomes.bytes.count + parameters.utf8.count + linkQuery.utf8.count
        if case .route(let resolution, _) = format { total += resolution.count }
        return total
    }
}

/// The encoded answers of one snapshot (``Snapshot/answers``), bounded by the bytes they hold.
public typealias AnswerCache = SnapshotCache<EncodedBody>

/// What a value holds, for a cache bounded by bytes (``SnapshotCache/init(budget:)``).
public protocol CacheCost: Sendable {
    /// The bytes the value holds. A part the value makes later (an answer's gzip form) counts at
    /// the most it can take until it is made, and at its size from then on, so the figure does not
    /// grow once the value is stored: what a cache charged for it stays enough when the part is made.
    var cacheBytes: Int { get }
}

/// The sizes of the caches, in one place.
public enum SnapshotCacheLimits {
    /// Charged to every answer over the bytes its body and key hold: the entry object with its key
    /// (some 150 bytes inline) and body, its slots in its shard's table and ring, the headers of
    /// its arrays and ETag string, the gzip form's boxes. It is also the least an answer costs,
    /// which is what bounds the entries of a shard (``answerShardBytes``).
    public static let answerEntryOverheadBytes = 512
    /// Most bytes of the budget per shard of the answer cache. A miss publishes a copy of its
    /// shard's table, which retains (and, once the old table goes, releases) one object per entry,
    /// so the table must stay small even when every answer is tiny: at the least charge a shard
    /// holds 1,024 entries, and answers of a few kilobytes make it a hundred or so. The shard
    /// count is rounded up to a power of two, so a shard's share is more than half of this. The
    /// share is also the most an answer kept may be charged (half of it with a viewport): until
    /// its gzip form is made an answer counts about twice its bytes (``EncodedBody/cacheBytes``),
    /// so screen answers of 128 KB and layouts and previews of 64 KB are always cached (twice
    /// that in shards of a full 512 KiB); the shipped home layout is 16.5 KB.
    public static let answerShardBytes = 512 << 10
    /// Most shards of the answer cache: one per ``answerShardBytes`` up to a budget of 32 GiB,
    /// past which shards grow instead (an empty shard costs some 200 bytes).
    public static let mostAnswerShards = 1 << 16
    /// What `cache.maxBytes` may be: under 1 MiB a cache holds too few answers to help (a couple of
    /// layouts), over 1 TiB is a typo.
    public static let configurableBytes: ClosedRange<Int> = (1 << 20)...(1 << 40)
    /// Without `cache.maxBytes` the budget is this fraction (1/N) of the memory the process may
    /// use (``MachineMemory/usableBytes()``): the rest is for connections, snapshots, layout
    /// plans and the resolved screens.
    public static let defaultShareOfMemory = 8
    /// …but no less and no more than these: 64 MiB holds thousands of answers however small the
    /// machine reports itself, and past 4 GiB a larger default helps few deployments and risks
    /// memory shared with other processes (set `cache.maxBytes` to go higher).
    public static let defaultBytes: ClosedRange<Int> = (64 << 20)...(4 << 30)

    /// Most resolved screens one snapshot keeps for layout and preview misses
    /// (``Snapshot/resolvedScreens``): one per outcome, schema version and parameters in use.
    /// Counted, not measured: a resolved screen shares much of its storage with the screen it was
    /// resolved from, so adding up its strings and members would count memory it does not hold.
    public static let resolvedScreens = 256
    /// Most layout plans one snapshot keeps (``Snapshot/layoutPlans``): one per resolved screen
    /// and viewport kind (scale, font scale, safe area, direction, mode, platform). Counted, not
    /// measured: most of a plan's memory is the flexbox node trees it keeps for its next layout,
    /// made as layouts run (up to one per event loop) and private to TrellisRendering.
    public static let layoutPlans = 256
    /// Most screen models one snapshot keeps decoded (``SnapshotCaches/models``): what layouts,
    /// previews and client formats of the screens in use resolve from. Counted: a model is some
    /// five times its document (tens of kilobytes), so these hold a few megabytes at most.
    public static let models = 128
    /// Entries of capacity per shard of a cache bounded by entries: what a miss copies at most. A
    /// cache of less than twice this capacity is one shard, whose CLOCK runs over the whole table.
    public static let entriesPerShard = 32
}

/// Values made from one snapshot (encoded answers, resolved screens, layout plans), shared by
/// every request that reads it, keyed by what they are a pure function of.
///
/// A cache is bounded by bytes (``init(budget:)``: the answers, each charged its body's and key's
/// bytes, ``CacheCost``, and ``SnapshotCacheLimits/answerEntryOverheadBytes``) or by entries
/// (``init(capacity:)``: each charged 1). The table is split into shards by the key's hash, a
/// power of two of them: one per ``SnapshotCacheLimits/answerShardBytes`` of budget, or per
/// ``SnapshotCacheLimits/entriesPerShard`` entries of capacity. Each shard holds an equal share
/// of the limit, so the cache never holds more than its limit. Each shard is a dictionary
/// published by one atomic store, keyed by the key's hash so that copying it retains one object
/// per entry. A hit hashes the key once, loads its shard's dictionary (one atomic load), looks the
/// key up and, the first time the entry is hit since the clock hand last passed it, does one
/// relaxed store of its `referenced` bit: no lock in the request path, and nothing a hit writes is
/// shared with other entries. A miss makes the value outside any lock, then, under its shard's
/// `Mutex` (misses only), publishes a copy of that shard with it added: a miss copies one shard's
/// table, not the whole table, and misses in different shards do not wait for each other.
///
/// When a shard has no room for a new value the miss evicts with CLOCK (second chance, as an OS
/// pages), as many entries as the value needs: a hand goes round the shard's entries of one class;
/// an entry hit since the hand last passed loses its bit and stays, the first one not hit goes.
/// New entries start unreferenced, just behind the hand, so a sweep of keys seen once replaces its
/// own entries while answers asked for again survive it. A value larger than its class's share
/// of a shard is returned and not kept.
///
/// An answer's gzip form is made after it is stored, on its first use by a client that takes
/// gzip, without the cache knowing: a hit must stay free of shared writes. So an answer is charged
/// the most its gzip form can take until the form is made (``EncodedBody/cacheBytes``): the
/// charge is an upper bound from the start, and the budget holds whenever the form is made. A
/// miss measures again the entry the shard's previous miss stored (the request that missed
/// usually made its gzip form by then) and every entry the hand passes, and lowers their charges
/// to what they hold.
///
/// Viewports are the client's to choose, so entries with a viewport (layouts, previews) are a class
/// of their own, bounded to half of each shard: a full viewport class evicts only viewport entries,
/// and a client sweeping widths can never take more than half the cache from screen answers.
public final class SnapshotCache<Value: Sendable>: Sendable {
    /// What bounds a cache, in the unit its entries are charged in.
    public enum Limit: Sendable, Equatable {
        /// At most this many entries, each charged 1.
        case entries(Int)
        /// At most this many bytes, each entry charged what it holds.
        case bytes(Int)

        var units: Int {
            switch self {
            case .entries(let count): count
            case .bytes(let count): count
            }
        }
    }

    /// One cached value; `referenced` is CLOCK's bit, set by hits, cleared by the hand.
    final class Entry: Sendable {
        let key: AnswerKey
        let body: Value
        let referenced = Atomic<Bool>(false)
        /// What the entry counts against its shard's limit. Read and written under the shard's
        /// lock only, never by a hit (atomic because the entry is shared with the readers).
        let charge: Atomic<Int>
        init(_ key: AnswerKey, _ body: Value, charge: Int = 1) {
            self.key = key
            self.body = body
            self.charge = Atomic(charge)
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
        /// What the entries were charged when the table was published: what `/metrics` reads,
        /// so that nothing shared is written for it.
        let held: Int
        init(_ entries: Entries = Entries(), held: Int = 0) {
            self.entries = entries
            self.held = held
        }
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

    /// An entry's place in its class's eviction order.
    struct Slot {
        let entry: Entry
        let hash: Int
        var key: HashedKey { HashedKey(entry.key, hash: hash) }
    }

    /// The eviction order of one class of entries of a shard, and what they are charged; kept by
    /// misses under the shard's lock.
    struct Ring {
        var slots: [Slot] = []
        var hand = 0
        /// The sum of the charges of `slots`' entries.
        var held = 0

        /// Puts `slot` just behind the hand: the last entry the hand reaches.
        mutating func insert(_ slot: Slot, charge: Int) {
            slots.insert(slot, at: hand)
            hand += 1
            held += charge
        }
    }

    struct Rings {
        var screens = Ring()
        var viewports = Ring()
        /// The entry the shard's last miss stored, measured again by the next miss: the request
        /// that missed has usually made its gzip form by then.
        var lastStored: Entry?

        var held: Int { screens.held + viewports.held }
    }

    /// One part of the table: its entries, published whole, and its CLOCK rings.
    final class Shard: Sendable {
        let table = ManagedAtomic(Table())
        let rings = Mutex(Rings())
    }

    public let limit: Limit
    /// Each shard's share of the limit, in its unit.
    let shardLimit: Int
    /// Most a shard's entries with a viewport may be charged: half of it.
    var shardViewportLimit: Int { shardLimit / 2 }
    /// Most the entries with a viewport may be charged: half of every shard.
    public var viewportLimit: Int { shardViewportLimit * shards.count }
    private let shards: [Shard]
    private let shardMask: Int
    /// What an entry holds, in a cache bounded by bytes; nil in one bounded by entries.
    private let bytesOf: (@Sendable (AnswerKey, Value) -> Int)?

    private init(limit: Limit, shardCount: Int, bytesOf: (@Sendable (AnswerKey, Value) -> Int)?) {
        self.limit = limit
        self.bytesOf = bytesOf
        shards = (0..<shardCount).map { _ in Shard() }
        shardMask = shardCount - 1
        shardLimit = limit.units / shardCount
    }

    /// A cache of at most `capacity` entries (resolved screens, layout plans), each counting 1.
    public convenience init(capacity: Int) {
        var count = 1
        while count * 2 * SnapshotCacheLimits.entriesPerShard <= capacity { count *= 2 }
        self.init(limit: .entries(capacity), shardCount: count, bytesOf: nil)
    }

    /// The number of shards (tests, diagnostics).
    public var shardCount: Int { shards.count }

    /// The number of entries now: one atomic load per shard (diagnostics, `/metrics`).
    public var count: Int { shards.reduce(0) { $0 + $1.table.load(ordering: .acquiring).entries.count } }

    /// What the entries count against the limit now, in its unit (bytes, or entries): one atomic
    /// load per shard (diagnostics, `/metrics`). Never more than the limit.
    public var held: Int { shards.reduce(0) { $0 + $1.table.load(ordering: .acquiring).held } }

    /// Whether `key` is cached now, without counting as a hit (tests, diagnostics).
    public func contains(_ key: AnswerKey) -> Bool {
        let hashed = HashedKey(key)
        return shard(hashed).table.load(ordering: .acquiring).entries[hashed] != nil
    }

    /// Every entry cached now, with its charge (tests, diagnostics).
    var allEntries: [Entry] { shards.flatMap { Array($0.table.load(ordering: .acquiring).entries.all) } }

    /// Every key cached now (tests, diagnostics).
    var keys: [AnswerKey] { allEntries.map(\.key) }

    private func shard(_ key: HashedKey) -> Shard { shards[key.hash & shardMask] }

    /// The cached answer for `key`, or `make()`'s, stored for the next request (evicting when full).
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
        let charge = bytesOf?(key.key, made) ?? 1
        // Larger than its class's share of a shard: served, and not kept.
        guard charge <= (isViewport ? shardViewportLimit : shardLimit) else { return made }
        return shard.rings.withLock { rings in
            let current = shard.table.load(ordering: .acquiring)
            if let raced = current.entries[key] { return raced.body }
            var entries = current.entries
            if let last = rings.lastStored {
                if last.key.viewport == nil { remeasure(last, in: &rings.screens) } else { remeasure(last, in: &rings.viewports) }
            }
            if isViewport {
                while rings.viewports.held + charge > shardViewportLimit { evict(from: &rings.viewports, &entries) }
            }
            // The viewports within their share (half, less this charge if it is one of them), the
            // screen answers hold whatever else must go; a screen answer may need the viewports'
            // room too when the screen answers hold too little.
            while rings.held + charge > shardLimit {
                if rings.screens.slots.isEmpty {
                    evict(from: &rings.viewports, &entries)
                } else {
                    evict(from: &rings.screens, &entries)
                }
            }
            let slot = Slot(entry: Entry(key.key, made, charge: charge), hash: key.hash)
            entries.insert(slot.entry, hash: key.hash)
            if isViewport { rings.viewports.insert(slot, charge: charge) } else { rings.screens.insert(slot, charge: charge) }
            rings.lastStored = slot.entry
            shard.table.store(Table(entries, held: rings.held), ordering: .releasing)
            return made
        }
    }

    /// Removes the entry CLOCK chooses from `ring`: the first from the hand on that has not been
    /// hit since the hand last passed it, clearing the bits it passes (at most one full turn plus
    /// one) and measuring again the entries it passes. The hand stays on the entry after it.
    private func evict(from ring: inout Ring, _ entries: inout Entries) {
        while true {
            if ring.hand >= ring.slots.count { ring.hand = 0 }
            let slot = ring.slots[ring.hand]
            if slot.entry.referenced.load(ordering: .relaxed) {
                slot.entry.referenced.store(false, ordering: .relaxed)
                remeasure(slot.entry, in: &ring)
                ring.hand += 1
                continue
            }
            entries.remove(slot.key)
            ring.slots.remove(at: ring.hand)
            let charge = slot.entry.charge.load(ordering: .relaxed)
            ring.held -= charge
            return
        }
    }

    /// Charges `entry` what it holds now, in a cache bounded by bytes: less, once its gzip form is made.
    private func remeasure(_ entry: Entry, in ring: inout Ring) {
        guard let bytesOf else { return }
        let was = entry.charge.load(ordering: .relaxed)
        let now = bytesOf(entry.key, entry.body)
        guard now != was else { return }
        entry.charge.store(now, ordering: .relaxed)
        ring.held += now - was
    }
}

extension SnapshotCache where Value: CacheCost {
    /// A cache holding at most `budget`'s bytes (the answers), each entry charged its value's and
    /// key's bytes and ``SnapshotCacheLimits/answerEntryOverheadBytes``.
    public convenience init(budget: CacheBudget = .forThisMachine) {
        self.init(
            limit: .bytes(budget.maxBytes), shardCount: Self.shardCount(forBytes: budget.maxBytes),
            bytesOf: { key, value in SnapshotCacheLimits.answerEntryOverheadBytes + key.heapBytes + value.cacheBytes })
    }

    /// One shard per ``SnapshotCacheLimits/answerShardBytes`` of `maxBytes`, rounded up to a
    /// power of two (so each shard's share is at most that), at most
    /// ``SnapshotCacheLimits/mostAnswerShards``.
    static func shardCount(forBytes maxBytes: Int) -> Int {
        var count = 1
        while count < SnapshotCacheLimits.mostAnswerShards, count * SnapshotCacheLimits.answerShardBytes < maxBytes { count *= 2 }
        return count
    }
}
