/// A cursor over a pin string's UTF-8 bytes: the lexical level of the Visual Format Language
/// (names, numbers, single characters) and the errors that point at a column.
///
/// Every character the grammar accepts is ASCII, and the scanner stops at the first one it does
/// not accept, so every byte before an error is one character: a byte offset + 1 is the column.
struct VisualFormatScanner {
    private let bytes: [UInt8]
    private(set) var offset = 0

    /// - Throws: when `text` is empty or longer than ``VisualFormat/Limits/maximumLength``.
    init(_ text: String) throws(VisualFormatError) {
        if text.isEmpty { throw VisualFormatError(column: 1, message: "empty pin string") }
        let limit = VisualFormat.Limits.maximumLength
        // Copies at most limit + 1 bytes, whatever the string's length.
        bytes = Array(text.utf8.prefix(limit + 1))
        if bytes.count > limit {
            // A non-ASCII byte before the limit means the string's characters are fewer than its
            // bytes; that byte is wrong anyway and is where the column is still exact.
            let column = (bytes.firstIndex { $0 >= 0x80 } ?? limit) + 1
            throw VisualFormatError(column: column, message: "a pin string may have at most \(limit) characters")
        }
    }

    /// The 1-based column of the current character (one past the end at the end).
    var column: Int { offset + 1 }
    var isAtEnd: Bool { offset >= bytes.count }
    var current: UInt8? { peek(0) }

    func peek(_ ahead: Int) -> UInt8? {
        let index = offset + ahead
        return index < bytes.count ? bytes[index] : nil
    }

    mutating func advance(by count: Int = 1) {
        offset = min(offset + count, bytes.count)
    }

    /// Consumes `character` if it is next.
    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard current == UInt8(ascii: character) else { return false }
        advance()
        return true
    }

    func isNext(_ character: Unicode.Scalar) -> Bool { current == UInt8(ascii: character) }

    /// The source text between two columns, for messages that quote what was written.
    func text(from column: Int, to end: Int) -> String {
        let range = max(column - 1, 0)..<min(max(end - 1, column - 1), bytes.count)
        return String(decoding: bytes[range], as: UTF8.self)
    }

    /// An error at the current character saying what should have been there; whitespace gets its
    /// own message, since authors of JSON documents tend to add it for readability.
    func expected(_ what: String) -> VisualFormatError {
        if let current, current == UInt8(ascii: " ") || current == UInt8(ascii: "\t") {
            return VisualFormatError(column: column, message: "spaces are not allowed in a pin string")
        }
        return VisualFormatError(column: column, message: "expected \(what)")
    }

    func error(_ message: String, at column: Int) -> VisualFormatError {
        VisualFormatError(column: column, message: message)
    }
}

// MARK: - Names and numbers

extension VisualFormatScanner {
    var isAtNameStart: Bool { current.map(Self.isNameStart) ?? false }
    var isAtDigit: Bool { current.map(Self.isDigit) ?? false }

    static func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_")
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Reads a C identifier (`[A-Za-z_][A-Za-z0-9_]*`), or returns nil without moving when none starts here.
    mutating func name() throws(VisualFormatError) -> String? {
        guard isAtNameStart else { return nil }
        let start = offset
        while let byte = current, Self.isNameStart(byte) || Self.isDigit(byte) { advance() }
        let limit = VisualFormat.Limits.maximumNameLength
        if offset - start > limit {
            throw error("a name may have at most \(limit) characters", at: start + 1)
        }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    /// Reads `digit { digit } [ "." digit { digit } ]`, or returns nil without moving when no digit is next.
    mutating func unsignedNumber() throws(VisualFormatError) -> Double? {
        guard isAtDigit else { return nil }
        let start = column
        var digits = 0
        var mantissa = 0
        var fractionDigits = 0
        readDigits(into: &mantissa, count: &digits)
        if skip(".") {
            guard isAtDigit else { throw expected("a digit after \".\"") }
            let before = digits
            readDigits(into: &mantissa, count: &digits)
            fractionDigits = digits - before
        }
        let limit = VisualFormat.Limits.maximumDigits
        if digits > limit { throw error("a number may have at most \(limit) digits", at: start) }
        return Double(mantissa) / Self.powerOfTen(fractionDigits)
    }

    /// Reads `[ "-" | "+" ] digit …`, or returns nil without moving when no sign or digit is next.
    mutating func signedNumber() throws(VisualFormatError) -> Double? {
        let negative = isNext("-")
        guard negative || isNext("+") else { return try unsignedNumber() }
        let sign = String(UnicodeScalar(current ?? 0))
        advance()
        guard let magnitude = try unsignedNumber() else { throw expected("a digit after \"\(sign)\"") }
        return negative ? -magnitude : magnitude
    }

    /// Accumulates decimal digits; stops adding to `mantissa` once past the digit limit (the caller
    /// then reports the number as too long), so the integer cannot overflow.
    private mutating func readDigits(into mantissa: inout Int, count: inout Int) {
        while let byte = current, Self.isDigit(byte) {
            if count < VisualFormat.Limits.maximumDigits { mantissa = mantissa * 10 + Int(byte - UInt8(ascii: "0")) }
            count += 1
            advance()
        }
    }

    /// 10^n, exact for the n a number can have (at most ``VisualFormat/Limits/maximumDigits``).
    private static func powerOfTen(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<max(exponent, 0) { result *= 10 }
        return result
    }
}
