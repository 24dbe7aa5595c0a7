import TrellisJSON
import TrellisTargeting

/// Decodes and validates an authored screen, collecting every mistake with its JSON path and line.
public struct ScreenDecoder: Sendable {
    public let registry: ComponentRegistry

    public init(registry: ComponentRegistry = .standard) { self.registry = registry }

    /// Parses and validates one screen document.
    /// - Parameters:
    ///   - bytes: the document's UTF-8 text.
    ///   - source: a name for error messages, such as `screens/home.json`.
    ///   - expectedID: when given, the screen's `id` must equal it (a file's name, a URL's id).
    ///   - templates: the templates `Template` nodes may use.
    /// - Returns: the screen, or every diagnostic found.
    public func decode(
        _ bytes: [UInt8], source: String, expectedID: String? = nil, templates: TemplateLibrary = TemplateLibrary()
    ) -> Result<Screen, DiagnosticsError> {
        DiagnosticsCollector.decode(bytes, source: source) { document, collector in
            var walk = TreeWalk(registry: registry, collector: collector, templates: templates)
            return walk.screen(document, expectedID: expectedID)
        }
    }
}

/// One pass over one document; remembers ids to report duplicates.
private struct TreeWalk {
    let registry: ComponentRegistry
    let collector: DiagnosticsCollector
    /// Checks every property, value and action, and records the parameters and links they use.
    var check: ValueCheck
    var seenIDs: [String: SourceLocation] = [:]
    let templates: TemplateLibrary
    /// The templates being expanded, outermost first (to refuse a cycle).
    var expanding: [String] = []
    /// Every template the screen uses, first use first.
    var used: [String] = []

    init(registry: ComponentRegistry, collector: DiagnosticsCollector, templates: TemplateLibrary) {
        self.registry = registry
        self.collector = collector
        self.templates = templates
        self.check = ValueCheck(collector: collector, schemaVersion: ComponentRegistry.latestSchemaVersion)
    }

    /// The schema version the screen declares (the latest until its `schemaVersion` is read).
    var schemaVersion: Int { check.schemaVersion }

    static let componentKeys = KeyList(["type", "id", "properties", "values", "style", "subviews", "fallback", "metadata"])
    static let pinsKeys = KeyList(componentKeys.keys + PinSpec.keys.sorted())
    static let instanceKeys = KeyList(["type", "template", "args"])
    static let ruleKeys = KeyList(["type", "id", "rule", "child", "else"])
    static let experimentKeys = KeyList(["type", "id", "experiment", "variants"])
    static let screenKeys = KeyList(["$schema", "id", "schemaVersion", "title", "root", "metadata"])

    mutating func screen(_ value: JSONValue, expectedID: String?) -> Screen? {
        // "$schema" names the JSON Schema for editors (docs/screen.schema.json); the screen does not keep it,
        // so it is neither encoded nor part of the content fingerprint.
        guard let object = collector.object(value, at: .root, allowedKeys: Self.screenKeys)
        else { return nil }
        _ = object.string("$schema")
        let id = object.value("id", required: true).flatMap { identifier($0, at: JSONPath.root.appending("id")) }
        if let id, let expectedID, id != expectedID {
            object.report("screen id \"\(id)\" does not match \"\(expectedID)\"", atMember: "id")
        }
        let version = object.integer("schemaVersion", in: 1...ComponentRegistry.latestSchemaVersion, required: true)
        check.schemaVersion = version ?? ComponentRegistry.latestSchemaVersion
        let title = object.string("title")
        let metadata = object.value("metadata").flatMap { self.metadata($0, at: JSONPath.root.appending("metadata")) }
        let root = object.value("root", required: true).flatMap { node($0, at: JSONPath.root.appending("root")) }
        guard let id, let version, let root else { return nil }
        return Screen(
            id: id, schemaVersion: version, title: title, root: root, metadata: metadata ?? [], parameters: check.parameters,
            links: check.links, strings: check.strings, templates: used)
    }

    mutating func node(_ value: JSONValue, at path: JSONPath) -> Node? {
        guard value.objectValue != nil else {
            collector.report("expected a component object, found \(value.typeName)", at: path, value)
            return nil
        }
        guard let typeValue = value["type"] else {
            collector.report("missing required key \"type\"", at: path, value)
            return nil
        }
        guard let type = typeValue.stringValue else {
            collector.report("expected a string, found \(typeValue.typeName)", at: path.appending("type"), typeValue)
            return nil
        }
        switch type {
        case "Rule": return rule(value, at: path)
        case "Experiment": return experiment(value, at: path)
        case "Template": return instance(value, at: path)
        default: return component(type, value, at: path).map(Node.component)
        }
    }

    /// A template instance, expanded and decoded in its place. What is wrong in the expansion is
    /// reported at the instance's path and line, naming the template's file and line as well.
    private mutating func instance(_ value: JSONValue, at path: JSONPath) -> Node? {
        guard let object = collector.object(value, at: path, allowedKeys: Self.instanceKeys) else { return nil }
        guard let nameValue = object.value("template", required: true) else { return nil }
        guard let name = nameValue.stringValue, let template = templates[name] else {
            let known = templates.templates.keys.sorted().joined(separator: ", ")
            collector.report(
                "unknown template \(JSONWriter.string(nameValue)); templates: \(known.isEmpty ? "none (templates/*.json)" : known)",
                at: path.appending("template"), nameValue)
            return nil
        }
        guard !expanding.contains(name), expanding.count < TemplateLibrary.maximumDepth else {
            collector.report("templates use each other in a cycle: \((expanding + [name]).joined(separator: " → "))", at: path, value)
            return nil
        }
        guard let arguments = self.arguments(object, of: template, at: path) else { return nil }
        if !used.contains(name) { used.append(name) }
        let start = collector.diagnostics.count
        expanding.append(name)
        let node = self.node(template.expand(arguments), at: path)
        expanding.removeLast()
        collector.rewrite(since: start) { diagnostic in
            guard !diagnostic.message.hasPrefix("in template") else { return }
            diagnostic.message = "in template \"\(name)\" (\(template.source), line \(diagnostic.location.line)): \(diagnostic.message)"
            diagnostic.location = value.location
        }
        return node
    }

    /// The arguments of an instance: each one a parameter of the template, of its kind; every
    /// parameter without a default given.
    private func arguments(_ object: JSONObjectReader, of template: Template, at path: JSONPath) -> [String: JSONValue]? {
        let argsPath = path.appending("args")
        var arguments: [String: JSONValue] = [:]
        var valid = true
        if let given = object.value("args") {
            guard let members = given.objectValue else {
                collector.report("expected an object of argument name → value, found \(given.typeName)", at: argsPath, given)
                return nil
            }
            for member in members {
                guard let parameter = template.parameter(member.key) else {
                    let declared = template.parameters.map(\.name).joined(separator: ", ")
                    collector.report(
                        "template \"\(template.id)\" has no parameter \"\(member.key)\"; its parameters: \(declared.isEmpty ? "none" : declared)",
                        at: argsPath.appending(member.key), member.keyLocation)
                    valid = false
                    continue
                }
                if let expected = parameter.problem(with: member.value) {
                    collector.report(
                        "argument \"\(member.key)\" of template \"\(template.id)\" must be \(expected), found \(member.value.typeName) (declared at \(template.source), line \(parameter.location.line))",
                        at: argsPath.appending(member.key), member.value)
                    valid = false
                }
                arguments[member.key] = member.value
            }
        }
        for parameter in template.parameters where parameter.defaultValue == nil && arguments[parameter.name] == nil {
            collector.report(
                "template \"\(template.id)\" needs the argument \"\(parameter.name)\" (\(parameter.kind.rawValue), declared at \(template.source), line \(parameter.location.line))",
                at: argsPath, object.value("args")?.location ?? object.location)
            valid = false
        }
        return valid ? arguments : nil
    }

    private mutating func rule(_ value: JSONValue, at path: JSONPath) -> Node? {
        guard let object = collector.object(value, at: path, allowedKeys: Self.ruleKeys) else { return nil }
        let id = nodeID(object, at: path)
        let expression = object.value("rule", required: true).flatMap {
            RuleExpression.decode($0, at: path.appending("rule"), collector)
        }
        let child = object.value("child", required: true).flatMap { node($0, at: path.appending("child")) }
        let otherwise = object.value("else").flatMap { node($0, at: path.appending("else")) }
        guard let expression, let child else { return nil }
        return .rule(id: id, rule: expression, then: child, otherwise: otherwise)
    }

    private mutating func experiment(_ value: JSONValue, at path: JSONPath) -> Node? {
        guard let object = collector.object(value, at: path, allowedKeys: Self.experimentKeys) else { return nil }
        let id = nodeID(object, at: path)
        let key = object.value("experiment", required: true).flatMap { identifier($0, at: path.appending("experiment")) }
        guard let variantsValue = object.value("variants", required: true) else { return nil }
        let variantsPath = path.appending("variants")
        guard let members = variantsValue.objectValue else {
            collector.report("expected an object of variant name → component, found \(variantsValue.typeName)", at: variantsPath, variantsValue)
            return nil
        }
        if members.count < 2 {
            collector.report("an experiment needs at least two variants", at: variantsPath, variantsValue)
        }
        var variants: [ExperimentVariant] = []
        for member in members {
            let memberPath = variantsPath.appending(member.key)
            if !RuleExpression.isIdentifier(member.key) {
                collector.report("invalid variant name \"\(member.key)\"", at: memberPath, member.keyLocation)
            }
            if member.value.isNull {
                variants.append(ExperimentVariant(name: member.key, node: nil))
            } else if let child = node(member.value, at: memberPath) {
                variants.append(ExperimentVariant(name: member.key, node: child))
            }
        }
        guard let key, variants.count == members.count, members.count >= 2 else { return nil }
        return .experiment(id: id, key: key, variants: variants)
    }

    private mutating func component(_ typeName: String, _ value: JSONValue, at path: JSONPath) -> Component? {
        guard let type = registry[typeName] else {
            let known = registry.types.keys.sorted().joined(separator: ", ")
            collector.report("unknown component type \"\(typeName)\"; known types: Rule, Experiment, Template, \(known)", at: path.appending("type"), value["type"]!)
            return nil
        }
        let isPins = type.kind == .pins
        let keys = isPins ? Self.pinsKeys : Self.componentKeys
        guard let object = collector.object(value, at: path, allowedKeys: keys) else { return nil }
        if type.introduced > schemaVersion {
            collector.report(
                "\(type.name) needs schema version \(type.introduced), but the screen declares schemaVersion \(schemaVersion)",
                at: path.appending("type"), value["type"]!)
        }
        let id = nodeID(object, at: path)
        let properties = specified(
            object, "properties", type.properties, type.propertyTable, required: type.requiredProperties, of: type, at: path)
        let values = specified(object, "values", type.values, type.valueTable, required: type.requiredValues, of: type, at: path)
        if let values { checkOneValue(of: type, values, object, at: path) }
        let subviews = children(of: type, object, at: path)
        let fallback = object.value("fallback").flatMap { fallbackNode($0, for: type, at: path.appending("fallback")) }
        let metadata = object.value("metadata").flatMap { self.metadata($0, at: path.appending("metadata")) }
        let styleValue = object.value("style")
        let style = styleValue.flatMap { LayoutStyleCheck.members($0, at: path.appending("style"), collector) }
        guard let properties, let values, let subviews, styleValue == nil || style != nil else { return nil }
        var pins: PinSpec?
        if isPins {
            pins = PinsCheck(collector: collector).spec(object, subviews: subviews, at: path)
            if pins == nil { return nil }
        }
        return Component(
            kind: type.kind, id: id, properties: properties, values: values, subviews: subviews, fallback: fallback,
            metadata: metadata ?? [], style: style ?? [], pins: pins)
    }

    /// `properties` or `values`: every key known to the type, new enough, and well typed.
    /// - Parameter required: the names of the required ones among `specs`.
    private mutating func specified(
        _ object: JSONObjectReader, _ key: String, _ specs: [String: PropertySpec], _ table: NameTable<PropertySpec>,
        required: [String], of type: ComponentType, at path: JSONPath
    ) -> [JSONMember]? {
        // The paths of the group and its members are made only for a report, which most members never need.
        func groupPath() -> JSONPath { path.appending(key) }
        let members: [JSONMember]
        let found: [PropertySpec?]
        let value = object.value(key)
        if let value, specs.isEmpty, let given = value.objectValue, !given.isEmpty {
            // Rather than "unknown key; expected one of: " followed by nothing.
            collector.report("\(type.name) takes no \(key)", at: groupPath(), value)
            return nil
        } else if let value {
            guard case .object(let given) = value.kind else {
                _ = collector.object(value, at: groupPath(), allowedKeys: KeyList([]))
                return nil
            }
            // Each key looked up once; the unknown ones reported as `collector.object` reports them.
            let specsFound = given.map { table[$0.key] }
            if specsFound.contains(where: { $0 == nil }) { _ = collector.object(value, at: groupPath(), allowedKeys: Set(specs.keys)) }
            (members, found) = (given, specsFound)
        } else {
            (members, found) = ([], [])
        }
        for name in required where !members.contains(where: { $0.key == name }) {
            collector.report("missing required \(key == "values" ? "value" : "property") \"\(name)\"", at: groupPath(), object.location)
        }
        var allKnown = true
        for (member, spec) in zip(members, found) {
            guard let spec else {
                allKnown = false
                continue
            }
            if spec.introduced > schemaVersion {
                collector.report(
                    "\"\(member.key)\" needs schema version \(spec.introduced), but the screen declares schemaVersion \(schemaVersion)",
                    at: groupPath().appending(member.key), member.keyLocation)
            }
            check.member(member.value, spec, at: groupPath().appending(member.key))
        }
        return allKnown ? members : members.filter { specs[$0.key] != nil }
    }

    private func checkOneValue(of type: ComponentType, _ values: [JSONMember], _ object: JSONObjectReader, at path: JSONPath) {
        guard !type.oneValueOf.isEmpty else { return }
        let present = values.count { type.oneValueOf.contains($0.key) }
        if present != 1 {
            collector.report(
                "\(type.name) needs exactly one of the values \(type.oneValueOf.joined(separator: ", ")); found \(present)",
                at: path.appending("values"), object.value("values")?.location ?? object.location)
        }
    }

    private mutating func children(of type: ComponentType, _ object: JSONObjectReader, at path: JSONPath) -> [Node]? {
        guard let raw = object.value("subviews") else {
            if type.children == .one { collector.report("\(type.name) needs exactly one subview", at: path, object.location) }
            return []
        }
        let subviewsPath = path.appending("subviews")
        guard type.children != .none else {
            collector.report("\(type.name) has no subviews", at: subviewsPath, raw)
            return nil
        }
        guard let list = object.array("subviews") else { return nil }
        if type.children == .one && list.count != 1 {
            collector.report("\(type.name) needs exactly one subview, found \(list.count)", at: subviewsPath, raw)
        }
        var nodes: [Node] = []
        nodes.reserveCapacity(list.count)
        for (index, element) in list.enumerated() {
            let elementPath = subviewsPath.appending(index)
            guard let child = node(element, at: elementPath) else { continue }
            if let allowed = type.allowedChildren {
                for kind in Self.componentKinds(child) where !allowed.contains(kind) {
                    collector.report(
                        "\(type.name) may contain only \(allowed.map(\.name).sorted().joined(separator: ", ")), not \(kind.name)",
                        at: elementPath, element)
                }
            }
            nodes.append(child)
        }
        return nodes.count == list.count ? nodes : nil
    }

    /// A fallback must be a component an older client can render: one that is older than `type`.
    private mutating func fallbackNode(_ value: JSONValue, for type: ComponentType, at path: JSONPath) -> Node? {
        guard let fallback = node(value, at: path) else { return nil }
        for kind in Self.componentKinds(fallback) {
            if let fallbackType = registry[kind], fallbackType.introduced >= type.introduced {
                collector.report(
                    "a fallback for \(type.name) (schema version \(type.introduced)) must be older; \(kind.name) is version \(fallbackType.introduced)",
                    at: path, value)
            }
        }
        return fallback
    }

    /// The component kinds a node can turn into, looking through rules and experiments.
    private static func componentKinds(_ node: Node) -> [ComponentKind] {
        switch node {
        case .component(let c): [c.kind]
        case .rule(_, _, let then, let otherwise): componentKinds(then) + (otherwise.map(componentKinds) ?? [])
        case .experiment(_, _, let variants): variants.flatMap { $0.node.map(componentKinds) ?? [] }
        }
    }

    private mutating func nodeID(_ object: JSONObjectReader, at path: JSONPath) -> String? {
        guard let value = object.value("id") else { return nil }
        guard let id = identifier(value, at: path.appending("id")) else { return nil }
        // Room for a screen's dozens of ids from the start, rather than growing into it by rehashing.
        if seenIDs.isEmpty { seenIDs.reserveCapacity(64) }
        // One lookup for the usual new id; a duplicate puts the first use back.
        if let first = seenIDs.updateValue(value.location, forKey: id) {
            seenIDs[id] = first
            collector.report("duplicate id \"\(id)\" (first used at line \(first.line))", at: path.appending("id"), value)
        }
        return id
    }

    /// - Parameter path: made only for a report.
    private func identifier(_ value: JSONValue, at path: @autoclosure () -> JSONPath) -> String? {
        guard let s = value.stringValue else {
            collector.report("expected a string, found \(value.typeName)", at: path(), value)
            return nil
        }
        guard RuleExpression.isIdentifier(s) else {
            collector.report("invalid id \"\(s)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots", at: path(), value)
            return nil
        }
        return s
    }

    private func metadata(_ value: JSONValue, at path: JSONPath) -> [JSONMember]? {
        guard let members = value.objectValue else {
            collector.report("expected an object, found \(value.typeName)", at: path, value)
            return nil
        }
        return members
    }
}
