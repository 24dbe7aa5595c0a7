import Testing
import TrellisTesting
import TrellisText

/// The OpenType table readers, on real fonts and on broken bytes.
@Suite struct FontReaderTests {
    @Test func readsRobotoTables() throws {
        let font = try Fixture.font("Roboto-Regular.ttf")
        #expect(font.familyName == "Roboto")
        #expect(font.weight == 400)
        #expect(!font.isItalic)
        #expect(font.unitsPerEm == 2048)
        // USE_TYPO_METRICS is not set: hhea metrics.
        #expect((font.ascender, font.descender, font.lineGap) == (1900, -500, 0))
        #expect(font.numGlyphs == 3359)
        #expect(font.codepoints.count == 2769)
        #expect(font.kerningSource == "GPOS")
        let a = try #require(font.glyph(for: 0x41)), v = try #require(font.glyph(for: 0x56))
        let t = try #require(font.glyph(for: 0x54)), o = try #require(font.glyph(for: 0x6F))
        #expect(font.advances[Int(a)] == 1336)
        #expect(font.advances[Int(try #require(font.glyph(for: 0x20)))] == 508)
        #expect(font.advances[0] == 908)
        #expect(font.kerning(a, v) == -87)
        #expect(font.kerning(t, o) == -99)
        #expect(font.glyph(for: 0x6771) == nil)  // 東: no CJK in Roboto
    }

    @Test func readsCFFInterWithTypoMetrics() throws {
        let font = try Fixture.font("Inter-Regular.otf")
        #expect(font.familyName == "Inter")
        #expect(font.unitsPerEm == 2816)
        // USE_TYPO_METRICS is set: OS/2 typo metrics.
        #expect((font.ascender, font.descender, font.lineGap) == (2728, -680, 0))
        let a = try #require(font.glyph(for: 0x41)), v = try #require(font.glyph(for: 0x56))
        #expect(font.advances[Int(a)] == 1904)
        #expect(font.kerning(a, v) == -192)
        #expect(try Fixture.font("Inter-SemiBold.otf").weight == 600)
    }

    @Test func prefersGPOSOverKernTable() throws {
        let font = try Fixture.font("DejaVuSans.ttf")  // has both
        #expect(font.kerningSource == "GPOS")
        let a = try #require(font.glyph(for: 0x41)), v = try #require(font.glyph(for: 0x56))
        #expect(font.kerning(a, v) == -131)
    }

    @Test func readsLegacyKernTableAndFormat12() throws {
        let font = try Fixture.font("TrellisKernTest.ttf")
        #expect(font.familyName == "Trellis Kern Test")
        #expect(font.kerningSource == "kern")
        #expect((font.ascender, font.descender, font.lineGap) == (800, -200, 90))
        let a = try #require(font.glyph(for: 0x41)), v = try #require(font.glyph(for: 0x56))
        let t = try #require(font.glyph(for: 0x54)), o = try #require(font.glyph(for: 0x6F))
        #expect(font.kerning(a, v) == -80)
        #expect(font.kerning(t, o) == -120)
        #expect(font.kerning(v, v) == 0)
        // U+1F600 is outside the BMP: only the format 12 subtable maps it.
        let smile = try #require(font.glyph(for: 0x1F600))
        #expect(font.advances[Int(smile)] == 1000)
    }

    @Test func readsAFontCollection() throws {
        // Wrap the test font in a one-font 'ttcf' collection: header first, table offsets moved.
        let font = try Fixture.bytes("Fixtures/fonts/TrellisKernTest.ttf")
        var shifted = font
        let count = Int(font[4]) << 8 | Int(font[5])
        for i in 0..<count {
            let r = 12 + 16 * i + 8
            let offset = (Int(font[r]) << 24 | Int(font[r + 1]) << 16 | Int(font[r + 2]) << 8 | Int(font[r + 3])) + 16
            shifted[r] = UInt8(offset >> 24 & 0xFF); shifted[r + 1] = UInt8(offset >> 16 & 0xFF)
            shifted[r + 2] = UInt8(offset >> 8 & 0xFF); shifted[r + 3] = UInt8(offset & 0xFF)
        }
        let collection: [UInt8] = Array("ttcf".utf8) + [0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 16] + shifted
        let parsed = try OpenTypeFont(bytes: collection)
        #expect(parsed.familyName == "Trellis Kern Test")
        #expect(parsed.codepoints == (try OpenTypeFont(bytes: font)).codepoints)
        #expect(throws: FontError(table: "sfnt", offset: 8, reason: "font index 1 asked for, the collection has 1 fonts")) {
            try OpenTypeFont(bytes: collection, fontIndex: 1)
        }
    }

    // MARK: broken bytes

    @Test func emptyAndForeignFilesGivePreciseErrors() throws {
        #expect(throws: FontError(table: "sfnt", offset: 0, reason: "sfnt version needs 4 bytes but only 0 remain before the end of the sfnt data at offset 0")) {
            try OpenTypeFont(bytes: [])
        }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]
        #expect(throws: FontError(table: "sfnt", offset: 0, reason: "sfnt version is 0x89504e47, not a TrueType (0x00010000, 'true') or CFF ('OTTO') font")) {
            try OpenTypeFont(bytes: png)
        }
    }

    @Test func truncatedRobotoNamesTheTable() throws {
        let bytes = try Fixture.bytes("Fixtures/fonts/Roboto-Regular.ttf")
        // Cut inside the table directory.
        let cut = Array(bytes.prefix(100))
        do {
            _ = try OpenTypeFont(bytes: cut)
            Issue.record("a truncated font parsed")
        } catch {
            #expect(error.table == "sfnt")
            #expect(error.offset == 12)
            #expect(error.reason.contains("table records"))
        }
        // Cut at half: some table now lies past the end of the file.
        do {
            _ = try OpenTypeFont(bytes: Array(bytes.prefix(bytes.count / 2)))
            Issue.record("a truncated font parsed")
        } catch {
            #expect(error.table == "sfnt")
            #expect(error.reason.contains("claims bytes"))
        }
    }

    @Test func corruptHheaIsReportedAtItsOffset() throws {
        var bytes = try Fixture.bytes("Fixtures/fonts/TrellisKernTest.ttf")
        let hhea = try #require(tableOffset(bytes, "hhea"))
        bytes[hhea + 34] = 0
        bytes[hhea + 35] = 0  // numberOfHMetrics = 0
        #expect(throws: FontError(table: "hhea", offset: hhea + 34, reason: "numberOfHMetrics is 0, must be 1…numGlyphs (10)")) {
            try OpenTypeFont(bytes: bytes)
        }
    }

    @Test func corruptCmapIsReportedAtItsOffset() throws {
        var bytes = try Fixture.bytes("Fixtures/fonts/TrellisKernTest.ttf")
        let cmap = try #require(tableOffset(bytes, "cmap"))
        // Point every encoding record's subtable past the end of the table.
        let count = Int(bytes[cmap + 2]) << 8 | Int(bytes[cmap + 3])
        for i in 0..<count {
            let r = cmap + 4 + 8 * i + 4
            bytes[r] = 0x00; bytes[r + 1] = 0x01; bytes[r + 2] = 0x00; bytes[r + 3] = 0x00
        }
        do {
            _ = try OpenTypeFont(bytes: bytes)
            Issue.record("a corrupt cmap parsed")
        } catch {
            #expect(error.table == "cmap")
            #expect(error.offset == cmap + 0x10000)
            #expect(error.reason.contains("subtable format"))
        }
    }

    /// Every prefix of a small font, and thousands of single-byte corruptions, either parse or
    /// throw a FontError; none crashes.
    @Test func everyTruncationAndByteFlipFailsCleanly() throws {
        let bytes = try Fixture.bytes("Fixtures/fonts/TrellisKernTest.ttf")
        for length in 0..<bytes.count {
            #expect(throws: FontError.self) { try OpenTypeFont(bytes: Array(bytes.prefix(length))) }
        }
        var random = SplitMix64(seed: 42)
        var parsed = 0
        for _ in 0..<3000 {
            var copy = bytes
            for _ in 0..<3 { copy[Int(random.next() % UInt64(copy.count))] = UInt8(truncatingIfNeeded: random.next()) }
            if let font = try? OpenTypeFont(bytes: copy) {
                parsed += 1
                _ = FontFace(font: font)
            }
        }
        #expect(parsed > 0)
    }

    @Test func corruptedGPOSFailsCleanly() throws {
        let bytes = try Fixture.bytes("Fixtures/fonts/Roboto-Regular.ttf")
        let gpos = try #require(tableOffset(bytes, "GPOS"))
        var random = SplitMix64(seed: 7)
        for _ in 0..<40 {
            var copy = bytes
            for _ in 0..<4 {
                copy[gpos + Int(random.next() % 2000)] = UInt8(truncatingIfNeeded: random.next())
            }
            do { _ = try OpenTypeFont(bytes: copy) } catch { #expect(error.table == "GPOS" || error.table == "sfnt") }
        }
    }

    /// The file offset of a table, from the table directory.
    func tableOffset(_ bytes: [UInt8], _ tag: String) -> Int? {
        let count = Int(bytes[4]) << 8 | Int(bytes[5])
        for i in 0..<count {
            let r = 12 + 16 * i
            if String(decoding: bytes[r..<r + 4], as: UTF8.self) == tag {
                return Int(bytes[r + 8]) << 24 | Int(bytes[r + 9]) << 16 | Int(bytes[r + 10]) << 8 | Int(bytes[r + 11])
            }
        }
        return nil
    }
}
