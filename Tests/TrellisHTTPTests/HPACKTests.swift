import Testing
@testable import TrellisHTTP

/// RFC 7541 Appendix C, every example decoded and encoded byte for byte, with the dynamic table
/// after each block as the RFC lists it.
@Suite struct HPACKExampleTests {
    /// One block of an example: its octets, the fields they carry, and the dynamic table after it
    /// (newest first) with its size.
    struct Step {
        var hex: String
        var fields: [HPACKField]
        var table: [(String, String)]
        var size: Int
    }

    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8.filter { $0 != UInt8(ascii: " ") })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    static func entries(_ table: HPACKDynamicTable) -> [(String, String)] {
        (0..<table.count).map { (table[$0 + 1].name, table[$0 + 1].value) }
    }

    /// Decodes each step with one decoder and encodes it with one encoder, as a connection would.
    func run(_ steps: [Step], tableSize: Int = 4096, huffman: HPACKEncoder.HuffmanPolicy) throws {
        var decoder = HPACKDecoder(allowedTableSize: tableSize)
        var encoder = HPACKEncoder(maxTableSize: tableSize, huffman: huffman)
        for (n, step) in steps.enumerated() {
            let decoded = try decoder.decode(Self.bytes(step.hex))
            #expect(decoded == step.fields, "block \(n + 1) decoded")
            #expect(Self.entries(decoder.table).elementsEqual(step.table, by: { $0 == $1 }), "block \(n + 1) decoder table")
            #expect(decoder.table.size == step.size, "block \(n + 1) decoder table size")
            var encoded: [UInt8] = []
            encoder.encode(step.fields, into: &encoded)
            #expect(encoded == Self.bytes(step.hex), "block \(n + 1) encoded")
            #expect(encoder.table.size == step.size, "block \(n + 1) encoder table size")
        }
    }

    static let request1 = [HPACKField(":method", "GET"), HPACKField(":scheme", "http"), HPACKField(":path", "/"),
                           HPACKField(":authority", "www.example.com")]
    static let request2 = request1 + [HPACKField("cache-control", "no-cache")]
    static let request3 = [HPACKField(":method", "GET"), HPACKField(":scheme", "https"), HPACKField(":path", "/index.html"),
                           HPACKField(":authority", "www.example.com"), HPACKField("custom-key", "custom-value")]
    static let requestTables: [[(String, String)]] = [
        [(":authority", "www.example.com")],
        [("cache-control", "no-cache"), (":authority", "www.example.com")],
        [("custom-key", "custom-value"), ("cache-control", "no-cache"), (":authority", "www.example.com")],
    ]

    static let date21 = "Mon, 21 Oct 2013 20:13:21 GMT", date22 = "Mon, 21 Oct 2013 20:13:22 GMT"
    static let cookie = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"
    static let response1 = [HPACKField(":status", "302"), HPACKField("cache-control", "private"), HPACKField("date", date21),
                            HPACKField("location", "https://www.example.com")]
    static let response2 = [HPACKField(":status", "307")] + response1.dropFirst()
    static let response3 = [HPACKField(":status", "200"), HPACKField("cache-control", "private"), HPACKField("date", date22),
                            HPACKField("location", "https://www.example.com"), HPACKField("content-encoding", "gzip"),
                            HPACKField("set-cookie", cookie)]
    static let responseTables: [[(String, String)]] = [
        [("location", "https://www.example.com"), ("date", date21), ("cache-control", "private"), (":status", "302")],
        [(":status", "307"), ("location", "https://www.example.com"), ("date", date21), ("cache-control", "private")],
        [("set-cookie", cookie), ("content-encoding", "gzip"), ("date", date22)],
    ]

    @Test func literalWithIndexingC21DecodesAndEncodesExactly() throws {
        try run([Step(hex: "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
                      fields: [HPACKField("custom-key", "custom-header")], table: [("custom-key", "custom-header")], size: 55)],
                huffman: .never)
    }

    @Test func literalWithoutIndexingC22LeavesTableEmpty() throws {
        try run([Step(hex: "040c 2f73 616d 706c 652f 7061 7468",
                      fields: [HPACKField(":path", "/sample/path", indexing: .withoutIndexing)], table: [], size: 0)],
                huffman: .never)
    }

    @Test func literalNeverIndexedC23LeavesTableEmpty() throws {
        try run([Step(hex: "1008 7061 7373 776f 7264 0673 6563 7265 74",
                      fields: [HPACKField("password", "secret", indexing: .neverIndexed)], table: [], size: 0)],
                huffman: .never)
    }

    @Test func indexedFieldC24IsOneOctet() throws {
        try run([Step(hex: "82", fields: [HPACKField(":method", "GET")], table: [], size: 0)], huffman: .never)
    }

    @Test func requestsWithoutHuffmanC3ShareTheDynamicTable() throws {
        try run([
            Step(hex: "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d", fields: Self.request1, table: Self.requestTables[0], size: 57),
            Step(hex: "8286 84be 5808 6e6f 2d63 6163 6865", fields: Self.request2, table: Self.requestTables[1], size: 110),
            Step(hex: "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
                 fields: Self.request3, table: Self.requestTables[2], size: 164),
        ], huffman: .never)
    }

    @Test func requestsWithHuffmanC4ShareTheDynamicTable() throws {
        try run([
            Step(hex: "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff", fields: Self.request1, table: Self.requestTables[0], size: 57),
            Step(hex: "8286 84be 5886 a8eb 1064 9cbf", fields: Self.request2, table: Self.requestTables[1], size: 110),
            Step(hex: "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
                 fields: Self.request3, table: Self.requestTables[2], size: 164),
        ], huffman: .whenNotLonger)
    }

    @Test func responsesWithoutHuffmanC5EvictTheOldestEntries() throws {
        try run([
            Step(hex: "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120"
                 + "474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
                 fields: Self.response1, table: Self.responseTables[0], size: 222),
            Step(hex: "4803 3330 37c1 c0bf", fields: Self.response2, table: Self.responseTables[1], size: 222),
            Step(hex: "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738"
                 + "666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33"
                 + "3630 303b 2076 6572 7369 6f6e 3d31",
                 fields: Self.response3, table: Self.responseTables[2], size: 215),
        ], tableSize: 256, huffman: .never)
    }

    @Test func responsesWithHuffmanC6EvictTheOldestEntries() throws {
        try run([
            Step(hex: "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718"
                 + "63c7 8f0b 97c8 e9ae 82ae 43d3",
                 fields: Self.response1, table: Self.responseTables[0], size: 222),
            Step(hex: "4883 640e ffc1 c0bf", fields: Self.response2, table: Self.responseTables[1], size: 222),
            Step(hex: "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7"
                 + "b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
                 fields: Self.response3, table: Self.responseTables[2], size: 215),
        ], tableSize: 256, huffman: .whenNotLonger)
    }

    /// C.1: 10 and 1337 with a 5-bit prefix, 42 with an 8-bit one.
    @Test func integersC1UseThePrefixThenSevenBitGroups() throws {
        for (value, prefix, hex) in [(10, 5, "0a"), (1337, 5, "1f9a0a"), (42, 8, "2a")] {
            var out: [UInt8] = []
            HPACKWriter.appendInteger(value, prefixBits: prefix, flags: 0, to: &out)
            #expect(out == Self.bytes(hex))
            let decoded = try out.withUnsafeBufferPointer { (b) throws(HPACKError) in
                var reader = HPACKReader(b)
                return try reader.readInteger(prefixBits: prefix)
            }
            #expect(decoded == value)
        }
    }
}
