import Testing
@testable import TrellisServer

/// ETags are XXH64 fingerprints: the reference implementation's digests (python-xxhash 3.x,
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

    @Test func theETagIsTheQuotedFingerprint() {
        #expect(EncodedBody(bytes: Array("abc".utf8)).etag == "\"44bc2cf5ad770999\"")
    }
}
