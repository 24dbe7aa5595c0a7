import Testing
import TrellisLint
import TrellisRuntime
import TrellisScreens
import TrellisStrings
import TrellisStringsJSON

/// The screens Trellis ships meet every rule on every phone and text size, in every variant and
/// every language they are served in (the pseudo-locale's longer text and Arabic right to left).
@Suite struct ShippedScreensLintTests {
    static func shippedScreens() throws -> [(id: String, screen: Screen)] {
        var templates: [Template] = []
        for file in try Repository.jsonFiles(in: "Config/templates") {
            templates.append(try TemplateLibrary.decode(file.bytes, source: "templates/\(file.id).json", expectedID: file.id).get())
        }
        let library = TemplateLibrary(templates)
        return try Repository.jsonFiles(in: "Config/screens").map { file in
            (file.id, try screen(String(decoding: file.bytes, as: UTF8.self), id: file.id, templates: library))
        }
    }

    static func strings(replacing replaced: [String: [String: String]] = [:]) throws -> StringCatalog {
        var tables: [String: [String: Message]] = [:]
        for file in try Repository.jsonFiles(in: "Config/strings") {
            var table = try StringTableFile.decode(file.bytes, source: "strings/\(file.id).json").get()
            for (key, text) in replaced[file.id] ?? [:] { table[key] = try Message(text) }
            tables[file.id] = table
        }
        return StringCatalog(defaultLocale: "en", tables: tables)
    }

    /// `screen`'s findings in `locale` alone, its strings from `catalog`.
    static func findings(_ screen: Screen, locale: String, catalog: StringCatalog) throws -> [LintFinding] {
        try ShippedFonts.lint().findings(of: screen, strings: catalog).filter { $0.locale == locale }
    }

    @Test func theShippedConfigurationLintsCleanInEveryLanguage() throws {
        let catalog = try Self.strings()
        #expect(catalog.locales == ["ar", "de", "en", "ja", "en-XA"])
        var locales: Set<String> = []
        for (id, shipped) in try Self.shippedScreens() {
            let found = try ShippedFonts.lint().findings(of: shipped, strings: catalog)
            #expect(found.isEmpty, "\(id):\n\(found.map(\.description).joined(separator: "\n"))")
            if shipped.usesStrings { locales.formUnion(catalog.locales) }
        }
        #expect(locales == Set(catalog.locales), "a shipped screen shows strings")
    }

    /// A 60-character German greeting, where the English is 12, no longer fits the three lines the
    /// screen gives it: reported at the greeting's path, in German only, with the lines it needs.
    @Test func aLongGermanLabelIsReportedTruncatedAtItsPath() throws {
        let planted = "Einen wunderschönen guten Morgen wünschen wir Ihnen allen hier"
        #expect(planted.count >= 60)
        let catalog = try Self.strings(replacing: ["de": ["home.greeting": planted]])
        let home = try #require(try Self.shippedScreens().first { $0.id == "home" }?.screen)
        let found = try Self.findings(home, locale: "de", catalog: catalog)
        #expect(!found.isEmpty)
        #expect(found.allSatisfy { $0.rule == .textTruncated && $0.path == "$.root.subviews[0].subviews[0]" && $0.locale == "de" }, "\(found)")
        #expect(found.contains { $0.configuration == LintConfiguration(device: .iosSmall, fontScale: 1) && $0.value.contains("lineLimit 3") }, "\(found)")
        #expect(try Self.findings(home, locale: "en", catalog: catalog).isEmpty)
    }

    /// The lint fixtures (Fixtures/lint, which scripts/lint-vs-axe draws) trip every rule.
    @Test func theFixturesTripEveryRule() throws {
        let lint = try ShippedFonts.lint()
        var rules: Set<LintRule> = []
        for file in try Repository.jsonFiles(in: "Fixtures/lint") {
            let fixture = try screen(String(decoding: file.bytes, as: UTF8.self), id: file.id)
            rules.formUnion(try lint.findings(screen: fixture, locale: "en").map(\.rule))
        }
        #expect(rules == Set(LintRule.allCases))
    }
}
