import Foundation
import Testing
import TrellisJSON
import TrellisScreens
import TrellisTargeting

/// docs/screens.md shows real decoder behaviour: its examples are checked here.
@Suite struct DocsTests {
    let docs: String

    init() throws {
        let url = screensDirectory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs").appendingPathComponent("screens.md")
        docs = String(decoding: try Data(contentsOf: url), as: UTF8.self)
    }

    /// The text of every fenced block that starts right after `opening`.
    func blocks(after opening: String) -> [String] {
        var found: [String] = []
        var rest = docs[...]
        while let start = rest.range(of: opening) {
            let body = rest[start.upperBound...]
            guard let end = body.range(of: "\n```") else { break }
            found.append(String(body[..<end.lowerBound]) + "\n")
            rest = body[end.upperBound...]
        }
        return found
    }

    /// Every JSON example decodes, except the one under "Errors", whose description is quoted verbatim.
    @Test func jsonExamplesDecodeAsDocumented() throws {
        let examples = blocks(after: "```json\n")
        #expect(examples.count == 5)
        let quoted = blocks(after: "fails with exactly this description:\n\n```\n")
        #expect(quoted.count == 1)
        var failures = 0
        for example in examples {
            let value = try JSONParser.parse(example)
            let text = value["root"] != nil ? example : document(root: example)
            switch ScreenDecoder().decode(Array(text.utf8), source: "screens/home.json") {
            case .success: continue
            case .failure(let error):
                failures += 1
                #expect(error.description + "\n" == quoted.first, "\(error)")
            }
        }
        #expect(failures == 1)
    }

    /// Every inline rule expression that is complete JSON (`{"rule": "is_gold_member"}`, the
    /// operator examples) decodes.
    @Test func inlineRuleExpressionsDecode() throws {
        let keys: Set<String> = ["all", "any", "not", "rule", "rollout", "experiment", "attribute"]
        var checked = 0
        for piece in docs.split(separator: "`") where piece.hasPrefix("{\"") {
            guard let value = try? JSONParser.parse(String(piece)), let first = value.objectValue?.first?.key,
                keys.contains(first)
            else { continue }
            let result = DiagnosticsCollector.decode(source: "docs") { RuleExpression.decode(value, at: .root, $0) }
            #expect((try? result.get()) != nil, "\(piece)")
            checked += 1
        }
        #expect(checked >= 10)
    }

    /// The component table lists every registered type, with its version.
    @Test func componentTableListsTheRegistry() {
        for type in ComponentRegistry.standard.types.values {
            #expect(docs.contains("| \(type.name) | \(type.introduced) |"), "\(type.name)")
        }
    }
}
