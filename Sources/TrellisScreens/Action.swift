import TrellisJSON

/// A kind of action — what a tap does — with its fields and the schema version it appeared in.
/// Clients perform actions; the server checks them, picks fallbacks and fills in parameters.
struct ActionKind: Sendable {
    enum Field: Sendable {
        /// A value a parameter may stand for.
        case value(ParameterSlot)
        /// One of fixed names (`presentation`).
        case choice([String])
        /// An object of any values, each of which may be a parameter (track's `properties`).
        case scalars
        /// The actions of a sequence.
        case actions
    }

    var name: String
    var introduced: Int
    var required: [String]
    var fields: [String: Field]
    /// At least one of these must be given (share: `url`, `text`).
    var oneOrMoreOf: [String]
    /// `type`, `fallback` and the fields: the keys an action of this kind may have.
    let allowedKeys: KeyList

    init(name: String, introduced: Int, required: [String], fields: [String: Field], oneOrMoreOf: [String] = []) {
        self.name = name
        self.introduced = introduced
        self.required = required
        self.fields = fields
        self.oneOrMoreOf = oneOrMoreOf
        allowedKeys = KeyList(["type", "fallback"] + fields.keys.sorted())
    }

    /// Every kind, by name.
    static let all: [String: ActionKind] = Dictionary(uniqueKeysWithValues: list.map { ($0.name, $0) })

    static let presentations = ["push", "modal", "sheet", "fullScreen", "replace"]
    /// How many actions a sequence performs.
    static let sequenceLength = 1...16
    /// How deep sequences may nest: a sequence in a sequence is depth 2. Deeper nesting says
    /// nothing a flat sequence cannot, and the bound keeps resolution and checks shallow.
    static let maxSequenceDepth = 4

    private static let list: [ActionKind] = [
        ActionKind(
            name: "navigate", introduced: 2, required: ["url"],
            fields: ["url": .value(.anyURL), "presentation": .choice(presentations)]),
        ActionKind(name: "openURL", introduced: 2, required: ["url"], fields: ["url": .value(.anyURL)]),
        ActionKind(name: "dismiss", introduced: 2, required: [], fields: [:]),
        ActionKind(
            name: "track", introduced: 2, required: ["event"],
            fields: ["event": .value(.property(.string)), "properties": .scalars]),
        ActionKind(name: "back", introduced: 3, required: [], fields: [:]),
        ActionKind(name: "reload", introduced: 3, required: [], fields: [:]),
        ActionKind(
            name: "share", introduced: 3, required: [],
            fields: ["url": .value(.property(.url)), "text": .value(.property(.nonEmptyString))], oneOrMoreOf: ["url", "text"]),
        ActionKind(name: "copy", introduced: 3, required: ["text"], fields: ["text": .value(.property(.nonEmptyString))]),
        ActionKind(name: "sequence", introduced: 3, required: ["actions"], fields: ["actions": .actions]),
    ]
}

extension ValueCheck {
    /// Checks one action: its kind (known, and not newer than the screen), its fields, and its
    /// `fallback`, which must be of an older kind.
    /// - Parameter depth: how many sequences enclose the action.
    mutating func action(_ value: JSONValue, at path: JSONPath, depth: Int = 0) {
        guard let name = value["type"]?.stringValue, let kind = ActionKind.all[name] else {
            let found = value["type"].map { JSONWriter.string($0) } ?? "nothing"
            collector.report(
                "an action needs \"type\": one of \(ActionKind.all.keys.sorted().joined(separator: ", ")); found \(found)",
                at: path, value)
            return
        }
        guard let object = collector.object(value, at: path, allowedKeys: kind.allowedKeys) else { return }
        if kind.introduced > schemaVersion {
            collector.report(
                "\(name) needs schema version \(kind.introduced), but the screen declares schemaVersion \(schemaVersion)",
                at: path.appending("type"), value["type"]!)
        }
        for key in kind.required { _ = object.value(key, required: true) }
        if !kind.oneOrMoreOf.isEmpty && !kind.oneOrMoreOf.contains(where: object.contains) {
            collector.report("\(name) needs \(kind.oneOrMoreOf.map { "\"\($0)\"" }.joined(separator: " or ")), or both", at: path, value)
        }
        for member in object.members {
            guard let field = kind.fields[member.key] else { continue }
            self.field(field, member.value, of: kind, at: path.appending(member.key), depth: depth)
        }
        if let fallback = object.value("fallback") {
            actionFallback(fallback, for: kind, at: path.appending("fallback"), depth: depth)
        }
    }

    private mutating func field(_ field: ActionKind.Field, _ value: JSONValue, of kind: ActionKind, at path: JSONPath, depth: Int) {
        switch field {
        case .value(let slot):
            self.value(value, in: slot, at: path)
            if kind.name == "navigate" { link(value, at: path) }
        case .choice(let choices):
            self.value(value, in: .property(.oneOf(choices)), at: path)
        case .scalars:
            guard let members = value.objectValue else {
                collector.report("expected an object, found \(value.typeName)", at: path, value)
                return
            }
            // Analytics values are free-form; only those written as parameters are checked.
            for member in members where ParameterReference.isWritten(member.value) {
                parameter(member.value, in: .scalar, at: path.appending(member.key))
            }
        case .actions:
            sequence(value, at: path, depth: depth + 1)
        }
    }

    private mutating func sequence(_ value: JSONValue, at path: JSONPath, depth: Int) {
        guard let actions = value.arrayValue else {
            collector.report("expected an array of actions, found \(value.typeName)", at: path, value)
            return
        }
        guard depth <= ActionKind.maxSequenceDepth else {
            collector.report("sequences nest at most \(ActionKind.maxSequenceDepth) deep", at: path, value)
            return
        }
        let range = ActionKind.sequenceLength
        if !range.contains(actions.count) {
            collector.report("a sequence needs \(range.lowerBound) to \(range.upperBound) actions, found \(actions.count)", at: path, value)
        }
        for (index, action) in actions.enumerated() {
            self.action(action, at: path.appending(index), depth: depth)
        }
    }

    /// An action's fallback is what older clients perform instead, so its kind must be older.
    private mutating func actionFallback(_ value: JSONValue, for kind: ActionKind, at path: JSONPath, depth: Int) {
        action(value, at: path, depth: depth)
        if let name = value["type"]?.stringValue, let fallbackKind = ActionKind.all[name], fallbackKind.introduced >= kind.introduced {
            collector.report(
                "a fallback for \(kind.name) (schema version \(kind.introduced)) must be older; \(name) is version \(fallbackKind.introduced)",
                at: path, value)
        }
    }
}
