import TrellisJSON

/// The values a route parameter accepts, spelled in a pattern's parentheses (`:id(int)`) and in
/// `query` (`"int"`, `"int?"` when optional):
///
/// | spelling | accepts                                                      | JSON value |
/// |----------|--------------------------------------------------------------|------------|
/// | `int`    | optional `-` and decimal digits, magnitude at most 2^53 − 1  | number     |
/// | `number` | optional `-`, digits, optionally `.` and digits; finite      | number     |
/// | `uuid`   | 8-4-4-4-12 hexadecimal digits, either case                   | string     |
/// | `bool`   | `true` or `false`                                            | boolean    |
/// | `a\|b\|c`  | exactly one of the choices (two or more)                     | string     |
/// | `string` | any text (query only; a path parameter without a type is one) | string     |
///
/// A `*name` wildcard's type is ``wildcard``: the rest of the path.
public enum ParameterType: Sendable, Hashable, CustomStringConvertible {
    /// Any text: an untyped path parameter (`:name`, one non-empty segment) or a `string` query parameter.
    case string
    case int
    case number
    case uuid
    case bool
    /// One of the given choices (each of URL-unreserved characters: `A-Z a-z 0-9 - . _ ~`).
    case choice([String])
    /// The rest of a path after a `*name`: zero or more segments joined by `/` ("" when none).
    case wildcard

    /// The spelling: `int`, `a|b|c`, `wildcard`, …
    public var description: String {
        switch self {
        case .string: "string"
        case .int: "int"
        case .number: "number"
        case .uuid: "uuid"
        case .bool: "bool"
        case .choice(let choices): choices.joined(separator: "|")
        case .wildcard: "wildcard"
        }
    }

    /// The type `spelling` names (`int`, `number`, `uuid`, `bool`, `string`, `a|b|c`).
    static func parse(spelling: String) throws(RouteSyntaxError) -> ParameterType {
        switch spelling {
        case "string": return .string
        case "int": return .int
        case "number": return .number
        case "uuid": return .uuid
        case "bool": return .bool
        default:
            guard spelling.utf8.contains(0x7C) else {
                throw RouteSyntaxError("unknown type \"\(spelling)\"; expected int, number, uuid, bool, string or choices such as a|b")
            }
            return .choice(try choices(spelling))
        }
    }

    private static func choices(_ spelling: String) throws(RouteSyntaxError) -> [String] {
        let choices = spelling.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard choices.count <= RouteLimits.maximumChoices else {
            throw RouteSyntaxError("more than \(RouteLimits.maximumChoices) choices")
        }
        for (i, choice) in choices.enumerated() {
            guard !choice.isEmpty else { throw RouteSyntaxError("empty choice in \"\(spelling)\"") }
            guard choice.utf8.allSatisfy(PercentEncoding.isUnreserved) else {
                throw RouteSyntaxError("choice \"\(choice)\" may use only A-Z a-z 0-9 - . _ ~")
            }
            guard !choices[..<i].contains(choice) else { throw RouteSyntaxError("choice \"\(choice)\" given twice") }
        }
        return choices
    }

    /// The JSON value of `text` as this type, or nil when this type does not accept it.
    public func value(of text: String) -> JSONValue? {
        switch self {
        case .int: return Self.integer(text).map { .number(Double($0)) }
        case .number: return Self.decimal(text).map { .number($0) }
        case .bool: return text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
        case .string, .wildcard, .uuid, .choice: return accepts(text) ? .string(text) : nil
        }
    }

    /// Whether this type accepts `text`. Matching asks it of every typed segment of every route,
    /// so it builds no value (a `JSONValue` is an indirect enum: building one allocates).
    public func accepts(_ text: String) -> Bool {
        switch self {
        case .string, .wildcard: true
        case .int: Self.integer(text) != nil
        case .number: Self.decimal(text) != nil
        case .uuid: Self.isUUID(text)
        case .bool: text == "true" || text == "false"
        case .choice(let choices): choices.contains(text)
        }
    }

    /// Why `text` is not of this type, or nil when it is: *"4x" is not an int*.
    public func problem(with text: String) -> String? {
        guard !accepts(text) else { return nil }
        let shown = JSONWriter.quoted(text)
        switch self {
        case .int where Self.decimal(text) != nil && !text.utf8.contains(0x2E):
            return "\(shown) is not an int: its magnitude is over \(RouteLimits.largestInteger)"
        case .choice(let choices): return "\(shown) is not one of: " + choices.joined(separator: ", ")
        default: return "\(shown) is not \(Self.article(self)) \(self)"
        }
    }

    private static func article(_ type: ParameterType) -> String { type == .int ? "an" : "a" }

    /// A value of `type` for checking templates without real values: `1` for `int` and `number`,
    /// a fixed UUID, `true`, the first choice, `x` for `string` and `wildcard`.
    public static func sample(for type: ParameterType) -> String { type.samples[0] }

    /// Every sample worth trying: each choice of an enum, else ``sample(for:)``.
    public var samples: [String] {
        switch self {
        case .int, .number: ["1"]
        case .uuid: ["00000000-0000-4000-8000-000000000001"]
        case .bool: ["true"]
        case .choice(let choices): choices
        case .string, .wildcard: ["x"]
        }
    }

    /// A value both types accept, or nil when their value sets are disjoint. Trying each side's
    /// samples decides it for these types: `int` ⊂ `number` share `1`; an enum overlaps a type
    /// when one of its choices is of that type; `uuid`, `bool` and the numbers share nothing.
    func commonValue(with other: ParameterType) -> String? {
        (samples + other.samples).first { accepts($0) && other.accepts($0) }
    }

    /// Optional `-` and decimal digits with magnitude at most ``RouteLimits/largestInteger``.
    private static func integer(_ text: String) -> Int64? {
        var digits = text.utf8[...]
        let negative = digits.first == 0x2D
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var n: Int64 = 0
        for c in digits {
            guard (0x30...0x39).contains(c) else { return nil }
            n = n * 10 + Int64(c - 0x30)
            guard n <= RouteLimits.largestInteger else { return nil }
        }
        return negative ? -n : n
    }

    /// Optional `-`, digits, optionally `.` and digits (no exponent, no `+`, no bare `.5`); finite.
    private static func decimal(_ text: String) -> Double? {
        var rest = text.utf8[...]
        if rest.first == 0x2D { rest = rest.dropFirst() }
        let isDigit = { (c: UInt8) in (0x30...0x39).contains(c) }
        let whole = rest.prefix(while: isDigit)
        guard !whole.isEmpty else { return nil }
        rest = rest.dropFirst(whole.count)
        if rest.first == 0x2E {
            let fraction = rest.dropFirst().prefix(while: isDigit)
            guard !fraction.isEmpty else { return nil }
            rest = rest.dropFirst(1 + fraction.count)
        }
        guard rest.isEmpty, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// 8-4-4-4-12 hexadecimal digits (RFC 9562 §4), either case.
    private static func isUUID(_ text: String) -> Bool {
        guard text.utf8.count == 36 else { return false }
        for (i, c) in text.utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == 0x2D else { return false }
            } else {
                guard (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c) else { return false }
            }
        }
        return true
    }
}

/// A mistake in a pattern, a type or a template, found while parsing its text.
struct RouteSyntaxError: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
