import TrellisJSON

/// The type of a component property or value, and how to check one.
public enum PropertyType: Sendable {
    case string
    case nonEmptyString
    case number(ClosedRange<Double>)
    case integer(ClosedRange<Int>)
    case bool
    /// `#RGB`, `#RRGGBB` or `#RRGGBBAA`.
    case color
    /// Points (`120`), percent of the parent (`"50%"`), `"fill"` or `"auto"`.
    case dimension
    /// Points on every edge (`16`) or per edge: `{"top", "bottom", "leading", "trailing", "horizontal", "vertical"}`.
    case insets
    case oneOf([String])
    /// An absolute `https://` or `http://` URL.
    case url
    /// What a tap does: `{"type": "navigate" | "share" | "sequence" | …, …}` (``ActionKind``).
    case action

    static let nonNegative: PropertyType = .number(0...1_000_000)

    /// Checks `value`, reporting what is wrong with it at `path` (an action as the latest schema
    /// version allows; the decoder checks actions against the screen's own version).
    /// - Parameter path: made only when needed, which for most values is never.
    func validate(_ value: JSONValue, at path: @autoclosure () -> JSONPath, _ collector: DiagnosticsCollector) {
        switch self {
        case .insets:
            if let problem = insetsProblem(value, at: path(), collector) { collector.report(problem, at: path(), value) }
        case .action:
            var check = ValueCheck(collector: collector, schemaVersion: ComponentRegistry.latestSchemaVersion)
            check.action(value, at: path())
        default:
            if let problem = problem(with: value) { collector.report(problem, at: path(), value) }
        }
    }

    /// What is wrong with a value of this type, or nil; for insets and actions, which are objects
    /// checked member by member, only whether the value could be one.
    func problem(with value: JSONValue) -> String? {
        switch self {
        case .string:
            return value.stringValue == nil ? "expected a string, found \(value.typeName)" : nil
        case .nonEmptyString:
            guard let s = value.stringValue else { return "expected a string, found \(value.typeName)" }
            return s.isEmpty ? "must not be empty" : nil
        case .number(let range):
            guard let n = value.numberValue else { return "expected a number, found \(value.typeName)" }
            return range.contains(n) ? nil : "\(JSONWriter.string(value)) is out of range \(format(range.lowerBound))…\(format(range.upperBound))"
        case .integer(let range):
            guard let n = value.numberValue else { return "expected an integer, found \(value.typeName)" }
            return n == n.rounded() && range.contains(Int(exactly: n) ?? Int.min)
                ? nil : "expected an integer from \(range.lowerBound) to \(range.upperBound), found \(JSONWriter.string(value))"
        case .bool:
            return value.boolValue == nil ? "expected true or false, found \(value.typeName)" : nil
        case .color:
            guard let s = value.stringValue else { return "expected a colour such as \"#1A2B3C\", found \(value.typeName)" }
            return Self.isHexColor(s) ? nil : "\"\(s)\" is not a colour: use #RGB, #RRGGBB or #RRGGBBAA"
        case .dimension:
            return Self.dimensionProblem(value)
        case .insets:
            return value.numberValue != nil || value.objectValue != nil
                ? nil : "expected points or an object of edges, found \(value.typeName)"
        case .oneOf(let choices):
            guard let s = value.stringValue else { return "expected one of \(choices.joined(separator: ", ")), found \(value.typeName)" }
            return choices.contains(s) ? nil : "\"\(s)\" is not one of: \(choices.joined(separator: ", "))"
        case .url:
            guard let s = value.stringValue else { return "expected a URL, found \(value.typeName)" }
            return Self.isAbsoluteURL(s) ? nil : "\"\(s)\" is not an absolute http(s) URL"
        case .action:
            return value.objectValue != nil ? nil : "expected an action object, found \(value.typeName)"
        }
    }

    private func format(_ n: Double) -> String { JSONWriter.string(.number(n)) }

    static func isHexColor(_ s: String) -> Bool {
        let b = s.utf8
        guard b.count == 4 || b.count == 7 || b.count == 9 else { return false }
        // Read in place where the string allows it (nearly always): a screen has hundreds of colours.
        return b.withContiguousStorageIfAvailable(isHexColor(bytes:)) ?? isHexColor(bytes: b)
    }

    private static func isHexColor(bytes: some Collection<UInt8>) -> Bool {
        bytes.first == 0x23 && bytes.dropFirst().allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0 & ~0x20) }
    }

    static func isAbsoluteURL(_ s: String) -> Bool {
        // Read in place where the string allows it (nearly always).
        if let answer = s.utf8.withContiguousStorageIfAvailable(isAbsoluteURL(bytes:)) { return answer ?? isAbsoluteURL(characters: s) }
        // In ASCII text, as a URL is, bytes are characters: the same answer without the cost of Characters.
        guard s.utf8.allSatisfy({ $0 < 0x80 }) else { return isAbsoluteURL(characters: s) }
        let bytes = s.utf8
        guard bytes.starts(with: "https://".utf8) || bytes.starts(with: "http://".utf8) else { return false }
        let host = bytes.drop(while: { $0 != UInt8(ascii: "/") }).dropFirst(2).prefix(while: {
            $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#")
        })
        return !host.isEmpty && !bytes.contains { $0 <= 0x20 || $0 == 0x7F }
    }

    /// Whether `bytes` are an absolute http(s) URL, as ``isAbsoluteURL(_:)`` answers it; nil when
    /// they are not all ASCII, whose characters are then to be looked at.
    private static func isAbsoluteURL(bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        var hasSpaceOrControl = false
        for b in bytes {
            if b >= 0x80 { return nil }
            if b <= 0x20 || b == 0x7F { hasSpaceOrControl = true }
        }
        guard bytes.starts(with: "https://".utf8) || bytes.starts(with: "http://".utf8) else { return false }
        // The host starts after the "//" that follows the scheme and ends at a path, query or fragment.
        let hostStart = (bytes.firstIndex(of: UInt8(ascii: "/")) ?? bytes.count) + 2
        guard hostStart < bytes.count else { return false }
        let c = bytes[hostStart]
        return c != UInt8(ascii: "/") && c != UInt8(ascii: "?") && c != UInt8(ascii: "#") && !hasSpaceOrControl
    }

    private static func isAbsoluteURL(characters s: String) -> Bool {
        guard s.hasPrefix("https://") || s.hasPrefix("http://") else { return false }
        let host = s.drop(while: { $0 != "/" }).dropFirst(2).prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        return !host.isEmpty && !s.utf8.contains { $0 <= 0x20 || $0 == 0x7F }
    }

    private static func dimensionProblem(_ value: JSONValue) -> String? {
        if let n = value.numberValue { return n >= 0 ? nil : "a size must not be negative" }
        guard let s = value.stringValue else { return "expected points, \"N%\", \"fill\" or \"auto\", found \(value.typeName)" }
        if s == "fill" || s == "auto" { return nil }
        if s.hasSuffix("%"), let p = Double(s.dropLast()), p >= 0, p.isFinite { return nil }
        return "\"\(s)\" is not a size: use points, \"N%\", \"fill\" or \"auto\""
    }

    private static let edges = KeyList(["top", "bottom", "leading", "trailing", "horizontal", "vertical"])

    private func insetsProblem(_ value: JSONValue, at path: @autoclosure () -> JSONPath, _ collector: DiagnosticsCollector) -> String? {
        if value.numberValue != nil { return Self.nonNegative.problem(with: value) }
        guard value.objectValue != nil else { return "expected points or an object of edges, found \(value.typeName)" }
        let path = path()
        guard let object = collector.object(value, at: path, allowedKeys: Self.edges) else { return nil }
        for member in object.members where Self.edges.contains(member.key) {
            Self.nonNegative.validate(member.value, at: path.appending(member.key), collector)
        }
        return nil
    }
}
