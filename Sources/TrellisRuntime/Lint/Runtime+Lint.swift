import TrellisJSON
import TrellisText
import TrellisLint
import TrellisScreens
import TrellisStore
import TrellisStrings

/// What publishing a screen says beside storing it: the lint's findings on it, every variant in
/// every locale on the lint's phones and text sizes (those of `lint.errors` rules refuse it), and
/// the keys of its strings a locale's table lacks (shown in the default's text).
extension Runtime {
    func publishWarnings(_ screen: CheckedScreen, in snapshot: Snapshot) throws(Refusal) -> [JSONValue] {
        var warnings = untranslated(screen, in: snapshot.strings)
        // Without font packs nothing can be laid out, so there is nothing to lint.
        guard !snapshot.fonts.isEmpty, case .success(let model) = screen.decodeModel() else { return warnings }
        let findings: [LintFinding]
        do {
            findings = try ScreenLint(fonts: snapshot.fonts).findings(of: model, strings: snapshot.strings, resolver: snapshot.resolver)
        } catch {
            // Sample parameters that do not fit the screen: the lint cannot lay it out, and says so.
            return warnings + [.object([("source", .string("lint")), ("value", .string("not linted: \(error)"))])]
        }
        let refused = findings.errors(settings.lintErrors)
        guard refused.isEmpty else {
            let rules = Set(refused.map(\.rule.rawValue)).sorted().joined(separator: ", ")
            let problems = DiagnosticsError(source: "body", diagnostics: Self.firstOfEach(refused).map(\.diagnostic))
            throw .invalid(
                "the screen fails the lint's rules that lint.errors makes refusals (\(rules)); nothing was published",
                problems.locating(inDocument: screen.document.bytes).diagnostics, source: "body")
        }
        warnings += findings.map { finding in
            .object([("source", .string("lint"))] + (finding.jsonValue.objectValue ?? []).map { ($0.key, $0.value) })
        }
        return warnings
    }

    /// For each locale whose table lacks keys the screen shows: those keys.
    private func untranslated(_ screen: CheckedScreen, in catalog: StringCatalog) -> [JSONValue] {
        let keys = Set(screen.strings.map(\.key))
        guard !keys.isEmpty else { return [] }
        return catalog.tables.keys.sorted().filter { $0 != catalog.defaultLocale }.compactMap { locale in
            let chain = catalog.resolve(locale).chain.dropLast()
            let missing = keys.filter { key in chain.allSatisfy { catalog.tables[$0]?[key] == nil } }.sorted()
            guard !missing.isEmpty else { return nil }
            return .object([
                ("source", .string("strings")), ("locale", .string(locale)), ("missing", .array(missing.map(JSONValue.string))),
                ("value", .string("not translated: shown in \(catalog.defaultLocale)")),
            ])
        }
    }

    /// One finding per rule and path (the first configuration's): a refusal names each place once.
    private static func firstOfEach(_ findings: [LintFinding]) -> [LintFinding] {
        var seen: Set<String> = []
        return findings.filter { seen.insert($0.rule.rawValue + " " + $0.path + " " + $0.locale).inserted }
    }
}
