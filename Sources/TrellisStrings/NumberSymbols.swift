/// How a locale writes numbers: its digits (not always 0–9: Arabic writes ٠١٢…), separators,
/// grouping (3 digits, or 3 then 2 in India), and the text around a negative number and a percent.
/// From ICU's formatters (scripts/strings-oracle), so Trellis writes a number as ICU does.
public struct NumberSymbols: Equatable, Sendable {
    public let digits: [Character]
    public let decimal: String
    public let group: String
    public let primaryGrouping: Int
    public let secondaryGrouping: Int
    /// Digits the integer part needs beyond the first group before it is grouped at all (2: "1234"
    /// but "12 345").
    public let minimumGrouping: Int
    public let minus: (prefix: String, suffix: String)
    public let percent: (prefix: String, suffix: String)

    init(
        digits: String, decimal: String, group: String, primaryGrouping: Int, secondaryGrouping: Int, minimumGrouping: Int,
        minus: (String, String), percent: (String, String)
    ) {
        self.digits = Array(digits)
        self.decimal = decimal
        self.group = group
        self.primaryGrouping = primaryGrouping
        self.secondaryGrouping = secondaryGrouping
        self.minimumGrouping = minimumGrouping
        self.minus = minus
        self.percent = percent
    }

    /// The symbols of a locale, along its fallback chain; English's when none is known.
    public init(for tag: String) {
        self = LocaleTag.fallbacks(of: tag).lazy.compactMap { Self.cldr[$0] }.first ?? Self.cldr["en"]!
    }

    public static func == (a: NumberSymbols, b: NumberSymbols) -> Bool {
        a.digits == b.digits && a.decimal == b.decimal && a.group == b.group && a.primaryGrouping == b.primaryGrouping
            && a.secondaryGrouping == b.secondaryGrouping && a.minimumGrouping == b.minimumGrouping && a.minus == b.minus
            && a.percent == b.percent
    }
}
