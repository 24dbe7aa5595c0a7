/// Numbers written as a locale writes them, the way ICU's default formats do: grouped, at most three
/// fraction digits (none for `integer` and `percent`), rounded half to even.
public struct NumberFormat: Sendable {
    public enum Style: Sendable { case decimal, integer, percent }

    public let symbols: NumberSymbols
    public let style: Style

    public init(_ symbols: NumberSymbols, _ style: Style = .decimal) {
        self.symbols = symbols
        self.style = style
    }

    public func string(_ value: Double) -> String {
        string(rounding(DecimalValue(value)))
    }

    /// The value as this style writes it, rounded: what is shown, and what plural rules read.
    func rounding(_ value: DecimalValue) -> DecimalValue {
        switch style {
        case .decimal: value.rounded(toFractionDigits: 3)
        case .integer: value.rounded(toFractionDigits: 0)
        case .percent: value.scaled(by: 2).rounded(toFractionDigits: 0)
        }
    }

    func string(_ rounded: DecimalValue) -> String {
        let (integer, fraction) = rounded.parts
        var body = grouped(integer)
        if !fraction.isEmpty {
            body += symbols.decimal
            body += String(fraction.map { symbols.digits[Int($0)] })
        }
        if style == .percent { body = symbols.percent.prefix + body + symbols.percent.suffix }
        return rounded.negative ? symbols.minus.prefix + body + symbols.minus.suffix : body
    }

    private func grouped(_ integer: [UInt8]) -> String {
        let characters = integer.map { symbols.digits[Int($0)] }
        let primary = symbols.primaryGrouping
        guard primary > 0, characters.count >= primary + symbols.minimumGrouping else { return String(characters) }
        var groups: [String] = [String(characters.suffix(primary))]
        var end = characters.count - primary
        let secondary = max(symbols.secondaryGrouping, 1)
        while end > 0 {
            let start = max(0, end - secondary)
            groups.append(String(characters[start..<end]))
            end = start
        }
        return groups.reversed().joined(separator: symbols.group)
    }
}
