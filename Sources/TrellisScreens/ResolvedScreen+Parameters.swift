import TrellisJSON
import TrellisStrings
import TrellisTargeting

extension ResolvedScreen {
    /// The answer with every `{"$param": …}` and `{"$format": …}` left in its tree replaced by the
    /// request's parameters, and every `{"$string": …}` by its message written in `strings`' locale
    /// with its arguments; `self`, untouched, when the screen uses none.
    ///
    /// Values come typed from a route (`app://product/:id(int)` gives a number) or as strings from a
    /// query (`?param.id=42`). A string is read as a number, integer or bool where one is expected
    /// (`"42"`, `"true"`), and a number or bool is written as text where text is expected. Within a
    /// `$format` that makes a URL, each value is percent-encoded (RFC 3986 §2.1) but for the
    /// unreserved characters (§2.3), so it stays inside its path segment or query value. The result
    /// is checked as the authored value would have been (ranges, absolute URLs, non-empty text).
    /// A missing parameter takes the `$param`'s `default`. A string's argument that its message
    /// uses as a number is read as one when given as text (`"3"`).
    ///
    /// - Parameters:
    ///   - parameters: parameter name → value.
    ///   - strings: the tables of the request's locale; nil when the screen has no `$string`.
    ///   - registry: the vocabulary the screen was resolved with, which says what each member expects.
    /// - Throws: the first parameter that is missing without a default or does not make a valid value.
    public func substituting(
        _ parameters: [String: JSONValue], strings: LocalizedStrings? = nil, registry: ComponentRegistry = .standard
    ) throws(ParameterError) -> ResolvedScreen {
        guard needsSubstitution, let root else { return self }
        var answer = self
        answer.root = try Substitution(parameters: parameters, strings: strings, registry: registry).component(root, at: JSONPath.root.appending("root"))
        answer.needsSubstitution = false
        return answer
    }
}

extension ResolvedComponent {
    /// This component's own properties and values with `parameters` put in, its subviews untouched:
    /// what an encoding plan fills in per request (``ScreenEncodingPlan``). `path` is the
    /// component's in the answer, for errors.
    package func substitutingMembers(
        _ parameters: [String: JSONValue], strings: LocalizedStrings?, registry: ComponentRegistry, at path: JSONPath
    ) throws(ParameterError) -> ResolvedComponent {
        try Substitution(parameters: parameters, strings: strings, registry: registry).members(of: self, at: path)
    }
}

/// One request's parameters and strings, put into one resolved tree. Paths are those of the answer.
private struct Substitution {
    let parameters: [String: JSONValue]
    let strings: LocalizedStrings?
    let registry: ComponentRegistry

    func component(_ component: ResolvedComponent, at path: JSONPath) throws(ParameterError) -> ResolvedComponent {
        var component = try members(of: component, at: path)
        for index in component.subviews.indices {
            component.subviews[index] = try self.component(component.subviews[index], at: path.appending("subviews").appending(index))
        }
        return component
    }

    /// `component` with its own properties and values filled in; its subviews as they are.
    func members(of component: ResolvedComponent, at path: JSONPath) throws(ParameterError) -> ResolvedComponent {
        let parameters = parameters
        let strings = strings
        return try ParameterWalk(registry: registry) { (reference, expects, slot, path) throws(ParameterError) in
            guard let reference else {
                throw ParameterError(name: "", path: path, reason: "not a parameter reference the decoder accepts")
            }
            return try Self.value(of: reference, expects: expects, in: slot, parameters: parameters, strings: strings, at: path)
        }.members(of: component, at: path)
    }

    /// What the request gives for `reference`, standing where `slot` expects `expects`.
    static func value(
        of reference: ParameterReference, expects: ParameterUse.Expectation, in slot: ParameterSlot, parameters: [String: JSONValue],
        strings: LocalizedStrings?, at path: JSONPath
    ) throws(ParameterError) -> JSONValue {
        switch reference {
        case .string(let key, let arguments):
            let text = try string(key, arguments, parameters: parameters, strings: strings, at: path)
            if let problem = slot.problem(with: .string(text)) { throw ParameterError(name: key, path: path, reason: problem) }
            return .string(text)
        case .whole(let name, let fallback):
            guard let given = parameters[name] else {
                if let fallback { return fallback }
                throw ParameterError(name: name, path: path, reason: "missing, and the screen gives no default")
            }
            let coerced = try Self.coerce(given, to: expects, name: name, at: path)
            if let problem = slot.problem(with: coerced) { throw ParameterError(name: name, path: path, reason: problem) }
            return coerced
        case .format(let template):
            let encodes = expects == .url
            let text = try template.render { (name: String) throws(ParameterError) -> String in
                guard let given = parameters[name] else {
                    throw ParameterError(name: name, path: path, reason: "missing (a $format placeholder has no default)")
                }
                guard let text = Self.text(given) else {
                    throw ParameterError(name: name, path: path, reason: "expected a string, number or bool, found \(given.typeName)")
                }
                return encodes ? PercentEncoding.encode(text) : text
            }
            if let problem = slot.problem(with: .string(text)) {
                throw ParameterError(name: template.placeholders.joined(separator: ", "), path: path, reason: problem)
            }
            return .string(text)
        }
    }

    /// `key`'s message in the request's locale, with `arguments` (each put in from the request if
    /// it is a parameter) as its message uses them.
    private static func string(
        _ key: String, _ arguments: [JSONMember], parameters: [String: JSONValue], strings: LocalizedStrings?, at path: JSONPath
    ) throws(ParameterError) -> String {
        guard let strings, let uses = strings.arguments(of: key) else {
            throw ParameterError(name: key, path: path, reason: "no string \"\(key)\" in the tables of \(strings?.tag ?? "any locale")")
        }
        var given: [String: MessageArgument] = [:]
        for argument in arguments {
            var value = argument.value
            if let reference = ParameterReference(value) {
                value = try Self.value(
                    of: reference, expects: .value, in: .scalar, parameters: parameters, strings: strings, at: path.appending("args").appending(argument.key))
            }
            given[argument.key] = try messageArgument(value, asNumber: uses[argument.key] == .number, name: argument.key, key: key, at: path)
        }
        return strings.string(key, given)!
    }

    /// A JSON scalar as a message's argument: a number as a number, and text read as one where the
    /// message counts or formats it.
    private static func messageArgument(
        _ value: JSONValue, asNumber: Bool, name: String, key: String, at path: JSONPath
    ) throws(ParameterError) -> MessageArgument {
        if let number = value.numberValue { return .number(number) }
        if asNumber {
            let number = value.numberValue ?? value.stringValue.flatMap(Self.number)
            guard let number else {
                throw ParameterError(
                    name: name, path: path.appending("args").appending(name),
                    reason: "\"\(key)\" uses it as a number; found \(value.stringValue.map { JSONWriter.quoted($0) } ?? JSONWriter.string(value))")
            }
            return .number(number)
        }
        return .string(text(value) ?? JSONWriter.string(value))
    }

    /// A string as itself; a number in its shortest JSON form (`42`, `4.5`); a bool as `true` or `false`.
    private static func text(_ value: JSONValue) -> String? {
        switch value.kind {
        case .string(let s): s
        case .number, .bool: JSONWriter.string(value)
        default: nil
        }
    }

    /// `given` as the type `expects`; only strings are converted (and numbers and bools to text).
    private static func coerce(
        _ given: JSONValue, to expects: ParameterUse.Expectation, name: String, at path: JSONPath
    ) throws(ParameterError) -> JSONValue {
        let converted: JSONValue? =
            switch (expects, given.kind) {
            case (.text, _): text(given).map(JSONValue.string)
            case (.url, .string), (.number, .number), (.bool, .bool): given
            case (.integer, .number(let n)): n == n.rounded() ? given : nil
            case (.number, .string(let s)): number(s).map(JSONValue.number)
            case (.integer, .string(let s)): number(s).flatMap { $0 == $0.rounded() ? JSONValue.number($0) : nil }
            case (.bool, .string("true")): .bool(true)
            case (.bool, .string("false")): .bool(false)
            case (.value, .string), (.value, .number), (.value, .bool): given
            default: nil
            }
        guard let converted else {
            let wanted =
                switch expects {
                case .text, .value: "a string, number or bool"
                case .url: "a URL string"
                case .number: "a number"
                case .integer: "an integer"
                case .bool: "true or false"
                }
            let found = given.stringValue.map { JSONWriter.quoted($0) } ?? JSONWriter.string(given)
            throw ParameterError(name: name, path: path, reason: "expected \(wanted), found \(found)")
        }
        return converted
    }

    /// A JSON number (RFC 8259 §6) written as a string, such as `"42"` or `"-1.5e3"`: no spaces, hex,
    /// `inf` or `nan`.
    private static func number(_ s: String) -> Double? {
        guard let first = s.utf8.first, let last = s.utf8.last, first == 0x2D || (0x30...0x39).contains(first),
            (0x30...0x39).contains(last), let value = try? JSONParser.parse(s)
        else { return nil }
        return value.numberValue
    }
}

/// The parameter references among a component's members, in the order substitution visits them
/// (properties, then values, each in its order; an action's fields, in theirs): each written
/// reference where a parameter may stand is given to `visit` as read (nil when it does not read
/// as one) with what its slot expects, the slot and its path, and replaced by what `visit`
/// returns. Substitution puts the request's values there, a ``ParameterTemplate`` marks the places.
struct ParameterWalk {
    let registry: ComponentRegistry
    let visit: (ParameterReference?, ParameterUse.Expectation, ParameterSlot, JSONPath) throws(ParameterError) -> JSONValue

    /// `component` with its own properties and values visited; its subviews as they are.
    func members(of component: ResolvedComponent, at path: JSONPath) throws(ParameterError) -> ResolvedComponent {
        var component = component
        let type = registry[component.kind]
        component.properties = try members(component.properties, type?.properties, at: path.appending("properties"))
        component.values = try members(component.values, type?.values, at: path.appending("values"))
        return component
    }

    private func members(_ members: [JSONMember], _ specs: [String: PropertySpec]?, at path: JSONPath) throws(ParameterError) -> [JSONMember] {
        guard let specs else { return members }
        var members = members
        for index in members.indices {
            guard let spec = specs[members[index].key] else { continue }
            let memberPath = path.appending(members[index].key)
            if case .action = spec.type {
                members[index].value = try action(members[index].value, at: memberPath)
            } else {
                members[index].value = try place(members[index].value, .property(spec.type), memberPath)
            }
        }
        return members
    }

    private func action(_ action: JSONValue, at path: JSONPath) throws(ParameterError) -> JSONValue {
        guard var members = action.objectValue, let kind = action["type"]?.stringValue.flatMap({ ActionKind.all[$0] }) else {
            return action
        }
        for index in members.indices {
            let memberPath = path.appending(members[index].key)
            switch kind.fields[members[index].key] {
            case .value(let slot)?:
                members[index].value = try place(members[index].value, slot, memberPath)
            case .scalars?:
                guard var values = members[index].value.objectValue else { continue }
                for i in values.indices {
                    values[i].value = try place(values[i].value, .scalar, memberPath.appending(values[i].key))
                }
                members[index].value = JSONValue(.object(values), at: members[index].value.location)
            case .actions?:
                guard var actions = members[index].value.arrayValue else { continue }
                for i in actions.indices {
                    actions[i] = try self.action(actions[i], at: memberPath.appending(i))
                }
                members[index].value = JSONValue(.array(actions), at: members[index].value.location)
            case .choice?, nil:
                continue
            }
        }
        return JSONValue(.object(members), at: action.location)
    }

    /// `value` itself, unless it is a parameter reference where one may stand: then what `visit` makes of it.
    private func place(_ value: JSONValue, _ slot: ParameterSlot, _ path: JSONPath) throws(ParameterError) -> JSONValue {
        guard ParameterReference.isWritten(value), let expects = slot.expects else { return value }
        return try visit(ParameterReference(value), expects, slot, path)
    }
}

/// A component whose own members take parameters, encoded once with each parameter's place left
/// open: filling it in for a request encodes the parameters' values alone, where substituting
/// into the component and encoding it again walked and rebuilt its every member and parsed its
/// `$format`s each time (most of an encoding-plan miss of a templated screen).
///
/// ``filled(with:path:)`` gives exactly the bytes of `substitutingMembers(…).encodedJSON()`, and
/// the same first error: the holes are visited in substitution's order, each with the same
/// function, and a compact encoding writes each member's value on its own, so the bytes around
/// a value do not depend on it.
package struct ParameterTemplate: Sendable {
    /// The component's bytes without its holes' values.
    let text: [UInt8]
    /// The holes in the order substitution visits them, so that the first to fail is its first.
    let holes: [Hole]
    /// The holes in the order they stand in the bytes, each after the run of `text` that ends at
    /// `runEnd`.
    let places: [(runEnd: UInt32, hole: UInt32)]

    struct Hole: Sendable {
        let reference: ParameterReference
        let slot: ParameterSlot
        let expects: ParameterUse.Expectation
        /// Where the hole stands in the component, for an error: its components in ``paths``.
        let path: Range<UInt32>
    }
    /// The components of every hole's path in the component, one after the other: one buffer
    /// for the template, where a path kept each its own links (a megabyte over 3,000 templated
    /// screens).
    let paths: [JSONPath.Component]

    /// The template of `component`, or nil when it has no hole or one of them is not a reference
    /// the decoder accepts (substitution then fails on it, with its path).
    package static func make(_ component: ResolvedComponent, registry: ComponentRegistry) -> ParameterTemplate? {
        final class Found { var holes: [Hole] = [], paths: [JSONPath.Component] = [], readable = true }
        let found = Found()
        // A string no authored value can hold (a private-use character), one per hole.
        func marker(_ index: Int) -> String { "\u{F8FF}parameter \(index)\u{F8FF}" }
        guard let marked = try? ParameterWalk(registry: registry, visit: { (reference, expects, slot, path) throws(ParameterError) in
            guard let reference else {
                found.readable = false
                return .null
            }
            let start = UInt32(found.paths.count)
            found.paths += path.components
            found.holes.append(Hole(reference: reference, slot: slot, expects: expects, path: start..<UInt32(found.paths.count)))
            return .string(marker(found.holes.count - 1))
        }).members(of: component, at: .root), found.readable, !found.holes.isEmpty
        else { return nil }
        let bytes = marked.encodedJSON()
        var places: [(range: Range<Int>, hole: Int)] = []
        for index in found.holes.indices {
            guard let range = bytes.onlyRange(of: JSONWriter.encode(.string(marker(index)))) else { return nil }
            places.append((range, index))
        }
        places.sort { $0.range.lowerBound < $1.range.lowerBound }
        var text: [UInt8] = []
        var laid: [(runEnd: UInt32, hole: UInt32)] = []
        var start = 0
        for place in places {
            text += bytes[start..<place.range.lowerBound]
            laid.append((UInt32(text.count), UInt32(place.hole)))
            start = place.range.upperBound
        }
        text += bytes[start...]
        return ParameterTemplate(
            text: text.exactlySized(), holes: found.holes.exactlySized(), places: laid.exactlySized(), paths: found.paths.exactlySized())
    }

    /// The component's bytes with `parameters` put in.
    /// - Parameter path: the component's path in the answer, asked for only for an error.
    package func filled(
        with parameters: [String: JSONValue], strings: LocalizedStrings?, path: () -> JSONPath
    ) throws(ParameterError) -> [UInt8] {
        var values: [JSONValue] = []
        values.reserveCapacity(holes.count)
        for hole in holes {
            do {
                values.append(
                    try Substitution.value(
                        of: hole.reference, expects: hole.expects, in: hole.slot, parameters: parameters, strings: strings, at: .root))
            } catch {
                let inComponent = paths[Int(hole.path.lowerBound)..<Int(hole.path.upperBound)]
                throw ParameterError(name: error.name, path: JSONPath(path().components + inComponent), reason: error.reason)
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count + 32 * holes.count)
        var start = 0
        for place in places {
            bytes += text[start..<Int(place.runEnd)]
            JSONWriter.append(values[Int(place.hole)], to: &bytes)
            start = Int(place.runEnd)
        }
        bytes += text[start...]
        return bytes
    }
}
