/// A locale's plural rules, cardinal ("3 items") or ordinal ("3rd"), from CLDR: the first category
/// whose condition holds, else `other`.
public struct PluralRules: Sendable {
    public enum Kind: Sendable { case cardinal, ordinal }

    /// The locale whose rules these are (after fallback: `de` for `de-AT`), `root` when CLDR has
    /// none but `other`.
    public let locale: String
    let rules: [(category: PluralCategory, condition: PluralCondition)]

    /// Rules from conditions written in CLDR's syntax, in the order they are tried.
    public init(locale: String, _ conditions: [(PluralCategory, String)]) throws(PluralRuleError) {
        self.locale = locale
        var rules: [(category: PluralCategory, condition: PluralCondition)] = []
        for (category, text) in conditions where category != .other {
            rules.append((category, try PluralCondition(text)))
        }
        self.rules = rules
    }

    /// CLDR's rules for a BCP 47 locale (`pt-PT`, `de_AT`, `zh-Hant-TW`), found along its fallback
    /// chain (`pt-PT`, `pt`); a locale CLDR has no rules for has only `other`.
    public init(for tag: String, _ kind: Kind = .cardinal) {
        for candidate in LocaleTag.fallbacks(of: tag) {
            if let rules = Self.parsed[candidate] {
                self = kind == .cardinal ? rules.cardinal : rules.ordinal
                return
            }
        }
        self.locale = "root"
        self.rules = []
    }

    public func category(_ operands: PluralOperands) -> PluralCategory {
        rules.first { $0.condition.matches(operands) }?.category ?? .other
    }

    /// The categories a message for this locale may need, `other` last.
    public var categories: [PluralCategory] { rules.map(\.category) + [.other] }

    /// CLDR's table, parsed once. The table is generated and tested whole (PluralRulesTests), so a
    /// condition that did not parse is a build-time mistake, not an input's.
    private static let parsed: [String: (cardinal: PluralRules, ordinal: PluralRules)] = {
        var table: [String: (cardinal: PluralRules, ordinal: PluralRules)] = [:]
        for (locale, rules) in cldr {
            func parse(_ pairs: [(String, String)]) -> PluralRules {
                do {
                    return try PluralRules(locale: locale, pairs.map { (PluralCategory(rawValue: $0.0)!, $0.1) })
                } catch {
                    preconditionFailure("CLDRPluralRules.swift: \(locale): \(error)")
                }
            }
            table[locale] = (parse(rules.cardinal), parse(rules.ordinal))
        }
        return table
    }()
}

/// BCP 47 language tags, as far as finding data for one needs.
public enum LocaleTag {
    /// The tag and its truncations, most specific first, `_` read as `-` and case as BCP 47 writes
    /// it (`zh-Hant-TW`, `zh-Hant`, `zh`). Private-use and extension parts (`-u-…`, `-x-…`) end it.
    /// Whether text of `tag` is written right to left: its script's (`ks-Arab`, `az-Arab`), else its
    /// language's usual script (CLDR's likely subtags: ar, fa, he, ur, ps, sd, ug, yi, dv, ckb, …).
    public static func isRightToLeft(_ tag: String) -> Bool {
        let parts = fallbacks(of: tag).first?.split(separator: "-") ?? []
        if let script = parts.dropFirst().first(where: { $0.count == 4 }) { return rightToLeftScripts.contains(String(script)) }
        return parts.first.map { rightToLeftLanguages.contains(String($0)) } ?? false
    }

    private static let rightToLeftScripts: Set<String> = ["Arab", "Hebr", "Thaa", "Syrc", "Nkoo", "Adlm", "Rohg", "Mand", "Samr"]
    private static let rightToLeftLanguages: Set<String> = [
        "ar", "arc", "ckb", "dv", "fa", "he", "iw", "ks", "lrc", "mzn", "ps", "sd", "syr", "ug", "ur", "yi",
    ]

    public static func fallbacks(of tag: String) -> [String] {
        var parts: [String] = []
        for (index, part) in tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).enumerated() {
            if part.count == 1 { break }
            switch (index, part.count) {
            case (0, _): parts.append(part.lowercased())
            case (_, 4): parts.append(part.prefix(1).uppercased() + part.dropFirst().lowercased())
            case (_, 2): parts.append(part.uppercased())
            default: parts.append(part.lowercased())
            }
        }
        return (0..<parts.count).reversed().map { parts[0...$0].joined(separator: "-") }
    }
}
