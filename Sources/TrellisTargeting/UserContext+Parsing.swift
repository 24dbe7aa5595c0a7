/// One thing wrong with one context parameter.
public struct ContextParameterProblem: Sendable, Equatable, CustomStringConvertible {
    /// The parameter as it was given (`appVersion`, `attr.tier`).
    public var parameter: String
    public var reason: String
    public init(parameter: String, reason: String) {
        self.parameter = parameter
        self.reason = reason
    }
    public var description: String { "\(parameter): \(reason)" }
}

/// Every problem with the context parameters of one request.
public struct UserContextError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [ContextParameterProblem]
    public var description: String { problems.map(\.description).joined(separator: "; ") }
}

extension UserContext {
    /// Limits on context parameters.
    public enum Limits {
        /// Longest accepted value of any parameter, in UTF-8 bytes.
        public static let maximumValueBytes = 256
        /// Most free attributes (`attr.NAME`) in one context.
        public static let maximumAttributes = 32
        /// Accepted client schema versions.
        public static let schemaVersions = 1...999
    }

    /// The parameter names ``parse(_:)`` reads; plus any `attr.NAME`. The HTTP layer passes these
    /// (and no others) from the query string and headers.
    public static let parameterNames = Set(parameterList)
    private static let parameterList = ["user", "platform", "appVersion", "osVersion", "schemaVersion", "locale", "country"]

    /// Whether `name` is a context parameter: one of ``parameterNames`` or starts with `attr.`.
    /// Looked for in a list, lengths first: seven short names compare in less time than one is
    /// hashed, and every request's query is read here.
    public static func isParameter(_ name: String) -> Bool {
        let length = name.utf8.count
        return parameterList.contains { $0.utf8.count == length && $0 == name } || name.hasPrefix("attr.")
    }

    /// Reads a context from name/value pairs such as a query string's items:
    /// `user`, `platform`, `appVersion`, `osVersion`, `schemaVersion`, `locale`, `country` and
    /// `attr.NAME` for free attributes.
    ///
    /// - Throws: ``UserContextError`` listing every bad parameter with its reason: an unknown name,
    ///   a parameter given twice, an empty or too long value (over ``Limits/maximumValueBytes``), a
    ///   version that does not parse, a schema version that is not an integer in
    ///   ``Limits/schemaVersions``, a malformed platform, country or locale, an invalid attribute name.
    public static func parse(_ parameters: [(name: String, value: String)]) throws(UserContextError) -> UserContext {
        var context = UserContext()
        var problems: [ContextParameterProblem] = []
        // A context has a handful of parameters: comparing each with the earlier ones costs less
        // than hashing them into a set. Only a long list (a crafted query) gets a set.
        var seen: Set<String>? = parameters.count > 16 ? Set(minimumCapacity: parameters.count) : nil
        func fail(_ name: String, _ reason: String) { problems.append(ContextParameterProblem(parameter: name, reason: reason)) }

        for (index, (name, value)) in parameters.enumerated() {
            guard isParameter(name) else {
                fail(name, "unknown parameter; expected one of: \(parameterNames.sorted().joined(separator: ", ")), attr.NAME")
                continue
            }
            let repeated = seen != nil ? !seen!.insert(name).inserted : parameters[..<index].contains { $0.name == name }
            guard !repeated else { fail(name, "given more than once"); continue }
            guard !value.isEmpty else { fail(name, "must not be empty"); continue }
            guard value.utf8.count <= Limits.maximumValueBytes else {
                fail(name, "longer than \(Limits.maximumValueBytes) bytes (\(value.utf8.count))")
                continue
            }
            switch name {
            case "user":
                guard !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                    fail(name, "must not contain control characters")
                    continue
                }
                context.userID = value
            case "platform":
                let lower = value.utf8.allSatisfy(isPlatformByte) ? value : value.lowercased()
                guard lower.utf8.count <= 32, lower.utf8.allSatisfy(isPlatformByte) else {
                    fail(name, "\"\(value)\" is not a platform: use 1 to 32 of a-z, 0-9, '-', '_' (such as ios, android, web)")
                    continue
                }
                context.platform = lower
            case "appVersion", "osVersion":
                guard let version = SemanticVersion(value) else {
                    fail(name, "\"\(value)\" is not a version such as \"5.2.1\" or \"17.4-beta.1\"")
                    continue
                }
                if name == "appVersion" { context.appVersion = version } else { context.osVersion = version }
            case "schemaVersion":
                guard value.utf8.count <= 3, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let n = Int(value),
                    Limits.schemaVersions.contains(n)
                else {
                    fail(name, "\"\(value)\" is not an integer from \(Limits.schemaVersions.lowerBound) to \(Limits.schemaVersions.upperBound)")
                    continue
                }
                context.schemaVersion = n
            case "locale":
                guard isLocale(value) else {
                    fail(name, "\"\(value)\" is not a language tag such as \"de-DE\" or \"en\"")
                    continue
                }
                context.locale = value
            case "country":
                let upper = value.uppercased()
                guard upper.utf8.count == 2, upper.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) else {
                    fail(name, "\"\(value)\" is not a two-letter country code (ISO 3166-1 alpha-2) such as \"DE\"")
                    continue
                }
                context.country = upper
            default:
                let attribute = String(name.dropFirst("attr.".count))
                guard RuleExpression.isIdentifier(attribute) else {
                    fail(name, "invalid attribute name \"\(attribute)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots")
                    continue
                }
                guard !builtInAttributes.contains(attribute) else {
                    fail(name, "\"\(attribute)\" is a built-in attribute; it cannot be set with attr.")
                    continue
                }
                guard context.attributes.count < Limits.maximumAttributes else {
                    fail(name, "more than \(Limits.maximumAttributes) attributes")
                    continue
                }
                context.attributes[attribute] = value
            }
        }
        guard problems.isEmpty else { throw UserContextError(problems: problems) }
        return context
    }

    private static func isPlatformByte(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x61...0x7A).contains(c) || c == 0x2D || c == 0x5F
    }

    /// BCP 47 in outline: subtags of 1–8 ASCII letters or digits separated by `-` or `_`, the first
    /// of 2–3 letters; at most 35 bytes.
    private static func isLocale(_ text: String) -> Bool {
        guard text.utf8.count <= 35 else { return false }
        let subtags = text.utf8.split(separator: 0x2D, omittingEmptySubsequences: false).flatMap {
            $0.split(separator: 0x5F, omittingEmptySubsequences: false)
        }
        guard let first = subtags.first, (2...3).contains(first.count),
            first.allSatisfy({ (0x41...0x5A).contains($0 & ~0x20) })
        else { return false }
        return subtags.allSatisfy { tag in
            (1...8).contains(tag.count)
                && tag.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0 & ~0x20) }
        }
    }
}
