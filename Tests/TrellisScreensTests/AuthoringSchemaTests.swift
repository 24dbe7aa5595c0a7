import Foundation
import Testing
import TrellisJSON
import TrellisScreens
import TrellisTargeting

/// docs/screen.schema.json is the generator's output, and the schema and the decoder agree on the
/// screen fixtures (`scripts/validate-screens` checks the same fixtures with Python's `jsonschema`).
@Suite struct AuthoringSchemaTests {
    static let repository = screensDirectory.deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = repository.appendingPathComponent("Fixtures/screens")

    static func files(_ folder: String) -> [URL] {
        let directory = fixtures.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { directory.appendingPathComponent($0) }
    }

    let schema = AuthoringSchema.jsonValue()

    func definition(_ name: String) throws -> JSONValue { try #require(schema["$defs"]?[name], "no $defs/\(name)") }

    @Test func theCommittedSchemaIsTheGeneratedOne() throws {
        let data = try Data(contentsOf: Self.repository.appendingPathComponent("docs/screen.schema.json"))
        let committed = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let generated = AuthoringSchema.text().split(separator: "\n", omittingEmptySubsequences: false)
        guard committed != generated else { return }
        // Not the whole file in the failure: the line where they part, and the command that fixes it.
        let line = zip(committed, generated).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(committed.count, generated.count)
        Issue.record(
            "docs/screen.schema.json is out of date from line \(line + 1); regenerate it with `\(AuthoringSchema.regenerateCommand)`")
    }

    /// Stable across processes (where hashing is seeded anew) is shown by comparing with the file
    /// another process wrote (above) and by `CommandLineTests.schemaPrintsOrWritesTheCommittedSchema`,
    /// which runs the binary; here, that the text is the schema the other tests read.
    @Test func theTextParsesToTheSchema() throws {
        #expect(try JSONParser.parse(AuthoringSchema.text()) == schema)
        #expect(schema["$schema"]?.stringValue == "https://json-schema.org/draft/2020-12/schema")
    }

    @Test(arguments: files("valid").map(\.lastPathComponent))
    func validFixturesDecode(file: String) throws {
        let bytes = Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("valid/" + file)))
        let id = String(file.dropLast(".json".count))
        let result = ScreenDecoder().decode(bytes, source: file, expectedID: id)
        #expect((try? result.get()) != nil, "\(result)")
    }

    /// Where each invalid fixture's mistake is, from the table in Fixtures/screens/README.md.
    static func statedPaths() throws -> [String: String] {
        let readme = try String(contentsOf: fixtures.appendingPathComponent("README.md"), encoding: .utf8)
        var paths: [String: String] = [:]
        for line in readme.split(separator: "\n") where line.hasPrefix("| `invalid/") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3, cells[0].hasPrefix("`invalid/"), cells[2].hasPrefix("`") else { continue }
            paths[String(cells[0].dropFirst("`invalid/".count).dropLast())] = String(cells[2].dropFirst().dropLast())
        }
        return paths
    }

    /// Refused for its mistake, not for any: the decoder's first diagnostic is at the path the
    /// fixture's line in the README names.
    @Test(arguments: files("invalid").map(\.lastPathComponent))
    func invalidFixturesAreRefusedByTheDecoderForTheirMistake(file: String) throws {
        let bytes = Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("invalid/" + file)))
        let stated = try #require(try Self.statedPaths()[file], "Fixtures/screens/README.md has no line with the path of \(file)'s mistake")
        switch ScreenDecoder().decode(bytes, source: file) {
        case .success: Issue.record("\(file) was accepted")
        case .failure(let error): #expect(error.diagnostics.first?.path.description == stated, "\(error)")
        }
    }

    @Test func thereAreEnoughFixtures() {
        #expect(Self.files("valid").count >= 3)
        #expect(Self.files("invalid").count >= 8)
    }

    /// `$schema` is accepted as a string, and leaves no trace in the decoded screen.
    @Test func dollarSchemaIsIgnored() throws {
        let plain = #"{"id": "a", "schemaVersion": 1, "root": {"type": "Spacer"}}"#
        let named = #"{"$schema": "../../docs/screen.schema.json", "id": "a", "schemaVersion": 1, "root": {"type": "Spacer"}}"#
        let a = try decodeScreen(plain).get()
        let b = try decodeScreen(named).get()
        #expect(JSONWriter.encode(b.jsonValue(revision: 1)) == JSONWriter.encode(a.jsonValue(revision: 1)))
        let wrong = diagnostics(#"{"$schema": 1, "id": "a", "schemaVersion": 1, "root": {"type": "Spacer"}}"#)
        #expect(wrong.map(\.message) == ["expected a string, found a number"])
        #expect(wrong.first?.path.description == #"$["$schema"]"#)
    }

    /// Each version's node lists the registry's types of that version, and the decoder refuses the
    /// newer ones at that version.
    @Test func eachVersionListsItsTypes() throws {
        for version in 1...ComponentRegistry.latestSchemaVersion {
            let listed = try definition("v\(version).node")["properties"]?["type"]?["enum"]?.arrayValue?.compactMap(\.stringValue)
            let expected = ComponentRegistry.standard.types.values.filter { $0.introduced <= version }.map(\.name).sorted()
            #expect(listed == ["Rule", "Experiment", "Template"] + expected)
        }
        let button = diagnostics(document(root: #"{"type": "Button", "values": {"title": "Go"}}"#, schemaVersion: 1))
        #expect(button.map(\.message) == ["Button needs schema version 2, but the screen declares schemaVersion 1"])
    }

    /// Every style name the schema lists is one the layout engine applies, with the values the schema
    /// says it takes; a name it does not list is refused.
    @Test func styleNamesAreTheLayoutEngines() throws {
        let properties = try #require(try definition("style")["properties"]?.objectValue)
        #expect(properties.count > 50)
        for property in properties {
            var samples: [String] = []
            if let names = property.value["enum"]?.arrayValue {
                samples = names.compactMap { $0.stringValue.map(JSONWriter.quoted) }
            } else {
                let pattern = try #require(property.value["pattern"]?.stringValue)
                samples = ["12", "\"12\"", "null"]
                if !pattern.contains("%") { samples.append("\"auto\"") } else { samples += ["\"50%\"", "\"8px\"", "\"undefined\""] }
                if pattern.contains("|auto") { samples.append("\"auto\"") }
                if pattern.contains("max-content") { samples += ["\"max-content\"", "\"fit-content\"", "\"stretch\""] }
            }
            for sample in samples {
                let root = #"{"type": "VStack", "style": {"\#(property.key)": \#(sample)}}"#
                #expect((try? decodeScreen(document(root: root)).get()) != nil, "\(property.key): \(sample)")
            }
        }
        #expect(!diagnostics(document(root: #"{"type": "VStack", "style": {"widht": 1}}"#)).isEmpty)
    }

    /// The operand the schema gives each operator is the one the decoder takes.
    @Test func operatorOperandsAreTheDecoders() throws {
        let groups = try #require(try definition("ruleCondition")["allOf"]?.arrayValue)
        var seen: [String] = []
        for group in groups {
            let ops = (group["if"]?["properties"]?["op"]?["enum"]?.arrayValue ?? []).compactMap { $0.stringValue }
            #expect(!ops.isEmpty)
            let value = try #require(group["then"]?["properties"]?["value"])
            let sample: String =
                switch (value["type"]?.stringValue, value["pattern"]?.stringValue) {
                case ("array", _): #"["x"]"#
                case ("number", _): "1"
                case ("string", let pattern?) where pattern.hasPrefix("^[0-9]{4}"): #""2026-02-28T10:00:00Z""#
                case ("string", let pattern?) where pattern.hasPrefix("^[0-9]{1,9}"): #""5.2.1-beta.2+7""#
                default: #""x""#
                }
            for op in ops {
                seen.append(op)
                let accepted = #"{"attribute": "a", "op": "\#(op)", "value": \#(sample)}"#
                let refused = #"{"attribute": "a", "op": "\#(op)", "value": \#(sample == "1" ? #""x""# : "1")}"#
                #expect(decodes(accepted), "\(accepted)")
                #expect(!decodes(refused), "\(refused)")
            }
        }
        #expect(Set(seen) == Set(AttributeCondition.Operator.allCases.map(\.rawValue)))
    }

    private func decodes(_ expression: String) -> Bool {
        guard let value = try? JSONParser.parse(expression) else { return false }
        let result = DiagnosticsCollector.decode(source: "test") { RuleExpression.decode(value, at: .root, $0) }
        return (try? result.get()) != nil
    }
}
