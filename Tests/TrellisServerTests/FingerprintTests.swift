import Testing
import TrellisRuntime
import TrellisTesting
@testable import TrellisAnswers
@testable import TrellisServer

/// ETags and fingerprints are XXH64: the reference implementation's digests (python-xxhash 3.x,
/// seed 0) for every path through the function — empty, under 4, 4–7, 8–31 bytes, whole stripes
/// and stripes with a tail.
@Suite struct FingerprintTests {
    @Test func fingerprintsAreXXH64() {
        #expect(EncodedBody.fingerprint(Array("abc".utf8)) == "44bc2cf5ad770999")
        let data = (0..<1000).map { UInt8(($0 * 7 + 3) % 256) }
        let digests: [(Int, String)] = [
            (0, "ef46db3751d8e999"), (1, "1f25c8d0bc1f4bb6"), (3, "31d2363f52e564c9"), (4, "9bb64b7d66ee9fda"),
            (7, "9a7b149959ce60d8"), (8, "dab99d95c6f90092"), (31, "a2aa5f33cc4a6119"), (32, "23c3c17ef790fd97"),
            (33, "50a7cfc7ba588784"), (63, "5e3e54b431c7493c"), (64, "0eb64b3ef6eeb01f"), (100, "a61f8d4c170fe531"),
            (1000, "5f235fa033f1a3fb"),
        ]
        for (count, digest) in digests {
            #expect(EncodedBody.fingerprint(Array(data.prefix(count))) == digest, "\(count) bytes")
        }
    }

    /// The same XXH64 in 13 base-36 digits (0x44bc2cf5ad770999 is 11mo2jbx36f89), quoted: 15 bytes,
    /// which a Swift string holds without a buffer of its own; a small value keeps its leading zeros.
    @Test func theETagIsTheQuotedFingerprintInBase36() {
        #expect(EncodedBody(bytes: Array("abc".utf8)).etag == "\"11mo2jbx36f89\"")
        #expect(EncodedBody.entityTag(Array("abc".utf8)).utf8.count == 15)
        let tags = (0..<2_000).map { EncodedBody(bytes: [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)]).etag }
        #expect(tags.allSatisfy { $0.utf8.count == 15 && $0.dropFirst().dropLast().allSatisfy { $0.isNumber || ("a"..."z").contains($0) } })
        #expect(Set(tags).count == tags.count)
        #expect(tags.map { UInt64($0.dropFirst().dropLast(), radix: 36)! } == (0..<2_000).map {
            UInt64(EncodedBody.fingerprint([UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)]), radix: 16)!
        })
    }

    /// The tag's digits are what `String(_:radix:)` writes, padded to 13: at the ends of the range,
    /// at each power of 36, and for values spread over all of it.
    @Test func theETagsDigitsAreBase36() {
        var random = SplitMix64(seed: 30)
        let powers = (0...12).map { (0..<$0).reduce(UInt64(1)) { product, _ in product * 36 } }
        let values = [0, 1, 35, 36, UInt64.max, UInt64.max - 1] + powers.flatMap { [$0 - 1, $0] } + (0..<5_000).map { _ in random.next() }
        for value in values {
            let digits = String(value, radix: 36)
            #expect(EncodedBody.entityTag(hash: value) == "\"" + String(repeating: "0", count: 13 - digits.count) + digits + "\"", "\(value)")
        }
    }
}
