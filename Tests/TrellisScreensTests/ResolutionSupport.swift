import Foundation
import Testing
import TrellisJSON
import TrellisScreens
import TrellisTargeting

/// Config/screens/<name>.json, decoded.
func configScreen(_ name: String) throws -> Screen {
    let bytes = Array(try Data(contentsOf: screensDirectory.appendingPathComponent(name + ".json")))
    return try ScreenDecoder().decode(bytes, source: name, expectedID: name, templates: configTemplates).get()
}

/// Config/targeting.json, decoded.
func configTargetingConfiguration() throws -> TargetingConfiguration {
    let url = screensDirectory.deletingLastPathComponent().appendingPathComponent("targeting.json")
    return try TargetingConfiguration.decode(Array(try Data(contentsOf: url)), source: "targeting.json").get()
}

func context(_ parameters: [(String, String)]) throws -> UserContext {
    try UserContext.parse(parameters.map { (name: $0.0, value: $0.1) })
}

/// Decisions, outcomes and resolution of one screen for one context, the way the server runs them.
func resolved(
    _ screen: Screen, _ context: UserContext, schemaVersion: Int = 2, configuration: TargetingConfiguration
) -> ResolvedScreen {
    let resolver = ScreenResolver()
    let outcomes = resolver.outcomes(of: resolver.decisions(of: screen), for: context, evaluator: Evaluator(configuration))
    return resolver.resolve(screen, outcomes: outcomes, clientSchemaVersion: schemaVersion)
}

extension ResolvedComponent {
    /// This component and everything below it, in pre-order.
    var all: [ResolvedComponent] { [self] + subviews.flatMap(\.all) }
}

extension ResolvedScreen {
    var components: [ResolvedComponent] { root?.all ?? [] }
    var ids: Set<String> { Set(components.compactMap(\.id)) }
    var types: Set<String> { Set(components.map(\.type)) }
}

/// The first `user-N` for which `condition` holds.
func firstUser(where condition: (String) -> Bool) -> String {
    var i = 0
    while !condition("user-\(i)") { i += 1 }
    return "user-\(i)"
}

/// A one-node-at-a-time screen for resolver unit tests; the root is decoded from `root`.
func inlineScreen(_ root: String, schemaVersion: Int = 2) throws -> Screen {
    try decodeScreen(document(root: root, schemaVersion: schemaVersion)).get()
}
