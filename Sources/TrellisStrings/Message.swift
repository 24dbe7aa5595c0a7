/// An ICU message ("{count, plural, =0 {Your cart is empty} one {# item} other {# items}}"), parsed
/// once: text, arguments, numbers, plurals (cardinal and ordinal) and selects, nested. The syntax
/// is ICU's MessageFormat with its default apostrophe rule: `''` is an apostrophe, and one quotes
/// literal text only right before `{`, `}` or, in a plural's case, `#`.
public struct Message: Sendable, Equatable {
    public let parts: [Part]

    public indirect enum Part: Sendable, Equatable {
        case text(String)
        /// `{name}`: a string as it is, a number as `number` writes it.
        case argument(String)
        case number(String, NumberFormat.Style)
        case plural(Plural)
        case select(String, cases: [SelectCase], other: Message)
        /// `#` in a plural's case: the number, less the offset, as `number` writes it.
        case pound
    }

    public struct Plural: Sendable, Equatable {
        public let argument: String
        public let ordinal: Bool
        public let offset: Double
        /// `=N` cases, matched against the number itself, before any keyword.
        public let exact: [ExactCase]
        /// Keyword cases, chosen by the locale's plural rules on the number less the offset.
        public let keywords: [KeywordCase]
        public let other: Message
    }

    public struct ExactCase: Sendable, Equatable {
        public let value: Double
        public let message: Message
    }

    public struct KeywordCase: Sendable, Equatable {
        public let category: PluralCategory
        public let message: Message
    }

    public struct SelectCase: Sendable, Equatable {
        public let key: String
        public let message: Message
    }

    /// Every argument the message names, and whether it is used as a number (numbers, plurals)
    /// or may be a string.
    public var arguments: [String: ArgumentUse] {
        var uses: [String: ArgumentUse] = [:]
        collectArguments(into: &uses)
        return uses
    }

    public enum ArgumentUse: Sendable, Equatable { case number, any }

    private func collectArguments(into uses: inout [String: ArgumentUse]) {
        func note(_ name: String, _ use: ArgumentUse) {
            if use == .number || uses[name] == nil { uses[name] = use }
        }
        for part in parts {
            switch part {
            case .text, .pound: break
            case .argument(let name): note(name, .any)
            case .number(let name, _): note(name, .number)
            case .plural(let plural):
                note(plural.argument, .number)
                for message in plural.exact.map(\.message) + plural.keywords.map(\.message) + [plural.other] {
                    message.collectArguments(into: &uses)
                }
            case .select(let name, let cases, let other):
                note(name, .any)
                for message in cases.map(\.message) + [other] { message.collectArguments(into: &uses) }
            }
        }
    }
}

/// An argument's value: JSON's numbers and strings.
public enum MessageArgument: Sendable, Equatable {
    case number(Double)
    case string(String)
}
