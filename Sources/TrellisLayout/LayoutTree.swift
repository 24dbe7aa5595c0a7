/// Layout trees described in JSON with Yoga's style names — the `tree` shape of the conformance
/// fixtures and of `trellis layout`:
///
///     {"id": "root", "style": {"width": 100, "flexDirection": "row"},
///      "children": [{"style": {"flexGrow": 1}, "text": "Hello"}]}
///
/// `text` makes a leaf measured as Ahem 10px (`"textMeasure": "yoga-intrinsic"` selects Yoga's
/// test measure function instead).
public enum LayoutTree {
    /// Builds the node tree described by `json`.
    /// - Parameters:
    ///   - mode: whose defaults unset style properties take.
    ///   - path: the JSON path of `json`, for error messages.
    /// - Throws: `LayoutInputError` with the JSON path of the first mistake and the reason.
    public static func build(_ json: JSONValue, mode: LayoutMode, path: String = "$") throws(LayoutInputError) -> LayoutNode {
        guard case .object(let members) = json else { throw LayoutInputError(path: path, reason: "expected an object") }
        let node = LayoutNode(style: Style(mode: mode))
        var text: String?
        var textMeasure: String?
        for (key, value) in members {
            switch key {
            case "id":
                guard case .string(let id) = value else { throw LayoutInputError(path: "\(path).id", reason: "expected a string") }
                node.tag = id
            case "style":
                node.style = try parseStyle(value, mode: mode, path: "\(path).style")
            case "children":
                guard case .array(let children) = value else {
                    throw LayoutInputError(path: "\(path).children", reason: "expected an array")
                }
                for (index, child) in children.enumerated() {
                    node.addChild(try build(child, mode: mode, path: "\(path).children[\(index)]"))
                }
            case "text":
                guard case .string(let string) = value else { throw LayoutInputError(path: "\(path).text", reason: "expected a string") }
                text = string
            case "textMeasure":
                guard case .string(let string) = value, string == "yoga-intrinsic" || string == "ahem" else {
                    throw LayoutInputError(path: "\(path).textMeasure", reason: "expected \"ahem\" or \"yoga-intrinsic\"")
                }
                textMeasure = string
            default:
                throw LayoutInputError(path: "\(path).\(key)", reason: "unknown key; expected id, style, children, text or textMeasure")
            }
        }
        if let text {
            guard node.children.isEmpty else {
                throw LayoutInputError(path: "\(path).text", reason: "a text leaf cannot have children")
            }
            node.measureFunction = textMeasure == "yoga-intrinsic"
                ? AhemText.yogaIntrinsicMeasure(text, flexDirection: node.style.flexDirection)
                : AhemText.measure(text)
        }
        return node
    }

    /// Parses a `style` object of Yoga style names into a `Style` with `mode`'s defaults.
    public static func parseStyle(_ json: JSONValue, mode: LayoutMode, path: String) throws(LayoutInputError) -> Style {
        guard case .object(let members) = json else { throw LayoutInputError(path: path, reason: "expected an object") }
        var style = Style(mode: mode)
        for (key, value) in members {
            let styleValue: StyleValue
            switch value {
            case .number(let number): styleValue = .number(Float(number))
            case .string(let string): styleValue = .string(string)
            case .null: continue
            default: throw LayoutInputError(path: "\(path).\(key)", reason: "expected a number or a string")
            }
            do {
                try style.set(key, styleValue)
            } catch {
                throw LayoutInputError(path: "\(path).\(key)", reason: error.description)
            }
        }
        return style
    }

    /// The frames of `node` and its subtree as JSON in the fixtures' `expected` shape:
    /// `{"id", "left", "top", "width", "height", "children"}`.
    public static func framesJSON(_ node: LayoutNode, indent: String? = "  ") -> String {
        var output = ""
        writeFrames(node, indent: indent, level: 0, into: &output)
        return output
    }

    private static func writeFrames(_ node: LayoutNode, indent: String?, level: Int, into output: inout String) {
        let newline = indent == nil ? "" : "\n"
        let pad = String(repeating: indent ?? "", count: level + 1)
        let closePad = String(repeating: indent ?? "", count: level)
        let separator = indent == nil ? ":" : ": "
        let frame = node.frame
        output += "{" + newline
        output += pad + "\"id\"" + separator + quoted(node.tag ?? "") + "," + newline
        for (name, value) in [("left", frame.left), ("top", frame.top), ("width", frame.width), ("height", frame.height)] {
            output += pad + "\"\(name)\"" + separator + number(value) + "," + newline
        }
        output += pad + "\"children\"" + separator + "["
        for (index, child) in node.children.enumerated() {
            if index > 0 { output += "," }
            output += newline + String(repeating: indent ?? "", count: level + 2)
            writeFrames(child, indent: indent, level: level + 2, into: &output)
        }
        if !node.children.isEmpty { output += newline + pad }
        output += "]" + newline + closePad + "}"
    }

    private static func number(_ value: Float) -> String {
        if value.isNaN || value.isInfinite { return "null" }
        if abs(value) < 1e9 && Float(Int(value)) == value { return "\(Int(value)).0" }
        return "\(value)"
    }

    private static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
