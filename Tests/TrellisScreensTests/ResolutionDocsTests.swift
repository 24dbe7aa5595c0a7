import Foundation
import Testing
import TrellisJSON
import TrellisScreens
import TrellisTargeting
import TrellisTesting

/// docs/targeting.md shows real behaviour: its examples are checked here.
@Suite struct ResolutionDocsTests {
    let docs: String

    init() throws {
        let url = screensDirectory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs").appendingPathComponent("targeting.md")
        docs = String(decoding: try Data(contentsOf: url), as: UTF8.self)
    }

    /// The body of the first fenced block after `marker`.
    func block(after marker: String) throws -> String { try #require(fencedBlock(after: marker, in: docs)) }

    func exampleConfiguration() throws -> TargetingConfiguration {
        try TargetingConfiguration.decode(Array(try block(after: "## Config/targeting.json").utf8), source: "docs").get()
    }

    @Test func targetingExampleDecodes() throws {
        let configuration = try exampleConfiguration()
        #expect(configuration.rollouts["gold-banner"]?.percentage == 25)
        #expect(configuration.experiments["home-hero"]?.defaultVariant == "control")
    }

    /// The authored example resolves, for the user described, to exactly the JSON shown.
    @Test func resolvedExampleIsVerbatim() throws {
        let screen = try ScreenDecoder().decode(Array(try block(after: "<!-- example: authored -->").utf8), source: "docs").get()
        let configuration = try exampleConfiguration()
        #expect(screen.unknownReferences(in: configuration).isEmpty)
        let user = firstUser {
            Bucketing.rolloutBucket(groupID: "gold-banner", userID: $0) <= 25
                && Evaluator(configuration).variant(of: "home-hero", for: UserContext(userID: $0)) == "big"
        }
        let context = try context([("user", user), ("attr.membership", "gold"), ("schemaVersion", "1")])
        let resolver = ScreenResolver()
        let outcomes = resolver.outcomes(of: resolver.decisions(of: screen), for: context, evaluator: Evaluator(configuration))
        #expect(outcomes.description == "1.1.1")
        let answer = resolver.resolve(screen, outcomes: outcomes, clientSchemaVersion: 1)
        let text = JSONWriter.string(answer.jsonValue(revision: 4), style: .pretty)
        #expect(text == (try block(after: "<!-- example: resolved -->")))
        let modern = resolver.resolve(screen, outcomes: outcomes, clientSchemaVersion: 2)
        #expect(modern.replaced.isEmpty)
        #expect(modern.types == ["ScrollView", "Text", "Button", "Carousel", "Image"])
    }

    /// Every error message quoted in the context section is one UserContext.parse gives.
    @Test func quotedContextErrors() throws {
        let quoted: [(String, String)] = [
            ("appVersion", "v5"), ("schemaVersion", "0"), ("user", ""), ("attr.country", "DE"), ("pretty", "1"),
        ]
        for (name, value) in quoted {
            do {
                _ = try UserContext.parse([(name: name, value: value)])
                Issue.record("\(name) parsed")
            } catch {
                #expect(docs.contains("`" + error.description + "`"), "\(error)")
            }
        }
    }
}
