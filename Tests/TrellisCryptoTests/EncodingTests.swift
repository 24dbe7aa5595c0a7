import Testing
import TrellisCrypto

/// Base 16 and base64url against RFC 4648 §10, and the strictness the decoders promise.
@Suite struct EncodingTests {
    /// RFC 4648 §10's vectors; base64url drops the padding (§3.2, §5).
    static let vectors: [(String, base16: String, base64url: String)] = [
        ("", "", ""),
        ("f", "66", "Zg"),
        ("fo", "666F", "Zm8"),
        ("foo", "666F6F", "Zm9v"),
        ("foob", "666F6F62", "Zm9vYg"),
        ("fooba", "666F6F6261", "Zm9vYmE"),
        ("foobar", "666F6F626172", "Zm9vYmFy"),
    ]

    @Test func rfc4648Vectors() throws {
        for (text, base16, base64url) in Self.vectors {
            let bytes = Array(text.utf8)
            #expect(Hex.encode(bytes) == base16.lowercased())
            #expect(try Hex.decode(base16) == bytes)
            #expect(try Hex.decode(base16.lowercased()) == bytes)
            #expect(Base64URL.encode(bytes) == base64url)
            #expect(try Base64URL.decode(base64url) == bytes)
        }
    }

    /// The two characters where base64url differs from base64 (RFC 4648 §5 table 2: 62 is `-`, 63 `_`).
    @Test func urlSafeAlphabet() throws {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(try Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
        #expect(Base64URL.encode([0xFF]) == "_w")
    }

    @Test func everyByteValueRoundTrips() throws {
        let all = (0...255).map(UInt8.init)
        for length in 0...all.count where length % 37 == 0 || length < 8 {
            let slice = Array(all.prefix(length))
            #expect(try Base64URL.decode(Base64URL.encode(slice)) == slice)
            #expect(try Hex.decode(Hex.encode(slice)) == slice)
        }
    }

    @Test(arguments: [
        ("Zm9vYg==", TextDecodingError.invalidCharacter(offset: 6)),  // padding is not part of the unpadded form
        ("Zm9v+mFy", .invalidCharacter(offset: 4)),  // the standard alphabet's 62
        ("Zm9v/mFy", .invalidCharacter(offset: 4)),  // the standard alphabet's 63
        ("Zm9v YmFy", .invalidCharacter(offset: 4)),
        ("Zm9v\n", .invalidCharacter(offset: 4)),
        ("Zm9vé", .invalidCharacter(offset: 4)),
        ("Z", .invalidLength(1)),
        ("Zm9vY", .invalidLength(5)),
        ("Zh", .nonZeroTrailingBits),  // "f" is "Zg"; "Zh" sets a bit past the byte
        ("Zm9", .nonZeroTrailingBits),  // "fo" is "Zm8"
    ])
    func base64urlRefuses(_ text: String, _ error: TextDecodingError) {
        #expect(throws: error) { try Base64URL.decode(text) }
    }

    @Test(arguments: [
        ("abc", TextDecodingError.invalidLength(3)),
        ("0x12", .invalidCharacter(offset: 1)),
        ("12g4", .invalidCharacter(offset: 2)),
        (" 1234 ", .invalidCharacter(offset: 0)),
    ])
    func hexRefuses(_ text: String, _ error: TextDecodingError) {
        #expect(throws: error) { try Hex.decode(text) }
    }

    @Test func errorsDoNotRepeatTheInput() {
        let secret = "s3cr3t+value"
        do {
            _ = try Base64URL.decode(secret)
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains("s3cr3t"))
            #expect(error.description == "invalid character at offset 6")
        }
    }
}
