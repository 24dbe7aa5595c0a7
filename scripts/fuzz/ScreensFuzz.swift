// libFuzzer entry for what ops and screen authors send: a screen document, as `PUT /admin/screens/{id}`
// and `Config/screens/*.json` give it, or a targeting configuration, as `Config/targeting.json`. Built
// by scripts/fuzz-screens with the sources of TrellisJSON, TrellisTargeting, TrellisLayout,
// TrellisLayoutJSON and TrellisScreens compiled as one module (not part of the package), the shipped
// Config/targeting.json, templates and screens compiled in. The input is the document: one with a
// `root` member is a screen, any other a targeting configuration. Invariants for a screen:
//   - a document refused has at least one diagnostic, each with a message, and locating them in
//     the document (the server's error answer) does not crash;
//   - a document accepted and whose references check resolves, for users, platforms and every
//     schema version, to a tree that encodes as JSON that parses again; its parameters fill in or
//     fail with a message; its encoding plan, where it has one, writes the same bytes or fails
//     with the same error;
//   - an accepted screen, encoded in the authoring shape, decodes again to the same encoding and
//     the same decisions (what an author gets back to edit must be publishable as it is).
// For a targeting configuration:
//   - a refused one has diagnostics, as above;
//   - an accepted one encodes to JSON that decodes to a configuration encoding to the same bytes
//     (its documented round trip); every rule evaluates and explains for every user, every rollout
//     and experiment decides, and a variant is always one of the experiment's; every shipped screen
//     whose references it satisfies resolves with it as a screen does above.

let targeting: TargetingConfiguration = {
    guard case .success(let configuration) = TargetingConfiguration.decode(Array(shippedTargetingJSON.utf8), source: "targeting.json")
    else { fatalError("Config/targeting.json does not decode") }
    return configuration
}()

let templates: TemplateLibrary = {
    TemplateLibrary(shippedTemplates.map { id, text in
        guard case .success(let template) = TemplateLibrary.decode(Array(text.utf8), source: "templates/\(id).json", expectedID: id)
        else { fatalError("Config/templates/\(id).json does not decode") }
        return template
    })
}()

let decoder = ScreenDecoder()
let resolver = ScreenResolver()
let evaluator = Evaluator(targeting)

let shippedScreens: [Screen] = shippedScreenDocuments.map { id, text in
    guard case .success(let screen) = decoder.decode(Array(text.utf8), source: "screens/\(id).json", expectedID: id, templates: templates)
    else { fatalError("Config/screens/\(id).json does not decode") }
    return screen
}
let contexts = [
    UserContext(),
    UserContext(userID: "u1", platform: "ios", appVersion: SemanticVersion("5.3.0"), attributes: ["membership": "gold"]),
    UserContext(userID: "u-2", platform: "android", appVersion: SemanticVersion("4.9.0"), locale: "de-DE", country: "DE"),
    UserContext(userID: "u3", platform: "web", appVersion: SemanticVersion("6.0.1"), attributes: ["tier": "free"]),
]

/// `document` is the input parsed, when it parses: what the server locates the diagnostics in.
func checkRefused(_ error: DiagnosticsError, _ document: JSONValue?) {
    precondition(!error.diagnostics.isEmpty, "a refused document without a diagnostic")
    precondition(!error.description.isEmpty, "a refused document without a message")
    if let document { _ = error.locating(in: document).description }
}

func serve(_ screen: Screen, with evaluator: Evaluator) {
    let decisions = resolver.decisions(of: screen)
    for context in contexts {
        let outcomes = resolver.outcomes(of: decisions, for: context, evaluator: evaluator)
        _ = decisions.reachability(of: outcomes)
        for version in 1...ComponentRegistry.latestSchemaVersion {
            let plan = ScreenEncodingPlan.make(screen, decisions: decisions, clientSchemaVersion: version, resolver: resolver)
            let given = Dictionary(screen.parameters.map { ($0.name, JSONValue.string("42")) }, uniquingKeysWith: { a, _ in a })
            let planned = plan.map { plan in Result { () throws(ParameterError) in try plan.encode(outcomes, revision: 1, parameters: given) } }
            var resolved = resolver.resolve(screen, decisions: decisions, outcomes: outcomes, clientSchemaVersion: version)
            if resolved.usesParameters {
                do {
                    resolved = try resolved.substituting(given)
                } catch {
                    precondition(!"\(error)".isEmpty, "a parameter error without a message")
                    precondition(planned.map { $0 == .failure(error) } ?? true, "an encoding plan fails otherwise than the resolver")
                    continue
                }
            }
            let encoded = JSONWriter.encode(resolved.jsonValue(revision: 1))
            precondition((try? JSONParser.parse(encoded)) != nil, "a resolved screen's JSON does not parse")
            precondition(planned.map { $0 == .success(encoded) } ?? true, "an encoding plan's bytes are not the resolver's")
        }
    }
}

func fuzzTargeting(_ bytes: [UInt8], _ document: JSONValue?) {
    let configuration: TargetingConfiguration
    switch TargetingConfiguration.decode(bytes, source: "targeting.json") {
    case .failure(let error):
        return checkRefused(error, document)
    case .success(let decoded):
        configuration = decoded
    }
    let stored = JSONWriter.encode(configuration.jsonValue)
    guard case .success(let again) = TargetingConfiguration.decode(stored, source: "stored.json") else {
        preconditionFailure("an accepted targeting configuration, encoded, is refused:\n\(String(decoding: stored, as: UTF8.self))")
    }
    precondition(JSONWriter.encode(again.jsonValue) == stored, "a targeting configuration, encoded and decoded, encodes otherwise")

    let evaluator = Evaluator(configuration)
    for context in contexts {
        for rule in configuration.rules.values {
            let value = evaluator.evaluate(rule, for: context)
            let explanation = evaluator.explain(rule, for: context)
            precondition(explanation.value == value, "an explanation disagrees with the evaluation")
            _ = JSONWriter.encode(explanation.jsonValue)
        }
        for key in configuration.rollouts.keys { _ = JSONWriter.encode(evaluator.rolloutDecision(key, for: context).jsonValue) }
        for (key, experiment) in configuration.experiments {
            let decision = evaluator.variantDecision(of: key, for: context)
            precondition(decision.map { chosen in experiment.variants.contains { $0.name == chosen.variant } } == true,
                         "experiment \(key) gave a variant it does not have")
            _ = decision.map { JSONWriter.encode($0.jsonValue) }
        }
    }
    for screen in shippedScreens where (try? screen.checkReferences(in: configuration, source: "fuzz")) != nil {
        serve(screen, with: evaluator)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let document = try? JSONParser.parse(bytes)
    guard document?["root"] != nil else {
        fuzzTargeting(bytes, document)
        return 0
    }
    let screen: Screen
    switch decoder.decode(bytes, source: "fuzz.json", expectedID: nil, templates: templates) {
    case .failure(let error):
        checkRefused(error, document)
        return 0
    case .success(let decoded):
        screen = decoded
    }
    do throws(DiagnosticsError) {
        try screen.checkReferences(in: targeting, source: "fuzz.json")
    } catch {
        checkRefused(error, document)
        return 0
    }
    serve(screen, with: evaluator)

    let stored = JSONWriter.encode(screen.authoredJSONValue)
    switch decoder.decode(stored, source: "stored.json", expectedID: screen.id, templates: templates) {
    case .failure(let error):
        preconditionFailure("an accepted screen, encoded, is refused: \(error)\n\(String(decoding: stored, as: UTF8.self))")
    case .success(let again):
        precondition(JSONWriter.encode(again.authoredJSONValue) == stored, "an accepted screen, encoded and decoded, encodes otherwise")
        precondition(
            resolver.decisions(of: again).count == resolver.decisions(of: screen).count,
            "an accepted screen, encoded and decoded, has other decisions")
    }
    return 0
}
