import Testing
import TrellisTesting
@testable import TrellisHTTP

/// Malformed and hostile header blocks: each ends in its own named error, never a crash, and the
/// limits hold against blocks built to cost the decoder memory or time.
@Suite struct HPACKMalformedTests {
    func decode(_ block: [UInt8], allowedTableSize: Int = 4096, maxHeaderListSize: Int = .max) -> Result<[HPACKField], HPACKError> {
        var decoder = HPACKDecoder(allowedTableSize: allowedTableSize, maxHeaderListSize: maxHeaderListSize)
        return Result { () throws(HPACKError) in try decoder.decode(block) }
    }

    func error(_ block: [UInt8], maxHeaderListSize: Int = .max) -> HPACKError? {
        if case .failure(let e) = decode(block, maxHeaderListSize: maxHeaderListSize) { return e }
        return nil
    }

    @Test func blockEndingInsideAnIntegerIsTruncated() {
        #expect(error([0x1F]) == .truncated)  // an indexed-name literal whose index needs more octets
        #expect(error([0xFF, 0x80]) == .truncated)  // a continuation octet with nothing after it
    }

    @Test func blockEndingInsideAStringIsTruncated() {
        #expect(error([0x40, 0x0A, 0x63, 0x75]) == .truncated)
        #expect(error([0x40, 0x01, 0x61]) == .truncated)  // name, but no value length
    }

    @Test func stringLengthBeyondTheBlockIsTruncatedWithoutAllocating() {
        // A length of 2^31 - 1 announced in six octets, and no string after it.
        var block: [UInt8] = [0x00]
        HPACKWriter.appendInteger(Int(Int32.max), prefixBits: 7, flags: 0, to: &block)
        #expect(error(block) == .truncated)
    }

    @Test func integerBeyondThirtyTwoBitsOverflows() {
        #expect(error([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) == .integerOverflow)
        // Zero-valued continuation octets add nothing but are still refused past five.
        #expect(error([0xFF, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]) == .integerOverflow)
    }

    @Test func indexZeroIsInvalid() {
        #expect(error([0x80]) == .invalidIndex(0))
    }

    @Test func indexPastBothTablesIsInvalid() {
        #expect(error([0xBE]) == .invalidIndex(62))  // the dynamic table is empty
        #expect(error([0x7F, 0x00, 0x00]) == .invalidIndex(63))  // as a literal's name
    }

    @Test func huffmanStringHoldingEOSIsRefused() {
        #expect(error([0x00, 0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]) == .huffmanEOS)
    }

    @Test func huffmanPaddingOfEightOrMoreBitsIsRefused() {
        // 'a' is 00011; then three padding ones, then eight more.
        #expect(error([0x00, 0x82, 0x1F, 0xFF, 0x00]) == .huffmanPaddingTooLong)
    }

    @Test func huffmanPaddingOfZerosIsRefused() {
        // 'a' then 000: not the start of EOS.
        #expect(error([0x00, 0x81, 0x18, 0x00]) == .huffmanPaddingNotEOS)
    }

    @Test func sizeUpdateAboveTheSettingIsRefused() {
        var block: [UInt8] = []
        HPACKWriter.appendInteger(4097, prefixBits: 5, flags: 0x20, to: &block)
        #expect(error(block) == .tableSizeUpdateTooLarge(requested: 4097, allowed: 4096))
    }

    @Test func sizeUpdateAfterAFieldIsRefused() {
        #expect(error([0x82, 0x20]) == .tableSizeUpdateNotAtStart)
    }

    @Test func sizeUpdatesAtTheStartAreApplied() throws {
        var decoder = HPACKDecoder()
        _ = try decoder.decode([0x40, 0x01, 0x61, 0x01, 0x62])
        #expect(decoder.table.count == 1)
        let decoded = try decoder.decode([0x20, 0x3F, 0x61, 0x82])
        #expect(decoded == [HPACKField(":method", "GET")])  // 0, then 128
        #expect(decoder.table.count == 0)
        #expect(decoder.table.maxSize == 128)
    }

    @Test func loweredSettingWithoutSizeUpdateIsRefused() throws {
        var decoder = HPACKDecoder()
        decoder.setAllowedTableSize(100)
        #expect(throws: HPACKError.tableSizeUpdateMissing) { try decoder.decode([0x82]) }
        var acknowledged = HPACKDecoder()
        acknowledged.setAllowedTableSize(100)
        let decoded = try acknowledged.decode([0x3F, 0x45, 0x82])
        #expect(decoded == [HPACKField(":method", "GET")])  // size 100
    }

    @Test func headerListOverTheLimitIsRefusedWithTheTableStillInStep() throws {
        var decoder = HPACKDecoder(maxHeaderListSize: 60)
        // custom-key: custom-header (55 octets counted), then :method GET (42): 97 > 60.
        let block = HPACKExampleTests.bytes("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572 82")
        #expect(throws: HPACKError.headerListTooLarge(limit: 60)) { try decoder.decode(block) }
        let decoded = try decoder.decode([0xBE])
        #expect(decoded == [HPACKField("custom-key", "custom-header")])
    }

    @Test func indexingOneLargeEntryThousandsOfTimesStopsAtTheLimit() throws {
        // A 4000-octet value in the table, then 100,000 one-octet references to it: 400 MB of
        // fields if they were all kept.
        var block: [UInt8] = [0x40, 0x01, 0x78]
        HPACKWriter.appendInteger(4000, prefixBits: 7, flags: 0, to: &block)
        block += Array(repeating: UInt8(ascii: "v"), count: 4000)
        block += Array(repeating: 0xBE, count: 100_000)
        var decoder = HPACKDecoder(maxHeaderListSize: 16384)
        #expect(throws: HPACKError.headerListTooLarge(limit: 16384)) { try decoder.decode(block) }
        #expect(decoder.table.count == 1)
    }

    /// Blocks of random octets, and the Appendix C blocks with one octet changed or cut short:
    /// every one decodes or fails with an `HPACKError`, and none traps.
    @Test func randomAndMutatedBlocksNeverTrap() {
        var rng = SplitMix64(seed: 7541)
        for _ in 0..<20_000 {
            let block = (0..<Int(rng.next() % 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            _ = decode(block, maxHeaderListSize: 1000)
        }
        let seed = HPACKExampleTests.bytes("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf")
        for i in 0..<seed.count {
            for value in [0x00, 0x7F, 0x80, 0xFF] as [UInt8] {
                var mutated = seed
                mutated[i] = value
                _ = decode(mutated)
            }
            _ = decode(Array(seed[..<i]))
        }
    }
}

@Suite struct HPACKHuffmanTests {
    /// A mistyped entry of Appendix B would break one of these: the code must be complete
    /// (Kraft's sum exactly 1) and canonical (each code the previous one plus one, shifted).
    @Test func tableIsACompleteCanonicalCode() {
        let codes = HPACKHuffman.codes
        #expect(codes.count == 257)
        #expect(codes[256].code == 0x3FFF_FFFF && codes[256].length == 30)
        let kraft = codes.reduce(0) { $0 + (1 << (30 - Int($1.length))) }
        #expect(kraft == 1 << 30)
        let order = codes.indices.sorted { (codes[$0].length, $0) < (codes[$1].length, $1) }
        var expected: UInt32 = 0
        for (n, symbol) in order.enumerated() {
            if n > 0 {
                expected = (expected + 1) << UInt32(codes[symbol].length - codes[order[n - 1]].length)
            }
            #expect(codes[symbol].code == expected, "symbol \(symbol)")
        }
    }

    @Test func everyOctetRoundTrips() throws {
        let all = (0...255).map { UInt8($0) }
        let inputs: [[UInt8]] = [all, Array(all.reversed()), [UInt8](repeating: 0xFF, count: 9), []]
        for input in inputs {
            var encoded: [UInt8] = []
            HPACKHuffman.encode(input, into: &encoded)
            #expect(encoded.count == HPACKHuffman.encodedCount(input))
            var decoded: [UInt8] = []
            try encoded.withUnsafeBufferPointer { (b) throws(HPACKError) in try HPACKHuffman.decode(b, into: &decoded) }
            #expect(decoded == input)
        }
    }

    @Test func encoderChoosesHuffmanOnlyWhenNotLonger() {
        var out: [UInt8] = []
        HPACKWriter.appendString("\u{1}", huffman: .whenNotLonger, to: &out)  // 23 bits coded: longer
        #expect(out == [0x01, 0x01])
        out = []
        HPACKWriter.appendString("307", huffman: .whenNotLonger, to: &out)  // 3 octets either way
        #expect(out == [0x83, 0x64, 0x0E, 0xFF])
    }
}

@Suite struct HPACKEncoderTableSizeTests {
    @Test func loweredPeerSettingIsAnnouncedAtTheNextBlock() throws {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()
        var block: [UInt8] = []
        encoder.encode([HPACKField("x-a", "1")], into: &block)
        _ = try decoder.decode(block)
        encoder.peerAllowsTableSize(0)
        decoder.setAllowedTableSize(0)
        block = []
        encoder.encode([HPACKField("x-a", "1")], into: &block)
        #expect(block.first == 0x20)
        let decoded = try decoder.decode(block)
        #expect(decoded == [HPACKField("x-a", "1", indexing: .withoutIndexing)])  // no room to index
        #expect(decoder.table.count == 0 && encoder.table.count == 0)
    }

    @Test func settingLoweredThenRaisedAnnouncesTheSmallestThenTheFinal() {
        var encoder = HPACKEncoder()
        encoder.peerAllowsTableSize(0)
        encoder.peerAllowsTableSize(8192)  // capped at the encoder's own 4096
        var block: [UInt8] = []
        encoder.encode([], into: &block)
        #expect(block == [0x20, 0x3F, 0xE1, 0x1F])
    }

    @Test func unchangedSettingAnnouncesNothing() {
        var encoder = HPACKEncoder()
        encoder.peerAllowsTableSize(4096)
        var block: [UInt8] = []
        encoder.encode([HPACKField(":method", "GET")], into: &block)
        #expect(block == [0x82])
    }

    @Test func fieldLargerThanTheTableIsNotIndexed() {
        var encoder = HPACKEncoder(maxTableSize: 64, huffman: .never)
        var block: [UInt8] = []
        encoder.encode([HPACKField("x-big", String(repeating: "v", count: 40))], into: &block)
        #expect(block.first == 0x00)
        #expect(encoder.table.count == 0)
    }
}
