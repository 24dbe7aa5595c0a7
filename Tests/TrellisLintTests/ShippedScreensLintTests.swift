import Testing
import TrellisLint
import TrellisScreens

/// The screens Trellis ships meet every rule on every phone and text size, in every variant.
@Suite struct ShippedScreensLintTests {
    @Test func theShippedConfigurationLintsClean() throws {
        var templates: [Template] = []
        for file in try Repository.jsonFiles(in: "Config/templates") {
            templates.append(try TemplateLibrary.decode(file.bytes, source: "templates/\(file.id).json", expectedID: file.id).get())
        }
        let library = TemplateLibrary(templates)
        let lint = try ShippedFonts.lint()
        var linted = 0
        for file in try Repository.jsonFiles(in: "Config/screens") {
            let shipped = try screen(String(decoding: file.bytes, as: UTF8.self), id: file.id, templates: library)
            let found = try lint.findings(screen: shipped, locale: "en")
            #expect(found.isEmpty, "\(file.id):\n\(found.map(\.description).joined(separator: "\n"))")
            linted += 1
        }
        #expect(linted >= 4)
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
