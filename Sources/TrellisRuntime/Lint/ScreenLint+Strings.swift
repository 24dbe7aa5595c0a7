import TrellisJSON
import TrellisLayout
import TrellisLint
import TrellisScreens
import TrellisStrings

extension ScreenLint {
    /// `screen`'s findings in every locale it is served in: each table's and the pseudo-locale
    /// (its 40 % longer text) for a screen with strings, laid out right to left where the locale
    /// writes so; the default locale alone for a screen without. Every reachable variant, its
    /// parameters filled in with samples.
    package func findings(
        of screen: Screen, strings catalog: StringCatalog, configurations: [LintConfiguration] = LintConfiguration.matrix,
        resolver: ScreenResolver = ScreenResolver()
    ) throws -> [LintFinding] {
        let samples = screen.sampleParameters
        // A locale at a time on each core: a screen in five locales is a few hundred layouts.
        let locales = screen.usesStrings ? catalog.locales : [catalog.defaultLocale]
        let found = ParallelMap.map(locales, chunk: 1) { locale in
            Result { () throws -> [LintFinding] in
                let strings = catalog.resolve(locale)
                let direction: Direction = LocaleTag.isRightToLeft(locale) ? .rtl : .ltr
                return try findings(
                    screen: screen, locale: locale,
                    configurations: configurations.map { LintConfiguration(device: $0.device, fontScale: $0.fontScale, direction: direction) },
                    resolver: resolver, filling: { try $0.substituting(samples, strings: strings, registry: resolver.registry) })
            }
        }
        return try found.flatMap { try $0.get() }.sorted()
    }
}

extension LintFinding {
    /// The finding as a publish answer's warning and a refusal's problem name it.
    package var jsonValue: JSONValue {
        .object([
            ("rule", .string(rule.rawValue)), ("path", .string(path)), ("locale", .string(locale)),
            ("configuration", .string(configuration.description)), ("value", .string(value)),
        ])
    }

    /// The finding as a problem of a refused publish: at the component's path, the rest said.
    package var diagnostic: Diagnostic {
        Diagnostic(path: authoredPath, location: .unknown, message: "\(rule.rawValue) in \(locale) on \(configuration): \(value)")
    }
}
