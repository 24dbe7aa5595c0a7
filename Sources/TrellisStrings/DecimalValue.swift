/// A number as decimal digits and a power of ten, as ICU formats it: a Double is read as the
/// shortest decimal that round-trips (0.1 is 0.1, not 0.1000000000000000055…), so rounding to a
/// number of fraction digits rounds what the writer of the number meant, half to even.
struct DecimalValue: Equatable {
    /// Most significant first, no leading or trailing zeros; empty for zero.
    var digits: [UInt8]
    /// The value is digits × 10^exponent.
    var exponent: Int
    var negative: Bool

    init(_ value: Double) {
        negative = value.sign == .minus
        digits = []
        exponent = 0
        // Swift's description is the shortest round-trip form: "1234.5678", "1e+16", "2.5e-07".
        let text = "\(value.magnitude)"
        var fractionDigits = 0
        var seenPoint = false
        var index = text.startIndex
        while index < text.endIndex, text[index] != "e" {
            let character = text[index]
            if character == "." {
                seenPoint = true
            } else if let digit = character.wholeNumberValue {
                digits.append(UInt8(digit))
                if seenPoint { fractionDigits += 1 }
            }
            index = text.index(after: index)
        }
        if index < text.endIndex { exponent = Int(text[text.index(after: index)...]) ?? 0 }
        exponent -= fractionDigits
        normalize()
    }

    var isZero: Bool { digits.isEmpty }

    /// Strips leading and trailing zeros, keeping the value.
    private mutating func normalize() {
        let leading = digits.prefix { $0 == 0 }.count
        digits.removeFirst(leading)
        while digits.last == 0 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { exponent = 0 }
    }

    /// Times 10^power (a percent is the value times 100, exactly).
    func scaled(by power: Int) -> DecimalValue {
        var scaled = self
        if !scaled.isZero { scaled.exponent += power }
        return scaled
    }

    /// Rounded half to even to at most `fractionDigits` digits after the point.
    func rounded(toFractionDigits fractionDigits: Int) -> DecimalValue {
        let dropped = -fractionDigits - exponent
        guard dropped > 0, !isZero else { return self }
        var result = self
        let kept = digits.count - dropped
        let roundUp: Bool
        if kept < 0 {
            roundUp = false  // below half a unit of the last kept place
        } else {
            let first = digits[kept]
            let rest = digits[(kept + 1)...].contains { $0 != 0 }
            let lastKeptIsOdd = kept > 0 && digits[kept - 1] % 2 == 1
            roundUp = first > 5 || (first == 5 && (rest || lastKeptIsOdd))
        }
        result.digits = kept > 0 ? Array(digits[..<kept]) : []
        result.exponent = -fractionDigits
        if roundUp {
            var position = result.digits.count - 1
            while position >= 0, result.digits[position] == 9 {
                result.digits[position] = 0
                position -= 1
            }
            if position >= 0 { result.digits[position] += 1 } else { result.digits.insert(1, at: 0) }
        }
        result.normalize()
        return result
    }

    /// The digits before the point ("0" for none) and after it (none for an integer).
    var parts: (integer: [UInt8], fraction: [UInt8]) {
        if exponent >= 0 { return (digits.isEmpty ? [0] : digits + Array(repeating: 0, count: exponent), []) }
        let fractionCount = -exponent
        if fractionCount >= digits.count { return ([0], Array(repeating: 0, count: fractionCount - digits.count) + digits) }
        return (Array(digits[..<(digits.count - fractionCount)]), Array(digits[(digits.count - fractionCount)...]))
    }

    /// What a plural rule reads of this number as written.
    var pluralOperands: PluralOperands {
        let (integer, fraction) = parts
        var text = integer.map { String($0) }.joined()
        if !fraction.isEmpty { text += "." + fraction.map { String($0) }.joined() }
        // Digits only, so it always parses.
        return PluralOperands(decimal: text) ?? PluralOperands(0)
    }
}
