import TrellisJSON
import TrellisLayout
import TrellisScreens
import TrellisText

extension LayoutFrame {
    /// The frame on the wire: `x`, `y`, `width`, `height` in points (position relative to the
    /// parent's frame, rounded to the pixel grid), the names clients' frame types use.
    var jsonMembers: [(String, TrellisJSON.JSONValue)] {
        [("x", .number(left.json)), ("y", .number(top.json)), ("width", .number(width.json)), ("height", .number(height.json))]
    }
}

extension Float {
    /// The number on the wire: the shortest decimal that reads back as this Float (`227.33333`).
    /// `Double(self)` is exact, so it would print the binary value's every digit (`227.33331298828125`).
    var json: Double { Double(description) ?? Double(self) }
}

/// Text as it was measured for a frame: what a preview needs to draw it the same way.
public struct LaidOutText: Sendable {
    public var text: String
    /// The face measured with (the nearest shipped weight), so a preview draws that face.
    public var family: String
    public var weight: Int
    public var size: Double
    public var lineHeight: Double
    /// The lines TrellisText broke the text into at the frame's content width, as drawn: trailing
    /// spaces dropped, and the last line ending in "…" when the line limit cut the text.
    public var lines: [String]
    /// Each line's width as TrellisText measured it, in points (with the "…" of a cut line).
    public var lineWidths: [Double]
    /// Whether `lineLimit` cut the text (the answer's `truncated`).
    public var isTruncated: Bool
}

/// A laid-out part that is not a component: a navigation or tab bar, a list separator.
public struct LaidOutPart: Sendable {
    /// `<component layoutId>/bar`, `<component layoutId>/separator[N]`.
    public var layoutId: String
    public var frame: LayoutFrame
}

/// One component with its frame, and its laid-out subviews.
public struct LaidOutComponent: Sendable {
    public var component: ResolvedComponent
    /// The component's `id`, else its JSON path in the resolved screen (`$.root.subviews[1]`).
    public var layoutId: String
    public var frame: LayoutFrame
    /// `hidden: true`, or a Tab that is not selected: not laid out, frame 0×0.
    public var isHidden: Bool
    /// Content insets (padding + border) in points, physical edges.
    public var insets: (top: Float, left: Float, bottom: Float, right: Float)
    /// Text of a Text, or title of a Button.
    public var text: LaidOutText?
    /// Navigation and TabBar: the bar.
    public var bar: LaidOutPart?
    /// List: the separators between rows.
    public var separators: [LaidOutPart]
    public var subviews: [LaidOutComponent]
}

/// A resolved screen laid out for one viewport.
public struct ScreenFrames: Sendable {
    public var screen: ResolvedScreen
    public var viewport: LayoutViewport
    /// Nil when the screen resolved to nothing.
    public var root: LaidOutComponent?

    /// The layout answer: the resolved envelope, the viewport, and every component with `layoutId`
    /// and `frame` (relative to its parent's frame; the root's relative to the screen).
    public func jsonValue(revision: Int) -> TrellisJSON.JSONValue {
        var members = screen.jsonValue(revision: revision).objectValue?.filter { $0.key != "root" }.map { ($0.key, $0.value) } ?? []
        let v = viewport
        members.append((
            "viewport",
            .object([
                ("width", .number(v.width.json)), ("height", .number(v.height.json)), ("scale", .number(v.scale.json)),
                ("fontScale", .number(v.fontScale.json)), ("safeTop", .number(v.safeTop.json)),
                ("safeBottom", .number(v.safeBottom.json)), ("direction", .string(v.direction.rawValue)),
                ("platform", .string(v.platform.rawValue)), ("mode", .string(v.mode == .web ? "web" : "yoga")),
            ])
        ))
        members.append(("root", root.map(Self.jsonValue) ?? .null))
        return .object(members)
    }

    static func jsonValue(_ node: LaidOutComponent) -> TrellisJSON.JSONValue {
        let c = node.component
        var members: [(String, TrellisJSON.JSONValue)] = [("type", .string(c.type))]
        if let id = c.id { members.append(("id", .string(id))) }
        members.append(("layoutId", .string(node.layoutId)))
        members.append(("frame", .object(node.frame.jsonMembers)))
        if node.isHidden { members.append(("hidden", .bool(true))) }
        if let bar = node.bar { members.append(("bar", part(bar))) }
        if !node.separators.isEmpty { members.append(("separators", .array(node.separators.map(part)))) }
        if let text = node.text, text.lines.count > 0 { members.append(("lines", .number(text.lines.count))) }
        if node.text?.isTruncated == true { members.append(("truncated", .bool(true))) }
        if !c.properties.isEmpty { members.append(("properties", TrellisJSON.JSONValue(.object(c.properties)))) }
        if !c.values.isEmpty { members.append(("values", TrellisJSON.JSONValue(.object(c.values)))) }
        if !c.style.isEmpty { members.append(("style", TrellisJSON.JSONValue(.object(c.style)))) }
        if !node.subviews.isEmpty { members.append(("subviews", .array(node.subviews.map(jsonValue)))) }
        if !c.metadata.isEmpty { members.append(("metadata", TrellisJSON.JSONValue(.object(c.metadata)))) }
        return .object(members)
    }

    private static func part(_ part: LaidOutPart) -> TrellisJSON.JSONValue {
        .object([("layoutId", .string(part.layoutId))] + part.frame.jsonMembers)
    }
}
