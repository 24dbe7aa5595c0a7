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

extension Screen {
    /// The bytes `JSONWriter.encode(jsonValue(revision:))` gives, compact, written straight from the
    /// model. A start fingerprints every screen by these bytes, and fingerprints are stored, so they
    /// must not change; building the tree of values only to encode it was a quarter of a screen's load.
    public func encodedJSON(revision: Int) -> [UInt8] {
        JSONWriter.bytes(reservingCapacity: 16384) { out in
            out.append(raw: #"{"id":"#)
            out.append(string: id)
            out.append(raw: #","revision":"#)
            out.append(number: Double(revision))
            out.append(raw: #","schemaVersion":"#)
            out.append(number: Double(schemaVersion))
            out.append(#","title":"#, string: title)
            out.append(#","metadata":"#, members: metadata)
            out.append(raw: #","root":"#)
            root.writeJSON(to: &out)
            out.append(byte: UInt8(ascii: "}"))
        }
    }
}

extension Node {
    /// Appends ``jsonValue``'s compact bytes.
    func writeJSON(to out: inout JSONOutput) {
        switch self {
        case .component(let component):
            component.writeJSON(to: &out)
        case .rule(let id, let rule, let then, let otherwise):
            out.append(raw: #"{"type":"Rule""#)
            out.append(#","id":"#, string: id)
            out.append(raw: #","rule":"#)
            out.append(rule.jsonValue)
            out.append(raw: #","child":"#)
            then.writeJSON(to: &out)
            if let otherwise {
                out.append(raw: #","else":"#)
                otherwise.writeJSON(to: &out)
            }
            out.append(byte: UInt8(ascii: "}"))
        case .experiment(let id, let key, let variants):
            out.append(raw: #"{"type":"Experiment""#)
            out.append(#","id":"#, string: id)
            out.append(raw: #","experiment":"#)
            out.append(string: key)
            out.append(raw: #","variants":{"#)
            var first = true
            for variant in variants {
                out.appendKey(variant.name, first: &first)
                if let node = variant.node { node.writeJSON(to: &out) } else { out.append(raw: "null") }
            }
            out.append(raw: "}}")
        }
    }
}

extension Component {
    /// Appends ``jsonValue``'s compact bytes: the members of ``encode(type:id:properties:values:style:pins:subviews:fallback:metadata:)``,
    /// in its order, and a Pins container's those of ``PinSpec/members``.
    func writeJSON(to out: inout JSONOutput) {
        Self.writeJSON(
            type: type, id: id, properties: properties, values: values, style: style, pins: pins, subviews: subviews,
            fallback: fallback, metadata: metadata, to: &out
        ) { subview, out in subview.writeJSON(to: &out) }
    }

    /// The members of a component, authored (`Subview`: ``Node``) or resolved (``ResolvedComponent``,
    /// without a fallback), written in ``encode(type:id:properties:values:style:pins:subviews:fallback:metadata:)``'s order.
    static func writeJSON<Subview>(
        type: String, id: String?, properties: [JSONMember], values: [JSONMember], style: [JSONMember], pins: PinSpec?,
        subviews: [Subview], fallback: Node?, metadata: [JSONMember], to out: inout JSONOutput,
        writing write: (Subview, inout JSONOutput) -> Void
    ) {
        out.append(raw: #"{"type":"#)
        out.append(string: type)
        out.append(#","id":"#, string: id)
        out.append(#","properties":"#, members: properties)
        out.append(#","values":"#, members: values)
        out.append(#","style":"#, members: style)
        if let pins {
            out.append(raw: #","pins":"#)
            out.append(elements: pins.pins)
            out.append(#","align":"#, members: pins.align)
            out.append(#","metrics":"#, members: pins.metrics)
        }
        if !subviews.isEmpty {
            out.append(raw: #","subviews":["#)
            for (index, subview) in subviews.enumerated() {
                if index > 0 { out.append(byte: UInt8(ascii: ",")) }
                write(subview, &out)
            }
            out.append(byte: UInt8(ascii: "]"))
        }
        if let fallback {
            out.append(raw: #","fallback":"#)
            fallback.writeJSON(to: &out)
        }
        out.append(#","metadata":"#, members: metadata)
        out.append(byte: UInt8(ascii: "}"))
    }
}

extension ResolvedComponent {
    /// The bytes `JSONWriter.encode(jsonValue)` gives, compact, written straight from the
    /// component: what an encoding plan holds of every subtree it does not decide.
    public func encodedJSON() -> [UInt8] {
        JSONWriter.bytes(reservingCapacity: 1024) { out in writeJSON(to: &out) }
    }

    func writeJSON(to out: inout JSONOutput) {
        Component.writeJSON(
            type: type, id: id, properties: properties, values: values, style: style, pins: pins, subviews: subviews,
            fallback: nil, metadata: metadata, to: &out
        ) { subview, out in subview.writeJSON(to: &out) }
    }
}

/// The members the model's encoding leaves out when they hold nothing (``Screen/jsonValue(revision:)``,
/// ``Component/encode(type:id:properties:values:style:pins:subviews:fallback:metadata:)``), written
/// with their key (`,"id":`) only when they hold something.
private extension JSONOutput {
    mutating func append(_ key: StaticString, string value: String?) {
        guard let value else { return }
        append(raw: key)
        append(string: value)
    }

    mutating func append(_ key: StaticString, members: [JSONMember]) {
        guard !members.isEmpty else { return }
        append(raw: key)
        append(members: members)
    }
}
