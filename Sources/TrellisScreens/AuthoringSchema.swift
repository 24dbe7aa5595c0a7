import TrellisJSON

/// A JSON Schema (draft 2020-12, <https://json-schema.org/draft/2020-12/json-schema-core>) of the
/// authoring format, generated from the component registry and the decoder's own tables (action
/// kinds, parameter slots, rule operators, the layout engine's style keywords), so it cannot drift
/// from what ``ScreenDecoder`` accepts. `docs/screen.schema.json` is its committed output, written by
/// `trellis schema --output docs/screen.schema.json`; editors use it for completion and inline errors,
/// and `scripts/validate-screens` checks screens against it with an independent validator.
///
/// The schema accepts a subset of what the decoder accepts and refuses what the decoder refuses,
/// except for the checks a schema cannot express, which only the decoder makes (``decoderOnlyChecks``).
///
/// Each schema version gets its own definitions (`v1.node`, `v2.Text`, `v3.action`…), because a
/// screen may use only the types, properties and action kinds of the version it declares: the
/// document's `root` is checked against the definitions of its `schemaVersion`.
public enum AuthoringSchema {
    /// The draft this schema is written in.
    public static let metaSchema = "https://json-schema.org/draft/2020-12/schema"
    /// The command that writes `docs/screen.schema.json`.
    public static let regenerateCommand = "swift run trellis schema --output docs/screen.schema.json"

    /// What the decoder checks and the schema does not, said in the schema's `$comment`.
    public static let decoderOnlyChecks = [
        "node ids are unique across the document",
        "a file's id equals its name",
        "sequences nest at most \(ActionKind.maxSequenceDepth) deep",
        "dates exist (2026-02-30 is refused)",
        "style values in rare spellings (\"1e2\", \".5%\") are refused here but may be accepted by the layout engine",
        "the rules, rollouts and experiments a screen names exist in Config/targeting.json",
        "navigate links match a route in Config/routes.json",
        "Template nodes name a template that exists, with fitting args",
    ]

    /// The schema of a screen document for `registry`'s vocabulary, in a stable order.
    public static func jsonValue(registry: ComponentRegistry = .standard) -> JSONValue {
        let latest = ComponentRegistry.latestSchemaVersion
        var defs: [(String, JSONValue)] = sharedDefinitions() + slotDefinitions(registry: registry)
        for version in 1...latest {
            defs += Vocabulary(registry: registry, version: version).definitions()
        }
        let dispatch: [JSONValue] = (1..<latest).map { version in
            object([
                ("if", object([("required", strings(["schemaVersion"])), ("properties", object([("schemaVersion", object([("const", .number(version))]))]))])),
                ("then", object([("properties", object([("root", ref("v\(version).node"))]))])),
            ])
        }
        return object([
            ("$schema", .string(metaSchema)),
            ("title", .string("Trellis screen")),
            (
                "description",
                .string(
                    "A screen of the Trellis authoring format (docs/screens.md). Generated from the component registry: do not edit; run `\(regenerateCommand)`."
                )
            ),
            ("$comment", .string("Checked by the decoder only: " + decoderOnlyChecks.joined(separator: "; ") + ".")),
            ("type", .string("object")),
            ("required", strings(["id", "schemaVersion", "root"])),
            ("additionalProperties", .bool(false)),
            (
                "properties",
                object([
                    ("$schema", described("This schema, for editors (for example \"../../docs/screen.schema.json\"); ignored by the server.", object([("type", .string("string"))]))),
                    ("id", described("The screen's id; a file's id is its name without .json.", ref("id"))),
                    (
                        "schemaVersion",
                        described(
                            "The vocabulary the screen is written against: 1 to \(latest).",
                            object([("type", .string("integer")), ("minimum", .number(1)), ("maximum", .number(latest))]))
                    ),
                    ("title", object([("type", .string("string"))])),
                    ("metadata", ref("metadata")),
                    // The vocabularies grow with the version, so the latest one admits every root and
                    // the dispatch below narrows it to the declared version.
                    ("root", ref("v\(latest).node")),
                ])
            ),
            ("allOf", .array(dispatch)),
            ("$defs", object(defs)),
        ])
    }

    /// Definitions that do not depend on the schema version: ids, value types, parameters, rule
    /// expressions, Yoga styles and the Template node.
    static func sharedDefinitions() -> [(String, JSONValue)] {
        [
            ("id", described("1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots", object([("type", .string("string")), ("pattern", .string(Pattern.id))]))),
            ("metadata", described("Passed to the client untouched.", object([("type", .string("object"))]))),
            (
                "Template",
                described(
                    "A template, expanded by the server with its args.",
                    closedObject(
                        required: ["type", "template", "args"],
                        [
                            ("type", object([("const", .string("Template"))])), ("id", ref("id")),
                            ("template", described("The template's id.", ref("id"))),
                            ("args", described("The template's arguments: any JSON values.", object([("type", .string("object"))]))),
                        ]))
            ),
        ] + valueDefinitions() + parameterDefinitions() + ruleDefinitions() + styleDefinitions()
    }

    // MARK: Building JSON

    static func object(_ members: [(String, JSONValue)]) -> JSONValue { .object(members) }

    static func ref(_ name: String) -> JSONValue { object([("$ref", .string("#/$defs/" + name))]) }

    static func strings(_ list: [String]) -> JSONValue { .array(list.map(JSONValue.string)) }

    /// `{"type": "object", "additionalProperties": false, "required": …, "properties": …}`, like an
    /// object the decoder reads with `allowedKeys`.
    static func closedObject(required: [String] = [], _ properties: [(String, JSONValue)]) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string("object")), ("additionalProperties", .bool(false))]
        if !required.isEmpty { members.append(("required", strings(required))) }
        members.append(("properties", object(properties)))
        return object(members)
    }

    /// `schema` with a `description` first (shown by editors on hover).
    static func described(_ text: String, _ schema: JSONValue) -> JSONValue {
        object([("description", .string(text))] + (schema.objectValue ?? []).map { ($0.key, $0.value) })
    }

    /// An object with a string `type` whose value picks one of `choices`' definitions: `if` the
    /// type is the choice's name, `then` its definition applies. Editors and validators report the
    /// chosen definition's errors rather than one per alternative, as a `oneOf` would.
    static func discriminated(_ description: String, _ choices: [(name: String, definition: String)]) -> JSONValue {
        object([
            ("description", .string(description)),
            ("type", .string("object")),
            ("required", strings(["type"])),
            ("properties", object([("type", object([("enum", strings(choices.map(\.name)))]))])),
            (
                "allOf",
                .array(
                    choices.map { choice in
                        object([
                            ("if", object([("required", strings(["type"])), ("properties", object([("type", object([("const", .string(choice.name))]))]))])),
                            ("then", ref(choice.definition)),
                        ])
                    })
            ),
        ])
    }
}
