/// An app or OS version such as `5.2`, `5.2.1` or `17.4.1-beta.2`, compared numerically part by
/// part (missing parts are 0) with pre-releases ordered before their release (SemVer 2.0 §11).
public struct SemanticVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var numbers: [Int]
    public var prerelease: [String]

    /// Parses `MAJOR[.MINOR[.PATCH[.…]]][-PRERELEASE][+BUILD]`; build metadata is ignored.
    public init?(_ text: String) {
        var rest = Substring(text)
        if let plus = rest.firstIndex(of: "+") { rest = rest[..<plus] }
        var pre: [String] = []
        if let dash = rest.firstIndex(of: "-") {
            pre = rest[rest.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard pre.allSatisfy({ !$0.isEmpty }) else { return nil }
            rest = rest[..<dash]
        }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 4 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 9, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(part) else {
                return nil
            }
            numbers.append(n)
        }
        self.numbers = numbers
        self.prerelease = pre
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
            switch (Int(x), Int(y)) {
            case (let m?, let n?): return m < n
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return x < y
            }
        }
        return a.count < b.count
    }
}
