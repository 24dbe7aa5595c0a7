import Testing
import TrellisTesting
import TrellisText

/// Font → pack → face round trips, the shipped packs, and broken packs.
@Suite struct MetricsPackTests {
    @Test(arguments: ["Roboto-Regular.ttf", "Inter-Regular.otf", "DejaVuSans.ttf", "TrellisKernTest.ttf"])
    func roundTripKeepsAdvancesAndKerning(_ file: String) throws {
        let bytes = try Fixture.bytes("Fixtures/fonts/\(file)")
        let font = try OpenTypeFont(bytes: bytes)
        let face = FontFace(font: font, sourceChecksum: crc32(bytes))
        let decoded = try MetricsPack.decode(MetricsPack.encode(face))
        #expect(decoded == face)
        #expect(decoded.sourceChecksum == crc32(bytes))
        #expect(decoded.family == font.familyName)
        // Every mapped code point keeps its advance.
        for (cp, glyph) in zip(font.codepoints, font.glyphs) {
            #expect(decoded.metrics(cp)?.advance == font.advances[Int(glyph)], "U+\(String(cp, radix: 16))")
        }
        #expect(decoded.notdefAdvance == Int(font.advances[0]))
        // Kerning classes reproduce the font's pair kerning: all printable ASCII pairs, plus a
        // random sample over the whole character map.
        var pairs: [(UInt32, UInt32)] = []
        for l in UInt32(0x20)...0x7E { for r in UInt32(0x20)...0x7E { pairs.append((l, r)) } }
        var random = SplitMix64(seed: 1)
        for _ in 0..<20_000 {
            let l = font.codepoints[Int(random.next() % UInt64(font.codepoints.count))]
            let r = font.codepoints[Int(random.next() % UInt64(font.codepoints.count))]
            pairs.append((l, r))
        }
        var kerned = 0
        for (l, r) in pairs {
            guard let gl = font.glyph(for: l), let gr = font.glyph(for: r) else { continue }
            let expected = font.kerning(gl, gr)
            if expected != 0 { kerned += 1 }
            #expect(decoded.kerning(l, r) == expected, "U+\(String(l, radix: 16)) U+\(String(r, radix: 16))")
        }
        #expect(kerned > 0)
    }

    @Test func shippedPacksAreCurrent() throws {
        // Each shipped Roboto and Inter pack names its font file, shipped beside it, and equals a
        // fresh build from that file; the fixtures' copies are the same files.
        for pack in ["Roboto-Regular", "Roboto-Medium", "Roboto-Bold", "Inter-Regular", "Inter-Medium", "Inter-SemiBold", "Inter-Bold"] {
            let face = try Fixture.pack(pack)
            #expect(face.sourceFile.hasPrefix(pack + "."), "\(pack).trfm names \(face.sourceFile)")
            let bytes = try Fixture.bytes("Config/fonts/\(face.sourceFile)")
            #expect(crc32(bytes) == face.sourceChecksum)
            let fresh = FontFace(font: try OpenTypeFont(bytes: bytes), sourceChecksum: crc32(bytes), sourceFile: face.sourceFile)
            #expect(face == fresh, "rebuild Config/fonts/\(pack).trfm with trellis fonts")
        }
        for file in ["Roboto-Regular.ttf", "Roboto-Bold.ttf", "Inter-Regular.otf", "Inter-SemiBold.otf"] {
            #expect(try Fixture.bytes("Config/fonts/\(file)") == Fixture.bytes("Fixtures/fonts/\(file)"))
        }
        let collection = try Fixture.shippedCollection()
        #expect(collection.families == ["Droid Sans Fallback", "Inter", "Noto Color Emoji", "Roboto"])
        #expect(collection.faces(family: "Roboto").map(\.weight) == [400, 500, 700])
        #expect(collection.faces(family: "Inter").map(\.weight) == [400, 500, 600, 700])
        #expect(try #require(collection.face(family: "Droid Sans Fallback")).contains(0x6771))
    }

    /// Format 2 records the source file's name; a face without one still writes format 1, byte for
    /// byte as before, and both read back as the same metrics.
    @Test func versionTwoRecordsTheSourceFileAndVersionOneStillReads() throws {
        let bytes = try Fixture.bytes("Fixtures/fonts/TrellisKernTest.ttf")
        let font = try OpenTypeFont(bytes: bytes)
        let named = FontFace(font: font, sourceChecksum: crc32(bytes), sourceFile: "TrellisKernTest.ttf")
        let unnamed = FontFace(font: font, sourceChecksum: crc32(bytes))
        let v2 = MetricsPack.encode(named), v1 = MetricsPack.encode(unnamed)
        #expect(v2[4] == 2 && v1[4] == 1)
        #expect(v2.count == v1.count + 1 + "TrellisKernTest.ttf".utf8.count)
        let read2 = try MetricsPack.decode(v2), read1 = try MetricsPack.decode(v1)
        #expect(read2 == named && read1 == unnamed)
        #expect(read2.sourceFile == "TrellisKernTest.ttf" && read1.sourceFile == "")
        #expect(read1.runs == read2.runs && read1.kerningMatrix == read2.kerningMatrix && read1.naturalLineHeight(size: 17) == read2.naturalLineHeight(size: 17))
        // The shipped fallback packs are format 1 (their fonts are not shipped) and still load.
        #expect(try Fixture.bytes("Config/fonts/NotoColorEmoji.trfm")[4] == 1)
        #expect(try Fixture.pack("NotoColorEmoji").sourceFile == "")
        // Every truncation of a format 2 pack fails cleanly, the file name's bytes included.
        for length in 0..<v2.count {
            #expect(throws: FontError.self) { try MetricsPack.decode(Array(v2.prefix(length))) }
        }
        // A name longer than 255 bytes is cut at a scalar boundary.
        let long = String(repeating: "é", count: 200) + ".ttf"
        let cut = try MetricsPack.decode(MetricsPack.encode(FontFace(font: font, sourceFile: long))).sourceFile
        #expect(cut == String(repeating: "é", count: 127))
    }

    @Test func brokenPacksGivePreciseErrors() throws {
        let pack = MetricsPack.encode(try Fixture.face("TrellisKernTest.ttf"))
        // Every truncation fails (the checksum or a bound), never crashes.
        for length in 0..<pack.count {
            #expect(throws: FontError.self) { try MetricsPack.decode(Array(pack.prefix(length))) }
        }
        #expect(throws: FontError(table: "pack header", offset: 0, reason: "magic is not TRFM: not a Trellis metrics pack")) {
            var copy = pack
            copy[0] = 0x58
            _ = try MetricsPack.decode(copy)
        }
        #expect(throws: FontError(table: "pack header", offset: 4, reason: "pack format version 9, this reader reads versions 1…2")) {
            var copy = pack
            copy[4] = 9
            _ = try MetricsPack.decode(copy)
        }
        var flipped = pack
        flipped[40] ^= 0xFF
        do {
            _ = try MetricsPack.decode(flipped)
            Issue.record("a corrupt pack decoded")
        } catch {
            #expect(error.table == "pack checksum")
            #expect(error.offset == pack.count - 4)
        }
    }

    @Test func packWithBadRunsIsRejectedEvenWithAValidChecksum() throws {
        var pack = MetricsPack.encode(try Fixture.face("TrellisKernTest.ttf"))
        pack.removeLast(4)
        let runs = 33 + Int(pack[32])
        // Second run starts before the first: out of order.
        pack[runs + 12] = 0; pack[runs + 13] = 0; pack[runs + 14] = 0; pack[runs + 15] = 0
        let c = crc32(pack)
        pack += [UInt8(c & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c >> 16 & 0xFF), UInt8(c >> 24)]
        do {
            _ = try MetricsPack.decode(pack)
            Issue.record("a pack with overlapping runs decoded")
        } catch {
            #expect(error.table == "pack runs")
            #expect(error.offset == runs + 12)
        }
    }

    @Test func crc32MatchesZlib() {
        #expect(crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(crc32([UInt8]()) == 0)
    }
}
