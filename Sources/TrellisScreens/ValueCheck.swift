import TrellisJSON
import TrellisStrings
import TrellisTargeting

/// Checks the values of one screen — properties, values and action fields — and records the
/// parameters and navigate links they use. One per decode, owned by the decoder's tree walk.
struct ValueCheck {
    let collector: DiagnosticsCollector
    /// The schema version the screen declares: newer action kinds are refused.
    var schemaVersion: Int
    private(set) var parameters: [ParameterUse] = []
    private(set) var links: [ScreenLink] = []
    private(set) var strings: [StringUse] = []

    init(collector: DiagnosticsCollector, schemaVersion: Int) {
        self.collector = collector
        self.schemaVersion = schemaVersion
    }

    /// A member of `properties` or `values` that `spec` describes. A member newer than the screen is
    /// refused by the decoder, so its value is checked against the latest vocabulary: an action in it
    /// is not refused a second time for its kind.
    /// - Parameter path: made only when needed: for a report, an action, a parameter.
    mutating func member(_ value: JSONValue, _ spec: PropertySpec, at path: @autoclosure () -> JSONPath) {
        let declared = schemaVersion
        if spec.introduced > declared { schemaVersion = ComponentRegistry.latestSchemaVersion }
        defer { schemaVersion = declared }
        if ParameterReference.isWritten(value) {
            parameter(value, in: .property(spec.type), at: path())
        } else if case .action = spec.type {
            action(value, at: path())
        } else {
            spec.type.validate(value, at: path(), collector)
        }
    }

    /// A value that may be a parameter; otherwise it must suit `slot`.
    mutating func value(_ value: JSONValue, in slot: ParameterSlot, at path: JSONPath) {
        if ParameterReference.isWritten(value) {
            parameter(value, in: slot, at: path)
        } else if let problem = slot.problem(with: value) {
            collector.report(problem, at: path, value)
        }
    }

    /// `{"$param": name, "default"?: value}`, `{"$format": "…{name}…"}` or `{"$string": key, "args"?: {…}}`
    /// where `slot` is expected.
    mutating func parameter(_ value: JSONValue, in slot: ParameterSlot, at path: JSONPath) {
        let keys = Set(value.objectValue?.map(\.key) ?? [])
        let written = ["$param", "$format", "$string"].filter(keys.contains)
        guard written.count <= 1 else {
            collector.report("a value is one of {\"$param\": …}, {\"$format\": …} and {\"$string\": …}, not \(written.joined(separator: " and "))", at: path, value)
            return
        }
        if written == ["$string"] {
            string(value, in: slot, at: path)
            return
        }
        guard let expects = slot.expects else {
            collector.report(
                "a parameter cannot stand for \(slot.description); only strings, URLs, numbers, integers and bools can come from the route",
                at: path, value)
            return
        }
        switch written.first {
        case "$param":
            guard let object = collector.object(value, at: path, allowedKeys: ["$param", "default"]),
                let name = parameterName(object.value("$param")!, at: path.appending("$param"))
            else { return }
            let fallback = object.value("default")
            if let fallback, let problem = slot.problem(with: fallback) {
                collector.report(problem, at: path.appending("default"), fallback)
            }
            parameters.append(ParameterUse(name: name, path: path, expects: expects, hasDefault: fallback != nil))
        case "$format":
            guard let object = collector.object(value, at: path, allowedKeys: ["$format"]) else { return }
            format(object, expects, in: slot, at: path)
        default:
            _ = collector.object(value, at: path, allowedKeys: ["$param", "$format", "$string"])
        }
    }

    /// `{"$string": key, "args"?: {name: value…}}` where text is expected: each argument a number,
    /// a string, or a `$param` or `$format` the request fills in.
    private mutating func string(_ value: JSONValue, in slot: ParameterSlot, at path: JSONPath) {
        guard slot.expects == .text else {
            collector.report("\"$string\" makes text, and \(slot.description == "this value" ? "text is not expected here" : "\(slot.description) is expected here")", at: path, value)
            return
        }
        guard let object = collector.object(value, at: path, allowedKeys: ["$string", "args"]), let key = object.string("$string") else { return }
        if let problem = StringKey.problem(key) {
            collector.report(problem, at: path.appending("$string"), object.value("$string")!)
            return
        }
        var arguments: [String: StringUse.Argument] = [:]
        if let args = object.value("args") {
            guard let members = args.objectValue else {
                collector.report("\"args\" is an object of the message's arguments, found \(args.typeName)", at: path.appending("args"), args)
                return
            }
            for member in members {
                arguments[member.key] = argument(member.value, at: path.appending("args").appending(member.key))
            }
        }
        strings.append(StringUse(key: key, path: path, arguments: arguments))
    }

    /// One argument of a `$string`: nil (reported) when it is none.
    private mutating func argument(_ value: JSONValue, at path: JSONPath) -> StringUse.Argument? {
        switch value.kind {
        case .number(let number): return .number(number)
        case .string(let text): return .text(text)
        case .object where ParameterReference.isWritten(value) && value["$string"] == nil:
            parameter(value, in: .scalar, at: path)
            return .parameter
        default:
            collector.report("an argument is a number, a string, {\"$param\": …} or {\"$format\": …}; found \(value.typeName)", at: path, value)
            return nil
        }
    }

    private mutating func format(_ object: JSONObjectReader, _ expects: ParameterUse.Expectation, in slot: ParameterSlot, at path: JSONPath) {
        let formatPath = path.appending("$format")
        guard let text = object.string("$format") else { return }
        let location = object.value("$format")!.location
        guard [.text, .url, .value].contains(expects) else {
            collector.report("\"$format\" makes text, but \(expects == .integer ? "an" : "a") \(expects.rawValue) is expected here; use {\"$param\": …}", at: formatPath, location)
            return
        }
        let template: FormatTemplate
        do {
            template = try FormatTemplate(text)
        } catch {
            collector.report(error.message, at: formatPath, location)
            return
        }
        guard !template.placeholders.isEmpty else {
            collector.report("\"$format\" has no {name} placeholder; write the text itself", at: formatPath, location)
            return
        }
        if expects == .url {
            // The placeholders' values are percent-encoded, so they cannot change the scheme or host's shape;
            // a scheme that comes from a parameter could send a tap anywhere.
            if let problem = slot.problem(with: .string(text)) {
                collector.report(problem, at: formatPath, location)
            } else if !template.writesScheme {
                collector.report("a URL template starts with its scheme written out, such as https://…/{id}; found \(JSONWriter.quoted(text))", at: formatPath, location)
            }
        }
        for name in template.placeholders {
            parameters.append(ParameterUse(name: name, path: path, expects: expects == .url ? .url : .text, hasDefault: false))
        }
    }

    private func parameterName(_ value: JSONValue, at path: JSONPath) -> String? {
        guard let name = value.stringValue else {
            collector.report("expected a parameter name, found \(value.typeName)", at: path, value)
            return nil
        }
        guard RuleExpression.isIdentifier(name) else {
            collector.report("invalid parameter name \"\(name)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots", at: path, value)
            return nil
        }
        return name
    }

    /// Records where a navigate action leads; `value` is its `url`, already checked.
    mutating func link(_ value: JSONValue, at path: JSONPath) {
        if let url = value.stringValue {
            links.append(ScreenLink(path: path, target: .url(url)))
        } else if let reference = ParameterReference(value) {
            switch reference {
            case .whole(let name, let fallback):
                links.append(ScreenLink(path: path, target: .parameter(name, default: fallback?.stringValue)))
            case .format(let template):
                links.append(ScreenLink(path: path, target: .template(template.text, placeholders: template.placeholders)))
            case .string:
                // Refused where a URL is expected (``string(_:in:at:)``), so never a link.
                break
            }
        }
    }
}
