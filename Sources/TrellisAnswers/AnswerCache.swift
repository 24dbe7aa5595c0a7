import Atomics
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TrellisRendering
import TrellisScreens

/// What identifies one encoded answer: DESIGN.md's cache key (request pipeline, step 4).
public struct AnswerKey: Hashable, Sendable {
    public var screen: String
    public var revision: Int
    /// The schema version the answer is resolved for (the client's, capped at the screen's).
    public var schemaVersion: Int
    /// The outcome of each of the screen's decisions.
    public var outcomes: Outcomes {
        get { packedOutcomes.outcomes }
        set { packedOutcomes = PackedOutcomes(newValue) }
    }
    private var packedOutcomes: PackedOutcomes
    public var pretty: Bool
    /// What the request puts into the screen, canonically: the values of the parameters it uses
    /// (`$param`) and, when it shows strings (`$string`), the locale they are written in; empty
    /// for a screen with neither.
    public var inputs: String
    /// What the key of anything but a screen's own answer adds; nil for that answer, whose key —
    /// which a hit compares whole — is then 80 bytes, and its cache entry two lines, not three.
    private var rest: Rest?

    /// What the bytes are: the resolved screen, its layout, or a preview page.
    public var format: AnswerFormat {
        get { rest?.format ?? .screen }
        set { rest = Rest.make(newValue, viewport, linkQuery) }
    }
    /// The viewport of a layout or preview; nil for the screen itself.
    public var viewport: LayoutViewport? {
        get { rest?.viewport }
        set { rest = Rest.make(format, newValue, linkQuery) }
    }
    /// The query a preview's links carry on (who is looking, at what size); empty for every other answer.
    public var linkQuery: String {
        get { rest?.linkQuery ?? "" }
        set { rest = Rest.make(format, viewport, newValue) }
    }

    public init(
        screen: String, revision: Int, schemaVersion: Int, outcomes: Outcomes, pretty: Bool, format: AnswerFormat = .screen,
        viewport: LayoutViewport? = nil, inputs: String = "", linkQuery: String = ""
    ) {
        self.screen = screen
        self.revision = revision
        self.schemaVersion = schemaVersion
        packedOutcomes = PackedOutcomes(outcomes)
        self.pretty = pretty
        self.inputs = inputs
        rest = Rest.make(format, viewport, linkQuery)
    }

    /// A key's format, viewport and link query, when any is not a screen answer's.
    final class Rest: Hashable, Sendable {
        let format: AnswerFormat
        let viewport: LayoutViewport?
        let linkQuery: String

        private init(format: AnswerFormat, viewport: LayoutViewport?, linkQuery: String) {
            self.format = format
            self.viewport = viewport
            self.linkQuery = linkQuery
        }

        /// Nil for a screen answer's (so that keys equal in meaning are equal in storage).
        static func make(_ format: AnswerFormat, _ viewport: LayoutViewport?, _ linkQuery: String) -> Rest? {
            format == .screen && viewport == nil && linkQuery.isEmpty ? nil : Rest(format: format, viewport: viewport, linkQuery: linkQuery)
        }

        static func == (a: Rest, b: Rest) -> Bool { a.format == b.format && a.viewport == b.viewport && a.linkQuery == b.linkQuery }

        func hash(into hasher: inout Hasher) {
            hasher.combine(format)
            hasher.combine(viewport)
            hasher.combine(linkQuery)
        }
    }
}

/// Outcomes as a cache key holds them: up to 15 in the key itself (the bytes in two words, their
/// count in the top byte of the second), more in an array. A hit compares its key with the
/// entry's without reading another allocation — for a screen among thousands, a line from memory.
enum PackedOutcomes: Hashable, Sendable {
    case inline(UInt64, UInt64)
    case spilled([UInt8])

    static let mostInline = 15

    init(_ outcomes: Outcomes) {
        let bytes = outcomes.bytes
        guard bytes.count <= Self.mostInline else {
            self = .spilled(bytes)
            return
        }
        var words = (UInt64(0), UInt64(bytes.count) << 56)
        for (i, byte) in bytes.enumerated() {
            if i < 8 { words.0 |= UInt64(byte) << (8 * i) } else { words.1 |= UInt64(byte) << (8 * (i - 8)) }
        }
        self = .inline(words.0, words.1)
    }

    var outcomes: Outcomes {
        switch self {
        case .spilled(let bytes): return Outcomes(bytes)
        case .inline(let low, let high):
            let count = Int(high >> 56)
            return Outcomes((0..<count).map { i in UInt8(truncatingIfNeeded: i < 8 ? low >> (8 * i) : high >> (8 * (i - 8))) })
        }
    }

    /// The bytes held outside the key.
    var heapBytes: Int {
        if case .spilled(let bytes) = self { bytes.count } else { 0 }
    }
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
        var total = screen.utf8.count + packedOutcomes.heapBytes + inputs.utf8.count + linkQuery.utf8.count
        if case .route(let resolution, _) = format { total += resolution.count }
        return total
    }
}

/// The encoded answers of one snapshot (TrellisServer's `Snapshot.answers`), bounded by the bytes they hold.
public typealias AnswerCache = SnapshotCache<EncodedBody>

/// What a value holds, for a cache bounded by bytes (``SnapshotCache/init(budget:)``).
public protocol CacheCost: Sendable {
    /// The bytes the value holds. A part the value makes later (an answer's gzip form) counts at
    /// the most it can take until it is made, and at its size from then on, so the figure does not
    /// grow once the value is stored: what a cache charged for it stays enough when the part is made.
    var cacheBytes: Int { get }
    /// Where the value's first line is, for a hit to ask for it while it compares the key.
    var firstLine: UnsafeRawPointer { get }
    /// Asks for every line of the value a response reads, without waiting for them.
    func prefetchBytes()
}

/// The sizes of the caches, in one place.
public enum SnapshotCacheLimits {
    /// Charged to every answer over the bytes its body and key hold: the entry object with its key
    /// (some 150 bytes inline) and body, its slots in its shard's table and ring, the headers of
    /// its arrays and ETag string, the gzip form's boxes. It is also the least an answer costs,
    /// which is what bounds the entries of a shard (``answerShardBytes``).
    public static let answerEntryOverheadBytes = 512
    /// Most bytes of the budget per shard of the answer cache. A miss publishes a copy of its
    /// shard's table (24 bytes a slot, and a slot of four free for every three used), so the
    /// table must stay small even when every answer is tiny: at the least charge a shard
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
    /// (TrellisServer's `Snapshot.resolvedScreens`): one per outcome, schema version and parameters in use.
    /// Counted, not measured: a resolved screen shares much of its storage with the screen it was
    /// resolved from, so adding up its strings and members would count memory it does not hold.
    public static let resolvedScreens = 256
    /// Most layout plans one snapshot keeps (TrellisServer's `Snapshot.layoutPlans`): one per resolved screen
    /// and viewport kind (scale, font scale, safe area, direction, mode, platform). Counted, not
    /// measured: most of a plan's memory is the flexbox node trees it keeps for its next layout,
    /// made as layouts run (up to one per event loop) and private to TrellisRendering.
    public static let layoutPlans = 256
    /// Most screen models one snapshot keeps decoded (TrellisServer's `SnapshotCaches.models`): what layouts,
    /// previews and client formats of the screens in use resolve from. Counted: a model is some
    /// five times its document (tens of kilobytes), so these hold a few megabytes at most.
    public static let models = 128
    /// Tables a shard keeps after replacing them while readers of it are counted; past these, a
    /// miss waits for a moment without readers (``SnapshotCache/ShardTables``). A table is 24 bytes
    /// a slot (48 KiB for a shard of 1,024 entries, most often a few), so these hold little while
    /// making a wait rare: it takes that many misses in a shard in a row, each finding a hit of it
    /// under way. The entries those misses evicted are kept as long, over the budget.
    public static let retiredTablesPerShard = 8
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
/// of the limit, so the cache never holds more than its limit. Each shard is a table of slots
/// (``Table``) keyed by the key's hash, which does not own its entries, published by one atomic
/// exchange (``ShardTables``). A hit hashes the key once, counts itself in its shard, loads the
/// table, looks the key up and, the first time the entry is hit since the clock hand last passed
/// it, does one relaxed store of its `referenced` bit: no lock in the request path, no reference
/// count on the table, and nothing a hit writes is shared with other entries but its shard's
/// count of readers. A miss makes the value outside any lock, then, under its shard's
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
/// An answer's gzip form may be made after it is stored, on its first use by a client that takes
/// gzip, without the cache knowing: a hit must stay free of shared writes. So an answer is charged
/// the most its gzip form can take until the form is made (``EncodedBody/cacheBytes``): the
/// charge is an upper bound from the start, and the budget holds whenever the form is made. A
/// miss for a client that takes gzip makes the form before the answer is stored
/// (the server's `ScreenRequest`), so it is charged what it holds; a form made later is charged at its
/// bound until the hand passes the entry, which measures it again and lowers the charge.
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

    /// A key with its hash computed once: the same hash picks the shard (its low bits) and the
    /// slot in the shard's table (its high bits), so a lookup hashes the key's strings and arrays once.
    struct HashedKey {
        let key: AnswerKey
        let hash: Int
        init(_ key: AnswerKey, hash: Int? = nil) {  // a hash of the caller's: tests of colliding keys
            self.key = key
            self.hash = hash ?? key.hashValue
        }
    }

    /// A shard's entries as published: open addressing with linear probing, each slot the key's
    /// hash beside its entry and its value's first line, the slots in the table's own allocation
    /// after a header of three words. A hit whose hash matches asks for the value's line before it
    /// compares the entry's key, so the two come from memory together, not one after the other:
    /// the value is what the response reads next, one line fewer to wait for.
    ///
    /// A hit reads one line of slots before the entry, its slot count coming with the table's
    /// address (``ShardTables``): a `Dictionary` read its storage's header, bitmap, keys and values,
    /// four lines that a screen among thousands finds cold, and slots in an array of their own
    /// behind a table object were two more. A different hash is passed
    /// over without touching its entry. Keys of one hash (all but impossible with 64 bits, but it
    /// must still be right) take consecutive slots and are told apart by their keys. At most three
    /// quarters full; a removal moves back the slots after it that belong before the hole, so there
    /// are no tombstones and a lookup stops at the first empty slot. Changed only before it is
    /// published (``Entries`` copies a table it shares), read by any number of threads after.
    ///
    /// A table does not own its entries: the shard's ``Rings`` do, and an entry evicted is kept
    /// until no reader can hold a table that has it (``ShardTables``). So slots are plain words, and
    /// a miss copies its shard's table as memory, where retaining each of its entries (a hundred
    /// or so objects, each a line from memory for a shard nobody asked lately) cost a miss more
    /// than making its answer.
    final class Table: ManagedBuffer<TableHeader, TableSlot?> {
        /// A table of `slotCount` empty slots, a power of two (or none).
        static func empty(slotCount: Int) -> Table {
            let made = create(minimumCapacity: slotCount) { _ in
                TableHeader(slotCount: slotCount, count: 0, held: 0)
            }
            let table = unsafeDowncast(made, to: Table.self)
            table.withUnsafeMutablePointerToElements { $0.initialize(repeating: nil, count: slotCount) }
            return table
        }

        var slotCount: Int { header.slotCount }

        var count: Int { header.count }
        /// What the entries were charged when the table was published: what `/metrics` reads,
        /// so that nothing shared is written for it.
        var held: Int { header.held }

        subscript(key: HashedKey) -> Entry? {
            withUnsafeMutablePointerToElements { slots in slot(of: key).map { slots[$0].unsafelyUnwrapped.entry.takeUnretainedValue() } }
        }

        var all: [Entry] {
            withUnsafeMutablePointerToElements { slots in (0..<header.slotCount).compactMap { slots[$0]?.entry.takeUnretainedValue() } }
        }

        /// The body kept for `key`, marking its entry referenced: a hit, which copies out the body
        /// and nothing else (the entry is not retained: the table holds it while it is read).
        /// - Parameter slotBits: the table's slot count as a power of two (0 for none), which the
        ///   shard's word holds beside the table's address: the header is not read.
        func hit(_ key: HashedKey, slotBits: Int) -> Value? {
            withUnsafeMutablePointerToElements { slots in
                guard let index = slot(of: key, slotBits: slotBits) else { return nil }
                return slots[index].unsafelyUnwrapped.entry._withUnsafeGuaranteedRef { entry in
                    // Only the first hit after the hand passed writes: a popular entry's line stays shared.
                    if !entry.referenced.load(ordering: .relaxed) { entry.referenced.store(true, ordering: .relaxed) }
                    return entry.body
                }
            }
        }

        /// Where `key`'s entry is, if it is here.
        func slot(of key: HashedKey) -> Int? { slot(of: key, slotBits: slotBits) }

        /// The slot count as a power of two; 0 for none.
        var slotBits: Int { header.slotBits }

        private func slot(of key: HashedKey, slotBits: Int) -> Int? {
            guard slotBits > 0 else { return nil }
            let mask = (1 << slotBits) - 1
            return withUnsafeMutablePointerToElements { slots in
                var index = TableHeader.home(key.hash, slotBits: slotBits)
                while let hash = slots[index]?.hash {
                    if hash == key.hash {
                        if let line = slots[index].unsafelyUnwrapped.valueLine { Prefetch.line(line) }
                        if slots[index].unsafelyUnwrapped.entry._withUnsafeGuaranteedRef({ $0.key == key.key }) { return index }
                    }
                    index = (index + 1) & mask
                }
                return nil
            }
        }

        /// A table of `slotCount` slots holding this one's entries.
        func copy(slotCount: Int) -> Table {
            let copy = Table.empty(slotCount: slotCount)
            withUnsafeMutablePointerToElements { slots in
                if slotCount == header.slotCount {
                    copy.withUnsafeMutablePointerToElements { $0.update(from: slots, count: slotCount) }
                } else {
                    for index in 0..<header.slotCount { if let slot = slots[index] { copy.place(slot) } }
                }
            }
            copy.header.count = header.count
            return copy
        }

        /// Puts `slot` in the first empty slot from its home on; the caller counts it.
        func place(_ slot: TableSlot) {
            let header = self.header
            withUnsafeMutablePointerToElements { slots in
                var index = header.home(slot.hash)
                while slots[index] != nil { index = (index + 1) & (header.slotCount - 1) }
                slots[index] = slot
            }
        }

        func remove(at hole: Int) {
            let header = self.header
            withUnsafeMutablePointerToElements { slots in
                let mask = header.slotCount - 1
                var hole = hole
                slots[hole] = nil
                // Each slot after the hole, up to the next empty one, moves into it unless it
                // starts between the hole and where it is (cyclically): then it is already reached.
                var next = (hole + 1) & mask
                while let slot = slots[next] {
                    let start = header.home(slot.hash)
                    let reachedWithoutHole = hole <= next ? (hole < start && start <= next) : (hole < start || start <= next)
                    if !reachedWithoutHole {
                        slots[hole] = slot
                        slots[next] = nil
                        hole = next
                    }
                    next = (next + 1) & mask
                }
            }
            self.header.count -= 1
        }
    }

    struct TableHeader {
        /// The number of slots: a power of two, or none before the first insertion. (Not the
        /// buffer's `capacity`, which is what the allocator gave, often more.)
        let slotCount: Int
        var count: Int
        var held: Int

        /// The slot count as a power of two; 0 for none (the count of trailing zeros of 0 is 64).
        var slotBits: Int { slotCount.trailingZeroBitCount & 63 }

        func home(_ hash: Int) -> Int { Self.home(hash, slotBits: slotBits) }

        /// The slot a hash starts from in a table of 2^`slotBits` slots (at least 1): the hash's
        /// top bits, since the shard was picked by its low bits, which all of a shard's keys share.
        static func home(_ hash: Int, slotBits: Int) -> Int { Int(truncatingIfNeeded: UInt(bitPattern: hash) >> UInt(64 - slotBits)) }
    }

    /// A shard's entries as a miss changes them: a published table, copied the first time it is
    /// changed, then changed in place until it is published. It does not own the entries: the
    /// caller keeps them alive while they are in it.
    struct Entries {
        private(set) var table: Table

        init() { table = .empty(slotCount: 0) }
        init(_ table: Table) { self.table = table }

        var count: Int { table.count }
        subscript(key: HashedKey) -> Entry? { table[key] }
        var all: [Entry] { table.all }

        mutating func insert(_ entry: Entry, hash: Int, valueLine: UnsafeRawPointer?) {
            let slotCount = table.slotCount
            if (table.count + 1) * 4 > slotCount * 3 {
                table = table.copy(slotCount: max(8, slotCount * 2))
            } else if !isKnownUniquelyReferenced(&table) {
                table = table.copy(slotCount: slotCount)
            }
            table.place(TableSlot(hash: hash, entry: Unmanaged.passUnretained(entry), valueLine: valueLine))
            table.header.count += 1
        }

        mutating func remove(_ key: HashedKey) {
            guard let hole = table.slot(of: key) else { return }
            if !isKnownUniquelyReferenced(&table) { table = table.copy(slotCount: table.slotCount) }
            table.remove(at: hole)
        }

        /// The table to publish, charged `held`; the entries are not to be changed after.
        mutating func published(held: Int) -> Table {
            if !isKnownUniquelyReferenced(&table) { table = table.copy(slotCount: table.slotCount) }
            table.header.held = held
            return table
        }
    }

    /// A key's hash beside its entry, in a table, which does not own the entry.
    struct TableSlot {
        let hash: Int
        let entry: Unmanaged<Entry>
        /// The value's first line (``CacheCost/firstLine``), asked for before the entry's key is
        /// compared, so that both come from memory together; nil for a cache bounded by entries.
        let valueLine: UnsafeRawPointer?
    }

    /// An entry's place in its class's eviction order, which owns it.
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
        /// What was replaced or removed since readers of the shard were last seen gone, and so
        /// may still be read: freed when no reader is counted (``ShardTables``).
        var retired = Retired()

        var held: Int { screens.held + viewports.held }
    }

    /// Tables replaced and entries evicted, kept until no reader can hold them.
    struct Retired {
        var tables: [Table] = []
        var entries: [Entry] = []
        var isEmpty: Bool { tables.isEmpty && entries.isEmpty }
    }

    /// Every shard's CLOCK rings behind its lock, side by side in one allocation: a miss finds its
    /// shard's by arithmetic, and asks for them from memory as soon as it knows it missed, long
    /// before it stores (a shard nobody asked lately is cold; an array of shard objects was two
    /// lines, one after the other). Freed with the cache.
    struct ShardRings: @unchecked Sendable {
        private let storage: UnsafeMutablePointer<Mutex<Rings>>
        let count: Int

        init(count: Int) {
            self.count = count
            storage = .allocate(capacity: count)
            for index in 0..<count { (storage + index).initialize(to: Mutex(Rings())) }
        }

        /// `body` with shard `index`'s rings, under its lock.
        func withLock<Result: Sendable>(_ index: Int, _ body: (inout sending Rings) -> sending Result) -> Result {
            storage[index].withLock(body)
        }

        /// Asks for shard `index`'s rings (every line they span) without waiting for them.
        func prefetch(_ index: Int) {
            Prefetch.bytes(storage + index, count: MemoryLayout<Mutex<Rings>>.size)
        }

        /// Frees every shard's rings and the storage; nothing may use them after.
        func free() {
            storage.deinitialize(count: count)
            storage.deallocate()
        }
    }

    /// Every shard's published table and count of readers, two words side by side for each shard
    /// in one allocation: a hit finds its shard's words by arithmetic and touches one line for
    /// them. Freed with the cache.
    ///
    /// A table is freed only when no reader can hold it, without a reference count on the table
    /// (which made every hit two locked operations more, on a line from memory for a shard among
    /// thousands). A reader increments its shard's count, then loads the table; a miss replaces the
    /// table, then loads the count, all four sequentially consistent. When the miss reads 0, every
    /// reader that loaded a replaced table has counted itself before that read (its increment
    /// came before its load, which came before the replacement) and has since gone; every later
    /// reader loads the new table. So the replaced tables can go, and the entries removed from the
    /// tables published by then (``reclaim(_:_:)``).
    struct ShardTables: @unchecked Sendable {
        private let storage: UnsafeMutablePointer<UnsafeAtomic<Int>.Storage>
        let count: Int

        init(count: Int) {
            self.count = count
            storage = .allocate(capacity: 2 * count)
            for index in 0..<count {
                (storage + 2 * index).initialize(to: .init(Self.bits(Table.empty(slotCount: 0))))
                (storage + 2 * index + 1).initialize(to: .init(0))
            }
        }

        /// Shard `index`'s table: its address, which holds a reference to it, with its slot count
        /// in the four low bits (an object's address is a multiple of 16): 0 for none, else its
        /// power of two less 2 — a table has no slots or at least 8, and at most 2^17
        /// (``mostSlotBits``).
        private func table(_ index: Int) -> UnsafeAtomic<Int> { UnsafeAtomic(at: storage + 2 * index) }
        private func readers(_ index: Int) -> UnsafeAtomic<Int> { UnsafeAtomic(at: storage + 2 * index + 1) }

        private static var tagMask: Int { 15 }
        /// The most slots a table may have, as a power of two: a shard's share is at most 16 MiB
        /// (``SnapshotCacheLimits/configurableBytes`` over ``SnapshotCacheLimits/mostAnswerShards``),
        /// 32,768 entries at the least charge, in 2^16 slots.
        static var mostSlotBits: Int { 17 }

        private static func bits(_ table: Table) -> Int {
            let address = Int(bitPattern: Unmanaged.passRetained(table).toOpaque())
            let slotBits = table.slotBits
            precondition(address & tagMask == 0, "an object's address is a multiple of 16")
            precondition(slotBits == 0 || (3...mostSlotBits).contains(slotBits), "a table has no slots, or 2^3 to 2^17")
            return address | (slotBits == 0 ? 0 : slotBits - 2)
        }
        private static func slotBits(_ bits: Int) -> Int {
            let tag = bits & tagMask
            return tag == 0 ? 0 : tag + 2
        }
        private static func unmanaged(_ bits: Int) -> Unmanaged<Table> {
            Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits & ~tagMask).unsafelyUnwrapped)
        }

        /// `body` of shard `index`'s table, borrowed (no reference to it may outlive `body`), and
        /// its ``Table/slotBits``.
        @inline(__always)
        func reading<Result>(_ index: Int, _ body: (Table, _ slotBits: Int) -> Result) -> Result {
            readers(index).wrappingIncrement(ordering: .sequentiallyConsistent)
            defer { readers(index).wrappingDecrement(ordering: .sequentiallyConsistent) }
            let bits = table(index).load(ordering: .sequentiallyConsistent)
            return Self.unmanaged(bits)._withUnsafeGuaranteedRef { body($0, Self.slotBits(bits)) }
        }

        /// `body` of shard `index`'s table, borrowed.
        @inline(__always)
        func reading<Result>(_ index: Int, _ body: (Table) -> Result) -> Result { reading(index) { table, _ in body(table) } }

        /// Shard `index`'s table, for the holder of its lock (only that holder replaces it).
        func current(_ index: Int) -> Table {
            Self.unmanaged(table(index).load(ordering: .sequentiallyConsistent)).takeUnretainedValue()
        }

        /// Publishes `new` as shard `index`'s table, under the shard's lock; the table it replaces
        /// joins `retired` (with the entries `new` no longer has), which goes as soon as no reader
        /// of the shard is seen.
        func publish(_ new: Table, _ index: Int, retired: inout Retired) {
            let old = Self.unmanaged(table(index).exchange(Self.bits(new), ordering: .sequentiallyConsistent))
            // Most often no reader is about: the table replaced goes at once, without joining
            // `retired`, whose storage (kept empty) would be one more line from memory for a
            // shard nobody asked lately.
            if readers(index).load(ordering: .sequentiallyConsistent) == 0 {
                old.release()
                if !retired.isEmpty { retired = Retired() }
                return
            }
            retired.tables.append(old.takeRetainedValue())
            reclaim(index, &retired)
        }

        /// Frees the retired tables if no reader of the shard is counted now. Past
        /// ``SnapshotCacheLimits/retiredTablesPerShard`` it waits for a moment without readers (a
        /// hit counts itself for less than a microsecond), so a shard read without pause by many
        /// threads cannot pile up tables.
        private func reclaim(_ index: Int, _ retired: inout Retired) {
            while readers(index).load(ordering: .sequentiallyConsistent) != 0 {
                guard retired.tables.count > SnapshotCacheLimits.retiredTablesPerShard else { return }
                sched_yield()
            }
            retired = Retired()
        }

        /// Releases every table and the storage; nothing may read them after.
        func free() {
            for index in 0..<count { Self.unmanaged(table(index).load(ordering: .relaxed)).release() }
            storage.deinitialize(count: 2 * count)
            storage.deallocate()
        }
    }

    public let limit: Limit
    /// Each shard's share of the limit, in its unit.
    let shardLimit: Int
    /// Most a shard's entries with a viewport may be charged: half of it.
    var shardViewportLimit: Int { shardLimit / 2 }
    /// Most the entries with a viewport may be charged: half of every shard.
    public var viewportLimit: Int { shardViewportLimit * shardCount }
    private let rings: ShardRings
    let tables: ShardTables
    private let shardMask: Int
    /// What an entry holds, in a cache bounded by bytes; nil in one bounded by entries.
    private let bytesOf: (@Sendable (AnswerKey, Value) -> Int)?
    /// Where a value's first line is, in a cache bounded by bytes; nil in one bounded by entries.
    private let lineOf: (@Sendable (Value) -> UnsafeRawPointer)?
    /// Asks for a value's lines as a hit returns it, in a cache bounded by bytes; nil in one bounded by entries.
    private let prefetchOf: (@Sendable (Value) -> Void)?

    private init(
        limit: Limit, shardCount: Int, bytesOf: (@Sendable (AnswerKey, Value) -> Int)?, lineOf: (@Sendable (Value) -> UnsafeRawPointer)? = nil,
        prefetchOf: (@Sendable (Value) -> Void)? = nil
    ) {
        self.limit = limit
        self.bytesOf = bytesOf
        self.lineOf = lineOf
        self.prefetchOf = prefetchOf
        let tables = ShardTables(count: shardCount)
        self.tables = tables
        rings = ShardRings(count: shardCount)
        shardMask = shardCount - 1
        shardLimit = limit.units / shardCount
    }

    deinit {
        tables.free()
        rings.free()
    }

    /// A cache of at most `capacity` entries (resolved screens, layout plans), each counting 1.
    public convenience init(capacity: Int) {
        var count = 1
        while count * 2 * SnapshotCacheLimits.entriesPerShard <= capacity { count *= 2 }
        self.init(limit: .entries(capacity), shardCount: count, bytesOf: nil)
    }

    /// The number of shards (tests, diagnostics).
    public var shardCount: Int { tables.count }

    /// The number of entries now: one read of each shard's table (diagnostics, `/metrics`).
    public var count: Int { (0..<tables.count).reduce(0) { sum, index in sum + tables.reading(index) { $0.count } } }

    /// What the entries count against the limit now, in its unit (bytes, or entries): one read of
    /// each shard's table (diagnostics, `/metrics`). Never more than the limit.
    public var held: Int { (0..<tables.count).reduce(0) { sum, index in sum + tables.reading(index) { $0.held } } }

    /// Whether `key` is cached now, without counting as a hit (tests, diagnostics).
    public func contains(_ key: AnswerKey) -> Bool {
        let hashed = HashedKey(key)
        return tables.reading(hashed.hash & shardMask) { $0[hashed] != nil }
    }

    /// Every entry cached now, with its charge (tests, diagnostics).
    var allEntries: [Entry] { (0..<tables.count).flatMap { index in tables.reading(index) { $0.all } } }

    /// The tables and entries kept for readers that may still hold them, in every shard (tests).
    var retiredCounts: (tables: Int, entries: Int) {
        (0..<shardCount).reduce((0, 0)) { sum, index in
            rings.withLock(index) { (sum.0 + $0.retired.tables.count, sum.1 + $0.retired.entries.count) }
        }
    }

    /// Every key cached now (tests, diagnostics).
    var keys: [AnswerKey] { allEntries.map(\.key) }


    /// The cached answer for `key`, or `make()`'s, stored for the next request (evicting when full).
    /// - Returns: the body, and whether it came from the cache.
    @inline(never)  // inlined, its callers copy their request into `make` on every hit
    public func answer<Failure: Error>(
        for key: AnswerKey, make: () throws(Failure) -> Value
    ) throws(Failure) -> (body: Value, hit: Bool) {
        let hashed = HashedKey(key)
        let shard = hashed.hash & shardMask
        if let body = tables.reading(shard, { $0.hit(hashed, slotBits: $1) }) {
            prefetchOf?(body)
            return (body, true)
        }
        rings.prefetch(shard)
        let made = try make()
        return (store(made, for: hashed, in: shard), false)
    }

    /// Publishes `made` under `key` in its shard (misses of one shard serialize here), unless
    /// another miss stored the key first: then that body is returned, so every caller serves the
    /// bytes the cache holds.
    private func store(_ made: Value, for key: HashedKey, in shard: Int) -> Value {
        let isViewport = key.key.viewport != nil
        let charge = bytesOf?(key.key, made) ?? 1
        // Larger than its class's share of a shard: served, and not kept.
        guard charge <= (isViewport ? shardViewportLimit : shardLimit) else { return made }
        return rings.withLock(shard) { rings in
            var entries = Entries(tables.current(shard))
            if let raced = entries[key] { return raced.body }
            if isViewport {
                while rings.viewports.held + charge > shardViewportLimit { evict(from: &rings.viewports, &entries, retiring: &rings.retired.entries) }
            }
            // The viewports within their share (half, less this charge if it is one of them), the
            // screen answers hold whatever else must go; a screen answer may need the viewports'
            // room too when the screen answers hold too little.
            while rings.held + charge > shardLimit {
                if rings.screens.slots.isEmpty {
                    evict(from: &rings.viewports, &entries, retiring: &rings.retired.entries)
                } else {
                    evict(from: &rings.screens, &entries, retiring: &rings.retired.entries)
                }
            }
            let slot = Slot(entry: Entry(key.key, made, charge: charge), hash: key.hash)
            entries.insert(slot.entry, hash: key.hash, valueLine: lineOf?(made))
            if isViewport { rings.viewports.insert(slot, charge: charge) } else { rings.screens.insert(slot, charge: charge) }
            tables.publish(entries.published(held: rings.held), shard, retired: &rings.retired)
            return made
        }
    }

    /// Removes the entry CLOCK chooses from `ring`: the first from the hand on that has not been
    /// hit since the hand last passed it, clearing the bits it passes (at most one full turn plus
    /// one) and measuring again the entries it passes. The hand stays on the entry after it. The
    /// entry joins `retired`: the table published before holds it until readers are gone.
    private func evict(from ring: inout Ring, _ entries: inout Entries, retiring retired: inout [Entry]) {
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
            // A reader may still hold a published table that has it.
            retired.append(slot.entry)
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
            bytesOf: { key, value in SnapshotCacheLimits.answerEntryOverheadBytes + key.heapBytes + value.cacheBytes },
            lineOf: { $0.firstLine }, prefetchOf: { $0.prefetchBytes() })
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
