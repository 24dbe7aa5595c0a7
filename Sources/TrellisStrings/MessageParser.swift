/// A message that does not parse: the line and column inside the message (1-based, in characters)
/// and why.
public struct MessageError: Error, Equatable, Sendable, CustomStringConvertible {
    public let line: Int
    public let column: Int
    public let reason: String

    public var description: String { "line \(line), column \(column): \(reason)" }
}

extension Message {
    /// Parses ICU MessageFormat text; the first mistake is thrown with where it is.
    public init(_ text: String) throws(MessageError) {
        var parser = MessageParser(Array(text))
        self = try parser.message(in: nil)
    }
}

private struct MessageParser {
    enum Parent { case plural, select }

    let characters: [Character]
    var position = 0

    init(_ characters: [Character]) { self.characters = characters }

    func error(_ reason: String, at offset: Int? = nil) -> MessageError {
        let offset = offset ?? position
        var line = 1
        var column = 1
        for character in characters[..<min(offset, characters.count)] {
            if character == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return MessageError(line: line, column: column, reason: reason)
    }

    var current: Character? { position < characters.count ? characters[position] : nil }
    var next: Character? { position + 1 < characters.count ? characters[position + 1] : nil }

    /// Text and arguments up to the end (top level) or to the `}` that closes a case (left for the
    /// caller). At the top level a `}` is text, as ICU reads it.
    mutating func message(in parent: Parent?) throws(MessageError) -> Message {
        var parts: [Message.Part] = []
        var text = ""
        func flush() {
            if !text.isEmpty { parts.append(.text(text)) }
            text = ""
        }
        while let character = current {
            switch character {
            case "'":
                text += quoted(in: parent)
            case "{":
                flush()
                parts.append(try argument())
            case "}" where parent != nil:
                flush()
                return Message(parts: parts)
            case "#" where parent == .plural:
                flush()
                parts.append(.pound)
                position += 1
            default:
                text.append(character)
                position += 1
            }
        }
        flush()
        return Message(parts: parts)
    }

    /// An apostrophe and what it quotes: `''` is one apostrophe; one before `{`, `}` (or `#` in a
    /// plural's case) starts literal text up to the next lone apostrophe or the end; any other is
    /// itself.
    mutating func quoted(in parent: Parent?) -> String {
        position += 1
        guard let following = current else { return "'" }
        if following == "'" {
            position += 1
            return "'"
        }
        guard following == "{" || following == "}" || (following == "#" && parent == .plural) else { return "'" }
        var literal = ""
        while let character = current {
            position += 1
            if character == "'" {
                if current == "'" {
                    literal += "'"
                    position += 1
                } else {
                    return literal
                }
            } else {
                literal.append(character)
            }
        }
        return literal
    }

    mutating func skipSpaces() {
        while let character = current, character.isWhitespace { position += 1 }
    }

    /// A name, a type or a keyword: up to a space or syntax character.
    mutating func word() -> String {
        let start = position
        while let character = current, !character.isWhitespace, !"{},#'=:".contains(character) { position += 1 }
        return String(characters[start..<position])
    }

    mutating func expect(_ character: Character, _ reason: String) throws(MessageError) {
        guard current == character else { throw error(current == nil ? "the message ends: \(reason)" : reason) }
        position += 1
    }

    mutating func argument() throws(MessageError) -> Message.Part {
        let open = position
        position += 1
        skipSpaces()
        let nameAt = position
        let name = word()
        guard !name.isEmpty else { throw error("expected an argument's name", at: nameAt) }
        skipSpaces()
        if current == "}" {
            position += 1
            return .argument(name)
        }
        try expect(",", "expected , or } after the argument's name")
        skipSpaces()
        let typeAt = position
        let type = word()
        skipSpaces()
        switch type {
        case "number":
            if current == "}" {
                position += 1
                return .number(name, .decimal)
            }
            try expect(",", "expected , or } after `number`")
            skipSpaces()
            let styleAt = position
            let style = word()
            skipSpaces()
            try expect("}", "expected } after the number's style")
            switch style {
            case "integer": return .number(name, .integer)
            case "percent": return .number(name, .percent)
            default: throw error("the number style \"\(style)\" is not one Trellis writes: integer or percent", at: styleAt)
            }
        case "plural", "selectordinal":
            try expect(",", "expected , and the cases after `\(type)`")
            return .plural(try plural(name, ordinal: type == "selectordinal", open: open))
        case "select":
            try expect(",", "expected , and the cases after `select`")
            return try select(name, open: open)
        case "":
            throw error("expected a type: number, plural, selectordinal or select", at: typeAt)
        default:
            throw error("the type \"\(type)\" is not one Trellis formats: number, plural, selectordinal or select", at: typeAt)
        }
    }

    mutating func plural(_ name: String, ordinal: Bool, open: Int) throws(MessageError) -> Message.Plural {
        skipSpaces()
        var offset = 0.0
        if characters[position...].starts(with: "offset:") {
            position += "offset:".count
            skipSpaces()
            offset = try number()
        }
        var exact: [Message.ExactCase] = []
        var keywords: [Message.KeywordCase] = []
        var other: Message?
        while !endOfCases() {
            let selectorAt = position
            if current == "=" {
                position += 1
                let value = try number()
                if exact.contains(where: { $0.value == value }) { throw error("=\(value) is there twice", at: selectorAt) }
                exact.append(Message.ExactCase(value: value, message: try caseMessage(in: .plural)))
                continue
            }
            let keyword = word()
            guard !keyword.isEmpty else { throw error(current == nil ? "the message ends: the \(ordinal ? "selectordinal" : "plural") that opens at column \(self.error("", at: open).column) is not closed" : "expected a case: =N or zero, one, two, few, many, other", at: selectorAt) }
            guard let category = PluralCategory(rawValue: keyword) else {
                throw error("\"\(keyword)\" is not a plural category: zero, one, two, few, many or other", at: selectorAt)
            }
            if (category == .other && other != nil) || keywords.contains(where: { $0.category == category }) {
                throw error("\(keyword) is there twice", at: selectorAt)
            }
            let message = try caseMessage(in: .plural)
            if category == .other { other = message } else { keywords.append(Message.KeywordCase(category: category, message: message)) }
        }
        guard let other else { throw error("a \(ordinal ? "selectordinal" : "plural") needs an `other` case", at: open) }
        return Message.Plural(argument: name, ordinal: ordinal, offset: offset, exact: exact, keywords: keywords, other: other)
    }

    mutating func select(_ name: String, open: Int) throws(MessageError) -> Message.Part {
        var cases: [Message.SelectCase] = []
        var other: Message?
        while !endOfCases() {
            let keyAt = position
            let key = word()
            guard !key.isEmpty else { throw error(current == nil ? "the message ends: the select is not closed" : "expected a case's key", at: keyAt) }
            if key == "other" ? other != nil : cases.contains(where: { $0.key == key }) { throw error("\(key) is there twice", at: keyAt) }
            let message = try caseMessage(in: .select)
            if key == "other" { other = message } else { cases.append(Message.SelectCase(key: key, message: message)) }
        }
        guard let other else { throw error("a select needs an `other` case", at: open) }
        return .select(name, cases: cases, other: other)
    }

    /// Whether a plural's or select's cases end here, after any spaces (their `}` then taken).
    mutating func endOfCases() -> Bool {
        skipSpaces()
        guard current == "}" else { return false }
        position += 1
        return true
    }

    /// `{…}` after a case's selector.
    mutating func caseMessage(in parent: Parent) throws(MessageError) -> Message {
        skipSpaces()
        try expect("{", "expected { and the case's message")
        let message = try message(in: parent)
        try expect("}", "a case's message is not closed: expected }")
        return message
    }

    /// A number after `=` or `offset:`: digits, an optional fraction and sign.
    mutating func number() throws(MessageError) -> Double {
        let start = position
        if current == "-" { position += 1 }
        while let character = current, character.isASCII, character.isNumber || character == "." { position += 1 }
        guard let value = Double(String(characters[start..<position])), value.isFinite else { throw error("expected a number", at: start) }
        return value
    }
}
