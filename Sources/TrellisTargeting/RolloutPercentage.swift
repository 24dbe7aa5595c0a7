import TrellisJSON

/// The share of users a rollout admits: 0 to 100 percent with at most two decimals (`25`, `12.5`,
/// `0.25`), held exactly as basis points (hundredths of a percent, 0…10000) so that no binary
/// fraction ever decides who is admitted.
///
/// A percentage admits a user when the user's ``RolloutPlacement/position`` is below
/// ``basisPoints``. For whole percentages that is exactly Unleash's rule, `bucket <= P`; and because
/// a user's position never changes, raising the percentage (by whole or fractional steps) only
/// ever adds users. See docs/targeting.md, *Bucketing*.
///
/// Whole percentages can be written as integer literals (`let p: RolloutPercentage = 25`); others
/// come from ``init(basisPoints:)``, ``init(_:)`` (a JSON number) or ``init(parsing:)`` (text).
public struct RolloutPercentage: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// Hundredths of a percent, 0…10000: `12.5` percent is 1250.
    public let basisPoints: Int

    /// The largest value of ``basisPoints``: 100 percent.
    public static let maximumBasisPoints = 10_000
    /// Admits nobody.
    public static let none = RolloutPercentage(uncheckedBasisPoints: 0)
    /// Admits every user with an id.
    public static let all = RolloutPercentage(uncheckedBasisPoints: maximumBasisPoints)

    /// The percentage of `basisPoints` hundredths of a percent; nil outside 0…10000.
    public init?(basisPoints: Int) {
        guard (0...Self.maximumBasisPoints).contains(basisPoints) else { return nil }
        self.basisPoints = basisPoints
    }

    /// A whole percentage written in code.
    /// - Precondition: `value` is from 0 to 100.
    public init(integerLiteral value: Int) {
        precondition((0...100).contains(value), "a rollout percentage is from 0 to 100, not \(value)")
        basisPoints = value * 100
    }

    init(uncheckedBasisPoints: Int) { basisPoints = uncheckedBasisPoints }

    /// The percentage a JSON number gives, such as `12.5`.
    ///
    /// A number has at most two decimals when it is the double nearest to some `n / 100`; that is
    /// what a JSON parser makes of `12.5`, `0.29` or `12.50`, and never of `12.345`.
    /// - Throws: ``RolloutPercentageError`` when `number` is outside 0…100 or has more than two decimals.
    public init(_ number: Double) throws(RolloutPercentageError) {
        guard number.isFinite, number >= 0, number <= 100 else {
            throw RolloutPercentageError(reason: "expected a percentage from 0 to 100, found \(Self.text(number))")
        }
        let basisPoints = Int((number * 100).rounded())
        guard Double(basisPoints) / 100 == number else {
            throw RolloutPercentageError(
                reason: "expected a percentage with at most two decimals (such as 12.5 or 0.25), found \(Self.text(number))")
        }
        self.basisPoints = basisPoints
    }

    /// The percentage written as decimal text: digits, optionally a `.` and more digits (`25`,
    /// `12.5`, `0.25`, `12.50`); no sign, exponent, `%` or spaces. Decimals after the second must be 0.
    /// - Throws: ``RolloutPercentageError`` for other text, values above 100 and more than two decimals.
    public init(parsing text: String) throws(RolloutPercentageError) {
        let bytes = Array(text.utf8)
        let dot = bytes.firstIndex(of: 0x2E) ?? bytes.endIndex
        let whole = bytes[..<dot]
        let fraction = dot < bytes.endIndex ? bytes[(dot + 1)...] : []
        func isDigit(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) }
        guard !whole.isEmpty, whole.allSatisfy(isDigit), dot == bytes.endIndex || !fraction.isEmpty,
            fraction.allSatisfy(isDigit)
        else {
            throw RolloutPercentageError(reason: "expected a percentage such as 25, 12.5 or 0.25, found \"\(text)\"")
        }
        guard fraction.dropFirst(2).allSatisfy({ $0 == 0x30 }) else {
            throw RolloutPercentageError(
                reason: "expected a percentage with at most two decimals (such as 12.5 or 0.25), found \(text)")
        }
        // Whole percent, capped so that a long run of digits cannot overflow (anything over 100 is refused).
        var basisPoints = whole.reduce(0) { min($0 * 10 + Int($1 - 0x30), 1_000) } * 100
        for (place, digit) in zip([10, 1], fraction) { basisPoints += place * Int(digit - 0x30) }
        guard basisPoints <= Self.maximumBasisPoints else {
            throw RolloutPercentageError(reason: "expected a percentage from 0 to 100, found \(text)")
        }
        self.basisPoints = basisPoints
    }

    /// `25`, `12.5`, `0.25`: the shortest decimal form, never `25.0`.
    public var description: String { Self.decimalText(basisPoints: basisPoints) }

    /// A JSON number that writes as ``description`` and that ``init(_:)`` reads back.
    public var jsonValue: JSONValue { .number(Double(basisPoints) / 100) }

    public static func < (a: RolloutPercentage, b: RolloutPercentage) -> Bool { a.basisPoints < b.basisPoints }

    /// Hundredths written as a decimal with at most two decimals and no trailing zeros: 3642 → `36.42`.
    static func decimalText(basisPoints: Int) -> String {
        let whole = basisPoints / 100, hundredths = basisPoints % 100
        if hundredths == 0 { return "\(whole)" }
        if hundredths % 10 == 0 { return "\(whole).\(hundredths / 10)" }
        return hundredths < 10 ? "\(whole).0\(hundredths)" : "\(whole).\(hundredths)"
    }

    private static func text(_ number: Double) -> String { JSONWriter.string(.number(number)) }
}

extension RolloutPercentage {
    /// Decodes the JSON number at `path`, reporting anything else with the reason; nil when reported.
    public static func decode(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> RolloutPercentage? {
        guard let number = value.numberValue else {
            collector.report("expected a percentage from 0 to 100 (a number such as 25 or 12.5), found \(value.typeName)", at: path, value)
            return nil
        }
        do {
            return try RolloutPercentage(number)
        } catch {
            collector.report(error.reason, at: path, value)
            return nil
        }
    }
}

/// Why a number or text is not a ``RolloutPercentage``, in words a person can act on.
public struct RolloutPercentageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Such as *expected a percentage with at most two decimals (such as 12.5 or 0.25), found 12.345*.
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}
