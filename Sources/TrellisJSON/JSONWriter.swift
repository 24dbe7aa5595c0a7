/// Writes `JSONValue`s as UTF-8 bytes: compact for the wire, or indented by two spaces for people.
/// Object members keep their order, so equal values always give equal bytes (stable ETags).
public struct JSONWriter {
    public enum Style: Sendable { case compact, pretty }

    public static func encode(_ value: JSONValue, style: Style = .compact) -> [UInt8] {
        var out: [UInt8] = []
        switch value.kind {
        case .array, .object: out.reserveCapacity(1024)
        default: break  // a number or a word, as `string(_:)` makes of a template's arguments
        }
        write(value, to: &out, style: style, indent: 0)
        if style == .pretty { out.append(0x0A) }
        return out
    }

    public static func string(_ value: JSONValue, style: Style = .compact) -> String {
        String(decoding: encode(value, style: style), as: UTF8.self)
    }

    /// `s` as a JSON string literal, quotes included.
    public static func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        writeString(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func write(_ value: JSONValue, to out: inout [UInt8], style: Style, indent: Int) {
        switch value.kind {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): writeNumber(n, to: &out)
        case .string(let s): writeString(s, to: &out)
        case .array(let elements):
            writeContainer(elements, open: 0x5B, close: 0x5D, to: &out, style: style, indent: indent) { e, out, indent in
                write(e, to: &out, style: style, indent: indent)
            }
        case .object(let members):
            writeContainer(members, open: 0x7B, close: 0x7D, to: &out, style: style, indent: indent) { m, out, indent in
                writeString(m.key, to: &out)
                out.append(0x3A)
                if style == .pretty { out.append(0x20) }
                write(m.value, to: &out, style: style, indent: indent)
            }
        }
    }

    private static func writeContainer<Element>(
        _ elements: [Element], open: UInt8, close: UInt8, to out: inout [UInt8], style: Style, indent: Int,
        element: (Element, inout [UInt8], Int) -> Void
    ) {
        out.append(open)
        guard !elements.isEmpty else { out.append(close); return }
        for (i, e) in elements.enumerated() {
            if i > 0 { out.append(0x2C) }
            if style == .pretty { newline(indent + 1, &out) }
            element(e, &out, indent + 1)
        }
        if style == .pretty { newline(indent, &out) }
        out.append(close)
    }

    private static func newline(_ indent: Int, _ out: inout [UInt8]) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    /// Integral values within ±2^53 print without a fraction (`12`, not `12.0`); others use Swift's
    /// shortest round-tripping form, which is valid JSON for finite numbers.
    static func writeNumber(_ n: Double, to out: inout [UInt8]) {
        if n == n.rounded(), abs(n) <= 9_007_199_254_740_992 {
            writeInteger(Int64(n), to: &out)
        } else {
            out.append(contentsOf: n.description.utf8)
        }
    }

    /// `n` in decimal, as `String(n)` spells it, without making the String.
    static func writeInteger(_ n: Int64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxIntegerLength) { buffer in
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<write(integer: n, into: buffer, at: 0)]))
        }
    }

    /// The most bytes ``write(integer:into:at:)`` writes: `-9223372036854775808`.
    public static let maxIntegerLength = 20

    /// Writes `n` in decimal, as `String(n)` spells it, into `buffer` from `index`, which must
    /// leave ``maxIntegerLength`` bytes, and returns the index after the last digit.
    @inlinable
    public static func write(integer n: Int64, into buffer: UnsafeMutableBufferPointer<UInt8>, at index: Int) -> Int {
        var index = index
        if n < 0 {
            buffer[index] = 0x2D
            index += 1
        }
        var magnitude = n.magnitude
        let end = index + digitCount(magnitude)
        var position = end
        repeat {
            position -= 1
            buffer[position] = 0x30 + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        return end
    }

    @usableFromInline
    static func digitCount(_ magnitude: UInt64) -> Int {
        // Most numbers in an answer (frames, counts) are under a thousand.
        if magnitude < 10 { return 1 }
        if magnitude < 100 { return 2 }
        if magnitude < 1000 { return 3 }
        var count = 4, rest = magnitude / 10_000
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }

    static func writeString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { bytes in
            out.append(0x22)
            // Most strings need no escape: found so, they are copied whole.
            var i = 0
            while i < bytes.count, bytes[i] != 0x22, bytes[i] != 0x5C, bytes[i] >= 0x20 { i += 1 }
            if i == bytes.count {
                out.append(contentsOf: bytes)
            } else {
                writeEscaped(bytes, to: &out)
            }
            out.append(0x22)
        }
    }

    /// Runs that need no escape are copied whole; only `"`, `\` and controls are rewritten.
    private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var start = 0
        for (i, b) in bytes.enumerated() where b == 0x22 || b == 0x5C || b < 0x20 {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
            start = i + 1
            switch b {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(0x6E)
            case 0x0D: out.append(0x5C); out.append(0x72)
            case 0x09: out.append(0x5C); out.append(0x74)
            default:
                let hex: StaticString = "0123456789abcdef"
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex.utf8Start[Int(b >> 4)], hex.utf8Start[Int(b & 0xF)]])
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
    }
}

/// Appending compact JSON piece by piece, for answers written straight from their own types
/// instead of through a `JSONValue` tree (the layout answer). The bytes are those `encode` would
/// give for the same members in the same order.
extension JSONWriter {
    /// Appends `value`, compact.
    public static func append(_ value: JSONValue, to out: inout [UInt8]) { write(value, to: &out, style: .compact, indent: 0) }

    /// Appends `s` as a string literal.
    public static func append(string s: String, to out: inout [UInt8]) { writeString(s, to: &out) }

    /// Appends `n` in decimal (`-42`).
    public static func append(integer n: Int64, to out: inout [UInt8]) { writeInteger(n, to: &out) }

    /// Appends `n` as `encode` writes `.number(n)`.
    public static func append(number n: Double, to out: inout [UInt8]) { writeNumber(n, to: &out) }

    /// Appends `members` as an object, compact.
    public static func append(members: [JSONMember], to out: inout [UInt8]) {
        write(JSONValue(.object(members)), to: &out, style: .compact, indent: 0)
    }

    /// Appends `,` unless this is the first member, then `"key":`.
    public static func appendKey(_ key: String, first: inout Bool, to out: inout [UInt8]) {
        if !first { out.append(0x2C) }
        first = false
        writeString(key, to: &out)
        out.append(0x3A)
    }
}
