import TrellisJSON
import TrellisStrings

extension AuthoringSchema {
    /// Regular expressions of the schema, in the subset that ECMA-262 (editors) and Python's `re`
    /// (`scripts/validate-screens`) read alike.
    enum Pattern {
        /// ``RuleExpression.isIdentifier``: ids, names of rules, rollouts, experiments, variants and parameters.
        static let id = "^(?!\\.+$)[A-Za-z0-9_.-]{1,64}$"
        /// ``PropertyType.isHexColor``.
        static let colour = "^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$"
        /// A dimension written as a string: a plain decimal percentage, "fill" or "auto".
        static let dimension = "^([0-9]+(\\.[0-9]+)?%|fill|auto)$"
        /// ``PropertyType.isAbsoluteURL``: http(s), a host, no spaces or control characters.
        static let url = "^https?://[^/?#\\x00-\\x20\\x7F][^\\x00-\\x20\\x7F]*$"
        /// ``ParameterSlot.anyURLProblem``: `://` after a non-empty scheme.
        static let anyURL = "^(?!://)[\\s\\S]*://"
        private static let placeholder = "\\{[A-Za-z0-9_.-]{1,64}\\}"
        private static let piece = "(?:[^{}]|\\{\\{|\\}\\}|\(placeholder))"
        /// ``FormatTemplate``: literal text, `{{`, `}}` and at least one `{name}`.
        static let format = "^\(piece)*\(placeholder)\(piece)*$"
        /// ``FormatTemplate.writesScheme``: the URL's `://` comes before the first placeholder.
        static let formatWritesScheme = "^(?!://)(?:[^{}]|\\{\\{|\\}\\})*://"
    }

    static func valueDefinitions() -> [(String, JSONValue)] {
        let edges = ["top", "bottom", "leading", "trailing", "horizontal", "vertical"]
        return [
            ("colour", described("#RGB, #RRGGBB or #RRGGBBAA, hex digits in either case.", object([("type", .string("string")), ("pattern", .string(Pattern.colour))]))),
            (
                "dimension",
                described(
                    "Points (a number ≥ 0), a percentage of the parent (\"50%\"), \"fill\" or \"auto\".",
                    object([
                        (
                            "anyOf",
                            .array([
                                object([("type", .string("number")), ("minimum", .number(0))]),
                                object([("type", .string("string")), ("pattern", .string(Pattern.dimension))]),
                            ])
                        )
                    ]))
            ),
            (
                "insets",
                described(
                    "Points on every edge, or an object of edges: \(edges.joined(separator: ", ")).",
                    object([
                        (
                            "anyOf",
                            .array([typeSchema(PropertyType.nonNegative), closedObject(edges.map { ($0, typeSchema(PropertyType.nonNegative)) })])
                        )
                    ]))
            ),
            ("url", described("An absolute https:// or http:// URL.", object([("type", .string("string")), ("pattern", .string(Pattern.url))]))),
            ("anyURL", described("An absolute URL with any scheme, such as app://product/42.", object([("type", .string("string")), ("pattern", .string(Pattern.anyURL))]))),
        ]
    }

    static func parameterDefinitions() -> [(String, JSONValue)] {
        func format(_ description: String, _ patterns: [String]) -> JSONValue {
            let text: JSONValue =
                patterns.count == 1
                ? object([("type", .string("string")), ("pattern", .string(patterns[0]))])
                : object([("type", .string("string")), ("allOf", .array(patterns.map { object([("pattern", .string($0))]) }))])
            return described(description, closedObject(required: ["$format"], [("$format", text)]))
        }
        return [
            (
                "param",
                described(
                    "A parameter of the route that opens the screen, with an optional default.",
                    closedObject(required: ["$param"], [("$param", described("The parameter's name.", ref("id"))), ("default", .object([]))]))
            ),
            ("format.text", format("Text with {name} placeholders; {{ and }} are literal braces.", [Pattern.format])),
            ("format.url", format("An https:// or http:// URL with {name} placeholders after its host's first character.", [Pattern.format, Pattern.url])),
            (
                "format.anyURL", format("An absolute URL with {name} placeholders; its scheme:// is written out.", [Pattern.format, Pattern.formatWritesScheme])
            ),
            ("string", stringReference()),
        ]
    }

    /// `{"$string": key, "args"?: {…}}`: a message of the string tables, written in the request's locale.
    static func stringReference() -> JSONValue {
        let key = object([
            ("type", .string("string")), ("maxLength", .number(Double(StringKey.maximumLength))),
            ("pattern", .string("^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$")),
        ])
        let argument = object([
            ("anyOf", .array([object([("type", strings(["number", "string"]))]), ref("param"), ref("format.text")]))
        ])
        return described(
            "A message of the string tables (Config/strings/<locale>.json), written in the request's locale.",
            closedObject(
                required: ["$string"],
                [
                    ("$string", described("The message's key, such as cart.items.", key)),
                    ("args", described("The message's arguments: numbers, strings, or {\"$param\": …} and {\"$format\": …}.", object([("type", .string("object")), ("additionalProperties", argument)]))),
                ]))
    }

    /// The definitions of every value slot the vocabulary uses (`value.string`, `value.number.0-1`…),
    /// so that a property is a reference rather than a copy.
    static func slotDefinitions(registry: ComponentRegistry) -> [(String, JSONValue)] {
        var slots: [ParameterSlot] = registry.types.values.flatMap { type in
            (Array(type.properties.values) + Array(type.values.values)).map { ParameterSlot.property($0.type) }
        }
        for kind in ActionKind.all.values {
            for case .value(let slot) in kind.fields.values { slots.append(slot) }
        }
        var defs: [String: JSONValue] = [:]
        for slot in slots {
            // Colours, dimensions and insets take no parameters: their slot is the value definition itself.
            guard let name = slotName(slot), name.hasPrefix("value.") else { continue }
            let text: String =
                switch slot {
                case .property(let type): description(of: type)
                case .anyURL: "an absolute URL with any scheme, such as app://product/42; or {\"$param\": …} or {\"$format\": …}"
                case .scalar: "a string, number or bool; or {\"$param\": …} or {\"$format\": …}"
                }
            defs[name] = described(text, self.slot(slot))
        }
        return defs.sorted { $0.key < $1.key }
    }

    /// The definition that describes `slot`, or nil when it is written in place (choices, actions).
    static func slotName(_ slot: ParameterSlot) -> String? {
        func number(_ n: Double) -> String { JSONWriter.string(.number(n)) }
        switch slot {
        case .property(let type):
            switch type {
            case .string: return "value.string"
            case .nonEmptyString: return "value.nonEmptyString"
            case .number(let range): return "value.number.\(number(range.lowerBound))-\(number(range.upperBound))"
            case .integer(let range): return "value.integer.\(range.lowerBound)-\(range.upperBound)"
            case .bool: return "value.bool"
            case .color: return "colour"
            case .dimension: return "dimension"
            case .insets: return "insets"
            case .url: return "value.url"
            case .oneOf, .action: return nil
            }
        case .anyURL: return "value.anyURL"
        case .scalar: return nil
        }
    }

    /// A reference to `slot`'s definition, or the schema itself when it has none.
    static func slotReference(_ slot: ParameterSlot) -> JSONValue {
        slotName(slot).map(ref) ?? self.slot(slot)
    }

    /// What may stand where `slot` is: a value of its type, or a parameter where one may stand
    /// (``ParameterSlot/expects``), whose `default` must be a value of the type.
    static func slot(_ slot: ParameterSlot) -> JSONValue {
        let base: JSONValue =
            switch slot {
            case .property(let type): typeSchema(type)
            case .anyURL: ref("anyURL")
            case .scalar: object([("type", strings(["string", "number", "boolean"]))])
            }
        guard let expects = slot.expects else { return base }
        var alternatives = [base, object([("$ref", .string("#/$defs/param")), ("properties", object([("default", base)]))])]
        switch expects {
        case .text: alternatives += [ref("format.text"), ref("string")]
        case .value: alternatives.append(ref("format.text"))
        case .url:
            if case .anyURL = slot { alternatives.append(ref("format.anyURL")) } else { alternatives.append(ref("format.url")) }
        case .number, .integer, .bool: break
        }
        return object([("anyOf", .array(alternatives))])
    }

    /// A value of `type`, as ``PropertyType/problem(with:)`` accepts it.
    static func typeSchema(_ type: PropertyType) -> JSONValue {
        switch type {
        case .string: object([("type", .string("string"))])
        case .nonEmptyString: object([("type", .string("string")), ("minLength", .number(1))])
        case .number(let range): object([("type", .string("number")), ("minimum", .number(range.lowerBound)), ("maximum", .number(range.upperBound))])
        case .integer(let range): object([("type", .string("integer")), ("minimum", .number(range.lowerBound)), ("maximum", .number(range.upperBound))])
        case .bool: object([("type", .string("boolean"))])
        case .color: ref("colour")
        case .dimension: ref("dimension")
        case .insets: ref("insets")
        case .oneOf(let choices): object([("enum", strings(choices))])
        case .url: ref("url")
        // Actions depend on the screen's version; the vocabulary refers to its own `action`.
        case .action: ref("v\(ComponentRegistry.latestSchemaVersion).action")
        }
    }

    /// A short description of `type` for editors.
    static func description(of type: PropertyType) -> String {
        func number(_ n: Double) -> String { JSONWriter.string(.number(n)) }
        let text =
            switch type {
            case .string: "a string"
            case .nonEmptyString: "a non-empty string"
            case .number(let range): "a number from \(number(range.lowerBound)) to \(number(range.upperBound))"
            case .integer(let range): "a whole number from \(range.lowerBound) to \(range.upperBound)"
            case .bool: "true or false"
            case .color: "a colour: #RGB, #RRGGBB or #RRGGBBAA"
            case .dimension: "a size: points, \"N%\", \"fill\" or \"auto\""
            case .insets: "points on every edge, or an object of edges"
            case .oneOf(let choices): "one of: " + choices.joined(separator: ", ")
            case .url: "an absolute https:// or http:// URL"
            case .action: "an action: what a tap does"
            }
        switch ParameterSlot.property(type).expects {
        case .text?: return text + "; or {\"$param\": …}, {\"$format\": …} or {\"$string\": …}"
        case .url?: return text + "; or {\"$param\": …} or {\"$format\": …}"
        case .number?, .integer?, .bool?, .value?: return text + "; or {\"$param\": …}"
        case nil: return text
        }
    }
}
