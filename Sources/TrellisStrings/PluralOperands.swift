/// The plural categories CLDR names, in its order.
public enum PluralCategory: String, CaseIterable, Sendable {
    case zero, one, two, few, many, other
}

/// What a plural rule reads of a number (CLDR, UTS #35 "Plural Operands"): its absolute value `n`,
/// integer digits `i`, the count of visible fraction digits with (`v`) and without (`w`) trailing
/// zeros, those digits as an integer with (`f`) and without (`t`) them, and the exponent of compact
/// notation `e` (0: Trellis never writes compact numbers). "1.50" has v 2, f 50, t 5: it is written,
/// not only valued, which is why operands are read from a number's decimal text.
public struct PluralOperands: Equatable, Sendable {
    public var n: Double
    public var i: UInt64
    public var v: Int
    public var w: Int
    public var f: UInt64
    public var t: UInt64
    public var e: Int

    /// The operands of a decimal written as digits with an optional sign and fraction ("-1.50"); nil
    /// for anything else. Digits beyond 18 saturate `i` and `f`, which no rule's modulus reaches.
    public init?(decimal text: String) {
        var digits = Substring(text)
        if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        let parts = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.allSatisfy(\.isASCIIDigit), parts.count == 1 || !fraction.isEmpty else { return nil }
        let trimmed = fraction.reversed().drop(while: { $0 == "0" }).reversed()
        guard let n = Double(digits) else { return nil }
        self.n = n
        i = Self.saturating(whole)
        v = fraction.count
        w = trimmed.count
        f = Self.saturating(fraction)
        t = Self.saturating(Substring(trimmed))
        e = 0
    }

    /// The operands of an integer.
    public init(_ value: Int) {
        n = Double(value.magnitude)
        i = UInt64(value.magnitude)
        v = 0
        w = 0
        f = 0
        t = 0
        e = 0
    }

    private static func saturating(_ digits: Substring) -> UInt64 {
        var value: UInt64 = 0
        for digit in digits.utf8 {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            if overflow { return 999_999_999_999_999_999 }
            value = times + UInt64(digit - UInt8(ascii: "0"))
        }
        return min(value, 999_999_999_999_999_999)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
