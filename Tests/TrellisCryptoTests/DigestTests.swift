import Testing
import TrellisCrypto

/// SHA-256 against the FIPS 180-4 examples (NIST CSRC "Examples with Intermediate Values") and the
/// long-message vector of FIPS 180-2 Appendix B.3.
@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func publishedVectors(message: String, digest: String) {
        #expect(Hex.encode(SHA256.hash(message.utf8)) == digest)
        #expect(Hex.encode(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test func oneMillionTimesA() {
        let digest = SHA256.hash([UInt8](repeating: 0x61, count: 1_000_000))
        #expect(Hex.encode(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func nonContiguousInputHashesTheSame() {
        let bytes = Array("abc".utf8)
        #expect(SHA256.hash(bytes.lazy.map { $0 }) == SHA256.hash(bytes))
    }
}

/// HMAC-SHA256 against every test case of RFC 4231 §4.
@Suite struct HMACSHA256Tests {
    struct Case: Sendable, CustomTestStringConvertible {
        let number: Int
        let key: [UInt8]
        let data: [UInt8]
        let code: String
        var testDescription: String { "RFC 4231 test case \(number)" }
    }

    static let cases: [Case] = [
        Case(
            number: 1, key: [UInt8](repeating: 0x0B, count: 20), data: Array("Hi There".utf8),
            code: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Case(
            number: 2, key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            code: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Case(
            number: 3, key: [UInt8](repeating: 0xAA, count: 20), data: [UInt8](repeating: 0xDD, count: 50),
            code: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Case(
            number: 4, key: Array(1...25), data: [UInt8](repeating: 0xCD, count: 50),
            code: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Case(
            number: 6, key: [UInt8](repeating: 0xAA, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            code: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Case(
            number: 7, key: [UInt8](repeating: 0xAA, count: 131),
            data: Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            code: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: cases)
    func rfc4231(_ c: Case) throws {
        let code = HMACSHA256.authenticationCode(for: c.data, key: c.key)
        #expect(Hex.encode(code) == c.code)
        #expect(HMACSHA256.isValid(try Hex.decode(c.code), for: c.data, key: c.key))
    }

    /// Case 5 truncates the output to 128 bits; the full code must begin with the published prefix.
    @Test func rfc4231Case5Truncated() {
        let code = HMACSHA256.authenticationCode(for: Array("Test With Truncation".utf8), key: [UInt8](repeating: 0x0C, count: 20))
        #expect(Hex.encode(code.prefix(16)) == "a3b6167473100ee06e0c796c2955552b")
    }

    /// An empty key is legal in RFC 2104; libcrypto must not mistake it for "no key".
    @Test func emptyKeyAndMessage() {
        let code = HMACSHA256.authenticationCode(for: [UInt8](), key: [UInt8]())
        #expect(Hex.encode(code) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func alteredCodesMessagesAndKeysDoNotVerify() {
        let key = Array("Jefe".utf8), data = Array("what do ya want for nothing?".utf8)
        var code = HMACSHA256.authenticationCode(for: data, key: key)
        #expect(HMACSHA256.isValid(code, for: data, key: key))
        #expect(!HMACSHA256.isValid(code, for: data + [0], key: key))
        #expect(!HMACSHA256.isValid(code, for: data, key: key + [1]))
        // RFC 2104 §2 pads short keys with zeros, so a trailing zero byte is the same key. Keys
        // Trellis accepts are at least 32 random bytes, which makes this moot, but it is real.
        #expect(HMACSHA256.isValid(code, for: data, key: key + [0]))
        #expect(!HMACSHA256.isValid(code.prefix(16), for: data, key: key))
        #expect(!HMACSHA256.isValid([UInt8](), for: data, key: key))
        code[31] ^= 1
        #expect(!HMACSHA256.isValid(code, for: data, key: key))
    }
}

@Suite struct ConstantTimeAndRandomTests {
    @Test func equality() {
        #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equal([UInt8](), [UInt8]()))
        #expect(ConstantTime.equal("abc".utf8, [0x61, 0x62, 0x63]))
    }

    @Test func randomBytesHaveTheLengthAskedForAndDiffer() throws {
        #expect(try SecureRandom.bytes(count: 0).isEmpty)
        let a = try SecureRandom.bytes(count: 32), b = try SecureRandom.bytes(count: 32)
        #expect(a.count == 32 && b.count == 32)
        // Two equal draws of 256 bits would mean the generator is broken, not unlucky.
        #expect(a != b)
        #expect(a != [UInt8](repeating: 0, count: 32))
    }
}
