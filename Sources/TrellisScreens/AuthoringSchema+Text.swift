import TrellisJSON

extension AuthoringSchema {
    /// How wide a line of the schema's text may be before an object or array is broken over lines.
    static let lineWidth = 120

    /// The schema as `docs/screen.schema.json` holds it: indented by two spaces, with every object
    /// or array that fits in ``lineWidth`` columns on one line, and a final newline. The same
    /// registry always gives the same bytes.
    public static func text(registry: ComponentRegistry = .standard) -> String {
        var out = ""
        write(jsonValue(registry: registry), indent: 0, used: 0, to: &out)
        return out + "\n"
    }

    /// Writes `value` at `indent` levels, where `used` columns of the current line are taken.
    private static func write(_ value: JSONValue, indent: Int, used: Int, to out: inout String) {
        let line = oneLine(value)
        let fits = used + line.count + 1 <= lineWidth
        switch value.kind {
        case .array(let elements) where !fits && !elements.isEmpty && elements.allSatisfy(isScalar):
            // A long list of names: as many to a line as fit.
            let pad = String(repeating: "  ", count: indent + 1)
            var current = pad
            out += "["
            for (index, element) in elements.enumerated() {
                let item = oneLine(element) + (index == elements.count - 1 ? "" : ",")
                if current != pad && current.count + 1 + item.count > lineWidth {
                    out += "\n" + current
                    current = pad
                }
                current += (current == pad ? "" : " ") + item
            }
            out += "\n" + current + "\n" + String(repeating: "  ", count: indent) + "]"
        case .array(let elements) where !fits && !elements.isEmpty:
            out += "["
            for (index, element) in elements.enumerated() {
                out += (index == 0 ? "" : ",") + "\n" + String(repeating: "  ", count: indent + 1)
                write(element, indent: indent + 1, used: (indent + 1) * 2, to: &out)
            }
            out += "\n" + String(repeating: "  ", count: indent) + "]"
        case .object(let members) where !fits && !members.isEmpty:
            out += "{"
            for (index, member) in members.enumerated() {
                let key = JSONWriter.quoted(member.key) + ": "
                out += (index == 0 ? "" : ",") + "\n" + String(repeating: "  ", count: indent + 1) + key
                write(member.value, indent: indent + 1, used: (indent + 1) * 2 + key.count, to: &out)
            }
            out += "\n" + String(repeating: "  ", count: indent) + "}"
        default:
            out += line
        }
    }

    private static func isScalar(_ value: JSONValue) -> Bool {
        switch value.kind {
        case .array, .object: false
        default: true
        }
    }

    /// `value` on one line: `{"a": 1, "b": [2, 3]}`.
    private static func oneLine(_ value: JSONValue) -> String {
        switch value.kind {
        case .array(let elements): "[" + elements.map(oneLine).joined(separator: ", ") + "]"
        case .object(let members): "{" + members.map { JSONWriter.quoted($0.key) + ": " + oneLine($0.value) }.joined(separator: ", ") + "}"
        default: JSONWriter.string(value)
        }
    }
}
