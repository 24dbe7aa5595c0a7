import Testing
import TrellisScreens
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

    /// A shard's table is keyed by the keys' hashes: keys whose hashes are equal share a bucket and
    /// are still found, replaced and removed one by one.
    @Test func keysOfOneHashShareABucketAndStayApart() {
        typealias Cache = AnswerCache
        let keys = (1...3).map { Cache.HashedKey(Self.key(width: Float($0)), hash: 7) }
        let other = Cache.HashedKey(Self.key(width: 4), hash: 8)
        var entries = Cache.Entries()
        for (n, key) in (keys + [other]).enumerated() {
            entries.insert(Cache.Entry(key.key, EncodedBody(bytes: [UInt8(n)])), hash: key.hash)
        }
        #expect(entries.count == 4)
        #expect((keys + [other]).enumerated().allSatisfy { n, key in entries[key]?.body.bytes == [UInt8(n)] })
        #expect(entries[Cache.HashedKey(Self.key(width: 5), hash: 7)] == nil, "same hash, another key")
        entries.remove(keys[1])
        entries.remove(keys[1])
        #expect(entries.count == 3)
        #expect(entries[keys[1]] == nil && entries[keys[0]]?.body.bytes == [0] && entries[keys[2]]?.body.bytes == [2])
        let table = Cache.Table(entries)
        #expect(table.entries.count == 3 && table.entries[keys[2]]?.body.bytes == [2] && table.entries[keys[1]] == nil)
        #expect(Set(table.entries.all.map { $0.body.bytes[0] }) == [0, 2, 3])
        entries.remove(keys[0])
        entries.remove(keys[2])
        entries.remove(other)
        #expect(entries.count == 0 && entries.buckets.isEmpty)
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
        let cache = AnswerCache(capacity: 64)
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
        #expect(cache.count == 20 + 32)

        // After the sweep, a viewport never seen before is cached again: its second request hits.
        let late = Self.key(width: 391)
        #expect(!Self.ask(cache, late).hit)
        #expect(Self.ask(cache, late).hit)
    }

    /// The shipped size is 128 shards of 32 (a miss copies one shard): the sweep still cannot
    /// push out the repeated viewport or any screen answer, and a new viewport is cached again.
    @Test func theDefaultCacheIsShardedAndASweepKeepsTheRepeatedViewport() {
        let cache = AnswerCache()
        #expect(cache.shardCount == 128)
        #expect(cache.viewportCapacity == 2048)
        let screens = (0..<500).map { Self.key(screen: "screen-\($0)") }
        for key in screens { Self.ask(cache, key) }
        let popular = Self.key(width: 390)
        Self.ask(cache, popular, [42])
        for n in 0..<10_000 {
            Self.ask(cache, Self.key(width: 1000 + Float(n) / 100))
            if n % 8 == 0 { #expect(Self.ask(cache, popular).hit) }
        }
        #expect(Self.ask(cache, popular).body.bytes == [42])
        #expect(screens.allSatisfy { cache.contains($0) })
        #expect(cache.count <= cache.capacity)
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

    @Test func carryingKeepsTheChosenAnswersAndGoesOnEvicting() {
        let cache = AnswerCache(capacity: 4)
        Self.ask(cache, Self.key(screen: "a"), [1])
        Self.ask(cache, Self.key(screen: "b"), [2])
        Self.ask(cache, Self.key(width: 300), [3])
        let next = AnswerCache(carrying: cache) { $0.screen != "b" }
        #expect(next.capacity == 4)
        #expect(next.count == 2)
        #expect(Self.ask(next, Self.key(screen: "a"), [9]).body.bytes == [1])
        #expect(!next.contains(Self.key(screen: "b")))
        for width in 301..<310 { Self.ask(next, Self.key(width: Float(width))) }
        #expect(next.count == 3, "the carried viewport is in the ring: the class stays at half")
        #expect(cache.count == 3, "the source is untouched")
    }
}
