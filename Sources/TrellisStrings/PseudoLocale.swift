/// `en-XA`, the pseudo-locale Android and Chrome use to show untranslated or truncated text before
/// anyone translates: every Latin letter accented, the text bracketed, and 40 % longer, so a label
/// that will not fit in German shows it in English already. Arguments stay as they are.
public enum PseudoLocale {
    public static let tag = "en-XA"

    /// How much longer a translation may be than its English: German and Finnish run about 30–40 %.
    static let expansion = 0.4

    private static let accented: [Character: Character] = [
        "a": "å", "b": "ƀ", "c": "ç", "d": "ð", "e": "é", "f": "ƒ", "g": "ĝ", "h": "ĥ", "i": "î", "j": "ĵ", "k": "ķ", "l": "ļ", "m": "ɱ",
        "n": "ñ", "o": "ö", "p": "þ", "q": "ǫ", "r": "ŕ", "s": "š", "t": "ţ", "u": "û", "v": "ṽ", "w": "ŵ", "x": "ẋ", "y": "ý", "z": "ž",
        "A": "Å", "B": "Ɓ", "C": "Ç", "D": "Ð", "E": "É", "F": "Ƒ", "G": "Ĝ", "H": "Ĥ", "I": "Î", "J": "Ĵ", "K": "Ķ", "L": "Ļ", "M": "Ṁ",
        "N": "Ñ", "O": "Ö", "P": "Þ", "Q": "Ǫ", "R": "Ŕ", "S": "Š", "T": "Ţ", "U": "Û", "V": "Ṽ", "W": "Ŵ", "X": "Ẋ", "Y": "Ý", "Z": "Ž",
    ]

    private static let padding = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]

    static func accent(_ text: String) -> String {
        String(text.map { accented[$0] ?? $0 })
    }

    /// The written message bracketed and padded with words to 40 % more characters.
    public static func expand(_ written: String) -> String {
        let wanted = Int((Double(written.count) * expansion).rounded(.up))
        var words: [String] = []
        var added = 0
        while added < wanted {
            let word = padding[words.count % padding.count]
            words.append(word)
            added += word.count + 1
        }
        return "[" + written + (words.isEmpty ? "" : " " + words.joined(separator: " ")) + "]"
    }
}

extension Message {
    /// This message with its own text accented (PseudoLocale), its arguments and syntax as they are.
    public func pseudoLocalized() -> Message {
        Message(parts: parts.map { part in
            switch part {
            case .text(let text): .text(PseudoLocale.accent(text))
            case .argument, .number, .pound: part
            case .plural(let plural):
                .plural(Message.Plural(
                    argument: plural.argument, ordinal: plural.ordinal, offset: plural.offset,
                    exact: plural.exact.map { Message.ExactCase(value: $0.value, message: $0.message.pseudoLocalized()) },
                    keywords: plural.keywords.map { Message.KeywordCase(category: $0.category, message: $0.message.pseudoLocalized()) },
                    other: plural.other.pseudoLocalized()))
            case .select(let name, let cases, let other):
                .select(name, cases: cases.map { Message.SelectCase(key: $0.key, message: $0.message.pseudoLocalized()) }, other: other.pseudoLocalized())
            }
        })
    }
}
