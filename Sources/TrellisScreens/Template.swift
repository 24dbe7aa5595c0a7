import TrellisJSON
import TrellisTargeting

/// A reusable subtree with typed parameters, as ALLKit's layout specs are: `templates/<id>.json`,
/// used in a screen as `{"type": "Template", "template": "<id>", "args": {…}}`.
///
/// Inside the template's `root`, `{"$param": "name"}` stands for an argument anywhere a JSON value
/// stands (an id, a text, a colour, an action, a whole subview), and `{name}` in a `$format` for
/// one inside text. Instances are expanded when a screen is decoded — once per snapshot, never per
/// request — and the expansion is checked as if it had been written in the screen, so a mistake in
/// it is reported at the instance, naming the template's file and line too.
///
/// A screen's own parameters (a route's `id`) reach a template through its arguments:
/// `"args": {"product": {"$param": "id"}}`.
public struct Template: Sendable {
    public let id: String
    /// `templates/product-card.json`, for messages.
    public let source: String
    public let parameters: [TemplateParameter]
    /// The subtree as written, `$param`s and all.
    let root: JSONValue
    /// `root`, ready to expand.
    let expansion: Expansion

    init(id: String, source: String, parameters: [TemplateParameter], root: JSONValue) {
        self.id = id
        self.source = source
        self.parameters = parameters
        self.root = root
        expansion = Expansion(root)
    }

    public func parameter(_ name: String) -> TemplateParameter? { parameters.first { $0.name == name } }
}

/// One parameter of a template: its name, what an argument must be, and its default.
public struct TemplateParameter: Sendable {
    /// What an argument must be. `action` and `node` are objects the screen decoder checks where
    /// they land, as it checks everything else of the expansion.
    public enum Kind: String, Sendable, CaseIterable {
        case string, number, integer, bool, url, color, id, action, node
    }

    public let name: String
    public let kind: Kind
    /// Used when an instance gives no argument; without one the argument is required.
    public let defaultValue: JSONValue?
    /// Where the template declares it, for messages about an argument.
    public let location: SourceLocation
}

/// The templates of one configuration, by id.
public struct TemplateLibrary: Sendable {
    public let templates: [String: Template]

    /// How deeply templates may use templates: a bound on expansion, whatever the graph.
    public static let maximumDepth = 16

    public init(_ templates: [Template] = []) {
        self.templates = Dictionary(templates.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
    }

    public subscript(id: String) -> Template? { templates[id] }
    public var isEmpty: Bool { templates.isEmpty }

    /// Decodes and checks one template file: its id (the file's name), its parameters and their
    /// defaults, and that every `$param` and `$format` placeholder in `root` is one of them.
    public static func decode(_ bytes: [UInt8], source: String, expectedID: String) -> Result<Template, DiagnosticsError> {
        DiagnosticsCollector.decode(bytes, source: source) { document, collector in
            TemplateDecoding(collector: collector, source: source).template(document, expectedID: expectedID)
        }
    }

    /// Every cycle of templates using templates (`a` → `b` → `a`), one diagnostic per cycle, at the
    /// instance that closes it. Expanding such a template could never end.
    public func cycles() -> [DiagnosticsError] {
        var errors: [DiagnosticsError] = []
        var reported: Set<Set<String>> = []
        for id in templates.keys.sorted() {
            var chain: [String] = [id]
            func visit(_ current: String) {
                guard let template = templates[current] else { return }
                for (used, path) in Self.instances(in: template.root, at: JSONPath.root.appending("root")) {
                    if let start = chain.firstIndex(of: used) {
                        let cycle = Array(chain[start...]) + [used]
                        guard reported.insert(Set(cycle)).inserted else { continue }
                        errors.append(DiagnosticsError(source: template.source, diagnostics: [
                            Diagnostic(
                                path: path, location: template.root.location,
                                message: "templates use each other in a cycle: \(cycle.joined(separator: " → "))")
                        ]))
                    } else if chain.count < Self.maximumDepth {
                        chain.append(used)
                        visit(used)
                        chain.removeLast()
                    }
                }
            }
            visit(id)
        }
        return errors
    }

    /// The templates a subtree instantiates, with where.
    static func instances(in value: JSONValue, at path: JSONPath) -> [(String, JSONPath)] {
        switch value.kind {
        case .object(let members):
            var found: [(String, JSONPath)] = []
            if value["type"]?.stringValue == "Template", let name = value["template"]?.stringValue { found.append((name, path)) }
            for member in members { found += instances(in: member.value, at: path.appending(member.key)) }
            return found
        case .array(let elements):
            return elements.enumerated().flatMap { instances(in: $1, at: path.appending($0)) }
        default:
            return []
        }
    }
}

extension Template {
    /// A template's root as expanding it needs it, made once: every `$format` parsed, and every
    /// subtree without a parameter kept whole, so that each expansion shares it instead of
    /// copying it.
    indirect enum Expansion: Sendable {
        case constant(JSONValue)
        /// `{"$param": name}`, written as `value`.
        case parameter(String, JSONValue)
        case format(FormatTemplate, at: SourceLocation)
        /// An object with a parameter below it: its members as written, and the expansion of each.
        case object([JSONMember], [Expansion], at: SourceLocation)
        case array([Expansion], at: SourceLocation)

        init(_ value: JSONValue) {
            switch value.kind {
            case .object(let members):
                if members.count == 1, let text = members[0].value.stringValue {
                    if members[0].key == "$param" {
                        self = .parameter(text, value)
                        return
                    }
                    if members[0].key == "$format", let format = try? FormatTemplate(text) {
                        self = .format(format, at: value.location)
                        return
                    }
                }
                let parts = members.map { Expansion($0.value) }
                self = parts.allSatisfy(\.isConstant) ? .constant(value) : .object(members, parts, at: value.location)
            case .array(let elements):
                let parts = elements.map(Expansion.init)
                self = parts.allSatisfy(\.isConstant) ? .constant(value) : .array(parts, at: value.location)
            default:
                self = .constant(value)
            }
        }

        var isConstant: Bool { if case .constant = self { true } else { false } }
    }

    /// The subtree with every parameter replaced by its argument (or default). A `$format` whose
    /// placeholders are all arguments becomes plain text; an argument that is itself a screen
    /// parameter (`{"$param": "id"}`, or a `$format`) stays one, so the route fills it per request.
    /// - Precondition: `arguments` has a checked value for every parameter without a default.
    func expand(_ arguments: [String: JSONValue]) -> JSONValue {
        substitute(expansion, arguments)
    }

    private func substitute(_ expansion: Expansion, _ arguments: [String: JSONValue]) -> JSONValue {
        switch expansion {
        case .constant(let value):
            return value
        case .parameter(let name, let value):
            return argument(name, arguments) ?? value
        case .format(let format, let location):
            return formatted(format, arguments, at: location)
        case .object(let members, let parts, let location):
            return JSONValue(
                .object(zip(members, parts).map { JSONMember(key: $0.key, keyLocation: $0.keyLocation, value: substitute($1, arguments)) }),
                at: location)
        case .array(let parts, let location):
            return JSONValue(.array(parts.map { substitute($0, arguments) }), at: location)
        }
    }

    private func argument(_ name: String, _ arguments: [String: JSONValue]) -> JSONValue? {
        arguments[name] ?? parameter(name)?.defaultValue
    }

    /// A `$format` with the template's arguments written in: text stays text; a screen parameter
    /// stays a placeholder of the result (which is then still a `$format`).
    private func formatted(_ format: FormatTemplate, _ arguments: [String: JSONValue], at location: SourceLocation) -> JSONValue {
        var pieces: [FormatTemplate.Piece] = []
        pieces.reserveCapacity(format.pieces.count)
        for piece in format.pieces {
            guard case .placeholder(let name) = piece, let value = argument(name, arguments) else {
                pieces.append(piece)
                continue
            }
            if let screenParameter = value["$param"]?.stringValue {
                pieces.append(.placeholder(screenParameter))
            } else if let text = value["$format"]?.stringValue, let inner = try? FormatTemplate(text) {
                pieces += inner.pieces
            } else {
                pieces.append(.literal(value.stringValue ?? JSONWriter.string(value)))
            }
        }
        guard pieces.contains(where: { if case .placeholder = $0 { true } else { false } }) else {
            var text = ""
            for case .literal(let s) in pieces { text += s }
            return JSONValue(.string(text), at: location)
        }
        var text = ""
        for piece in pieces {
            switch piece {
            case .literal(let s): text += s.replacingBraces()
            case .placeholder(let name): text += "{" + name + "}"
            }
        }
        return JSONValue(.object([JSONMember(key: "$format", value: .string(text))]), at: location)
    }
}

extension String {
    /// Literal braces as a `$format` writes them.
    fileprivate func replacingBraces() -> String {
        // Most text has no brace at all.
        guard utf8.contains(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") }) else { return self }
        var out = ""
        for c in self {
            out.append(c)
            if c == "{" || c == "}" { out.append(c) }
        }
        return out
    }
}

extension TemplateParameter {
    /// Why `value` cannot be an argument for this parameter, or nil. A screen parameter
    /// (`$param`, `$format`) may stand for any scalar kind; its value is checked per request.
    func problem(with value: JSONValue) -> String? {
        let isScreenParameter = value["$param"] != nil || value["$format"] != nil
        switch kind {
        case .string:
            return value.stringValue != nil || isScreenParameter ? nil : "a string"
        case .number:
            return value.numberValue != nil || value["$param"] != nil ? nil : "a number"
        case .integer:
            if let n = value.numberValue { return n == n.rounded() ? nil : "an integer" }
            return value["$param"] != nil ? nil : "an integer"
        case .bool:
            return value.boolValue != nil || value["$param"] != nil ? nil : "true or false"
        case .url:
            if let s = value.stringValue { return PropertyType.isAbsoluteURL(s) ? nil : "an absolute http(s) URL" }
            return isScreenParameter ? nil : "an absolute http(s) URL"
        case .color:
            return value.stringValue.map(PropertyType.isHexColor) == true ? nil : "a colour such as \"#1A2B3C\""
        case .id:
            return value.stringValue.map(RuleExpression.isIdentifier) == true ? nil : "an id (1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots)"
        case .action, .node:
            return value.objectValue != nil ? nil : "an object"
        }
    }
}

/// One pass over one template file.
private struct TemplateDecoding {
    let collector: DiagnosticsCollector
    let source: String

    func template(_ value: JSONValue, expectedID: String) -> Template? {
        guard let object = collector.object(value, at: .root, allowedKeys: ["id", "description", "parameters", "root"]) else { return nil }
        let idValue = object.value("id", required: true)
        let id = idValue?.stringValue
        if let idValue, id == nil || !RuleExpression.isIdentifier(id!) {
            collector.report("expected a template id (1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots)", at: JSONPath.root.appending("id"), idValue)
        } else if let id, let idValue, id != expectedID {
            collector.report("template id \"\(id)\" does not match \"\(expectedID)\"", at: JSONPath.root.appending("id"), idValue)
        }
        _ = object.string("description")
        let parameters = object.value("parameters").map { self.parameters($0) } ?? []
        guard let root = object.value("root", required: true) else { return nil }
        let rootPath = JSONPath.root.appending("root")
        if root.objectValue == nil {
            collector.report("expected a component object, found \(root.typeName)", at: rootPath, root)
        }
        checkUses(root, at: rootPath, declared: Set(parameters.map(\.name)))
        guard let id, collector.isEmpty else { return nil }
        return Template(id: id, source: source, parameters: parameters, root: root)
    }

    private func parameters(_ value: JSONValue) -> [TemplateParameter] {
        let path = JSONPath.root.appending("parameters")
        guard let members = value.objectValue else {
            collector.report("expected an object of parameter name → {\"type\": …}, found \(value.typeName)", at: path, value)
            return []
        }
        return members.compactMap { member in
            let memberPath = path.appending(member.key)
            if !RuleExpression.isIdentifier(member.key) {
                collector.report("invalid parameter name \"\(member.key)\"", at: memberPath, member.keyLocation)
            }
            guard let object = collector.object(member.value, at: memberPath, allowedKeys: ["type", "default", "description"]) else { return nil }
            _ = object.string("description")
            let kinds = TemplateParameter.Kind.allCases.map(\.rawValue)
            guard let typeValue = object.value("type", required: true) else { return nil }
            guard let kind = typeValue.stringValue.flatMap(TemplateParameter.Kind.init(rawValue:)) else {
                collector.report("the type of a parameter is one of \(kinds.joined(separator: ", "))", at: memberPath.appending("type"), typeValue)
                return nil
            }
            let parameter = TemplateParameter(name: member.key, kind: kind, defaultValue: object.value("default"), location: member.keyLocation)
            if let defaultValue = parameter.defaultValue, let expected = parameter.problem(with: defaultValue) {
                collector.report("the default must be \(expected), found \(defaultValue.typeName)", at: memberPath.appending("default"), defaultValue)
            }
            return parameter
        }
    }

    /// Every `$param` and `$format` placeholder in the body names a declared parameter: inside a
    /// template, parameters are the template's (a screen's reach it through arguments).
    private func checkUses(_ value: JSONValue, at path: JSONPath, declared: Set<String>) {
        switch value.kind {
        case .object(let members):
            if let name = value["$param"]?.stringValue, !declared.contains(name) {
                collector.report(undeclared(name, declared), at: path, value)
            }
            if let text = value["$format"]?.stringValue {
                do throws(FormatTemplate.Problem) {
                    for name in try FormatTemplate(text).placeholders where !declared.contains(name) {
                        collector.report(undeclared(name, declared), at: path.appending("$format"), value)
                    }
                } catch {
                    collector.report(error.message, at: path.appending("$format"), value)
                }
            }
            for member in members { checkUses(member.value, at: path.appending(member.key), declared: declared) }
        case .array(let elements):
            for (index, element) in elements.enumerated() { checkUses(element, at: path.appending(index), declared: declared) }
        default:
            break
        }
    }

    private func undeclared(_ name: String, _ declared: Set<String>) -> String {
        "\"\(name)\" is not a parameter of this template; declare it in \"parameters\" (declared: \(declared.isEmpty ? "none" : declared.sorted().joined(separator: ", "))). A screen's own parameters reach a template through its arguments"
    }
}
