/// Writes `JSONValue`s as UTF-8 bytes: compact for the wire, or indented by two spaces for people.
/// Object members keep their order, so equal values always give equal bytes (stable ETags).
public struct JSONWriter {
    public enum Style: Sendable { case compact, pretty }

    public static func encode(_ value: JSONValue, style: Style = .compact) -> [UInt8] {
        switch value.kind {
        case .array, .object:
            return bytes(reservingCapacity: 1024) { write(value, to: &$0, style: style, indent: 0, finished: true) }
        default:
            // A number or a word, as `string(_:)` makes of a template's arguments: no room reserved.
            var out: [UInt8] = []
            write(value, to: &out, style: style, indent: 0, finished: true)
            return out
        }
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

    /// `value`, and the newline that ends a pretty document when `finished`.
    private static func write<Sink: JSONByteSink>(_ value: JSONValue, to out: inout Sink, style: Style, indent: Int, finished: Bool) {
        write(value, to: &out, style: style, indent: indent)
        if finished && style == .pretty { out.append(0x0A) }
    }

    static func write<Sink: JSONByteSink>(_ value: JSONValue, to out: inout Sink, style: Style, indent: Int) {
        switch value.kind {
        case .null: writeRaw("null", to: &out)
        case .bool(let b): writeRaw(b ? "true" : "false", to: &out)
        case .number(let n): writeNumber(n, to: &out)
        case .string(let s): writeString(s, to: &out)
        case .array(let elements): writeElements(elements, to: &out, style: style, indent: indent)
        case .object(let members): writeMembers(members, to: &out, style: style, indent: indent)
        }
    }

    static func writeElements<Sink: JSONByteSink>(_ elements: [JSONValue], to out: inout Sink, style: Style, indent: Int) {
        out.append(0x5B)
        guard !elements.isEmpty else { return out.append(0x5D) }
        for (i, e) in elements.enumerated() {
            if i > 0 { out.append(0x2C) }
            if style == .pretty { newline(indent + 1, &out) }
            write(e, to: &out, style: style, indent: indent + 1)
        }
        if style == .pretty { newline(indent, &out) }
        out.append(0x5D)
    }

    static func writeMembers<Sink: JSONByteSink>(_ members: [JSONMember], to out: inout Sink, style: Style, indent: Int) {
        out.append(0x7B)
        guard !members.isEmpty else { return out.append(0x7D) }
        for (i, m) in members.enumerated() {
            if i > 0 { out.append(0x2C) }
            if style == .pretty { newline(indent + 1, &out) }
            writeString(m.key, to: &out)
            out.append(0x3A)
            if style == .pretty { out.append(0x20) }
            write(m.value, to: &out, style: style, indent: indent + 1)
        }
        if style == .pretty { newline(indent, &out) }
        out.append(0x7D)
    }

    private static func newline<Sink: JSONByteSink>(_ indent: Int, _ out: inout Sink) {
        out.append(0x0A)
        for _ in 0..<indent * 2 { out.append(0x20) }
    }

    /// Appends `text` as it is: a word, or a fixed piece such as `,"type":`.
    static func writeRaw<Sink: JSONByteSink>(_ text: StaticString, to out: inout Sink) {
        out.appendBytes(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The largest magnitude up to which every integer is a Double of its own (2^53): integral
    /// numbers within it are written in decimal, as ``write(integer:into:at:)`` writes them.
    public static let largestExactInteger = 9_007_199_254_740_992

    /// Integral values within ±2^53 print without a fraction (`12`, not `12.0`); others use Swift's
    /// shortest round-tripping form, which is valid JSON for finite numbers.
    static func writeNumber<Sink: JSONByteSink>(_ n: Double, to out: inout Sink) {
        if n == n.rounded(), abs(n) <= Double(largestExactInteger) {
            writeInteger(Int64(n), to: &out)
        } else {
            var text = n.description
            text.withUTF8 { out.appendBytes($0) }
        }
    }

    /// `n` in decimal, as `String(n)` spells it, without making the String.
    static func writeInteger<Sink: JSONByteSink>(_ n: Int64, to out: inout Sink) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxIntegerLength) { buffer in
            out.appendBytes(UnsafeBufferPointer(rebasing: buffer[..<write(integer: n, into: buffer, at: 0)]))
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

    static func writeString<Sink: JSONByteSink>(_ s: String, to out: inout Sink) {
        // Read in place where the string allows it (native and small strings, nearly all), which
        // spares the copy that `withUTF8`, a mutating method, needs.
        let written: Void? = s.utf8.withContiguousStorageIfAvailable { writeString(bytes: $0, to: &out) }
        if written == nil {
            var s = s
            s.withUTF8 { writeString(bytes: $0, to: &out) }
        }
    }

    private static func writeString<Sink: JSONByteSink>(bytes: UnsafeBufferPointer<UInt8>, to out: inout Sink) {
        out.append(0x22)
        // Most strings need no escape: found so, they are copied whole.
        if needsNoEscape(bytes) {
            out.appendBytes(bytes)
        } else {
            writeEscaped(bytes, to: &out)
        }
        out.append(0x22)
    }

    /// Whether no byte of `bytes` is `"`, `\` or a control character, looked at eight bytes at a
    /// time: most of what a screen's bytes are is text, and each byte of it is checked.
    static func needsNoEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let start = bytes.baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        /// Nonzero when some byte of `x` is less than `n` (at most 0x80); no byte is reported that is not.
        func hasByteBelow(_ x: UInt64, _ n: UInt64) -> Bool { (x &- ones &* n) & ~x & highs != 0 }
        var i = 0
        while i + 8 <= bytes.count {
            let word = UnsafeRawPointer(start + i).loadUnaligned(as: UInt64.self)
            if hasByteBelow(word, 0x20) || hasByteBelow(word ^ (ones &* 0x22), 1) || hasByteBelow(word ^ (ones &* 0x5C), 1) {
                return false
            }
            i += 8
        }
        while i < bytes.count {
            let b = start[i]
            if b == 0x22 || b == 0x5C || b < 0x20 { return false }
            i += 1
        }
        return true
    }

    /// Runs that need no escape are copied whole; only `"`, `\` and controls are rewritten.
    private static func writeEscaped<Sink: JSONByteSink>(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout Sink) {
        var start = 0
        for (i, b) in bytes.enumerated() where b == 0x22 || b == 0x5C || b < 0x20 {
            out.appendBytes(UnsafeBufferPointer(rebasing: bytes[start..<i]))
            start = i + 1
            out.append(0x5C)
            switch b {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x0A: out.append(0x6E)
            case 0x0D: out.append(0x72)
            case 0x09: out.append(0x74)
            default:
                let hex: StaticString = "0123456789abcdef"
                out.append(0x75)
                out.append(0x30)
                out.append(0x30)
                out.append(hex.utf8Start[Int(b >> 4)])
                out.append(hex.utf8Start[Int(b & 0xF)])
            }
        }
        out.appendBytes(UnsafeBufferPointer(rebasing: bytes[start...]))
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
        writeMembers(members, to: &out, style: .compact, indent: 0)
    }

    /// Appends `,` unless this is the first member, then `"key":`.
    public static func appendKey(_ key: String, first: inout Bool, to out: inout [UInt8]) {
        if !first { out.append(0x2C) }
        first = false
        writeString(key, to: &out)
        out.append(0x3A)
    }

    /// Compact JSON written by `body` into a ``JSONOutput``, which grows its own storage from
    /// `capacity` bytes: for a whole document written piece by piece (a screen's canonical bytes),
    /// where an array's checks on each append cost more than the writing.
    public static func bytes(reservingCapacity capacity: Int, _ body: (inout JSONOutput) -> Void) -> [UInt8] {
        var output = JSONOutput(capacity: capacity)
        defer { output.release() }
        body(&output)
        return Array(UnsafeBufferPointer(start: output.base, count: output.count))
    }
}

/// Where a `JSONWriter` appends its bytes: an array, or a ``JSONOutput``.
protocol JSONByteSink {
    mutating func append(_ byte: UInt8)
    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: JSONByteSink where Element == UInt8 {
    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}

/// Compact JSON being written, in storage that doubles when full: appending a byte is a store and
/// a run a copy. Valid only inside the closure of ``JSONWriter/bytes(reservingCapacity:_:)``,
/// which makes it and frees it.
public struct JSONOutput: JSONByteSink {
    fileprivate private(set) var base: UnsafeMutablePointer<UInt8>
    fileprivate private(set) var count = 0
    private var capacity: Int

    fileprivate init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    fileprivate func release() { base.deallocate() }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(extra) }
    }

    private mutating func grow(_ extra: Int) {
        var grown = capacity * 2
        while grown < count + extra { grown *= 2 }
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        storage.initialize(from: base, count: count)
        base.deallocate()
        base = storage
        capacity = grown
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).initialize(from: start, count: bytes.count)
        count += bytes.count
    }

    /// Appends `text` as it is: a fixed piece such as `,"type":`.
    public mutating func append(raw text: StaticString) { JSONWriter.writeRaw(text, to: &self) }

    /// Appends `value`, compact.
    public mutating func append(_ value: JSONValue) { JSONWriter.write(value, to: &self, style: .compact, indent: 0) }

    /// Appends `s` as a string literal.
    public mutating func append(string s: String) { JSONWriter.writeString(s, to: &self) }

    /// Appends `n` as `encode` writes `.number(n)`.
    public mutating func append(number n: Double) { JSONWriter.writeNumber(n, to: &self) }

    /// Appends `members` as an object.
    public mutating func append(members: [JSONMember]) { JSONWriter.writeMembers(members, to: &self, style: .compact, indent: 0) }

    /// Appends `elements` as an array.
    public mutating func append(elements: [JSONValue]) { JSONWriter.writeElements(elements, to: &self, style: .compact, indent: 0) }

    /// Appends `,` unless this is the first member, then `"key":`.
    public mutating func appendKey(_ key: String, first: inout Bool) {
        if !first { append(0x2C) }
        first = false
        JSONWriter.writeString(key, to: &self)
        append(0x3A)
    }

    /// Appends one byte, such as `}`.
    public mutating func append(byte: UInt8) { append(byte) }
}
