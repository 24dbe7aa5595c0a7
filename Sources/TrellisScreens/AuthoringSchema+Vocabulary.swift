import TrellisJSON
import TrellisLayout

extension AuthoringSchema {
    /// The definitions of one schema version: its nodes, its component types and its actions, named
    /// `v<version>.<name>`.
    struct Vocabulary {
        let registry: ComponentRegistry
        let version: Int

        /// The component types of this version, by name.
        var types: [ComponentType] { registry.types.values.filter { $0.introduced <= version }.sorted { $0.name < $1.name } }

        /// The action kinds of this version, by name.
        var kinds: [ActionKind] { ActionKind.all.values.filter { $0.introduced <= version }.sorted { $0.name < $1.name } }

        func name(_ suffix: String) -> String { "v\(version).\(suffix)" }

        func definitions() -> [(String, JSONValue)] {
            var defs: [(String, JSONValue)] = []
            defs += nodeDefinitions(NodeSet(suffix: "", types: types.map(\.name), purpose: "A node"))
            // Where only some types may stand, looking through Rules and Experiments (ScreenDecoder's
            // `componentKinds`): the children of a type with `allowedChildren`, and fallbacks.
            for type in types {
                if let allowed = type.allowedChildren {
                    defs += nodeDefinitions(NodeSet(suffix: ".in\(type.name)", types: allowed.map(\.name).sorted(), purpose: "A subview of \(type.name)"))
                }
            }
            for introduced in Set(types.map(\.introduced)).sorted() where types.contains(where: { $0.introduced < introduced }) {
                let older = types.filter { $0.introduced < introduced }.map(\.name)
                defs += nodeDefinitions(
                    NodeSet(suffix: ".before\(introduced)", types: older, purpose: "A fallback for a type of schema version \(introduced), made of older types"))
            }
            defs += types.map { (name($0.name), component($0)) }
            defs += actionDefinitions()
            return defs
        }

        // MARK: Nodes

        /// Nodes whose components may only be of `types`: the node itself, and the Rule and
        /// Experiment nodes whose branches are such nodes again.
        struct NodeSet {
            var suffix: String
            var types: [String]
            var purpose: String
        }

        private func nodeDefinitions(_ set: NodeSet) -> [(String, JSONValue)] {
            let node = name("node" + set.suffix)
            let choices: [(name: String, definition: String)] =
                [("Rule", name("Rule" + set.suffix)), ("Experiment", name("Experiment" + set.suffix)), ("Template", "Template")]
                + set.types.map { ($0, name($0)) }
            let rule = closedObject(
                required: ["type", "rule", "child"],
                [
                    ("type", object([("const", .string("Rule"))])), ("id", ref("id")),
                    ("rule", ref("ruleExpression")),
                    ("child", described("Shown to the users that match the rule.", ref(node))),
                    ("else", described("Shown to the others (nothing when absent).", ref(node))),
                ])
            let experiment = closedObject(
                required: ["type", "experiment", "variants"],
                [
                    ("type", object([("const", .string("Experiment"))])), ("id", ref("id")),
                    ("experiment", described("The experiment's key.", ref("id"))),
                    (
                        "variants",
                        described(
                            "Variant name → node; null shows nothing (a holdout). At least two variants.",
                            object([
                                ("type", .string("object")), ("minProperties", .number(2)), ("propertyNames", ref("id")),
                                ("additionalProperties", object([("anyOf", .array([object([("type", .string("null"))]), ref(node)]))])),
                            ]))
                    ),
                ])
            return [
                (node, discriminated("\(set.purpose) of schema version \(version): a Rule, an Experiment, a Template or a component.", choices)),
                (name("Rule" + set.suffix), described("Shows child to the users that match rule, else (or nothing) to the others.", rule)),
                (name("Experiment" + set.suffix), described("Shows the variant the experiment assigns to the user.", experiment)),
            ]
        }

        // MARK: Components

        private func component(_ type: ComponentType) -> JSONValue {
            var required = ["type"]
            var members: [(String, JSONValue)] = [("type", object([("const", .string(type.name))])), ("id", ref("id"))]
            let properties = type.properties.filter { $0.value.introduced <= version }
            members.append(("properties", group(properties, of: type, kind: "properties")))
            let values = type.values.filter { $0.value.introduced <= version }
            if values.values.contains(where: \.required) || !type.oneValueOf.isEmpty { required.append("values") }
            members.append(("values", group(values, of: type, kind: "values")))
            members.append(("style", ref("style")))
            if type.kind == .pins {
                required.append("pins")
                members += pinMembers
            }
            switch type.children {
            case .none: break
            case .many:
                members.append(("subviews", object([("type", .string("array")), ("items", ref(childNode(of: type)))])))
            case .one:
                required.append("subviews")
                members.append(
                    ("subviews", object([("type", .string("array")), ("minItems", .number(1)), ("maxItems", .number(1)), ("items", ref(childNode(of: type)))])))
            }
            if types.contains(where: { $0.introduced < type.introduced }) {
                members.append(
                    ("fallback", described("What clients too old for \(type.name) get instead: a node of older types.", ref(name("node.before\(type.introduced)")))))
            }
            members.append(("metadata", ref("metadata")))
            return described(description(of: type), closedObject(required: required, members))
        }

        /// A Pins container's `pins`, `align` and `metrics` (docs/screens.md#pins-3).
        private var pinMembers: [(String, JSONValue)] {
            let string = object([("type", .string("string")), ("minLength", .number(1)), ("maxLength", .number(Double(VisualFormat.Limits.maximumLength)))])
            return [
                ("pins", described(
                    "Visual format strings placing the subviews by id, e.g. \"H:|-16-[title]-(>=8)-[badge]-16-|\".",
                    object([("type", .string("array")), ("minItems", .number(1)), ("maxItems", .number(Double(PinsCheck.maximumFormats))),
                            ("items", string)]))),
                ("align", described(
                    "Subview id → attributes set equal to another view's, e.g. {\"badge\": \"centerY:title\"}.",
                    object([("type", .string("object")), ("additionalProperties", string)]))),
                ("metrics", described(
                    "Names for points used in the pin strings, e.g. {\"margin\": 16}.",
                    object([("type", .string("object")), ("additionalProperties", object([("type", .string("number"))]))]))),
            ]
        }

        private func childNode(of type: ComponentType) -> String {
            name(type.allowedChildren == nil ? "node" : "node.in\(type.name)")
        }

        private func description(of type: ComponentType) -> String {
            var text = "\(type.name), since schema version \(type.introduced)"
            switch type.children {
            case .none: text += "; no subviews"
            case .one: text += "; exactly one subview"
            case .many: text += type.allowedChildren.map { "; subviews: only \($0.map(\.name).sorted().joined(separator: ", "))" } ?? "; any number of subviews"
            }
            if !type.oneValueOf.isEmpty { text += "; exactly one of the values \(type.oneValueOf.joined(separator: ", "))" }
            if let fallback = type.defaultFallback { text += "; default fallback \(fallback.name)" }
            return text + "."
        }

        /// `properties` or `values`: an object of the type's specs.
        private func group(_ specs: [String: PropertySpec], of type: ComponentType, kind: String) -> JSONValue {
            let members = specs.sorted { $0.key < $1.key }.map { key, spec in
                let schema: JSONValue = if case .action = spec.type { ref(name("action")) } else { slot(.property(spec.type)) }
                return (key, spec.introduced > 1 ? described("Since schema version \(spec.introduced).", schema) : schema)
            }
            var schema = closedObject(required: specs.filter(\.value.required).map(\.key).sorted(), members)
            if specs.isEmpty { schema = described("\(type.name) takes no \(kind).", schema) }
            guard !type.oneValueOf.isEmpty, kind == "values" else { return schema }
            let exactlyOne = JSONValue.array(type.oneValueOf.map { object([("required", strings([$0]))]) })
            return object((schema.objectValue ?? []).map { ($0.key, $0.value) } + [("oneOf", exactlyOne)])
        }

        // MARK: Actions

        private func actionDefinitions() -> [(String, JSONValue)] {
            guard !kinds.isEmpty else { return [] }
            var defs: [(String, JSONValue)] = [
                (name("action"), discriminated("What a tap does (schema version \(version)).", kinds.map { ($0.name, name("action.\($0.name)")) }))
            ]
            for introduced in Set(kinds.map(\.introduced)).sorted() where kinds.contains(where: { $0.introduced < introduced }) {
                let older = kinds.filter { $0.introduced < introduced }
                defs.append(
                    (
                        name("action.before\(introduced)"),
                        discriminated(
                            "A fallback for an action kind of schema version \(introduced): an older kind.",
                            older.map { ($0.name, name("action.\($0.name)")) })
                    ))
            }
            defs += kinds.map { (name("action.\($0.name)"), action($0)) }
            return defs
        }

        private func action(_ kind: ActionKind) -> JSONValue {
            var members: [(String, JSONValue)] = [("type", object([("const", .string(kind.name))]))]
            for (key, field) in kind.fields.sorted(by: { $0.key < $1.key }) {
                members.append((key, self.field(field)))
            }
            if kinds.contains(where: { $0.introduced < kind.introduced }) {
                members.append(("fallback", described("What clients too old for \(kind.name) do instead: an older kind.", ref(name("action.before\(kind.introduced)")))))
            }
            var schema = described("\(kind.name), since schema version \(kind.introduced).", closedObject(required: ["type"] + kind.required, members))
            if !kind.oneOrMoreOf.isEmpty {
                let any = JSONValue.array(kind.oneOrMoreOf.map { object([("required", strings([$0]))]) })
                schema = object((schema.objectValue ?? []).map { ($0.key, $0.value) } + [("anyOf", any)])
            }
            return schema
        }

        private func field(_ field: ActionKind.Field) -> JSONValue {
            switch field {
            case .value(let slot):
                return self.slot(slot)
            case .choice(let choices):
                return object([("enum", strings(choices))])
            case .scalars:
                // Free-form analytics values; one written as a parameter (an object with a key that
                // starts with "$", ParameterReference.isWritten) is checked as one.
                let written = object([("type", .string("object")), ("not", object([("propertyNames", object([("not", object([("pattern", .string("^\\$"))]))]))]))])
                return described(
                    "Analytics properties: any values; a value written as a parameter is checked as one.",
                    object([
                        ("type", .string("object")),
                        ("additionalProperties", object([("if", written), ("then", AuthoringSchema.slot(.scalar))])),
                    ]))
            case .actions:
                let length = ActionKind.sequenceLength
                return object([
                    ("type", .string("array")), ("minItems", .number(length.lowerBound)), ("maxItems", .number(length.upperBound)),
                    ("items", ref(name("action"))),
                ])
            }
        }

        private func slot(_ slot: ParameterSlot) -> JSONValue { AuthoringSchema.slotReference(slot) }
    }
}
