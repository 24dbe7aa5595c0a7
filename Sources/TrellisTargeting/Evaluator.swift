/// Evaluates rule expressions for one user over one immutable ``TargetingConfiguration``.
///
/// - `all` is true when every expression is; it stops at the first false one. `any` stops at the
///   first true one. `not` negates.
/// - A named rule evaluates its definition.
/// - `{"rollout": k}` is ``isInRollout(_:for:)``; `{"experiment": k, "variant": v}` is true when
///   ``variant(of:for:)`` is `v`. ``rolloutDecision(_:for:)`` and ``variantDecision(of:for:)`` say
///   why, and ``explain(_:for:)`` explains a whole expression.
/// - Strings compare byte for byte in UTF-8 (no Unicode normalisation or case folding), as
///   other languages' SDKs would.
/// - A condition on an attribute the context lacks is false for every operator, and so is a
///   condition whose attribute text does not parse as the operator's kind (a number, an RFC 3339
///   date, a version). Names unknown to the configuration evaluate to false (a checked
///   configuration has none).
public struct Evaluator: Sendable {
    public let configuration: TargetingConfiguration
    /// The configuration's named rules laid flat, where flat rules that name one evaluate it
    /// (a walk of its expression copied each condition it met).
    let namedRules: FlatRules
    let namedRuleStarts: [String: Int]

    public init(_ configuration: TargetingConfiguration) {
        self.configuration = configuration
        var flat = FlatRules()
        var starts: [String: Int] = [:]
        for (name, rule) in configuration.rules { starts[name] = flat.append(rule) }
        namedRules = flat.exactlySized()
        namedRuleStarts = starts
    }

    /// Whether `expression` holds for `context`.
    public func evaluate(_ expression: RuleExpression, for context: UserContext) -> Bool {
        switch expression {
        case .all(let list): list.allSatisfy { evaluate($0, for: context) }
        case .any(let list): list.contains { evaluate($0, for: context) }
        case .not(let inner): !evaluate(inner, for: context)
        case .named(let name): configuration.rules[name].map { evaluate($0, for: context) } ?? false
        case .rollout(let key): isInRollout(key, for: context)
        case .experiment(let key, let variant): self.variant(of: key, for: context) == variant
        case .condition(let condition): Self.holds(condition, for: context)
        }
    }

    /// Whether the rollout `key` admits the user: it exists, is enabled, the user has an id and
    /// the user's position is below the percentage (for a whole percentage `P`:
    /// `murmur3("{groupId}:{userId}", 0) % 100 + 1 <= P`). ``rolloutDecision(_:for:)`` says why.
    public func isInRollout(_ key: String, for context: UserContext) -> Bool {
        decideRollout(key, for: context, placingDisabled: false).admitted
    }

    /// The variant of experiment `key` the user gets, or nil for an unknown experiment: an
    /// override, else the default variant while paused, the winner once concluded, the default
    /// variant for users without an id, else by weight. ``variantDecision(of:for:)`` says why.
    public func variant(of key: String, for context: UserContext) -> String? {
        variantDecision(of: key, for: context)?.variant
    }

    /// One attribute condition; false when the attribute is missing or does not parse.
    public static func holds(_ condition: AttributeCondition, for context: UserContext) -> Bool {
        // Switched on the operand where it lies, then on the operator: a switch on the pair made a
        // copy of the operand, retaining its string — a line from memory, written, for rules of
        // a screen nobody asked for lately. An operator of another kind than its operand (which
        // the decoder never builds) is false.
        switch condition.operand {
        case .date(let d):
            // Versions and dates are compared as the context holds them, not formatted and parsed again.
            guard let seconds = date(of: condition, context) else { return false }
            switch condition.op {
            case .before: return seconds < d
            case .after: return seconds > d
            default: return false
            }
        case .version(let v):
            guard let version = version(of: condition, context) else { return false }
            switch condition.op {
            case .versionBelow: return version < v
            case .versionAtLeast: return version >= v
            case .versionEquals: return version == v
            default: return false
            }
        case .number(let n):
            guard let text = context.text(of: condition.builtIn, named: condition.attribute), let number = number(text) else { return false }
            switch condition.op {
            case .lessThan: return number < n
            case .lessThanOrEqual: return number <= n
            case .greaterThan: return number > n
            case .greaterThanOrEqual: return number >= n
            default: return false
            }
        case .string(let s):
            guard let text = context.text(of: condition.builtIn, named: condition.attribute) else { return false }
            switch condition.op {
            case .equals: return text.utf8.elementsEqual(s.utf8)
            case .notEquals: return !text.utf8.elementsEqual(s.utf8)
            case .startsWith: return text.utf8.starts(with: s.utf8)
            case .endsWith: return text.utf8.reversed().starts(with: s.utf8.reversed())
            case .contains: return containsBytes(Array(text.utf8), Array(s.utf8))
            default: return false
            }
        case .stringSet(let set):
            guard let text = context.text(of: condition.builtIn, named: condition.attribute) else { return false }
            switch condition.op {
            case .in: return set.contains { text.utf8.elementsEqual($0.utf8) }
            case .notIn: return !set.contains { text.utf8.elementsEqual($0.utf8) }
            default: return false
            }
        }
    }

    /// Whether `needle` occurs in `haystack`, byte for byte.
    private static func containsBytes(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
        }
        return false
    }

    /// A finite decimal number (`18`, `-2.5`, `.5`, `1e3`); nil for anything else, including
    /// spaces, hexadecimal, `nan` and `inf`.
    static func number(_ text: String) -> Double? {
        guard let first = text.utf8.first, first == 0x2D || (0x30...0x39).contains(first) || first == 0x2E,
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x2D || $0 == 0x2B || $0 | 0x20 == 0x65 }),
            let n = Double(text), n.isFinite
        else { return nil }
        return n
    }

    static func date(of condition: AttributeCondition, _ context: UserContext) -> Double? {
        condition.builtIn == .now ? context.now : context.text(of: condition.builtIn, named: condition.attribute).flatMap(RFC3339.seconds(from:))
    }

    static func version(of condition: AttributeCondition, _ context: UserContext) -> SemanticVersion? {
        switch condition.builtIn {
        case .appVersion: context.appVersion
        case .osVersion: context.osVersion
        default: context.text(of: condition.builtIn, named: condition.attribute).flatMap(SemanticVersion.init)
        }
    }
}
