/// One thing wrong with an input document: where (path and line) and why.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public var path: JSONPath
    public var location: SourceLocation
    public var message: String

    public init(path: JSONPath, location: SourceLocation, message: String) {
        self.path = path
        self.location = location
        self.message = message
    }

    public var description: String {
        location == .unknown ? "\(path): \(message)" : "\(path) (line \(location.line)): \(message)"
    }
}

/// Every problem found in one document. Decoders collect them all rather than stopping at the
/// first, so an author fixes a file in one pass.
public struct DiagnosticsError: Error, Sendable, CustomStringConvertible {
    /// The file or source the diagnostics are about, e.g. `screens/home.json`.
    public var source: String
    public var diagnostics: [Diagnostic]

    public init(source: String, diagnostics: [Diagnostic]) {
        self.source = source
        self.diagnostics = diagnostics
    }

    public var description: String {
        diagnostics.map { "\(source): \($0)" }.joined(separator: "\n")
    }
}

/// Collects diagnostics while a decoder walks a document. Local to one decode; not shared.
public final class DiagnosticsCollector {
    public private(set) var diagnostics: [Diagnostic] = []

    public init() {}

    public var isEmpty: Bool { diagnostics.isEmpty }

    public func report(_ message: String, at path: JSONPath, _ location: SourceLocation) {
        diagnostics.append(Diagnostic(path: path, location: location, message: message))
    }

    public func report(_ message: String, at path: JSONPath, _ value: JSONValue) {
        report(message, at: path, value.location)
    }

    /// Rewrites the diagnostics reported since there were `start` of them: for a part of a document
    /// that came from elsewhere (a template expanded into a screen), whose lines are another file's.
    public func rewrite(since start: Int, _ transform: (inout Diagnostic) -> Void) {
        for index in diagnostics.indices where index >= start { transform(&diagnostics[index]) }
    }

    /// Reads `value` as an object whose keys must come from `allowedKeys`; each unknown key is
    /// reported (a typo must never be silently ignored). Returns nil, after reporting, when
    /// `value` is not an object.
    /// The members of `value`, an object whose keys must be those of `specs`, as
    /// ``object(_:at:allowedKeys:)`` reads it, with the spec of each (nil for an unknown key, which
    /// is reported). Decoding a screen asks this of every component's properties and values, so each
    /// key is looked up once, the keys are made into a set only for a message, and the function is
    /// inlinable, to be specialized for `Spec` where it is called.
    /// - Parameter path: made only for a report.
    @inlinable
    public func members<Spec>(
        of value: JSONValue, at path: @autoclosure () -> JSONPath, specs: [String: Spec]
    ) -> (members: [JSONMember], specs: [Spec?])? {
        guard let members = value.objectValue else { return object(value, at: path(), allowedKeys: []).map { ($0.members, []) } }
        let found = members.map { specs[$0.key] }
        if found.contains(where: { $0 == nil }) { _ = object(value, at: path(), allowedKeys: Set(specs.keys)) }
        return (members, found)
    }

    public func object(_ value: JSONValue, at path: JSONPath, allowedKeys: Set<String>) -> JSONObjectReader? {
        object(value, at: path, allows: allowedKeys.contains, allowedKeys: { allowedKeys })
    }

    /// The same, for a fixed few keys (``KeyList``).
    public func object(_ value: JSONValue, at path: JSONPath, allowedKeys: KeyList) -> JSONObjectReader? {
        object(value, at: path, allows: allowedKeys.contains, allowedKeys: { Set(allowedKeys.keys) })
    }

    private func object(
        _ value: JSONValue, at path: JSONPath, allows: (String) -> Bool, allowedKeys: () -> Set<String>
    ) -> JSONObjectReader? {
        guard case .object(let members) = value.kind else {
            report("expected an object, found \(value.typeName)", at: path, value)
            return nil
        }
        for member in members where !allows(member.key) {
            report(
                "unknown key \"\(member.key)\"" + Self.suggestion(for: member.key, among: allowedKeys()),
                at: path.appending(member.key), member.keyLocation)
        }
        return JSONObjectReader(members: members, path: path, location: value.location, collector: self)
    }

    /// Decodes a whole document, returning the value or every diagnostic found.
    public static func decode<T>(
        source: String, _ body: (DiagnosticsCollector) -> T?
    ) -> Result<T, DiagnosticsError> {
        let collector = DiagnosticsCollector()
        let value = body(collector)
        if let value, collector.isEmpty { return .success(value) }
        if collector.isEmpty { collector.report("invalid document", at: .root, .unknown) }
        return .failure(DiagnosticsError(source: source, diagnostics: collector.diagnostics))
    }

    /// Parses `bytes` and decodes the document: a syntax error is the one diagnostic (with its line
    /// and column), otherwise every diagnostic `body` reports.
    public static func decode<T>(
        _ bytes: [UInt8], source: String, _ body: (JSONValue, DiagnosticsCollector) -> T?
    ) -> Result<T, DiagnosticsError> {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            let diagnostic = Diagnostic(path: .root, location: error.location, message: error.reason)
            return .failure(DiagnosticsError(source: source, diagnostics: [diagnostic]))
        }
        return decode(source: source) { body(document, $0) }
    }

    private static func suggestion(for key: String, among keys: Set<String>) -> String {
        guard let best = closest(to: key, among: keys) else { return "; expected one of: " + keys.sorted().joined(separator: ", ") }
        return "; did you mean \"\(best)\"?"
    }

    /// The candidate a typo most likely meant: within two edits (and half the word's length),
    /// the first in sorted order; nil when none is that close.
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        candidates.filter { editDistance($0.lowercased(), word.lowercased()) <= min(2, word.count / 2) }.sorted().first
    }

    /// Levenshtein distance, for "did you mean" hints on short keys.
    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// The keys an object may have, when they are a fixed few (a component's, an action's): a key is
/// checked by comparing it with each, which costs less than hashing it, and a decoder checks every
/// key of every object.
public struct KeyList: Sendable {
    public let keys: [String]

    public init(_ keys: [String]) { self.keys = keys }

    public func contains(_ key: String) -> Bool {
        keys.contains { $0.utf8.count == key.utf8.count && $0 == key }
    }
}

/// Typed access to the members of one object, reporting wrong types and missing required keys.
public struct JSONObjectReader {
    public let members: [JSONMember]
    public let path: JSONPath
    public let location: SourceLocation
    public let collector: DiagnosticsCollector

    public func contains(_ key: String) -> Bool { members.contains { $0.hasKey(key) } }

    /// Reports `message` at member `key`: its path, and the line of its value (of the object, when
    /// the member is absent).
    public func report(_ message: String, atMember key: String) {
        collector.report(message, at: path.appending(key), value(key)?.location ?? location)
    }

    /// The raw value of `key`, or nil; reports a missing required key.
    public func value(_ key: String, required: Bool = false) -> JSONValue? {
        if let member = members.first(where: { $0.hasKey(key) }) { return member.value }
        if required { collector.report("missing required key \"\(key)\"", at: path, location) }
        return nil
    }

    public func string(_ key: String, required: Bool = false) -> String? {
        typed(key, required: required, expected: "a string") { $0.stringValue }
    }

    public func bool(_ key: String, required: Bool = false) -> Bool? {
        typed(key, required: required, expected: "a boolean") { $0.boolValue }
    }

    public func number(_ key: String, required: Bool = false) -> Double? {
        typed(key, required: required, expected: "a number") { $0.numberValue }
    }

    /// An integer within `range`; fractions and out-of-range values are reported.
    public func integer(_ key: String, in range: ClosedRange<Int>, required: Bool = false) -> Int? {
        guard let n = number(key, required: required) else { return nil }
        guard n == n.rounded(), n >= Double(range.lowerBound), n <= Double(range.upperBound) else {
            report("expected an integer from \(range.lowerBound) to \(range.upperBound), found \(JSONWriter.string(.number(n)))", atMember: key)
            return nil
        }
        return Int(n)
    }

    public func array(_ key: String, required: Bool = false) -> [JSONValue]? {
        typed(key, required: required, expected: "an array") { $0.arrayValue }
    }

    private func typed<T>(_ key: String, required: Bool, expected: String, _ cast: (JSONValue) -> T?) -> T? {
        guard let raw = value(key, required: required) else { return nil }
        guard let typed = cast(raw) else {
            collector.report("expected \(expected), found \(raw.typeName)", at: path.appending(key), raw)
            return nil
        }
        return typed
    }
}
