import TrellisJSON
import TrellisLayout

/// Layout trees and styles described in JSON with Yoga's style names — the `tree` shape of the
/// conformance fixtures and of `trellis layout`, and the raw `style` object of a screen component:
///
///     {"id": "root", "style": {"width": 100, "flexDirection": "row"},
///      "children": [{"style": {"flexGrow": 1}, "text": "Hello"}]}
///
/// `text` makes a leaf measured as Ahem 10px, with its first line's baseline (`"textMeasure":
/// "yoga-intrinsic"` selects Yoga's test measure function, without a baseline, instead). This
/// lives beside the engine, not in it, because the engine imports nothing and JSON is read by
/// TrellisJSON, whose errors carry paths and lines.
public enum LayoutTree {
    /// Builds the node tree described by `json`.
    /// - Parameters:
    ///   - mode: whose defaults unset style properties take.
    ///   - source: the file name for error messages.
    /// - Throws: `DiagnosticsError` listing every mistake with its JSON path and line.
    public static func build(
        _ json: JSONValue, mode: LayoutMode, at path: JSONPath = .root, source: String = "tree"
    ) throws(DiagnosticsError) -> LayoutNode {
        try DiagnosticsCollector.decode(source: source) { collector in node(json, mode: mode, at: path, collector) }.get()
    }

    /// Applies each member of a `style` object (Yoga style names) to `style`; a null member is
    /// skipped. Reports every invalid member to `collector` when given.
    /// - Returns: whether every member was valid.
    @discardableResult
    public static func apply(
        _ members: [JSONMember], to style: inout Style, at path: JSONPath, _ collector: DiagnosticsCollector?
    ) -> Bool {
        var valid = true
        for member in members where !member.value.isNull {
            let memberPath = path.appending(member.key)
            let value: StyleValue
            if let number = member.value.numberValue {
                value = .number(Float(number))
            } else if let string = member.value.stringValue {
                value = .string(string)
            } else {
                collector?.report("expected a number or a string, found \(member.value.typeName)", at: memberPath, member.value)
                valid = false
                continue
            }
            do throws(StyleParseError) {
                try style.set(member.key, value)
            } catch {
                collector?.report(error.description, at: memberPath, member.value)
                valid = false
            }
        }
        return valid
    }

    /// The frames of `node` and its subtree in the fixtures' `expected` shape:
    /// `{"id", "left", "top", "width", "height", "children"}`.
    public static func frames(_ node: LayoutNode) -> JSONValue {
        let frame = node.frame
        func number(_ value: Float) -> JSONValue { value.isFinite ? .number(Double(value)) : .null }
        return .object([
            ("id", .string(node.tag ?? "")), ("left", number(frame.left)), ("top", number(frame.top)),
            ("width", number(frame.width)), ("height", number(frame.height)),
            ("children", .array(node.children.map(frames))),
        ])
    }

    private static func node(_ json: JSONValue, mode: LayoutMode, at path: JSONPath, _ collector: DiagnosticsCollector) -> LayoutNode? {
        guard let object = collector.object(json, at: path, allowedKeys: ["id", "style", "children", "text", "textMeasure"]) else {
            return nil
        }
        let node = LayoutNode(style: Style(mode: mode))
        node.tag = object.string("id")
        if let styleValue = object.value("style") {
            if let members = styleValue.objectValue {
                apply(members, to: &node.style, at: path.appending("style"), collector)
            } else {
                collector.report("expected an object, found \(styleValue.typeName)", at: path.appending("style"), styleValue)
            }
        }
        for (index, child) in (object.array("children") ?? []).enumerated() {
            if let childNode = self.node(child, mode: mode, at: path.appending("children").appending(index), collector) {
                node.addChild(childNode)
            }
        }
        let measure = object.string("textMeasure")
        if let measure, measure != "ahem", measure != "yoga-intrinsic" {
            object.report("expected \"ahem\" or \"yoga-intrinsic\", found \"\(measure)\"", atMember: "textMeasure")
        }
        if let text = object.string("text") {
            if !node.children.isEmpty {
                object.report("a text leaf cannot have children", atMember: "text")
            }
            if measure == "yoga-intrinsic" {
                node.measureFunction = AhemText.yogaIntrinsicMeasure(text, flexDirection: node.style.flexDirection)
            } else {
                // Read once the style is set: the text is the box's anonymous flex item.
                let style = node.style
                let measure = AhemText.measure(text, keepsWidestWord: AhemText.keepsWidestWord(style))
                node.measureFunction = measure
                // A browser puts a text box's baseline on its first line, 0.8em below the line's
                // top (Ahem's ascent), whatever the box's border and padding; the box's container
                // properties place the lines in a content box taller (or shorter) than they are.
                let baseline = AhemText.baseline()
                node.baselineFunction = { [unowned node] width, height in
                    let insets = node.contentBoxInsets
                    let lines = measure(max(0, width - insets.left - insets.right), .exactly, .nan, .undefined).height
                    let free = height - insets.top - insets.bottom - lines
                    return insets.top + AhemText.firstLineOffset(style, freeHeight: free) + baseline(width, height)
                }
            }
        }
        return node
    }
}
