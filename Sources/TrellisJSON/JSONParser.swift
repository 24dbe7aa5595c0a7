/// A syntax error: where the text stops being JSON, and why.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var reason: String
    public var description: String { "\(location): \(reason)" }
}

/// A strict RFC 8259 parser over bytes that records the line and column of every value.
///
/// Strict on purpose: no comments, no trailing commas, no duplicate keys, no unescaped control
/// characters, valid UTF-8 only, and nesting limited to `maximumDepth` so that hostile input
/// cannot exhaust the stack.
public struct JSONParser {
    /// The deepest nesting of arrays and objects accepted. Screens nest a few dozen levels at most.
    public static let defaultMaximumDepth = 128

    /// The text, borrowed for the duration of one `parse`.
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    private let maximumDepth: Int
    /// The members of the objects and the elements of the arrays being parsed, innermost last.
    private var members: PendingElements<JSONMember>
    private var elements: PendingElements<JSONValue>
    /// The byte length of each element of the outermost array, when asked for.
    private var elementBytes: [Int]?

    /// Parses one JSON text (a value with optional surrounding whitespace).
    /// - Throws: `JSONSyntaxError` naming the line and column of the first error.
    public static func parse(_ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth) throws(JSONSyntaxError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { bytes throws(JSONSyntaxError) in
            var parser = JSONParser(bytes: bytes, maximumDepth: maximumDepth)
            defer {
                parser.members.release()
                parser.elements.release()
            }
            return try parser.parseDocument()
        }
    }

    public static func parse(_ text: String, maximumDepth: Int = defaultMaximumDepth) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8), maximumDepth: maximumDepth)
    }

    /// Parses one JSON text as ``parse(_:maximumDepth:)`` does and, when it is an array, also
    /// gives the length in bytes of each element's text, from its first byte to its last (a batch
    /// whose parts have a size limit: the size as sent, whitespace inside an element included).
    /// `elementBytes` is empty for any other document.
    public static func parseMeasuringElements(
        _ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth
    ) throws(JSONSyntaxError) -> (document: JSONValue, elementBytes: [Int]) {
        try bytes.withUnsafeBufferPointer { bytes throws(JSONSyntaxError) in
            var parser = JSONParser(bytes: bytes, maximumDepth: maximumDepth)
            parser.elementBytes = []
            defer {
                parser.members.release()
                parser.elements.release()
            }
            let document = try parser.parseDocument()
            return (document, parser.elementBytes ?? [])
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        members = PendingElements(capacity: 64)
        elements = PendingElements(capacity: 16)
    }

    private var location: SourceLocation { SourceLocation(line: line, column: index - lineStart + 1) }

    private func fail(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(location: location, reason: reason)
    }

    private mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3; lineStart = 3 }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected \(describeCurrent()) after the end of the document") }
        return value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A: index += 1; line += 1; lineStart = index
            default: return
            }
        }
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of input" }
        let b = bytes[index]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        let start = location
        guard index < bytes.count else { throw fail("expected a value, found end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return JSONValue(.object(try parseObject()), at: start)
        case UInt8(ascii: "["): return JSONValue(.array(try parseArray()), at: start)
        case UInt8(ascii: "\""): return JSONValue(.string(try parseString()), at: start)
        case UInt8(ascii: "t"): try expectLiteral("true"); return JSONValue(.bool(true), at: start)
        case UInt8(ascii: "f"): try expectLiteral("false"); return JSONValue(.bool(false), at: start)
        case UInt8(ascii: "n"): try expectLiteral("null"); return JSONValue(.null, at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONValue(.number(try parseNumber()), at: start)
        default:
            throw fail("expected a value, found \(describeCurrent())")
        }
    }

    private mutating func expectLiteral(_ literal: String) throws(JSONSyntaxError) {
        let expected = literal.utf8
        guard index + expected.count <= bytes.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
            throw fail("invalid literal; expected '\(literal)'")
        }
        index += expected.count
    }

    private mutating func enterContainer() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= maximumDepth else { throw fail("nesting deeper than \(maximumDepth) levels") }
        index += 1
        skipWhitespace()
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> [JSONMember] {
        try enterContainer()
        defer { depth -= 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return [] }
        let first = members.count
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail("expected a quoted key, found \(describeCurrent())")
            }
            let keyLocation = location
            let key = try parseString()
            if let twin = members.first(from: first, where: { $0.hasKey(key) }) {
                throw JSONSyntaxError(
                    location: keyLocation, reason: "duplicate key \"\(key)\" (first at line \(twin.keyLocation.line))")
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw fail("expected ':' after key \"\(key)\", found \(describeCurrent())")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONMember(key: key, keyLocation: keyLocation, value: value))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated object: expected ',' or '}'") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { throw fail("trailing comma before '}'") }
            case UInt8(ascii: "}"):
                index += 1
                return members.take(from: first)
            default:
                throw fail("expected ',' or '}' in object, found \(describeCurrent())")
            }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> [JSONValue] {
        try enterContainer()
        defer { depth -= 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return [] }
        let first = elements.count
        let measured = depth == 1 && elementBytes != nil
        while true {
            let start = index
            let element = try parseValue()
            if measured { elementBytes!.append(index - start) }
            elements.append(element)
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated array: expected ',' or ']'") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { throw fail("trailing comma before ']'") }
            case UInt8(ascii: "]"):
                index += 1
                return elements.take(from: first)
            default:
                throw fail("expected ',' or ']' in array, found \(describeCurrent())")
            }
        }
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number: expected a digit") }
        let digits = index
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fail("invalid number: leading zero") }
        } else {
            skipDigits()
        }
        // Most numbers in a screen are small integers, which a Double holds exactly up to 15 digits:
        // no need for the text and strtod.
        if index - digits <= 15, index == bytes.count || (bytes[index] != UInt8(ascii: ".") && bytes[index] | 0x20 != UInt8(ascii: "e")) {
            var magnitude = 0
            for digit in bytes[digits..<index] { magnitude = magnitude * 10 + Int(digit - 0x30) }
            return negative ? -Double(magnitude) : Double(magnitude)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number: expected a digit after '.'") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number: expected a digit in the exponent") }
            skipDigits()
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            index = start
            throw fail("number \(text) is out of range")
        }
        return value
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    private mutating func skipDigits() { while index < bytes.count, isDigit(bytes[index]) { index += 1 } }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1  // opening quote
        let start = index
        // Most strings have no escape: they are made straight from the text.
        var highBits: UInt8 = 0
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 { break }
            highBits |= b
            index += 1
        }
        guard index < bytes.count else { throw fail("unterminated string") }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
            index += 1
            guard highBits < 0x80 || Self.isValidUTF8(text) else { throw fail("string is not valid UTF-8") }
            return String(decoding: text, as: UTF8.self)
        case UInt8(ascii: "\\"):
            return try parseEscapedString(from: start)
        default:
            throw fail("control character 0x\(String(bytes[index], radix: 16, uppercase: true)) in string; escape it")
        }
    }

    /// The rest of a string that has an escape at `index`; `start` is the string's first byte.
    private mutating func parseEscapedString(from start: Int) throws(JSONSyntaxError) -> String {
        var scalars = Array(bytes[start..<index])
        var runStart = index
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                scalars.append(contentsOf: bytes[runStart..<index])
                index += 1
                guard scalars.withUnsafeBufferPointer(Self.isValidUTF8) else { throw fail("string is not valid UTF-8") }
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                scalars.append(contentsOf: bytes[runStart..<index])
                try parseEscape(into: &scalars)
                runStart = index
            case 0x00..<0x20:
                throw fail("control character 0x\(String(b, radix: 16, uppercase: true)) in string; escape it")
            default:
                index += 1
            }
        }
    }

    /// Whether `bytes` are well-formed UTF-8 (The Unicode Standard, table 3-7): no overlong forms,
    /// no surrogates, nothing above U+10FFFF — what `String(validating:)` accepts, without its
    /// generic, per-call cost.
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < bytes.count {
            let lead = bytes[i]
            guard lead >= 0x80 else {
                i += 1
                continue
            }
            // The length of the sequence, and the range of its second byte.
            let length: Int
            let second: ClosedRange<UInt8>
            switch lead {
            case 0xC2...0xDF: (length, second) = (2, 0x80...0xBF)
            case 0xE0: (length, second) = (3, 0xA0...0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (length, second) = (3, 0x80...0xBF)
            case 0xED: (length, second) = (3, 0x80...0x9F)
            case 0xF0: (length, second) = (4, 0x90...0xBF)
            case 0xF1...0xF3: (length, second) = (4, 0x80...0xBF)
            case 0xF4: (length, second) = (4, 0x80...0x8F)
            default: return false
            }
            guard i + length <= bytes.count, second.contains(bytes[i + 1]) else { return false }
            for continuation in bytes[i + 2..<i + length] where continuation & 0xC0 != 0x80 { return false }
            i += length
        }
        return true
    }

    private mutating func parseEscape(into out: inout [UInt8]) throws(JSONSyntaxError) {
        index += 1
        guard index < bytes.count else { throw fail("unterminated escape sequence") }
        let c = bytes[index]
        index += 1
        switch c {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"): out.append(contentsOf: try parseUnicodeEscape())
        default:
            index -= 1
            throw fail("invalid escape '\\\(Character(Unicode.Scalar(c)))'")
        }
    }

    /// `\uXXXX`, joining a UTF-16 surrogate pair into one scalar (RFC 8259 §7).
    private mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> String.UTF8View {
        let high = try parseHex4()
        var scalarValue = UInt32(high)
        if (0xD800...0xDBFF).contains(high) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw fail("unpaired high surrogate \\u\(String(high, radix: 16, uppercase: true))")
            }
            index += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw fail("invalid low surrogate in \\u escape") }
            scalarValue = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(high) {
            throw fail("unpaired low surrogate \\u\(String(high, radix: 16, uppercase: true))")
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw fail("invalid \\u escape") }
        return String(Character(scalar)).utf8
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw fail("incomplete \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt8
            switch b {
            case 0x30...0x39: digit = b - 0x30
            case 0x41...0x46: digit = b - 0x41 + 10
            case 0x61...0x66: digit = b - 0x61 + 10
            default: throw fail("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}

/// The elements of the containers being parsed, innermost last, each container's moved out into an
/// array of exactly its size when it closes. Decoded screens keep their objects, so exact sizes save
/// memory; and an array that grew as a container filled cost an allocation and a copy at each
/// doubling. The elements are moved, not copied: no retain as they leave, no release after.
/// The parser that owns one calls ``release()`` when it is done, whether it succeeded or threw.
private struct PendingElements<Element> {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    mutating func append(_ element: consuming Element) {
        if count == capacity {
            let grown = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            grown.moveInitialize(from: base, count: count)
            base.deallocate()
            base = grown
            capacity *= 2
        }
        (base + count).initialize(to: element)
        count += 1
    }

    /// The first element from index `first` on that satisfies `predicate`.
    func first(from first: Int, where predicate: (Element) -> Bool) -> Element? {
        for i in first..<count where predicate(base[i]) { return base[i] }
        return nil
    }

    /// The elements from index `first` on, in order, removed from here.
    mutating func take(from first: Int) -> [Element] {
        // Appended one by one rather than moved in bulk with `Array(unsafeUninitializedCapacity:)`,
        // which allocates through an unspecialized path that cost more than the elements' copy.
        var taken: [Element] = []
        taken.reserveCapacity(count - first)
        for i in first..<count { taken.append((base + i).move()) }
        count = first
        return taken
    }

    /// Destroys what is left (the containers open when a syntax error stopped the parse) and frees the storage.
    mutating func release() {
        base.deinitialize(count: count)
        base.deallocate()
        count = 0
    }
}
