/// Where a value starts in its source text: 1-based line and column (columns count bytes).
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    // 32 bits each, not 64: every value and every key of a decoded screen keeps one, for as long
    // as the screen is served. A file would need 4 GiB of lines to overflow them.
    private var storedLine: UInt32
    private var storedColumn: UInt32
    public var line: Int {
        get { Int(storedLine) }
        set { storedLine = UInt32(clamping: newValue) }
    }
    public var column: Int {
        get { Int(storedColumn) }
        set { storedColumn = UInt32(clamping: newValue) }
    }
    public init(line: Int, column: Int) {
        storedLine = UInt32(clamping: line)
        storedColumn = UInt32(clamping: column)
    }
    public static let unknown = SourceLocation(line: 0, column: 0)
    public var description: String { "line \(line), column \(column)" }
}

/// A JSON value (RFC 8259) that remembers where it was written, so that every later complaint
/// about it — a wrong type, an unknown key, a bad colour — can name the line it is on.
///
/// Objects keep their members in source order; that order is also the order they are encoded in,
/// so the same input always encodes to the same bytes.
public struct JSONValue: Sendable {
    // `indirect` costs an allocation per value, which arrays and objects alone would not need; but
    // without it, Swift 6.3's optimizer crashes on optional chains over values in other modules
    // ("Found outside of lifetime use", swiftlang/swift#90614).
    public indirect enum Kind: Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONValue])
        case object([JSONMember])
    }

    public var kind: Kind
    public var location: SourceLocation

    public init(_ kind: Kind, at location: SourceLocation = .unknown) {
        self.kind = kind
        self.location = location
    }

    public static let null = JSONValue(.null)
    public static func bool(_ b: Bool) -> JSONValue { JSONValue(.bool(b)) }
    public static func number(_ n: Double) -> JSONValue { JSONValue(.number(n)) }
    public static func number(_ n: Int) -> JSONValue { JSONValue(.number(Double(n))) }
    public static func string(_ s: String) -> JSONValue { JSONValue(.string(s)) }
    public static func array(_ a: [JSONValue]) -> JSONValue { JSONValue(.array(a)) }
    public static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        JSONValue(.object(members.map { JSONMember(key: $0.0, value: $0.1) }))
    }

    /// The name of this value's JSON type, for error messages ("expected a string, found an array").
    public var typeName: String {
        switch kind {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public var stringValue: String? { if case .string(let s) = kind { s } else { nil } }
    public var numberValue: Double? { if case .number(let n) = kind { n } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = kind { b } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = kind { a } else { nil } }
    public var objectValue: [JSONMember]? { if case .object(let o) = kind { o } else { nil } }
    public var isNull: Bool { if case .null = kind { true } else { false } }

    /// The member `key` of an object, or nil (also nil when this is not an object).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = kind else { return nil }
        return members.first { $0.hasKey(key) }?.value
    }
}

/// One `"key": value` pair of an object.
public struct JSONMember: Sendable {
    public var key: String
    public var keyLocation: SourceLocation
    public var value: JSONValue
    public init(key: String, keyLocation: SourceLocation = .unknown, value: JSONValue) {
        self.key = key
        self.keyLocation = keyLocation
        self.value = value
    }

    /// Whether the key is `name`. Decoders look members up by key many times per object; keys of
    /// different lengths, as most are, differ without a call into the string comparison.
    @inlinable
    public func hasKey(_ name: String) -> Bool {
        key.utf8.count == name.utf8.count && key == name
    }
}

extension JSONValue: Equatable {
    /// Structural equality; locations are ignored.
    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a.kind, b.kind) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)):
            x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }
}
