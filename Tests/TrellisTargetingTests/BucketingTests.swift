import Testing
import TrellisJSON
import TrellisTargeting

@Suite struct BucketingTests {
    /// Published MurmurHash3_x86_32 values (SMHasher's reference implementation).
    @Test(arguments: [
        ("", 0, 0),
        ("", 1, 0x514E_28B7),
        ("", 0xFFFF_FFFF, 0x81F1_6F39),
        ("a", 0x9747_B28C, 0x7FA0_9EA6),
        ("aaaa", 0x9747_B28C, 0x5A97_808A),
        ("abc", 0, 0xB3DD_93FA),
        ("Hello, world!", 0x9747_B28C, 0x2488_4CBA),
        ("The quick brown fox jumps over the lazy dog", 0x9747_B28C, 0x2FA8_26CD),
    ] as [(String, UInt32, UInt32)])
    func murmur3KnownVectors(text: String, seed: UInt32, expected: UInt32) {
        #expect(Murmur3.hash32(text, seed: seed) == expected)
    }

    /// Hashing in pieces (as bucketing does: group, ":", user) gives the hash of the whole, wherever
    /// the pieces split the 4-byte blocks, and so do bytes that are not contiguous.
    @Test func piecesHashAsTheWhole() {
        var random = SystemRandomNumberGenerator()
        for count in 0...19 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            let whole = Murmur3.hash32(bytes, seed: 42)
            #expect(Murmur3.hash32(bytes.lazy.map { $0 }, seed: 42) == whole, "\(count) bytes, one at a time")
            for first in 0...count {
                for second in first...count {
                    var state = Murmur3.State(seed: 42)
                    state.combine(bytes[..<first])
                    state.combine(bytes[first..<second])
                    state.combine(bytes[second...])
                    #expect(state.finalize() == whole, "\(count) bytes split at \(first) and \(second)")
                }
            }
        }
    }

    @Test func bytesAndStringsHashAlike() {
        #expect(Murmur3.hash32([0xC3, 0xBC] as [UInt8], seed: 7) == Murmur3.hash32("ü", seed: 7))
        #expect(Murmur3.hash32(Array("gold-banner:user-1".utf8)) == Murmur3.hash32("gold-banner:user-1"))
    }

    /// Every vector and row that scripts/bucketing-oracle computed with Python's mmh3: hashes,
    /// buckets, two-decimal positions and variant targets, and what `trellis bucket` prints.
    @Test func matchesTheOracleFixture() throws {
        let document = try JSONParser.parse(try repositoryFile("Fixtures/targeting/buckets.json"))
        #expect(document["variantSeed"]?.numberValue == Double(Bucketing.variantSeed))
        let vectors = try #require(document["vectors"]?.arrayValue)
        let rows = try #require(document["rows"]?.arrayValue)
        #expect(vectors.count >= 50)
        #expect(rows.count >= 300)
        for vector in vectors {
            let text = try #require(vector["text"]?.stringValue)
            let seed = UInt32(try #require(vector["seed"]?.numberValue))
            #expect(Double(Murmur3.hash32(text, seed: seed)) == vector["hash"]?.numberValue, "\(text) seed \(seed)")
        }
        var nonASCII = 0, fractional = 0
        for row in rows {
            let group = try #require(row["groupId"]?.stringValue)
            let user = try #require(row["userId"]?.stringValue)
            if user.utf8.contains(where: { $0 >= 0x80 }) { nonASCII += 1 }
            let placement = Bucketing.rolloutPlacement(groupID: group, userID: user)
            #expect(Double(Murmur3.hash32(group + ":" + user)) == row["hash"]?.numberValue, "\(group):\(user)")
            #expect(Double(placement.hash) == row["hash"]?.numberValue, "\(group):\(user)")
            #expect(Double(Bucketing.rolloutBucket(groupID: group, userID: user)) == row["bucket"]?.numberValue, "\(group):\(user)")
            #expect(Double(placement.position) / 100 == row["position"]?.numberValue, "\(group):\(user)")
            if placement.position % 100 != 0 { fractional += 1 }
            let variantHash = Bucketing.hash(groupID: group, userID: user, seed: Bucketing.variantSeed)
            #expect(Double(Murmur3.hash32(group + ":" + user, seed: Bucketing.variantSeed)) == row["variantHash"]?.numberValue)
            #expect(Double(variantHash) == row["variantHash"]?.numberValue)
            let targets = try #require(row["targets"]?.objectValue)
            #expect(targets.count >= 7)
            for target in targets {
                let total = try #require(Int(target.key))
                #expect(Double(Bucketing.variantTarget(key: group, userID: user, totalWeight: total)) == target.value.numberValue)
                let report = BucketingReport(groupID: group, userID: user, totalWeight: total)
                #expect(report.jsonValue["target"] == target.value && report.jsonValue["variantHash"] == row["variantHash"])
            }
            // The oracle's bucket decides every whole percentage exactly as Unleash does.
            let bucket = Int(try #require(row["bucket"]?.numberValue))
            for whole in 0...100 {
                let percentage = RolloutPercentage(basisPoints: whole * 100)!
                #expect(Bucketing.isInRollout(percentage: percentage, groupID: group, userID: user) == (whole > 0 && bucket <= whole))
            }
            let report = BucketingReport(groupID: group, userID: user)
            #expect(report.jsonValue["bucket"] == row["bucket"] && report.jsonValue["position"] == row["position"])
        }
        #expect(nonASCII >= 8)
        #expect(fractional >= 250)
    }

    @Test func bucketsAreFrom1To100() {
        var seen = Set<Int>()
        for i in 0..<5000 { seen.insert(Bucketing.rolloutBucket(groupID: "g", userID: "u\(i)")) }
        #expect(seen == Set(1...100))
    }

    @Test func zeroAdmitsNobodyAndHundredEveryone() {
        for i in 0..<2000 {
            #expect(!Bucketing.isInRollout(percentage: 0, groupID: "g", userID: "u\(i)"))
            #expect(Bucketing.isInRollout(percentage: 100, groupID: "g", userID: "u\(i)"))
        }
    }

    /// Raising a rollout's percentage never removes a user.
    @Test func raisingThePercentageOnlyAddsUsers() {
        let users = (0..<20_000).map { "user-\($0)" }
        var previous: Set<String> = []
        for whole in 0...100 {
            let percentage = RolloutPercentage(basisPoints: whole * 100)!
            let admitted = Set(users.filter { Bucketing.isInRollout(percentage: percentage, groupID: "gold-banner", userID: $0) })
            #expect(previous.isSubset(of: admitted), "\(percentage)%")
            previous = admitted
        }
        #expect(previous.count == users.count)
    }

    /// A 25% rollout over 100,000 synthetic users admits 25% ± 1%.
    @Test(arguments: ["gold-banner", "new-checkout"])
    func twentyFivePercentAdmitsAQuarter(group: String) {
        let admitted = (0..<100_000).filter { Bucketing.isInRollout(percentage: 25, groupID: group, userID: "user-\($0)") }.count
        #expect(abs(admitted - 25_000) <= 1_000, "\(admitted)")
    }

    /// Variants come in proportion to their weights, ± 1 percentage point over 100,000 users.
    @Test(arguments: [[50, 50], [90, 10], [1, 2, 7], [0, 3, 1]])
    func variantsFollowTheirWeights(weights: [Int]) throws {
        var counts = Array(repeating: 0, count: weights.count)
        for i in 0..<100_000 {
            counts[try #require(Bucketing.variantIndex(key: "home-hero", userID: "user-\(i)", weights: weights))] += 1
        }
        let total = weights.reduce(0, +)
        for (count, weight) in zip(counts, weights) {
            let expected = 100_000 * weight / total
            #expect(abs(count - expected) <= 1_000, "\(counts) for \(weights)")
        }
    }

    @Test func allZeroWeightsGiveNoVariant() {
        #expect(Bucketing.variantIndex(key: "k", userID: "u", weights: [0, 0]) == nil)
        #expect(Bucketing.variantIndex(key: "k", userID: "u", weights: []) == nil)
    }

    /// The variant target is Unleash's: murmur3 with seed 86028157, % total weight + 1, first
    /// variant whose cumulative weight reaches it.
    @Test func variantSelectionIsUnleashs() {
        for i in 0..<1000 {
            let user = "user-\(i)"
            let target = Int(Murmur3.hash32("home-hero:" + user, seed: 86_028_157) % 100) + 1
            let expected = target <= 50 ? 0 : target <= 80 ? 1 : 2
            #expect(Bucketing.variantIndex(key: "home-hero", userID: user, weights: [50, 30, 20]) == expected)
        }
    }

    /// An experiment and a rollout on the same key are independent: among the users a 50%
    /// rollout admits, a 50/50 experiment still splits about evenly (and so among those it does not).
    @Test func experimentIsIndependentOfTheRolloutHash() throws {
        var table = [[0, 0], [0, 0]]
        for i in 0..<100_000 {
            let user = "user-\(i)"
            let inRollout = Bucketing.isInRollout(percentage: 50, groupID: "same-key", userID: user) ? 1 : 0
            let variant = try #require(Bucketing.variantIndex(key: "same-key", userID: user, weights: [50, 50]))
            table[inRollout][variant] += 1
        }
        for row in table {
            let share = Double(row[0]) / Double(row[0] + row[1])
            #expect(abs(share - 0.5) < 0.01, "\(table)")
        }
    }
}
