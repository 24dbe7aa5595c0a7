/// An app or OS version such as `5.2`, `5.2.1` or `17.4.1-beta.2`, compared numerically part by
/// part (missing parts are 0) with pre-releases ordered before their release (SemVer 2.0 §11).
public struct SemanticVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric parts, as written (one to four).
    public var numbers: [Int] { (0..<Int(partCount)).map { Int(part($0)) } }
    public var prerelease: [String]
    /// The numeric parts in the value itself, missing ones 0: a part has at most nine digits, and
    /// an array of them was an allocation for every request's `appVersion`, and for a rule's
    /// operand a line of its own, from memory at a screen nobody asked for lately.
    private let parts: (UInt32, UInt32, UInt32, UInt32)
    private let partCount: UInt8

    /// Parses `MAJOR[.MINOR[.PATCH[.…]]][-PRERELEASE][+BUILD]`; build metadata is ignored.
    public init?(_ text: String) {
        var text = text
        guard let parsed = text.withUTF8(Self.parse) else { return nil }
        (parts, partCount) = parsed.numbers
        prerelease = parsed.prerelease
    }

    /// Part `index` (0 to 3), 0 past those written.
    private func part(_ index: Int) -> UInt32 {
        switch index {
        case 0: parts.0
        case 1: parts.1
        case 2: parts.2
        default: parts.3
        }
    }

    /// One pass over the bytes (a client's version is read on every request): `N(.N){0,3}`, then
    /// `-` and dot-separated prerelease identifiers, then `+build`, which is ignored.
    private static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>
    ) -> (numbers: ((UInt32, UInt32, UInt32, UInt32), UInt8), prerelease: [String])? {
        let end = bytes.firstIndex(of: 0x2B) ?? bytes.count  // "+"
        let coreEnd = bytes[..<end].firstIndex(of: 0x2D) ?? end  // "-"
        var prerelease: [String] = []
        if coreEnd < end {
            var start = coreEnd + 1
            for i in start...end where i == end || bytes[i] == 0x2E {
                let identifier = UnsafeBufferPointer(rebasing: bytes[start..<i])
                guard isPrereleaseIdentifier(identifier) else { return nil }
                prerelease.append(String(decoding: identifier, as: UTF8.self))
                start = i + 1
            }
        }
        var numbers: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        var count: UInt8 = 0
        var value: UInt32 = 0, digits = 0
        for i in 0...coreEnd {
            if i == coreEnd || bytes[i] == 0x2E {
                guard digits > 0 else { return nil }
                switch count {
                case 0: numbers.0 = value
                case 1: numbers.1 = value
                case 2: numbers.2 = value
                case 3: numbers.3 = value
                default: return nil
                }
                count += 1
                value = 0
                digits = 0
            } else {
                let digit = bytes[i] &- 0x30
                guard digit <= 9, digits < 9 else { return nil }
                value = value * 10 + UInt32(digit)
                digits += 1
            }
        }
        return ((numbers, count), prerelease)
    }

    /// SemVer §9: `[0-9A-Za-z-]+`, and a numeric identifier has no leading zero.
    private static func isPrereleaseIdentifier(_ id: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !id.isEmpty, id.allSatisfy({ isAlphanumeric($0) || $0 == 0x2D }) else { return false }
        return id.count == 1 || id[0] != 0x30 || !id.allSatisfy({ (0x30...0x39).contains($0) })
    }

    private static func isAlphanumeric(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
    }

    /// The value of an identifier made only of ASCII digits; nil for any other (`-1` is alphanumeric).
    private static func numericValue(_ id: String) -> Int? {
        guard id.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(id)
    }

    public var description: String {
        numbers.map(String.init).joined(separator: ".") + (prerelease.isEmpty ? "" : "-" + prerelease.joined(separator: "."))
    }

    public static func == (a: SemanticVersion, b: SemanticVersion) -> Bool { !(a < b) && !(b < a) }

    /// Missing parts are 0 in `parts`, so `5.2` and `5.2.0`, which are equal, hash alike.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(parts.0)
        hasher.combine(parts.1)
        hasher.combine(parts.2)
        hasher.combine(parts.3)
        hasher.combine(prerelease)
    }

    public static func < (a: SemanticVersion, b: SemanticVersion) -> Bool {
        if a.parts != b.parts {
            return a.parts.0 != b.parts.0 ? a.parts.0 < b.parts.0
                : a.parts.1 != b.parts.1 ? a.parts.1 < b.parts.1
                : a.parts.2 != b.parts.2 ? a.parts.2 < b.parts.2 : a.parts.3 < b.parts.3
        }
        switch (a.prerelease.isEmpty, b.prerelease.isEmpty) {
        case (true, _): return false
        case (false, true): return true
        case (false, false): return precedes(a.prerelease, b.prerelease)
        }
    }

    /// SemVer §11.4: numeric identifiers compare numerically and sort before alphanumeric ones.
    private static func precedes(_ a: [String], _ b: [String]) -> Bool {
        for (x, y) in zip(a, b) where x != y {
            switch (numericValue(x), numericValue(y)) {
            case (let m?, let n?): return m < n
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return x < y
            }
        }
        return a.count < b.count
    }
}
