import Foundation
import Synchronization
import Testing
import TrellisHTTP
import TrellisRuntime
import TrellisScreens
import TrellisTesting
@testable import TrellisAnswers
@testable import TrellisRendering
@testable import TrellisServer

/// The answer cache evicts with CLOCK, keeps viewports to half of it, and keeps what is asked for
/// again through a sweep of keys seen once.
@Suite struct AnswerCacheTests {
    static func key(width: Float? = nil, screen: String = "s") -> AnswerKey {
        AnswerKey(
            screen: screen, revision: 1, schemaVersion: 1, outcomes: Outcomes([]), pretty: false,
            format: width == nil ? .screen : .layout, viewport: width.map { LayoutViewport(width: $0, height: 800) })
    }

    /// Asks the cache; `bytes` is what a miss makes.
    @discardableResult
    static func ask(_ cache: AnswerCache, _ key: AnswerKey, _ bytes: [UInt8] = [0]) -> (body: EncodedBody, hit: Bool) {
        cache.answer(for: key) { EncodedBody(bytes: bytes) }
    }

    /// A shard's table is keyed by the keys' hashes: keys whose hashes are equal take neighbouring
    /// slots and are still found, replaced and removed one by one.
    @Test func keysOfOneHashStayApart() {
        typealias Cache = AnswerCache
        let keys = (1...3).map { Cache.HashedKey(Self.key(width: Float($0)), hash: 7) }
        let other = Cache.HashedKey(Self.key(width: 4), hash: 8)
        var entries = Cache.Entries()
        // A table does not own its entries (the cache's rings do): the test keeps them.
        let kept = (keys + [other]).enumerated().map { n, key in Cache.Entry(key.key, EncodedBody(bytes: [UInt8(n)])) }
        for (entry, key) in zip(kept, keys + [other]) { entries.insert(entry, hash: key.hash, valueLine: entry.body.firstLine) }
        #expect(entries.count == 4)
        #expect((keys + [other]).enumerated().allSatisfy { n, key in entries[key]?.body.bytes == [UInt8(n)] })
        #expect(entries[Cache.HashedKey(Self.key(width: 5), hash: 7)] == nil, "same hash, another key")
        entries.remove(keys[1])
        entries.remove(keys[1])
        #expect(entries.count == 3)
        #expect(entries[keys[1]] == nil && entries[keys[0]]?.body.bytes == [0] && entries[keys[2]]?.body.bytes == [2])
        let table = entries.published(held: 0)
        #expect(table.count == 3 && table[keys[2]]?.body.bytes == [2] && table[keys[1]] == nil)
        #expect(Set(table.all.map { $0.body.bytes[0] }) == [0, 2, 3])
        entries.remove(keys[0])
        entries.remove(keys[2])
        entries.remove(other)
        #expect(entries.count == 0 && entries.all.isEmpty)
        #expect(table.count == 3 && table[keys[0]]?.body.bytes == [0], "the published table is not changed")
        withExtendedLifetime(kept) {}
    }

    /// The table's slots under inserts and removals in any order, against a dictionary: every key
    /// kept is found, every key removed is gone — removals move back the slots after them without
    /// losing one, across the end of the slots too, and through growth. Hashes are drawn from a
    /// few top bits so that runs of probes are long and wrap.
    @Test func slotsFindWhatWasInsertedAndNothingRemoved() {
        typealias Cache = AnswerCache
        var random = SplitMix64(seed: 30)
        var entries = Cache.Entries()
        var reference: [Int: Cache.HashedKey] = [:]  // by width
        var owned: [Int: Cache.Entry] = [:]  // what the table holds, by width: it does not own them
        for step in 0..<4_000 {
            let width = Int(random.next() % 300)
            // Top bits pick the slot; only 16 starting points, and colliding hashes among them.
            let hash = Int(bitPattern: UInt(random.next() % 16) << 60 | UInt(width % 7))
            let key = Cache.HashedKey(Self.key(width: Float(width)), hash: hash)
            if let kept = reference[width] {
                entries.remove(kept)
                reference[width] = nil
                owned[width] = nil
            } else {
                let entry = Cache.Entry(key.key, EncodedBody(bytes: [UInt8(width % 256)]))
                entries.insert(entry, hash: hash, valueLine: entry.body.firstLine)
                reference[width] = key
                owned[width] = entry
            }
            if step % 97 == 0 || step > 3_900 {
                #expect(entries.count == reference.count)
                #expect(reference.values.allSatisfy { entries[$0]?.key == $0.key }, "step \(step): a kept key is lost")
                #expect(entries.all.count == reference.count)
            }
        }
        for width in 0..<300 where reference[width] == nil {
            let hashes = (0..<16).map { Int(bitPattern: UInt($0) << 60 | UInt(width % 7)) }
            #expect(hashes.allSatisfy { entries[Cache.HashedKey(Self.key(width: Float(width)), hash: $0)] == nil }, "a removed key is found")
        }
        withExtendedLifetime(owned) {}
    }

    /// A reader holding a shard's table (between its count and its last read) keeps what it may
    /// read: the tables misses replace and the entries they evict stay until it goes, and go at
    /// the first miss after; past ``SnapshotCacheLimits/retiredTablesPerShard`` of them a miss waits
    /// for the reader instead of piling up more.
    @Test func whatAReaderMayHoldIsFreedOnlyAfterItGoes() {
        let cache = AnswerCache(capacity: 2)  // one shard of two screen answers
        #expect(cache.shardCount == 1)
        Self.ask(cache, Self.key(screen: "a"), [1])
        Self.ask(cache, Self.key(screen: "b"), [2])
        let a = AnswerCache.HashedKey(Self.key(screen: "a"))
        let entered = DispatchSemaphore(value: 0), leave = DispatchSemaphore(value: 0), left = DispatchSemaphore(value: 0)
        let read = Mutex<[UInt8]?>(nil)
        Thread.detachNewThread {
            cache.tables.reading(0) { table in
                entered.signal()
                leave.wait()
                let bytes = table[a]?.body.bytes
                read.withLock { $0 = bytes }
            }
            left.signal()
        }
        entered.wait()
        let limit = SnapshotCacheLimits.retiredTablesPerShard
        for n in 0..<limit { Self.ask(cache, Self.key(screen: "m\(n)"), [UInt8(10 + n)]) }
        #expect(!cache.contains(Self.key(screen: "a")) && !cache.contains(Self.key(screen: "b")))
        #expect(cache.retiredCounts == (limit, limit), "every table replaced and entry evicted is kept")
        // One miss more would keep more than the limit: it waits until the reader goes.
        let waited = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            Self.ask(cache, Self.key(screen: "late"), [99])
            waited.signal()
        }
        #expect(waited.wait(timeout: .now() + .milliseconds(100)) == .timedOut, "the miss did not wait for the reader")
        leave.signal()
        left.wait()
        waited.wait()
        #expect(read.withLock { $0 } == [1], "the entry evicted under the reader was intact when it read it")
        #expect(cache.retiredCounts == (0, 0), "what the reader could hold is freed once it is gone")
        #expect(Self.ask(cache, Self.key(screen: "late")).hit)
    }

    /// A shard's word holds its table's slot count beside the address, for every size a table
    /// can reach: none, 2^3, and 2^17, more than the largest budget's shards can need.
    @Test func aShardsWordGivesBackItsTablesSlotCount() {
        typealias Cache = AnswerCache
        let share = SnapshotCacheLimits.configurableBytes.upperBound / SnapshotCacheLimits.mostAnswerShards
        let mostEntries = share / SnapshotCacheLimits.answerEntryOverheadBytes
        #expect(mostEntries * 4 / 3 <= 1 << Cache.ShardTables.mostSlotBits, "a shard of the largest budget fits")
        let tables = Cache.ShardTables(count: 2)
        var retired = Cache.Retired()
        for slotBits in [0, 3, 4, 11, Cache.ShardTables.mostSlotBits] {
            let table = Cache.Table.empty(slotCount: slotBits == 0 ? 0 : 1 << slotBits)
            tables.publish(table, 1, retired: &retired)
            #expect(tables.reading(1) { read, bits in read === table && bits == slotBits }, "2^\(slotBits) slots")
            #expect(tables.reading(0) { _, bits in bits } == 0, "the other shard is untouched")
        }
        tables.free()
    }

    /// Threads asking at once for keys that keep evicting each other always get the body made
    /// for the key they asked (a table or entry freed under a reader would give another, or crash),
    /// and nothing stays retired once they are done.
    @Test func concurrentHitsAndMissesAlwaysAnswerTheirOwnKey() {
        let cache = AnswerCache(capacity: 64)
        let wrong = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            var random = SplitMix64(seed: UInt64(thread))
            for _ in 0..<30_000 {
                let n = Int(random.next() % 200)
                let body = Self.ask(cache, Self.key(screen: "s\(n)"), [UInt8(n), UInt8(n / 2)]).body
                if body.bytes != [UInt8(n), UInt8(n / 2)] { wrong.add(1, ordering: .relaxed) }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
        Self.ask(cache, Self.key(screen: "after"))
        for n in 0..<200 { Self.ask(cache, Self.key(screen: "again\(n)")) }
        #expect(cache.retiredCounts == (0, 0), "misses with no reader about free what was retired")
        #expect(cache.count <= 64)
    }

    /// A key holds up to 15 outcomes in itself and more in an array: either way it gives back
    /// the outcomes it was made with, and keys are equal exactly when their outcomes are (a
    /// trailing 0 and the none byte included).
    @Test func keysHoldTheirOutcomesExactly() {
        var random = SplitMix64(seed: 7)
        var keys: [(Outcomes, AnswerKey)] = []
        for count in 0...20 {
            for _ in 0..<4 {
                let bytes = (0..<count).map { _ in [0, 1, 2, Outcomes.none][Int(random.next() % 4)] }
                var key = Self.key()
                key.outcomes = Outcomes(bytes)
                #expect(key.outcomes == Outcomes(bytes), "\(bytes)")
                keys.append((Outcomes(bytes), key))
            }
        }
        for (a, keyA) in keys {
            for (b, keyB) in keys { #expect((keyA == keyB) == (a == b), "\(a) and \(b)") }
        }
        #expect(Self.key().heapBytes == 1, "a short key holds its outcomes inline")
    }

    /// A screen answer's key keeps no format, viewport or link query of its own; any other keeps
    /// them behind one reference. Keys are equal, and hash equally, exactly when every part is
    /// equal, however they were made.
    @Test func keysAreEqualExactlyWhenEveryPartIs() {
        var back = Self.key(width: 390)
        back.viewport = nil
        back.format = .screen
        #expect(back == Self.key() && back.hashValue == Self.key().hashValue)
        #expect(Self.key(width: 390) == Self.key(width: 390) && Self.key(width: 390).hashValue == Self.key(width: 390).hashValue)
        var linked = Self.key()
        linked.linkQuery = "user=u1"
        let variants: [AnswerKey] = [
            Self.key(), Self.key(width: 390), Self.key(width: 391), linked,
            AnswerKey(screen: "s", revision: 1, schemaVersion: 1, outcomes: Outcomes([]), pretty: false, format: .svg),
            AnswerKey(screen: "s", revision: 1, schemaVersion: 1, outcomes: Outcomes([]), pretty: false, format: .html(check: true)),
            AnswerKey(screen: "s", revision: 1, schemaVersion: 1, outcomes: Outcomes([]), pretty: false, format: .route(resolution: [1], layout: false)),
            AnswerKey(screen: "s", revision: 1, schemaVersion: 1, outcomes: Outcomes([]), pretty: false, format: .route(resolution: [2], layout: false)),
        ]
        for (i, a) in variants.enumerated() {
            for (j, b) in variants.enumerated() { #expect((a == b) == (i == j), "\(i) and \(j)") }
        }
        #expect(variants[6].heapBytes == variants[0].heapBytes + 1, "a route's resolution is counted")
        #expect(linked.heapBytes == Self.key().heapBytes + 7, "a link query is counted")
    }

    @Test func layoutsFillAtMostHalfTheCacheAndEvictEachOther() {
        let cache = AnswerCache(capacity: 4)
        for width in [300, 301, 302, 303] as [Float] { Self.ask(cache, Self.key(width: width)) }
        #expect(cache.count == 2)
        #expect(cache.contains(Self.key(width: 302)) && cache.contains(Self.key(width: 303)), "the newest evicted the oldest")
        #expect(!cache.contains(Self.key(width: 300)))
        Self.ask(cache, Self.key())
        #expect(Self.ask(cache, Self.key(), [9]).hit, "screen answers still find room")
        #expect(Self.ask(cache, Self.key(width: 303)).hit)
    }

    @Test func aSweepOfTenThousandViewportsKeepsTheRepeatedOneAndEveryScreenAnswer() {
        // One shard (under twice SnapshotCacheLimits.entriesPerShard): with two, the 20 screen
        // keys fall into them by the process's random hash seed, and one shard took more than its
        // 16 once in a few hundred runs.
        let cache = AnswerCache(capacity: 62)
        #expect(cache.shardCount == 1)
        let screens = (0..<20).map { Self.key(screen: "screen-\($0)") }
        for (n, key) in screens.enumerated() { Self.ask(cache, key, [UInt8(n)]) }
        let popular = Self.key(width: 390)
        Self.ask(cache, popular, [42])
        var popularHits = 0
        for n in 0..<10_000 {
            #expect(!Self.ask(cache, Self.key(width: 1000 + Float(n) / 100)).hit)
            if n % 8 == 0, Self.ask(cache, popular).hit { popularHits += 1 }
        }
        #expect(popularHits == 1250, "asked for once per 8 sweep keys, it is never evicted")
        #expect(Self.ask(cache, popular).body.bytes == [42])
        for (n, key) in screens.enumerated() {
            let answer = Self.ask(cache, key, [0xFF])
            #expect(answer.hit && answer.body.bytes == [UInt8(n)], "screen answers cached before the sweep stay")
        }
        #expect(cache.count == 20 + 31)

        // After the sweep, a viewport never seen before is cached again: its second request hits.
        let late = Self.key(width: 391)
        #expect(!Self.ask(cache, late).hit)
        #expect(Self.ask(cache, late).hit)
    }

    /// The least default budget, 64 MiB, is 128 shards of 512 KiB (a miss copies one shard): a
    /// sweep of 10,000 layouts of 16 KB, three times what the viewport half holds, still cannot
    /// push out the repeated viewport or any screen answer, and a new viewport is cached again.
    @Test func aBudgetIsShardedAndASweepKeepsTheRepeatedViewport() {
        let cache = AnswerCache(budget: CacheBudget(maxBytes: 64 << 20))
        #expect(cache.shardCount == 128)
        #expect(cache.viewportLimit == 32 << 20)
        let layout = [UInt8](repeating: 0x20, count: 16_000)
        let screens = (0..<500).map { Self.key(screen: "screen-\($0)") }
        for key in screens { Self.ask(cache, key) }
        let popular = Self.key(width: 390)
        Self.ask(cache, popular, [42])
        for n in 0..<10_000 {
            Self.ask(cache, Self.key(width: 1000 + Float(n) / 100), layout)
            if n % 8 == 0 { #expect(Self.ask(cache, popular).hit) }
        }
        #expect(Self.ask(cache, popular).body.bytes == [42])
        #expect(screens.allSatisfy { cache.contains($0) })
        #expect(cache.count < 2_000, "the sweep evicted its own")
        #expect(cache.held <= 64 << 20)
        let late = Self.key(width: 391)
        #expect(!Self.ask(cache, late).hit)
        #expect(Self.ask(cache, late).hit)
    }

    @Test func viewportsTakeAtMostHalfFromAFullTableOfScreenAnswers() {
        let cache = AnswerCache(capacity: 8)
        for n in 0..<8 { Self.ask(cache, Self.key(screen: "screen-\(n)")) }
        #expect(cache.count == 8)
        // screen-0…3 are asked for again; the sweep may take only the four that are not.
        for n in 0..<4 { #expect(Self.ask(cache, Self.key(screen: "screen-\(n)")).hit) }
        for n in 0..<100 {
            Self.ask(cache, Self.key(width: 300 + Float(n)))
            for m in 0..<4 { Self.ask(cache, Self.key(screen: "screen-\(m)")) }
        }
        #expect(cache.count == 8)
        #expect((0..<4).allSatisfy { cache.contains(Self.key(screen: "screen-\($0)")) })
        #expect((300..<400).count { cache.contains(Self.key(width: Float($0))) } == 4)
    }

    @Test func aScreenAnswerInAFullTableEvictsAScreenAnswerNotHitSinceTheHandPassed() {
        let cache = AnswerCache(capacity: 4)
        Self.ask(cache, Self.key(width: 320))
        for n in 0..<3 { Self.ask(cache, Self.key(screen: "screen-\(n)")) }
        Self.ask(cache, Self.key(screen: "screen-0"))  // referenced: survives the hand's first pass
        Self.ask(cache, Self.key(screen: "screen-3"))
        #expect(cache.count == 4)
        #expect(cache.contains(Self.key(width: 320)))
        #expect(cache.contains(Self.key(screen: "screen-0")))
        #expect(!cache.contains(Self.key(screen: "screen-1")))
        #expect(cache.contains(Self.key(screen: "screen-3")))
    }

    @Test func racingMissesServeTheBytesTheCacheHolds() {
        let cache = AnswerCache(capacity: 4)
        let key = Self.key()
        // A miss whose `make` finds that another miss stored the key meanwhile gets the stored bytes.
        let answer = cache.answer(for: key) { () -> EncodedBody in
            Self.ask(cache, key, [1])
            return EncodedBody(bytes: [2])
        }
        #expect(!answer.hit)
        #expect(answer.body.bytes == [1])
        #expect(cache.count == 1)
    }

    // MARK: bounded by bytes

    /// What a byte-bounded cache would charge `entry` now: what it holds.
    static func holds(_ entry: AnswerCache.Entry) -> Int {
        SnapshotCacheLimits.answerEntryOverheadBytes + entry.key.heapBytes + entry.body.cacheBytes
    }

    /// The bytes the cache's entries hold now, by class.
    static func bytesHeld(_ cache: AnswerCache) -> (screens: Int, viewports: Int) {
        cache.allEntries.reduce(into: (0, 0)) { sum, entry in
            if entry.key.viewport == nil { sum.0 += holds(entry) } else { sum.1 += holds(entry) }
        }
    }

    /// `count` bytes that do not compress (gzip's worst case), from `random`.
    static func noise(_ count: Int, _ random: inout SplitMix64) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// Answers of every size from 1 byte to 200 KB, screens and viewports, half of them sent
    /// gzipped (made after they are stored, as a client's first use makes them): after every
    /// answer the entries hold no more than the budget, and no more than their charges.
    @Test func theBudgetIsNeverExceeded() {
        let budget = 2 << 20
        let cache = AnswerCache(budget: CacheBudget(maxBytes: budget))
        var random = SplitMix64(seed: 30)
        for n in 0..<600 {
            let size = random.chance(10) ? 20_000 + random.below(180_000) : 1 + random.below(6_000)
            let bytes = random.coin() ? Self.noise(size, &random) : [UInt8](repeating: UInt8(ascii: "a") + UInt8(n % 26), count: size)
            let key = random.chance(40) ? Self.key(width: Float(n), screen: "s\(n % 7)") : Self.key(screen: "screen-\(n)")
            let answer = Self.ask(cache, key, bytes)
            #expect(answer.body.bytes.count == size, "served whether kept or not")
            if random.coin() { _ = answer.body.gzip }
            let held = Self.bytesHeld(cache)
            #expect(held.screens + held.viewports <= budget)
            #expect(cache.held <= budget)
            #expect(cache.allEntries.allSatisfy { Self.holds($0) <= $0.charge.load(ordering: .relaxed) }, "charges are upper bounds")
        }
        #expect(cache.held == cache.allEntries.reduce(0) { $0 + $1.charge.load(ordering: .relaxed) })
        #expect(cache.count == cache.allEntries.count)
        #expect(cache.held > budget / 2, "the budget is used")
    }

    /// An answer's gzip form counts at its bound until made; once made, it is charged what it
    /// holds when the eviction hand passes it (a referenced entry it spares), and not before: no
    /// miss reads an answer it does not evict. Compressible JSON then costs about a fifth more
    /// than its bytes, not double.
    @Test func anAnswerIsChargedItsGzipBoundUntilTheHandMeasuresTheFormMade() {
        let cache = AnswerCache(budget: CacheBudget(maxBytes: 512 << 10))  // one shard
        #expect(cache.shardCount == 1)
        let json = Array(String(repeating: #"{"type":"Text","values":{"text":"Hello"}},"#, count: 1_000).utf8)
        let first = Self.ask(cache, Self.key(screen: "a"), json).body
        let charged = cache.held
        #expect(charged >= 2 * json.count, "identity bytes and the gzip bound")
        let gzip = try! #require(first.gzip)
        #expect(gzip.count < json.count / 5)
        #expect(cache.held == charged, "a hit (and the form made) writes nothing")
        func chargeOfA() -> Int { cache.allEntries.first { $0.key.screen == "a" }!.charge.load(ordering: .relaxed) }
        let bound = chargeOfA()
        #expect(bound >= 2 * json.count)
        Self.ask(cache, Self.key(screen: "b"), [1])
        #expect(chargeOfA() == bound, "another miss leaves it")
        #expect(Self.ask(cache, Self.key(screen: "a")).hit)  // referenced: the hand spares it, and measures it
        var n = 0
        while chargeOfA() >= 2 * json.count {
            Self.ask(cache, Self.key(screen: "filler-\(n)"), json)
            n += 1
            #expect(cache.contains(Self.key(screen: "a")), "spared by the hand: it was hit")
            if n > 1_000 { break }
        }
        #expect(chargeOfA() < json.count + json.count / 4 + SnapshotCacheLimits.answerEntryOverheadBytes + 64)
        #expect(chargeOfA() == Self.holds(cache.allEntries.first { $0.key.screen == "a" }!))
    }

    @Test func theGzipBoundHoldsForIncompressibleBodies() {
        var random = SplitMix64(seed: 7)
        for size in [256, 257, 1_000, 16_383, 16_384, 65_536, 100_000] {
            let body = EncodedBody(bytes: Self.noise(size, &random))
            let before = body.cacheBytes
            let gzip = try! #require(body.gzip)
            #expect(gzip.count <= EncodedBody.gzipBound(size))
            #expect(body.cacheBytes <= before, "\(size) bytes: the charge does not grow when the form is made")
        }
        // Too small to gzip: its bytes' room (the allocator rounds it up) and the quoted ETag (15), no bound.
        let small = EncodedBody(bytes: [1, 2, 3]).cacheBytes
        #expect(small >= 3 + 15 && small < 3 + 15 + EncodedBody.gzipBound(3), "\(small)")
    }

    /// A sweep of screen answers seen once (10,000 of 4 KB, some eighty times the budget)
    /// replaces its own; the answers asked for again between them stay. (Each shard holds some
    /// sixty such answers, so the hand goes round once per hundred sweep keys or so, and the
    /// popular answers are asked for again within it.)
    @Test func clockKeepsReReferencedAnswersThroughASweepOfBytes() {
        let cache = AnswerCache(budget: CacheBudget(maxBytes: 1 << 20))
        let answer = [UInt8](repeating: 0x41, count: 4_000)
        let popular = (0..<20).map { Self.key(screen: "popular-\($0)") }
        for key in popular { Self.ask(cache, key, answer) }
        var popularMisses = 0
        for n in 0..<10_000 {
            #expect(!Self.ask(cache, Self.key(screen: "once-\(n)"), answer).hit)
            if n % 32 == 0 { popularMisses += popular.count { !Self.ask(cache, $0, answer).hit } }
        }
        #expect(popularMisses == 0)
        #expect(popular.allSatisfy { cache.contains($0) })
        #expect(cache.held <= 1 << 20)
    }

    /// Viewport answers of mixed sizes never hold more than half the bytes, so screen answers
    /// keep the other half; once there, a viewport replaces viewports only.
    @Test func viewportAnswersNeverTakeMoreThanHalfTheBytes() {
        let budget = 1 << 20
        let cache = AnswerCache(budget: CacheBudget(maxBytes: budget))
        var random = SplitMix64(seed: 3)
        let screens = (0..<100).map { Self.key(screen: "screen-\($0)") }
        for key in screens { Self.ask(cache, key, [UInt8](repeating: 0x42, count: 4_000)) }
        let screenBytes = Self.bytesHeld(cache).screens
        #expect(screenBytes > budget / 2, "screen answers may take more than half while viewports leave it free")
        for n in 0..<2_000 {
            Self.ask(cache, Self.key(width: 300 + Float(n) / 10), [UInt8](repeating: 0x43, count: 500 + random.below(30_000)))
            #expect(Self.bytesHeld(cache).viewports <= cache.viewportLimit)
            #expect(cache.held <= budget)
        }
        #expect(Self.bytesHeld(cache).viewports > budget / 4, "the viewports use their half")
        #expect(Self.bytesHeld(cache).screens >= budget / 2 - 2 * (4_000 * 2 + 1_000), "and leave the other to screen answers")
    }

    /// Larger than its class's share of a shard: served, not kept, and nothing is evicted for it.
    @Test func anAnswerLargerThanItsShareIsServedButNotCached() {
        let cache = AnswerCache(budget: CacheBudget(maxBytes: 1 << 20))  // two shards of 512 KiB
        Self.ask(cache, Self.key(screen: "small"), [1])
        let held = cache.held
        let huge = [UInt8](repeating: 0x44, count: 300_000)  // 600 KB with its gzip bound
        let screen = Self.ask(cache, Self.key(screen: "huge"), huge)
        #expect(screen.body.bytes == huge && !screen.hit)
        #expect(!Self.ask(cache, Self.key(screen: "huge"), huge).hit)
        let layout = [UInt8](repeating: 0x45, count: 150_000)  // over the 256 KiB viewport share
        #expect(Self.ask(cache, Self.key(width: 390), layout).body.bytes == layout)
        #expect(!cache.contains(Self.key(width: 390)))
        #expect(cache.count == 1 && cache.held == held && cache.contains(Self.key(screen: "small")))
        // The same 150 KB as a screen answer fits its share.
        Self.ask(cache, Self.key(screen: "big"), layout)
        #expect(cache.contains(Self.key(screen: "big")))
        let nothing = AnswerCache(budget: CacheBudget(maxBytes: 0))
        #expect(Self.ask(nothing, Self.key(), [7]).body.bytes == [7] && nothing.count == 0)
    }

    /// However small the answers, a shard holds at most its bytes over the least charge: what a
    /// miss copies stays bounded.
    @Test func tinyAnswersAreBoundedPerShard() {
        let cache = AnswerCache(budget: CacheBudget(maxBytes: SnapshotCacheLimits.answerShardBytes))
        #expect(cache.shardCount == 1)
        for n in 0..<3_000 { Self.ask(cache, Self.key(screen: "\(n)"), [1]) }
        #expect(cache.count <= SnapshotCacheLimits.answerShardBytes / SnapshotCacheLimits.answerEntryOverheadBytes)
        #expect(cache.count > 800)
    }

    @Test func theShardCountFollowsTheBudget() {
        let perShard = SnapshotCacheLimits.answerShardBytes
        #expect(AnswerCache.shardCount(forBytes: 1 << 20) == 2)
        #expect(AnswerCache.shardCount(forBytes: (1 << 20) + 1) == 4)
        #expect(AnswerCache.shardCount(forBytes: 64 << 20) == 128)
        #expect(AnswerCache.shardCount(forBytes: 4 << 30) == 8192)
        #expect(AnswerCache.shardCount(forBytes: 1 << 40) == SnapshotCacheLimits.mostAnswerShards)
        for bytes in [1 << 20, 3 << 20, 100 << 20, 1_000_000_007, 32 << 30] {
            let shards = AnswerCache.shardCount(forBytes: bytes)
            #expect(shards & (shards - 1) == 0, "a power of two")
            #expect(bytes / shards <= perShard && bytes / shards > perShard / 2, "\(bytes)")
        }
    }

    /// A miss for a client that takes gzip makes the form before the answer is stored, so it is
    /// charged what it holds; not for a client that takes identity only, nor for one that has the
    /// answer already (a 304 sends no body, so nothing is compressed for it).
    @Test func aMissForAGzipClientStoresTheAnswerWithItsFormMade() throws {
        let config = try TemporaryConfig()
        func charge(_ headers: HTTPHeaders, status: HTTPStatus = .ok) throws -> (charge: Int, bytes: Int, etag: String) {
            let app = try InProcessApp(config)
            let response = app.request("/v1/screens/home?user=u1", headers: headers)
            #expect(response.status == status)
            let entry = try #require(app.state.published.snapshot.answers.allEntries.first)
            #expect(entry.charge.load(ordering: .relaxed) == Self.holds(entry))
            return (entry.charge.load(ordering: .relaxed), entry.body.count, entry.body.etag)
        }
        let identity = try charge([:])
        #expect(identity.charge > 2 * identity.bytes, "the gzip bound")
        let gzip = try charge(["Accept-Encoding": "gzip"])
        #expect(gzip.charge < identity.bytes + identity.bytes / 2 + SnapshotCacheLimits.answerEntryOverheadBytes + 64, "the form itself")
        let revalidated = try charge(["Accept-Encoding": "gzip", "If-None-Match": identity.etag], status: .notModified)
        #expect(revalidated.charge == identity.charge, "nothing compressed for a 304")
    }

    /// `/metrics` reports what the published answer cache holds, beside its hits and misses.
    @Test func metricsReportTheBytesAndEntriesHeld() throws {
        let app = try InProcessApp(try TemporaryConfig())
        #expect(app.request("/v1/screens/home?user=u1").status == .ok)
        #expect(app.request("/v1/screens/home?user=u1&pretty=1").status == .ok)
        let text = app.request("/metrics").text
        func value(_ name: String) -> Double? {
            let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
            return line.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        let answers = app.state.published.snapshot.answers
        #expect(answers.count == 2)
        #expect(value("trellis_answer_cache_entries") == 2)
        #expect(value("trellis_answer_cache_bytes") == Double(answers.held))
        #expect(answers.held > 2 * SnapshotCacheLimits.answerEntryOverheadBytes)
    }
}
