/// An app or OS version such as `5.2`, `5.2.1` or `17.4.1-beta.2`, compared numerically part by
/// part (missing parts are 0) with pre-releases ordered before their release (SemVer 2.0 §11).
public struct SemanticVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var numbers: [Int]
    public var prerelease: [String]

    /// Parses `MAJOR[.MINOR[.PATCH[.…]]][-PRERELEASE][+BUILD]`; build metadata is ignored.
    public init?(_ text: String) {
        var text = text
        guard let parsed = text.withUTF8(Self.parse) else { return nil }
        numbers = parsed.numbers
        prerelease = parsed.prerelease
    }

    /// One pass over the bytes (a client's version is read on every request): `N(.N){0,3}`, then
    /// `-` and dot-separated prerelease identifiers, then `+build`, which is ignored.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (numbers: [Int], prerelease: [String])? {
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
        var numbers: [Int] = []
        numbers.reserveCapacity(4)
        var value = 0, digits = 0
        for i in 0...coreEnd {
            if i == coreEnd || bytes[i] == 0x2E {
                guard digits > 0, numbers.count < 4 else { return nil }
                numbers.append(value)
                value = 0
                digits = 0
            } else {
                let digit = bytes[i] &- 0x30
                guard digit <= 9, digits < 9 else { return nil }
                value = value * 10 + Int(digit)
                digits += 1
            }
        }
        return (numbers, prerelease)
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

    public func hash(into hasher: inout Hasher) {
        var trimmed = numbers
        while trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
        hasher.combine(prerelease)
    }

    public static func < (a: SemanticVersion, b: SemanticVersion) -> Bool {
        for i in 0..<max(a.numbers.count, b.numbers.count) {
            let x = i < a.numbers.count ? a.numbers[i] : 0
            let y = i < b.numbers.count ? b.numbers[i] : 0
            if x != y { return x < y }
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
