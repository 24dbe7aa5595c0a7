import Foundation
import Testing
import TrellisJSON
import TrellisTargeting
import TrellisTesting

/// docs/targeting.md shows real behaviour: its targeting.json example decodes, and its explain and
/// `trellis bucket` examples are exactly what the code prints.
@Suite struct DocsTests {
    let docs: String

    init() throws { docs = String(decoding: try repositoryFile("docs/targeting.md"), as: UTF8.self) }

    /// The body of the first fenced block (```json or ```) after `marker`.
    func block(after marker: String) throws -> String { try #require(fencedBlock(after: marker, in: docs)) }

    func exampleConfiguration() throws -> TargetingConfiguration {
        try TargetingConfiguration.decode(Array(try block(after: "## Config/targeting.json").utf8), source: "docs").get()
    }

    @Test func targetingExampleDecodes() throws {
        let configuration = try exampleConfiguration()
        #expect(configuration.rollouts["new-checkout"]?.percentage == RolloutPercentage(basisPoints: 50))
        #expect(configuration.experiments["home-hero"]?.overrides == ["qa-kim": "big"])
        #expect(configuration.experiments["home-hero"]?.metricNames == ["purchase-rate", "revenue-per-user", "client-errors"])
        #expect(configuration.experiments["home-hero"]?.exposures == .server)
        #expect(configuration.experiments["old-onboarding"]?.status == .concluded(winner: "short"))
    }

    @Test func explainExampleIsVerbatim() throws {
        let request = try block(after: "<!-- example: explain request -->")
        let expression = try DiagnosticsCollector.decode(Array(request.utf8), source: "docs") {
            RuleExpression.decode($0, at: .root, $1)
        }.get()
        let context = UserContext(userID: "user-1", attributes: ["membership": "gold"])
        let explanation = Evaluator(try exampleConfiguration()).explain(expression, for: context)
        #expect(JSONWriter.string(explanation.jsonValue, style: .pretty) == (try block(after: "<!-- example: explain -->")))
    }

    @Test func bucketExampleIsVerbatim() throws {
        let shown = try block(after: "### `trellis bucket`")
        let output = shown.drop { $0 != "{" }
        let report = BucketingReport(groupID: "gold-banner", userID: "user-1", percentage: RolloutPercentage(basisPoints: 1_128), totalWeight: 100)
        #expect(JSONWriter.string(report.jsonValue, style: .pretty) == String(output))
    }
}
