import Foundation
import Testing
import TrellisJSON
import TrellisScreens
import TrellisTargeting

@Suite struct ConfigScreensTests {
    static let names = ["home", "order", "product", "profile"]

    func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: screensDirectory.appendingPathComponent(name + ".json")))
    }

    @Test func theDirectoryHoldsExactlyTheSampleScreens() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: screensDirectory.path).sorted()
        #expect(files == Self.names.map { $0 + ".json" })
    }

    @Test(arguments: names)
    func decodesWithItsFileNameAsID(name: String) throws {
        let result = ScreenDecoder().decode(try bytes(name), source: "screens/\(name).json", expectedID: name, templates: configTemplates)
        let screen = try result.get()
        #expect(screen.id == name)
        // The order screen uses the actions of version 3 (share, back, sequence); the others, version 2's vocabulary.
        #expect(screen.schemaVersion == (name == "order" ? 3 : 2))
        #expect(screen.title != nil)
    }

    /// Decoding loses nothing: encoding the screen gives back the file's own value (all but its
    /// `$schema`, which is for editors and not part of the screen), and that encoding decodes again
    /// to the very same bytes.
    @Test(arguments: names)
    func roundTripsToIdenticalBytes(name: String) throws {
        let source = try bytes(name)
        let screen = try ScreenDecoder().decode(source, source: name, expectedID: name, templates: configTemplates).get()
        let encoded = JSONWriter.encode(screen.authoredJSONValue)
        // A screen made of templates encodes expanded, so only one without equals its file (less `$schema`).
        let file = try JSONParser.parse(source)
        let withoutSchema = JSONValue(.object((file.objectValue ?? []).filter { $0.key != "$schema" }))
        if screen.templates.isEmpty { #expect(screen.authoredJSONValue == withoutSchema) }
        let again = try ScreenDecoder().decode(encoded, source: "encoded", expectedID: name).get()
        #expect(JSONWriter.encode(again.authoredJSONValue) == encoded)
        let pretty = JSONWriter.encode(screen.authoredJSONValue, style: .pretty)
        let fromPretty = try ScreenDecoder().decode(pretty, source: "pretty", expectedID: name).get()
        #expect(JSONWriter.encode(fromPretty.authoredJSONValue) == encoded)
    }

    /// Editors find the JSON Schema through each sample's first key.
    @Test(arguments: names)
    func namesTheSchemaFirst(name: String) throws {
        let first = try #require(try JSONParser.parse(try bytes(name)).objectValue?.first)
        #expect(first.key == "$schema")
        #expect(first.value.stringValue == "../../docs/screen.schema.json")
    }

    @Test func homeIsBetween8And20KB() throws {
        let size = try bytes("home").count
        #expect(size >= 8 * 1024 && size <= 20_000, "home.json is \(size) bytes")
    }

    /// Every component of the samples that a client might log (all but spacers) has an id.
    @Test(arguments: names)
    func everyLoggableComponentHasAnID(name: String) throws {
        let screen = try ScreenDecoder().decode(try bytes(name), source: name, templates: configTemplates).get()
        var missing: [String] = []
        func visit(_ node: Node) {
            switch node {
            case .component(let c):
                if c.id == nil && c.type != "Spacer" { missing.append(c.type) }
                c.subviews.forEach(visit)
                c.fallback.map(visit)
            case .rule(let id, _, let then, let otherwise):
                if id == nil { missing.append("Rule") }
                visit(then)
                otherwise.map(visit)
            case .experiment(let id, _, let variants):
                if id == nil { missing.append("Experiment") }
                variants.forEach { $0.node.map(visit) }
            }
        }
        visit(screen.root)
        #expect(missing.isEmpty, "\(missing)")
    }

    /// The named rules, rollouts, experiments and attributes the samples use are the ones
    /// docs/screens.md lists for Config/targeting.json.
    @Test func referencesTheDocumentedTargetingNames() throws {
        var names: Set<String> = []
        func visit(_ expression: RuleExpression) {
            switch expression {
            case .all(let list), .any(let list): list.forEach(visit)
            case .not(let inner): visit(inner)
            case .named(let n): names.insert("rule:" + n)
            case .rollout(let n): names.insert("rollout:" + n)
            case .experiment(let n, let v): names.insert("experiment:\(n)/\(v)")
            case .condition(let c): names.insert("attribute:" + c.attribute)
            }
        }
        func visit(_ node: Node) {
            switch node {
            case .component(let c):
                c.subviews.forEach(visit)
                c.fallback.map(visit)
            case .rule(_, let rule, let then, let otherwise):
                visit(rule)
                visit(then)
                otherwise.map(visit)
            case .experiment(_, let key, let variants):
                names.insert("experiment:" + key + "=" + variants.map(\.name).joined(separator: ","))
                variants.forEach { $0.node.map(visit) }
            }
        }
        for name in Self.names {
            visit(try ScreenDecoder().decode(try bytes(name), source: name, templates: configTemplates).get().root)
        }
        #expect(
            names == [
                "rule:is_gold_member", "rollout:gold-banner", "experiment:home-hero=control,big",
                "experiment:product-related=control,hidden", "attribute:appVersion", "attribute:platform",
                "attribute:country",
            ])
    }
}
