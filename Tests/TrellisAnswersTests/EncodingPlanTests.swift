import Foundation
import Testing
import TrellisAnswers
import TrellisJSON
import TrellisScreens
import TrellisStrings
import TrellisTesting

/// ``ScreenEncodingPlan`` against the resolver it stands in for: for every screen, schema version
/// and outcome vector tried, the plan's bytes must be the reference encoder's — the resolver's
/// answer encoded — byte for byte.
@Suite struct EncodingPlanTests {
    let resolver = ScreenResolver()

    /// The long way, ``ScreenAnswerEncoder/reference(_:outcomes:clientSchemaVersion:revision:parameters:resolver:style:)``:
    /// resolve, substitute, then encode.
    func resolvedBytes(
        _ screen: Screen, _ outcomes: Outcomes, revision: Int = 7, schemaVersion: Int, parameters: [String: JSONValue],
        strings: LocalizedStrings? = nil
    ) -> Result<[UInt8], ParameterError> {
        Result { () throws(ParameterError) in
            try ScreenAnswerEncoder.reference(
                screen, outcomes: outcomes, clientSchemaVersion: schemaVersion, revision: revision, parameters: parameters, strings: strings,
                resolver: resolver)
        }
    }

    /// For a screen with strings, each shipped locale and the pseudo-locale in turn; else none.
    func stringsFor(_ screen: Screen, _ index: Int) -> LocalizedStrings? {
        guard screen.usesStrings else { return nil }
        let locales = configStrings.locales
        return configStrings.resolve(locales[index % locales.count])
    }

    /// Outcome vectors for `decisions`: all zeros, all ones, then `count` drawn at random (a Rule 0
    /// or 1, an Experiment any variant, nothing, or an index past its variants; a rollout 0 or 1).
    func outcomeVectors(_ decisions: ScreenDecisions, count: Int, generator: inout SplitMix64) -> [Outcomes] {
        var vectors = [Outcomes([UInt8](repeating: 0, count: decisions.count)), Outcomes([UInt8](repeating: 1, count: decisions.count))]
        for _ in 0..<count {
            var bytes: [UInt8] = decisions.points.map { point in
                switch point.kind {
                case .rule: UInt8(generator.below(2))
                case .experiment(_, let variants):
                    generator.below(8) == 0 ? Outcomes.none : UInt8(generator.below(variants.count + 1))
                }
            }
            bytes += decisions.rollouts.map { _ in UInt8(generator.below(2)) }
            vectors.append(Outcomes(bytes))
        }
        return vectors
    }

    /// For a screen that takes parameters: none; each given as a number-like string, as text with
    /// a space and a slash, as a JSON number; and every other one left out (defaults, or errors).
    func parameterSets(_ screen: Screen) -> [[String: JSONValue]] {
        let names = screen.parameterNames
        guard !names.isEmpty else { return [[:]] }
        func each(_ value: JSONValue) -> [String: JSONValue] { Dictionary(uniqueKeysWithValues: names.map { ($0, value) }) }
        let alternate = Dictionary(uniqueKeysWithValues: names.enumerated().filter { $0.offset % 2 == 0 }.map { ($0.element, JSONValue.string("3")) })
        return [[:], each(.string("3")), each(.string("a b/c")), each(.number(12)), alternate]
    }

    /// Checks every schema version the screen can be asked at; the number of answers compared.
    @discardableResult
    func expectPlanMatchesResolver(
        _ screen: Screen, vectors: Int = 64, seed: UInt64 = 1, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> Int {
        let decisions = resolver.decisions(of: screen)
        var generator = SplitMix64(seed: seed)
        var compared = 0
        for version in 1...ComponentRegistry.latestSchemaVersion {
            guard let plan = ScreenEncodingPlan.make(screen, decisions: decisions, clientSchemaVersion: version, resolver: resolver) else {
                #expect(Self.hasDecidingFallback(screen.root), "no plan for \(screen.id) at version \(version)", sourceLocation: sourceLocation)
                continue
            }
            for outcomes in outcomeVectors(decisions, count: vectors, generator: &generator) {
                for parameters in parameterSets(screen) {
                    // One plan serves every revision with this content.
                    let revision = [1, 7, 1_000_000][compared % 3]
                    let strings = stringsFor(screen, compared)
                    let planned = Result { () throws(ParameterError) in
                        try plan.encode(outcomes, revision: revision, parameters: parameters, strings: strings)
                    }
                    let expected = resolvedBytes(screen, outcomes, revision: revision, schemaVersion: version, parameters: parameters, strings: strings)
                    guard planned == expected else {
                        Issue.record(
                            "\(screen.id) v\(version) outcomes \(outcomes) parameters \(parameters) locale \(strings?.tag ?? "-"):\nplan     \(Self.text(planned))\nresolver \(Self.text(expected))",
                            sourceLocation: sourceLocation)
                        return compared
                    }
                    compared += 1
                }
            }
        }
        return compared
    }

    static func text(_ result: Result<[UInt8], ParameterError>) -> String {
        switch result {
        case .success(let bytes): String(decoding: bytes, as: UTF8.self)
        case .failure(let error): "error: \(error)"
        }
    }

    /// Whether some component has a fallback with decision points or parameters in it.
    static func hasDecidingFallback(_ node: Node) -> Bool {
        switch node {
        case .component(let component):
            if let fallback = component.fallback,
                ScreenResolver().decisions(of: Screen(id: "f", schemaVersion: 3, root: fallback)).count > 0
                    || JSONWriter.string(Screen(id: "f", schemaVersion: 3, root: fallback).jsonValue(revision: 1)).contains("\"$")
            {
                return true
            }
            return component.subviews.contains(where: hasDecidingFallback) || (component.fallback.map(hasDecidingFallback) ?? false)
        case .rule(_, _, let then, let otherwise): return hasDecidingFallback(then) || (otherwise.map(hasDecidingFallback) ?? false)
        case .experiment(_, _, let variants): return variants.contains { $0.node.map(hasDecidingFallback) ?? false }
        }
    }

    @Test func configScreensMatchTheResolver() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: screensDirectory.path).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 4)
        for file in files { expectPlanMatchesResolver(try configScreen(String(file.dropLast(5))), vectors: 48) }
    }

    @Test func fixtureScreensMatchTheResolver() throws {
        let directory = screensDirectory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/screens/valid")
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasSuffix(".json") {
            let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(file)))
            let screen = try ScreenDecoder().decode(bytes, source: file, expectedID: String(file.dropLast(5)), templates: configTemplates).get()
            expectPlanMatchesResolver(screen, vectors: 48)
        }
    }

    /// Nested decisions, branches that show nothing at the start, middle and end of a list, every
    /// subview of a list hidden (no `subviews` key left), decisions in skipped branches and fallbacks.
    @Test func listsWhoseEveryMemberMayVanish() throws {
        let screen = try inlineScreen("""
            {"type": "VStack", "id": "top", "metadata": {"k": 1}, "subviews": [
              {"type": "Rule", "id": "outer", "rule": {"rollout": "r1"},
               "child": {"type": "Rule", "id": "inner", "rule": {"rule": "r"}, "child": {"type": "Text", "values": {"text": "inner"}}},
               "else": {"type": "Experiment", "id": "ex", "experiment": "x", "variants": {"a": {"type": "Circle"}, "b": null}}},
              {"type": "Carousel", "id": "c", "subviews": [{"type": "Rule", "id": "in-carousel", "rule": {"rollout": "r2"}, "child": {"type": "Rectangle"}}],
               "fallback": {"type": "HStack", "subviews": [{"type": "Divider"}]}},
              {"type": "HStack", "style": {"flexGrow": 1}, "subviews": [
                {"type": "Rule", "rule": {"all": [{"rollout": "r1"}, {"rollout": "r3"}]}, "child": {"type": "Spacer"}},
                {"type": "Experiment", "experiment": "y", "variants": {"p": null, "q": {"type": "Text", "values": {"text": "q"}}}}
              ]},
              {"type": "Rule", "id": "last", "rule": {"rule": "r"}, "child": {"type": "Text", "values": {"text": "last"}}}
            ]}
            """, schemaVersion: 3)
        #expect(expectPlanMatchesResolver(screen, vectors: 256) > 700)
    }

    /// A root that is itself a decision, and one that shows nothing.
    @Test func decisionAtTheRoot() throws {
        let screen = try inlineScreen("""
            {"type": "Experiment", "id": "e", "experiment": "x", "variants": {"a": {"type": "Text", "values": {"text": "A"}}, "b": {"type": "Circle"}, "off": null}}
            """)
        expectPlanMatchesResolver(screen, vectors: 64)
        let rule = try inlineScreen(#"{"type": "Rule", "rule": {"rollout": "r"}, "child": {"type": "VStack", "subviews": [{"type": "Rule", "rule": {"rollout": "s"}, "child": {"type": "Spacer"}}]}}"#)
        expectPlanMatchesResolver(rule, vectors: 64)
    }

    /// A component fallback with decisions in it is shown only to old clients: the plan covers the
    /// versions that render the component and leaves the older ones to the resolver.
    @Test func fallbackWithDecisionsIsLeftToTheResolverForOldClients() throws {
        let screen = try inlineScreen("""
            {"type": "VStack", "subviews": [
              {"type": "Carousel", "id": "c", "subviews": [{"type": "Rectangle"}],
               "fallback": {"type": "Rule", "id": "in-fallback", "rule": {"rule": "r"}, "child": {"type": "Divider"}}}
            ]}
            """)
        let decisions = resolver.decisions(of: screen)
        #expect(ScreenEncodingPlan.make(screen, decisions: decisions, clientSchemaVersion: 1, resolver: resolver) == nil)
        #expect(ScreenEncodingPlan.make(screen, decisions: decisions, clientSchemaVersion: 2, resolver: resolver) != nil)
        expectPlanMatchesResolver(screen)
    }

    /// Parameters in a component's values, in an action, beside decisions; a missing one without
    /// a default fails as the resolver fails, at the component's path in the answer.
    @Test func parametersAreFilledInPerAnswer() throws {
        let screen = try inlineScreen("""
            {"type": "VStack", "subviews": [
              {"type": "Rule", "rule": {"rollout": "r"}, "child": {"type": "Text", "values": {"text": "before"}}},
              {"type": "HStack", "subviews": [
                {"type": "Text", "properties": {"lineLimit": {"$param": "lines", "default": 2}}, "values": {"text": {"$format": "Hi {name}"}}},
                {"type": "Button", "properties": {"action": {"type": "navigate", "url": {"$format": "app://product/{name}"}}}, "values": {"title": {"$param": "title"}}}
              ]}
            ]}
            """)
        #expect(expectPlanMatchesResolver(screen, vectors: 8) > 50)
        let plan = try #require(ScreenEncodingPlan.make(screen, decisions: resolver.decisions(of: screen), clientSchemaVersion: 2, resolver: resolver))
        #expect(throws: ParameterError(name: "title", path: JSONPath.root.appending("root").appending("subviews").appending(1).appending("subviews").appending(1).appending("values").appending("title"), reason: "missing, and the screen gives no default")) {
            try plan.encode(Outcomes([1, 1]), revision: 7, parameters: ["name": .string("x")])
        }
    }

    /// Random trees of every shape the generator draws: 300 screens, each at every schema version.
    @Test func generatedScreensMatchTheResolver() throws {
        var generator = SplitMix64(seed: 30)
        var compared = 0
        for index in 0..<300 {
            var tree = TreeGenerator(generator: generator)
            let root = tree.node(depth: 0)
            generator = tree.generator
            let screen: Screen
            switch decodeScreen(document(root: root, schemaVersion: 3)) {
            case .success(let decoded): screen = decoded
            case .failure(let error): Issue.record("screen \(index) does not decode: \(error)\n\(root)"); return
            }
            compared += expectPlanMatchesResolver(screen, vectors: 16, seed: UInt64(index))
        }
        #expect(compared > 5000)
    }
}
