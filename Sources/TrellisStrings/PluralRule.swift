/// One CLDR plural condition ("n mod 10 in 2..4 and n mod 100 not in 12..14"), parsed once and
/// evaluated on a number's operands. The syntax is UTS #35's, in both its spellings: `=`/`!=` and
/// `%` as CLDR's XML writes them, `in`/`not in`/`within`/`is`/`mod` as older data and Babel do.
public struct PluralCondition: Sendable {
    /// Alternatives (`or`) of conjunctions (`and`) of relations.
    let alternatives: [[Relation]]

    struct Relation: Sendable {
        enum Operand: Character, Sendable { case n = "n", i = "i", v = "v", w = "w", f = "f", t = "t", e = "e", c = "c" }
        let operand: Operand
        let modulus: UInt64?
        /// `in` (an integer value in a range) or `within` (any value between a range's ends).
        let integral: Bool
        let negated: Bool
        let ranges: [ClosedRange<UInt64>]
    }

    /// Parses a condition; the error says where it stopped and why. An empty text is always true
    /// (CLDR's `other`); samples after `@` (CLDR's `@integer 0, 1, …`) are not part of it.
    public init(_ text: String) throws(PluralRuleError) {
        var scanner = RuleScanner(String(text.prefix { $0 != "@" }))
        var alternatives: [[Relation]] = []
        if scanner.atEnd {
            self.alternatives = [[]]
            return
        }
        repeat {
            var conjunction: [Relation] = []
            repeat { conjunction.append(try scanner.relation()) } while scanner.take(word: "and")
            alternatives.append(conjunction)
        } while scanner.take(word: "or")
        guard scanner.atEnd else { throw scanner.error("expected `and`, `or` or the end") }
        self.alternatives = alternatives
    }

    public func matches(_ operands: PluralOperands) -> Bool {
        alternatives.contains { conjunction in conjunction.allSatisfy { $0.holds(for: operands) } }
    }
}

/// A plural condition that does not parse: where in the text, and why.
public struct PluralRuleError: Error, Equatable, Sendable {
    public let text: String
    public let offset: Int
    public let reason: String
}

extension PluralCondition.Relation {
    func holds(for operands: PluralOperands) -> Bool {
        let value = self.value(of: operands)
        let inside = ranges.contains { range in
            if integral {
                return value == value.rounded(.towardZero) && value >= Double(range.lowerBound) && value <= Double(range.upperBound)
            }
            return value >= Double(range.lowerBound) && value <= Double(range.upperBound)
        }
        return inside != negated
    }

    /// The operand, taken modulo when the relation says so: exactly for the integer operands, as
    /// the remainder of the value for `n` (12.5 mod 10 is 2.5, which no integer range holds).
    private func value(of operands: PluralOperands) -> Double {
        let integer: UInt64
        switch operand {
        case .n:
            guard let modulus else { return operands.n }
            return operands.n.truncatingRemainder(dividingBy: Double(modulus))
        case .i: integer = operands.i
        case .v: integer = UInt64(operands.v)
        case .w: integer = UInt64(operands.w)
        case .f: integer = operands.f
        case .t: integer = operands.t
        case .e, .c: integer = UInt64(operands.e)
        }
        return Double(modulus.map { integer % $0 } ?? integer)
    }
}

/// Reads a condition's words, numbers and punctuation, skipping spaces.
private struct RuleScanner {
    let text: String
    let bytes: [UInt8]
    var position = 0

    init(_ text: String) {
        self.text = text
        bytes = Array(text.utf8)
        skipSpaces()
    }

    var atEnd: Bool { position == bytes.count }

    func error(_ reason: String) -> PluralRuleError {
        PluralRuleError(text: text, offset: position, reason: reason)
    }

    mutating func skipSpaces() {
        while position < bytes.count, bytes[position] == UInt8(ascii: " ") { position += 1 }
    }

    /// Takes `word` when it comes next as a whole word.
    mutating func take(word: String) -> Bool {
        let word = Array(word.utf8)
        guard bytes.count - position >= word.count, Array(bytes[position..<position + word.count]) == word else { return false }
        let end = position + word.count
        if end < bytes.count, Self.isLetter(bytes[end]) { return false }
        position = end
        skipSpaces()
        return true
    }

    mutating func take(symbol: String) -> Bool {
        let symbol = Array(symbol.utf8)
        guard bytes.count - position >= symbol.count, Array(bytes[position..<position + symbol.count]) == symbol else { return false }
        position += symbol.count
        skipSpaces()
        return true
    }

    mutating func relation() throws(PluralRuleError) -> PluralCondition.Relation {
        guard position < bytes.count, let operand = PluralCondition.Relation.Operand(rawValue: Character(UnicodeScalar(bytes[position]))),
            position + 1 == bytes.count || !Self.isLetter(bytes[position + 1])
        else { throw error("expected an operand: n, i, v, w, f, t or e") }
        position += 1
        skipSpaces()
        var modulus: UInt64?
        if take(word: "mod") || take(symbol: "%") {
            let start = position
            modulus = try number()
            if modulus == 0 { throw PluralRuleError(text: text, offset: start, reason: "a modulus of 0") }
        }
        let (integral, negated) = try relationOperator()
        var ranges: [ClosedRange<UInt64>] = []
        repeat {
            let start = position
            let low = try number()
            let high = take(symbol: "..") ? try number() : low
            guard low <= high else { throw PluralRuleError(text: text, offset: start, reason: "a range whose end is below its start") }
            ranges.append(low...high)
        } while take(symbol: ",")
        return PluralCondition.Relation(operand: operand, modulus: modulus, integral: integral, negated: negated, ranges: ranges)
    }

    /// `=`, `!=`, `in`, `not in`, `is`, `is not`, `within`, `not within`: whether the value must be
    /// an integer, and whether the relation is negated.
    mutating func relationOperator() throws(PluralRuleError) -> (integral: Bool, negated: Bool) {
        if take(symbol: "!=") { return (true, true) }
        if take(symbol: "=") { return (true, false) }
        if take(word: "is") { return (true, take(word: "not")) }
        if take(word: "in") { return (true, false) }
        if take(word: "within") { return (false, false) }
        if take(word: "not") {
            if take(word: "in") { return (true, true) }
            if take(word: "within") { return (false, true) }
        }
        throw error("expected =, !=, in, not in, within or is")
    }

    mutating func number() throws(PluralRuleError) -> UInt64 {
        let start = position
        var value: UInt64 = 0
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
            guard !overflow, !carry else { throw error("a number too large") }
            value = sum
            position += 1
        }
        guard position > start else { throw error("expected a number") }
        skipSpaces()
        return value
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
}
