import TrellisJSON
import TrellisStrings
import TrellisTargeting

/// One place a screen takes a value from the parameters of the route that opened it:
/// `{"$param": "id"}` (the whole value) or one `{id}` placeholder of `{"$format": "…"}`.
public struct ParameterUse: Sendable, Equatable {
    /// What the value must be where the parameter stands.
    public enum Expectation: String, Sendable {
        case text, url, number, integer, bool
        /// A string, number or bool, kept as given (the values of a `track` action's `properties`).
        case value
    }

    public var name: String
    /// Where the `$param` or `$format` object is in the authored screen.
    public var path: JSONPath
    public var expects: Expectation
    /// Whether a `default` stands in when a request does not give the parameter (`$param` only).
    public var hasDefault: Bool

    public init(name: String, path: JSONPath, expects: Expectation, hasDefault: Bool) {
        self.name = name
        self.path = path
        self.expects = expects
        self.hasDefault = hasDefault
    }
}

/// One place a screen shows a string of the locale's table: `{"$string": "cart.items", "args": {…}}`,
/// where text is expected. Publishing checks every use against the tables: the key is in the
/// default locale's, and every argument a message of the key names is given.
public struct StringUse: Sendable, Equatable {
    /// What the screen gives an argument: a value written in it, or one a request gives
    /// (`{"$param": …}` or `{"$format": …}`, checked when the request comes).
    public enum Argument: Sendable, Equatable {
        case number(Double)
        case text(String)
        case parameter
    }

    public var key: String
    /// Where the `$string` object is in the authored screen.
    public var path: JSONPath
    public var arguments: [String: Argument]

    public init(key: String, path: JSONPath, arguments: [String: Argument]) {
        self.key = key
        self.path = path
        self.arguments = arguments
    }
}

/// Where a navigate action leads, as authored: what the server checks against its route table.
public struct ScreenLink: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        /// A literal URL such as `app://product/42`.
        case url(String)
        /// A `$format` such as `app://product/{id}`, with its placeholder names in written order.
        case template(String, placeholders: [String])
        /// A whole `{"$param": name}`, with its default URL when it has one.
        case parameter(String, default: String?)
    }

    /// Where the action's `url` is in the authored screen.
    public var path: JSONPath
    public var target: Target

    public init(path: JSONPath, target: Target) {
        self.path = path
        self.target = target
    }
}

/// Why a request's parameters could not be put into its screen: the server answers 400 with it.
public struct ParameterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The parameter (for a `$format` that does not make a valid value: its placeholders, joined by ", ").
    public var name: String
    /// Where the value stands in the resolved answer.
    public var path: JSONPath
    public var reason: String

    public init(name: String, path: JSONPath, reason: String) {
        self.name = name
        self.path = path
        self.reason = reason
    }

    public var description: String { "parameter \"\(name)\" at \(path): \(reason)" }
}

extension JSONValue {
    /// Whether this value is written as a parameter (``ParameterReference/isWritten(_:)``): how an
    /// encoding plan (TrellisAnswers) finds the components each answer fills in.
    package var isWrittenAsParameter: Bool { ParameterReference.isWritten(self) }
}

/// A checked `$param`, `$format` or `$string` object, read back from the tree.
enum ParameterReference: Sendable {
    case whole(name: String, default: JSONValue?)
    case format(FormatTemplate)
    /// A string of the locale's table, with its arguments as written (each a scalar or a
    /// `$param` or `$format`).
    case string(key: String, arguments: [JSONMember])

    /// Whether `value` is written as a parameter: an object with a key that starts with `$`. Such an
    /// object is checked as one, so a typo (`$parm`) gets a "did you mean" instead of a type error.
    static func isWritten(_ value: JSONValue) -> Bool {
        // The first byte rules out almost every key before the Character comparison.
        value.objectValue?.contains { $0.key.utf8.first == UInt8(ascii: "$") && $0.key.hasPrefix("$") } ?? false
    }

    /// Reads a reference the decoder accepted; nil for anything else.
    init?(_ value: JSONValue) {
        if let name = value["$param"]?.stringValue {
            self = .whole(name: name, default: value["default"])
        } else if let text = value["$format"]?.stringValue, let template = try? FormatTemplate(text) {
            self = .format(template)
        } else if let key = value["$string"]?.stringValue {
            self = .string(key: key, arguments: value["args"]?.objectValue ?? [])
        } else {
            return nil
        }
    }
}

/// A `$format` string split into literal text and `{name}` placeholders; `{{` and `}}` are literal braces.
struct FormatTemplate: Sendable {
    enum Piece: Sendable, Equatable {
        case literal(String)
        case placeholder(String)
    }

    struct Problem: Error {
        var message: String
    }

    let text: String
    let pieces: [Piece]

    /// Whether the text before the first placeholder holds a URL's `://`, so no parameter decides the scheme.
    var writesScheme: Bool {
        if case .literal(let head) = pieces.first { head.contains("://") } else { false }
    }

    var placeholders: [String] { pieces.compactMap { if case .placeholder(let name) = $0 { name } else { nil } } }

    init(_ text: String) throws(Problem) {
        // In ASCII text, as most is, each byte is a character: the same pieces, read without the
        // cost of Characters. Elsewhere a brace followed by a combining mark is no brace.
        pieces =
            text.utf8.allSatisfy { $0 < 0x80 }
            ? try Self.pieces(of: text, as: text.utf8, open: UInt8(ascii: "{"), close: UInt8(ascii: "}"))
            : try Self.pieces(of: text, as: text, open: "{", close: "}")
        self.text = text
    }

    /// The pieces of `text`, read as `units`: its characters, or its bytes.
    private static func pieces<Units: Collection>(
        of text: String, as units: Units, open: Units.Element, close: Units.Element
    ) throws(Problem) -> [Piece] where Units.Element: Equatable, Units.Index == String.Index {
        var pieces: [Piece] = []
        var literal = ""
        /// Where the literal text not yet in `literal` starts.
        var run = units.startIndex
        var i = units.startIndex
        while i != units.endIndex {
            let c = units[i]
            let next = units.index(after: i)
            if (c == open || c == close) && next != units.endIndex && units[next] == c {
                literal += text[run..<next]
                i = units.index(after: next)
                run = i
            } else if c == close {
                throw Problem(message: "unmatched \"}\" in \(JSONWriter.quoted(text)): write \"}}\" for a literal brace")
            } else if c == open {
                guard let end = units[next...].firstIndex(of: close) else {
                    throw Problem(message: "unmatched \"{\" in \(JSONWriter.quoted(text)): write \"{{\" for a literal brace")
                }
                let name = String(text[next..<end])
                guard RuleExpression.isIdentifier(name) else {
                    throw Problem(message: "invalid placeholder \"{\(name)}\": a parameter name is 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots")
                }
                literal += text[run..<i]
                if !literal.isEmpty { pieces.append(.literal(literal)) }
                literal = ""
                pieces.append(.placeholder(name))
                i = units.index(after: end)
                run = i
            } else {
                i = next
            }
        }
        literal += text[run...]
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        return pieces
    }

    /// The text with each placeholder replaced by `value(name)`.
    func render<E: Error>(_ value: (String) throws(E) -> String) throws(E) -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case .literal(let s): out += s
            case .placeholder(let name): out += try value(name)
            }
        }
        return out
    }

}

/// What a value must be where a parameter may stand, and so what the parameter is expected to give.
enum ParameterSlot: Sendable {
    /// A property or value; parameters may stand only for the scalar types.
    case property(PropertyType)
    /// A navigate or openURL `url`: absolute, with any scheme (`app://…`, `https://…`).
    case anyURL
    /// A value of a track action's `properties`: any string, number or bool.
    case scalar

    /// Nil where no parameter may stand.
    var expects: ParameterUse.Expectation? {
        switch self {
        case .property(.string), .property(.nonEmptyString): .text
        case .property(.url), .anyURL: .url
        case .property(.number): .number
        case .property(.integer): .integer
        case .property(.bool): .bool
        case .scalar: .value
        case .property: nil
        }
    }

    /// What is wrong with `value` here, or nil.
    func problem(with value: JSONValue) -> String? {
        switch self {
        case .property(let type): type.problem(with: value)
        case .anyURL: Self.anyURLProblem(value)
        case .scalar:
            value.stringValue != nil || value.numberValue != nil || value.boolValue != nil
                ? nil : "expected a string, number or bool, found \(value.typeName)"
        }
    }

    static func anyURLProblem(_ value: JSONValue) -> String? {
        guard let url = value.stringValue else { return "expected a URL, found \(value.typeName)" }
        return hasScheme(url) ? nil : "\"\(url)\" is not an absolute URL such as app://product/42"
    }

    /// Whether `url` has `://` after its start. In ASCII text, as a URL is, bytes are characters:
    /// the same answer without the cost of comparing Characters.
    private static func hasScheme(_ url: String) -> Bool {
        guard url.utf8.allSatisfy({ $0 < 0x80 }) else { return url.contains("://") && !url.hasPrefix("://") }
        var url = url
        return url.withUTF8 { bytes in
            func separator(at i: Int) -> Bool {
                bytes[i] == UInt8(ascii: ":") && bytes[i + 1] == UInt8(ascii: "/") && bytes[i + 2] == UInt8(ascii: "/")
            }
            return bytes.count >= 3 && !separator(at: 0) && (1..<bytes.count - 2).contains(where: separator)
        }
    }

    /// What this slot is, for "a parameter cannot stand for …".
    var description: String {
        switch self {
        case .property(.color): "a colour"
        case .property(.dimension): "a dimension"
        case .property(.insets): "insets"
        case .property(.oneOf): "a choice of fixed names"
        case .property(.action): "an action"
        default: "this value"
        }
    }
}
