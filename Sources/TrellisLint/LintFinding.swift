import TrellisJSON

/// What the lint checks: each rule has an id that reports, options (`--errors`) and the
/// server's `lint.errors` name.
public enum LintRule: String, CaseIterable, Hashable, Sendable, Comparable {
    /// A text's lines do not fit its frame, or its `lineLimit` cut it.
    case textTruncated = "text-truncated"
    /// A button or a component with an action is smaller than the platform's minimum target.
    case tapTarget = "tap-target"
    /// A text's colour against what is behind it is under WCAG's 4.5:1 (3:1 for large text).
    case contrast
    /// An image (not marked decorative) or a button has no name a screen reader can say.
    case label
    /// Content reaches past the viewport's edges outside a horizontal scroll.
    case overflow

    public static func < (a: LintRule, b: LintRule) -> Bool { a.rawValue < b.rawValue }
}

/// One problem of one component, met in one configuration.
public struct LintFinding: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var screenId: String
    /// The component's JSON path in the screen document as authored (`$.root.subviews[2]`).
    public var path: String { authoredPath.description }
    /// The same path, as diagnostics locate lines by it.
    public var authoredPath: JSONPath
    /// The component's `id`, else its path in the resolved screen: the `layoutId` of the layout
    /// answer and the `data-id` of the preview.
    public var layoutId: String
    public var rule: LintRule
    public var locale: String
    public var configuration: LintConfiguration
    /// What was measured: `41×32 pt`, `contrast 2.85:1 (needs 4.5:1)`, `3 lines in a frame of 2`.
    public var value: String

    public init(
        screenId: String, path: JSONPath, layoutId: String, rule: LintRule, locale: String, configuration: LintConfiguration, value: String
    ) {
        self.screenId = screenId
        authoredPath = path
        self.layoutId = layoutId
        self.rule = rule
        self.locale = locale
        self.configuration = configuration
        self.value = value
    }

    /// What makes two findings the same: a finding met again (in another reachable variant of the
    /// screen) is reported once.
    var key: Key { Key(screenId: screenId, path: path, rule: rule, locale: locale, configuration: configuration) }

    struct Key: Hashable {
        var screenId: String, path: String, rule: LintRule, locale: String, configuration: LintConfiguration
    }

    /// `home $.root.subviews[1] tap-target en ios-small@1 41×32 pt`: one line, fields separated by spaces.
    public var description: String {
        "\(screenId) \(path) \(rule.rawValue) \(locale) \(configuration) \(value)"
    }

    /// Screen, path, rule, locale, configuration, then value: a report reads a screen top to bottom.
    public static func < (a: LintFinding, b: LintFinding) -> Bool {
        if a.screenId != b.screenId { return a.screenId < b.screenId }
        if a.path != b.path { return a.path < b.path }
        if a.rule != b.rule { return a.rule < b.rule }
        if a.locale != b.locale { return a.locale < b.locale }
        if a.configuration != b.configuration { return a.configuration < b.configuration }
        return a.value < b.value
    }
}

extension LintRule {
    /// The rules a list names, separated by commas (`contrast, label`): which rules are errors, as
    /// `trellis lint --errors` and a server setting read it. Empty names are skipped.
    /// - Throws: ``UnknownLintRules`` with every name that is no rule.
    public static func rules(named list: String) throws(UnknownLintRules) -> Set<LintRule> {
        var rules: Set<LintRule> = []
        var unknown: [String] = []
        for name in list.split(separator: ",").map({ String($0.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }) where !name.isEmpty {
            if let rule = LintRule(rawValue: name) { rules.insert(rule) } else { unknown.append(name) }
        }
        guard unknown.isEmpty else { throw UnknownLintRules(names: unknown) }
        return rules
    }
}

/// Names given as lint rules that are none.
public struct UnknownLintRules: Error, Equatable, CustomStringConvertible {
    public var names: [String]
    public init(names: [String]) { self.names = names }
    public var description: String {
        "no rule \(names.map { "\"\($0)\"" }.joined(separator: ", ")); the rules are \(LintRule.allCases.map(\.rawValue).joined(separator: ", "))"
    }
}

extension Sequence<LintFinding> {
    /// The findings of the rules that are errors: a run with any fails.
    public func errors(_ rules: Set<LintRule>) -> [LintFinding] { filter { rules.contains($0.rule) } }
}
