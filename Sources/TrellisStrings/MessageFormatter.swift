/// What a locale needs to write messages: its number symbols and plural rules, looked up once.
public struct MessageLocale: Sendable {
    public let tag: String
    public let symbols: NumberSymbols
    public let cardinal: PluralRules
    public let ordinal: PluralRules

    public init(_ tag: String) {
        self.tag = tag
        symbols = NumberSymbols(for: tag)
        cardinal = PluralRules(for: tag, .cardinal)
        ordinal = PluralRules(for: tag, .ordinal)
    }
}

extension Message {
    /// The message written for a locale with these arguments, as ICU's MessageFormat writes it. An
    /// argument that is not given is written as `{name}`, as ICU does (publishing checks that every
    /// argument is given, so an answer never shows one).
    public func format(_ arguments: [String: MessageArgument], in locale: MessageLocale) -> String {
        var output = ""
        write(into: &output, arguments, locale, pound: nil)
        return output
    }

    /// `pound`: the number a `#` stands for, already rounded, in a plural's case.
    private func write(into output: inout String, _ arguments: [String: MessageArgument], _ locale: MessageLocale, pound: DecimalValue?) {
        let decimal = NumberFormat(locale.symbols, .decimal)
        for part in parts {
            switch part {
            case .text(let text):
                output += text
            case .pound:
                if let pound { output += decimal.string(pound) } else { output += "#" }
            case .argument(let name):
                switch arguments[name] {
                case .string(let text): output += text
                case .number(let value): output += decimal.string(value)
                case nil: output += "{\(name)}"
                }
            case .number(let name, let style):
                switch arguments[name] {
                case .number(let value): output += NumberFormat(locale.symbols, style).string(value)
                case .string(let text): output += text
                case nil: output += "{\(name)}"
                }
            case .select(let name, let cases, let other):
                let key: String
                switch arguments[name] {
                case .string(let text): key = text
                case .number(let value): key = decimal.string(value)
                case nil:
                    output += "{\(name)}"
                    continue
                }
                (cases.first { $0.key == key }?.message ?? other).write(into: &output, arguments, locale, pound: nil)
            case .plural(let plural):
                guard case .number(let value) = arguments[plural.argument] else {
                    output += "{\(plural.argument)}"
                    continue
                }
                let shown = decimal.rounding(DecimalValue(value - plural.offset))
                plural.message(for: value, shown: shown, locale).write(into: &output, arguments, locale, pound: shown)
            }
        }
    }
}

extension Message.Plural {
    /// `=N` on the number itself first; then the category the locale's rules give the number less
    /// the offset, as it is written; `other` when the message has no case for it.
    func message(for value: Double, shown: DecimalValue, _ locale: MessageLocale) -> Message {
        if let exact = exact.first(where: { $0.value == value }) { return exact.message }
        let category = (ordinal ? locale.ordinal : locale.cardinal).category(shown.pluralOperands)
        return keywords.first { $0.category == category }?.message ?? other
    }
}
