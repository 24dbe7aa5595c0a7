import TrellisJSON
import TrellisScreens
import TrellisStore
import TrellisStrings
import TrellisTargeting

/// Checks the screens' `$string`s against the string tables, so that no answer ever shows a key or
/// an argument's `{name}`:
/// - every key is in the default locale's table (every other locale falls back to it);
/// - every argument a message of the key names, in any locale, is given by the screen, and a
///   number where the message counts or formats it;
/// - every argument the screen gives is named by a message of the key (a misspelt name is caught
///   here, not by a user who sees `{count}`).
///
/// A translation a locale lacks is not a mistake — the default's text is shown — and is reported
/// by ``StringCatalog/coverage()`` instead. Runs wherever a snapshot is built, as the navigation check.
package enum StringCheck {
    /// Every problem, by screen; empty when the screens and the tables agree.
    package static func errors(screens: [NavigationCheck.ScreenSource], catalog: StringCatalog) -> [DiagnosticsError] {
        let found = ParallelMap.map(screens.filter(\.screen.usesStrings).sorted { $0.source < $1.source }) { source in
            let diagnostics = source.screen.strings.flatMap { problems(of: $0, catalog) }
            return diagnostics.isEmpty ? nil : DiagnosticsError(source: source.source, diagnostics: diagnostics).locating(inDocument: source.document.bytes)
        }
        return found.compactMap { $0 }
    }

    /// Every experiment variant whose value is a string of the tables (`{"$string": key, "args": {…}}`,
    /// what OFREP answers in the user's locale), checked as a screen's: the key in the default
    /// locale's table, every argument a message names given as a number or text.
    package static func errors(targeting: TargetingConfiguration, source: String, catalog: StringCatalog) -> [DiagnosticsError] {
        var diagnostics: [Diagnostic] = []
        for (key, experiment) in targeting.experiments.sorted(by: { $0.key < $1.key }) {
            for variant in experiment.variants {
                guard let value = variant.value, let use = use(of: value) else { continue }
                let path = JSONPath.root.appending("experiments").appending(key).appending("variants").appending(variant.name).appending("value")
                diagnostics += problems(of: StringUse(key: use.key, path: path, arguments: use.arguments), catalog)
            }
        }
        return diagnostics.isEmpty ? [] : [DiagnosticsError(source: source, diagnostics: diagnostics)]
    }

    /// A variant value written as a string of the tables, with its arguments; nil for any other value.
    package static func use(of value: JSONValue) -> (key: String, arguments: [String: StringUse.Argument])? {
        guard let members = value.objectValue, let key = value["$string"]?.stringValue,
            members.allSatisfy({ $0.key == "$string" || $0.key == "args" })
        else { return nil }
        var arguments: [String: StringUse.Argument] = [:]
        for argument in value["args"]?.objectValue ?? [] {
            switch argument.value.kind {
            case .number(let number): arguments[argument.key] = .number(number)
            case .string(let text): arguments[argument.key] = .text(text)
            default: arguments[argument.key] = .text(JSONWriter.string(argument.value))
            }
        }
        return (key, arguments)
    }

    /// What is wrong with one `$string`.
    static func problems(of use: StringUse, _ catalog: StringCatalog) -> [Diagnostic] {
        guard catalog.tables[catalog.defaultLocale]?[use.key] != nil else {
            let known = catalog.tables[catalog.defaultLocale].map { "\($0.count) keys" } ?? "no table"
            return [
                Diagnostic(
                    path: use.path.appending("$string"), location: .unknown,
                    message: "no string \"\(use.key)\" in the default locale's table (\(catalog.defaultLocale): \(known))")
            ]
        }
        let needed = neededArguments(use.key, catalog)
        var problems: [Diagnostic] = []
        for (name, locales) in needed.sorted(by: { $0.key < $1.key }) {
            let asNumber = locales.number.sorted()
            switch use.arguments[name] {
            case nil:
                problems.append(
                    Diagnostic(
                        path: use.path, location: .unknown,
                        message: "\"\(use.key)\" needs the argument \"\(name)\" (in \(locales.all.sorted().joined(separator: ", "))); give it in \"args\""))
            case .text(let text)? where !asNumber.isEmpty && Double(text) == nil:
                problems.append(
                    Diagnostic(
                        path: use.path.appending("args").appending(name), location: .unknown,
                        message: "\"\(use.key)\" uses \"\(name)\" as a number (in \(asNumber.joined(separator: ", "))); found \(JSONWriter.quoted(text))"))
            default:
                break
            }
        }
        for name in use.arguments.keys.sorted() where needed[name] == nil {
            problems.append(
                Diagnostic(
                    path: use.path.appending("args").appending(name), location: .unknown,
                    message: "no message of \"\(use.key)\" uses the argument \"\(name)\"; it uses \(list(needed.keys))"))
        }
        return problems
    }

    /// The arguments the messages of `key` name, each with the locales that name it and those
    /// that use it as a number.
    private static func neededArguments(_ key: String, _ catalog: StringCatalog) -> [String: (all: Set<String>, number: Set<String>)] {
        var needed: [String: (all: Set<String>, number: Set<String>)] = [:]
        for (locale, table) in catalog.tables {
            for (name, use) in table[key]?.arguments ?? [:] {
                needed[name, default: ([], [])].all.insert(locale)
                if use == .number { needed[name, default: ([], [])].number.insert(locale) }
            }
        }
        return needed
    }

    private static func list(_ names: some Collection<String>) -> String {
        names.isEmpty ? "none" : names.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
    }
}
