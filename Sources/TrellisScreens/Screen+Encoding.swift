import TrellisJSON
import TrellisTargeting

extension Screen {
    /// The screen as served: an envelope (id, revision, schema version, title, metadata) around the tree.
    public func jsonValue(revision: Int) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(id)), ("revision", .number(revision)), ("schemaVersion", .number(schemaVersion)),
        ]
        if let title { members.append(("title", .string(title))) }
        if !metadata.isEmpty { members.append(("metadata", JSONValue(.object(metadata)))) }
        members.append(("root", root.jsonValue))
        return .object(members)
    }

    /// The screen as an author writes it, which ``ScreenDecoder`` reads back: the served envelope
    /// without its `revision`.
    public var authoredJSONValue: JSONValue {
        JSONValue(.object((jsonValue(revision: 0).objectValue ?? []).filter { $0.key != "revision" }))
    }
}

extension Node {
    /// The node in the authoring shape.
    public var jsonValue: JSONValue {
        switch self {
        case .component(let component):
            return component.jsonValue
        case .rule(let id, let rule, let then, let otherwise):
            var members: [(String, JSONValue)] = [("type", .string("Rule"))]
            if let id { members.append(("id", .string(id))) }
            members.append(("rule", rule.jsonValue))
            members.append(("child", then.jsonValue))
            if let otherwise { members.append(("else", otherwise.jsonValue)) }
            return .object(members)
        case .experiment(let id, let key, let variants):
            var members: [(String, JSONValue)] = [("type", .string("Experiment"))]
            if let id { members.append(("id", .string(id))) }
            members.append(("experiment", .string(key)))
            members.append(("variants", .object(variants.map { ($0.name, $0.node?.jsonValue ?? .null) })))
            return .object(members)
        }
    }
}

extension Component {
    /// DrivenUI's shape: `type`, then `id`, `properties`, `values`, `style`, `subviews`, `fallback`
    /// and `metadata` when present.
    public var jsonValue: JSONValue {
        Self.encode(
            type: type, id: id, properties: properties, values: values, style: style, pins: pins,
            subviews: subviews.map(\.jsonValue), fallback: fallback?.jsonValue, metadata: metadata)
    }

    /// The one writer of the component shape, for authored and resolved components alike: keys in
    /// the order `type`, `id`, `properties`, `values`, `style`, a Pins container's `pins`, `align`
    /// and `metrics`, `subviews`, `fallback`, `metadata`; empty ones and a missing id are left out,
    /// as in the authoring format.
    static func encode(
        type: String, id: String?, properties: [JSONMember], values: [JSONMember], style: [JSONMember],
        pins: PinSpec? = nil, subviews: [JSONValue], fallback: JSONValue?, metadata: [JSONMember]
    ) -> JSONValue {
        // Members made in place rather than as pairs mapped to members: one array per component, not two.
        var members: [JSONMember] = []
        members.reserveCapacity(8)
        func add(_ key: String, _ value: JSONValue) { members.append(JSONMember(key: key, value: value)) }
        add("type", .string(type))
        if let id { add("id", .string(id)) }
        if !properties.isEmpty { add("properties", JSONValue(.object(properties))) }
        if !values.isEmpty { add("values", JSONValue(.object(values))) }
        if !style.isEmpty { add("style", JSONValue(.object(style))) }
        if let pins { pins.members.forEach(add) }
        if !subviews.isEmpty { add("subviews", .array(subviews)) }
        if let fallback { add("fallback", fallback) }
        if !metadata.isEmpty { add("metadata", JSONValue(.object(metadata))) }
        return JSONValue(.object(members))
    }
}
