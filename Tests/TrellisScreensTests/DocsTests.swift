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

    /// Every JSON example decodes (a template file as a template, the rest as screens using it),
    /// except the one under "Errors", whose description is quoted verbatim.
    @Test func jsonExamplesDecodeAsDocumented() throws {
        let examples = blocks(after: "```json\n")
        #expect(examples.count == 11)
        let quoted = blocks(after: "fails with exactly this description:\n\n```\n")
        #expect(quoted.count == 1)
        var templates: [Template] = []
        for example in examples where try JSONParser.parse(example)["parameters"] != nil {
            let id = try JSONParser.parse(example)["id"]?.stringValue ?? ""
            templates.append(try TemplateLibrary.decode(Array(example.utf8), source: "templates/\(id).json", expectedID: id).get())
        }
        #expect(templates.count == 1)
        var failures = 0
        for example in examples {
            let value = try JSONParser.parse(example)
            guard value["parameters"] == nil else { continue }
            let text = value["root"] != nil ? example : document(root: example, schemaVersion: ComponentRegistry.latestSchemaVersion)
            switch ScreenDecoder().decode(Array(text.utf8), source: "screens/home.json", templates: TemplateLibrary(templates)) {
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

    /// The action table lists every kind the decoder knows (from its own error message), with the
    /// schema version the decoder refuses it below.
    @Test func actionTableListsEveryKind() throws {
        let unknown = diagnostics(document(root: #"{"type": "Spacer", "properties": {"action": {"type": "?"}}}"#, schemaVersion: 3))
        let message = try #require(unknown.first?.message)
        let list = try #require(message.split(separator: ": one of ").last?.split(separator: ";").first)
        let kinds = list.split(separator: ", ").map(String.init)
        #expect(kinds.count == 9)
        for kind in kinds {
            let action = "{\"type\": \"Spacer\", \"properties\": {\"action\": {\"type\": \"\(kind)\"}}}"
            let found: [Diagnostic]
            switch decodeScreen(document(root: action, schemaVersion: 2)) {
            case .success: found = []
            case .failure(let error): found = error.diagnostics
            }
            let refusedIn2 = found.contains { $0.message.hasPrefix("\(kind) needs schema version 3") }
            #expect(docs.contains("| `\(kind)` | \(refusedIn2 ? 3 : 2) |"), "\(kind)")
        }
    }

    /// The component table lists every registered type, with its version.
    @Test func componentTableListsTheRegistry() {
        for type in ComponentRegistry.standard.types.values {
            #expect(docs.contains("| \(type.name) | \(type.introduced) |"), "\(type.name)")
        }
    }
}
