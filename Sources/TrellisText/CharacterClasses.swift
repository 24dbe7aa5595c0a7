/// The few Unicode properties measuring needs, as small range tests (no tables, no Foundation).
///
/// Line breaking follows a subset of UAX #14 (https://www.unicode.org/reports/tr14/): the classes
/// below are the ones its rules LB7–LB13, LB18, LB21 and LB30 turn on for the scripts Trellis
/// measures. See docs/text.md for the rules as implemented.
enum CharacterClass {
    /// Hard line breaks (UAX #14 BK, CR, LF, NL): LF, VT, FF, CR, NEL, LS, PS.
    @inline(__always)
    static func isHardBreak(_ c: UInt32) -> Bool {
        (c >= 0x0A && c <= 0x0D) || c == 0x85 || c == 0x2028 || c == 0x2029
    }

    /// Spaces a line may break after and that hang at the end of a line (UAX #14 SP, and the
    /// ideographic space, BA): space, tab, U+3000. No-break spaces (U+00A0, U+202F) are not.
    @inline(__always)
    static func isBreakingSpace(_ c: UInt32) -> Bool { c == 0x20 || c == 0x09 || c == 0x3000 }

    /// Characters a line may break after (UAX #14 BA, HY, B2, ZW): hyphen-minus, hyphen, en and em
    /// dash, zero-width space.
    @inline(__always)
    static func breaksAfter(_ c: UInt32) -> Bool {
        c == 0x2D || c == 0x2010 || c == 0x2012 || c == 0x2013 || c == 0x2014 || c == 0x200B || c == 0x7C
    }

    /// Ideographic characters (UAX #14 ID, and CJK letters treated like them): a line may break
    /// before and after each one.
    @inline(__always)
    static func isIdeographic(_ c: UInt32) -> Bool {
        switch c {
        case 0x2E80...0x2FFF,  // CJK radicals, Kangxi radicals, ideographic description
            0x3040...0x30FF,  // Hiragana, Katakana
            0x3100...0x31FF,  // Bopomofo, Hangul compatibility jamo, Kanbun, Katakana ext.
            0x3400...0x4DBF,  // CJK extension A
            0x4E00...0x9FFF,  // CJK unified ideographs
            0xA000...0xA4CF,  // Yi
            0xAC00...0xD7AF,  // Hangul syllables
            0xF900...0xFAFF,  // CJK compatibility ideographs
            0xFF01...0xFF60, 0xFFE0...0xFFE6,  // full-width forms
            0x1F000...0x1FAFF,  // emoji and pictographs (UAX #14 ID as well)
            0x20000...0x3FFFD:  // CJK extensions B–H
            return true
        default:
            return false
        }
    }

    /// Characters no line may start with (UAX #14 CL, CP, EX, IS, NS and small kana): closing
    /// brackets and quotes, sentence punctuation, iteration marks, prolonged sound mark.
    static func noBreakBefore(_ c: UInt32) -> Bool {
        switch c {
        case 0x21, 0x29, 0x2C, 0x2E, 0x3A, 0x3B, 0x3F, 0x5D, 0x7D, 0xBB, 0x2019, 0x201D, 0x203A, 0x2026,
            0x3001, 0x3002, 0x3005, 0x3009, 0x300B, 0x300D, 0x300F, 0x3011, 0x3015, 0x3017, 0x3019, 0x301B,
            0x301E, 0x301F, 0x303B, 0x309D, 0x309E, 0x30FB, 0x30FC, 0x30FD, 0x30FE,
            0x3041, 0x3043, 0x3045, 0x3047, 0x3049, 0x3063, 0x3083, 0x3085, 0x3087, 0x308E, 0x3095, 0x3096,
            0x30A1, 0x30A3, 0x30A5, 0x30A7, 0x30A9, 0x30C3, 0x30E3, 0x30E5, 0x30E7, 0x30EE, 0x30F5, 0x30F6,
            0xFF01, 0xFF09, 0xFF0C, 0xFF0E, 0xFF1A, 0xFF1B, 0xFF1F, 0xFF3D, 0xFF5D, 0xFF60, 0xFF61, 0xFF63, 0xFF64:
            return true
        default:
            return false
        }
    }

    /// Characters no line may end with (UAX #14 OP, and opening quotes): opening brackets and quotes.
    static func noBreakAfter(_ c: UInt32) -> Bool {
        switch c {
        case 0x28, 0x5B, 0x7B, 0xAB, 0x2018, 0x201C, 0x2039, 0x3008, 0x300A, 0x300C, 0x300E, 0x3010,
            0x3014, 0x3016, 0x3018, 0x301A, 0x301D, 0xFF08, 0xFF3B, 0xFF5B, 0xFF5F, 0xFF62:
            return true
        default:
            return false
        }
    }

    /// Default-ignorable code points (ZWSP, ZWNJ, ZWJ, bidi controls, word joiner, variation
    /// selectors, BOM, soft hyphen, tags): zero width, as HarfBuzz hides them.
    @inline(__always)
    static func isDefaultIgnorable(_ c: UInt32) -> Bool {
        switch c {
        case 0xAD, 0x34F, 0x61C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B...0x180F, 0x200B...0x200F,
            0x202A...0x202E, 0x2060...0x206F, 0x3164, 0xFE00...0xFE0F, 0xFEFF, 0xFFA0, 0xFFF0...0xFFF8,
            0x1BCA0...0x1BCA3, 0x1D173...0x1D17A, 0xE0000...0xE0FFF:
            return true
        default:
            return false
        }
    }

    /// Combining marks measured at zero width (shapers zero the advance of marks they attach).
    @inline(__always)
    static func isCombiningMark(_ c: UInt32) -> Bool {
        (c >= 0x300 && c <= 0x36F) || (c >= 0x483 && c <= 0x489) || (c >= 0x1AB0 && c <= 0x1AFF)
            || (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xFE20 && c <= 0xFE2F)
            || (c >= 0x3099 && c <= 0x309A)
    }

    /// Emoji and pictographs that form ZWJ sequences (a coarse Extended_Pictographic).
    @inline(__always)
    static func isEmoji(_ c: UInt32) -> Bool {
        (c >= 0x1F000 && c <= 0x1FAFF) || (c >= 0x2600 && c <= 0x27BF) || (c >= 0x2300 && c <= 0x23FF)
            || (c >= 0x2B00 && c <= 0x2BFF) || c == 0x00A9 || c == 0x00AE || c == 0x203C || c == 0x2049
            || c == 0x2122 || c == 0x2139 || (c >= 0x2194 && c <= 0x21AA)
    }

    /// Skin-tone modifiers U+1F3FB–1F3FF.
    @inline(__always)
    static func isEmojiModifier(_ c: UInt32) -> Bool { c >= 0x1F3FB && c <= 0x1F3FF }

    /// Regional indicators U+1F1E6–1F1FF: two make a flag.
    @inline(__always)
    static func isRegionalIndicator(_ c: UInt32) -> Bool { c >= 0x1F1E6 && c <= 0x1F1FF }

    @inline(__always)
    static func isDigit(_ c: UInt32) -> Bool { c >= 0x30 && c <= 0x39 }

    /// Whether a line may break between `before` and `after` (both not hard breaks), i.e. a line
    /// may start with `after`.
    static func canBreak(between before: UInt32, and after: UInt32) -> Bool {
        if isBreakingSpace(after) { return false }  // LB7: never break before a space
        if isBreakingSpace(before) { return true }  // LB18: break after spaces
        if before == 0x200B { return true }  // LB8: break after ZWSP
        if before == 0x200D || isEmojiModifier(after) { return false }  // LB8a, LB30b: emoji sequences
        if isRegionalIndicator(before) && isRegionalIndicator(after) { return false }  // LB30a (pairs)
        if isCombiningMark(after) || isDefaultIgnorable(after) && after != 0x200B { return false }  // LB9
        if before == 0x2060 || after == 0x2060 || before == 0xA0 || after == 0xA0 || before == 0x202F
            || after == 0x202F
        {
            return false  // LB11, LB12: word joiner and no-break spaces glue
        }
        if noBreakBefore(after) || noBreakAfter(before) { return false }  // LB13, LB14
        if breaksAfter(before) { return !(before == 0x2D && isDigit(after)) }  // LB21, LB25 (HY × NU)
        if isIdeographic(before) || isIdeographic(after) { return true }  // LB30-ish: ID ÷ / ÷ ID
        return false
    }
}
