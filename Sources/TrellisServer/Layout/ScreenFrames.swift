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
    /// spaces dropped, and the last line ending in "…" when the line limit cut the text; empty
    /// when the layout kept only their number (``ScreenLayout/keepsLines``).
    public var lines: [String]
    /// Each line's width as TrellisText measured it, in points (with the "…" of a cut line); empty
    /// with `lines`.
    public var lineWidths: [Double]
    /// How many lines the text was broken into.
    public var lineCount: Int
    /// Whether `lineLimit` cut the text (the answer's `truncated`).
    public var isTruncated: Bool

    public init(text: String, family: String, weight: Int, size: Double, lineHeight: Double, lines: [String],
                lineWidths: [Double], lineCount: Int, isTruncated: Bool) {
        self.text = text
        self.family = family
        self.weight = weight
        self.size = size
        self.lineHeight = lineHeight
        self.lines = lines
        self.lineWidths = lineWidths
        self.lineCount = lineCount
        self.isTruncated = isTruncated
    }
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
        var members = screen.envelopeMembers(revision: revision)
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
        if let text = node.text, text.lineCount > 0 { members.append(("lines", .number(text.lineCount))) }
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

/// The compact layout answer, written as the nodes are read back (``ScreenLayout/answer(_:)``):
/// the bytes encoding ``ScreenFrames/jsonValue(revision:)`` gives, without a `JSONValue` tree or a
/// ``ScreenFrames`` (LayoutEndpointTests checks the two agree).
enum LayoutAnswerWriter {
    /// `{` and every member before the root's value: the envelope, the viewport, `"root":`,
    /// all but the viewport's size encoded once per plan.
    struct Head: Sendable {
        /// `{` and the envelope's members, then `"viewport":{"width":`.
        let beforeWidth: [UInt8]
        /// The viewport's members after `height`, then `},"root":`.
        let afterHeight: [UInt8]

        /// The head of `screen`'s answers at `revision` for viewports of `kind` (any width and height).
        init(_ screen: ResolvedScreen, kind v: LayoutViewport, revision: Int) {
            var out: [UInt8] = [0x7B]
            var first = true
            for (key, value) in screen.envelopeMembers(revision: revision) {
                JSONWriter.appendKey(key, first: &first, to: &out)
                JSONWriter.append(value, to: &out)
            }
            JSONWriter.appendKey("viewport", first: &first, to: &out)
            out.append(0x7B)
            var inner = true
            JSONWriter.appendKey("width", first: &inner, to: &out)
            beforeWidth = out
            out = []
            for (key, number) in [("scale", v.scale), ("fontScale", v.fontScale), ("safeTop", v.safeTop), ("safeBottom", v.safeBottom)] {
                JSONWriter.appendKey(key, first: &inner, to: &out)
                LayoutAnswerWriter.append(number, to: &out)
            }
            for (key, string) in [("direction", v.direction.rawValue), ("platform", v.platform.rawValue), ("mode", v.mode == .web ? "web" : "yoga")] {
                JSONWriter.appendKey(key, first: &inner, to: &out)
                JSONWriter.append(string: string, to: &out)
            }
            out.append(0x7D)
            JSONWriter.appendKey("root", first: &first, to: &out)
            afterHeight = out
        }

        /// The head for a viewport `width` × `height`.
        func append(width: Float, height: Float, to out: inout [UInt8]) {
            out.append(contentsOf: beforeWidth)
            LayoutAnswerWriter.append(width, to: &out)
            LayoutAnswerWriter.append(literal: ",\"height\":", to: &out)
            LayoutAnswerWriter.append(height, to: &out)
            out.append(contentsOf: afterHeight)
        }
    }

    /// A point value as `.number(value.json)` writes it, without the round trip through a Double.
    static func append(_ value: Float, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxNumberLength) { buffer in
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<write(value, into: buffer, at: 0)]))
        }
    }

    /// The frame's members, `"x":…,"y":…,"width":…,"height":…`, after a comma unless `first`.
    /// Most of an answer is frames: each is formatted on the stack and appended at once.
    static func append(_ frame: LayoutFrame, first: Bool, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32 + 4 * maxNumberLength) { buffer in
            var end = write(literal: first ? "\"x\":" : ",\"x\":", into: buffer, at: 0)
            end = write(frame.left, into: buffer, at: end)
            end = write(literal: ",\"y\":", into: buffer, at: end)
            end = write(frame.top, into: buffer, at: end)
            end = write(literal: ",\"width\":", into: buffer, at: end)
            end = write(frame.width, into: buffer, at: end)
            end = write(literal: ",\"height\":", into: buffer, at: end)
            end = write(frame.height, into: buffer, at: end)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<end]))
        }
    }

    /// The most bytes `write(_:into:at:)` writes for a Float: `-1.17549435e-38`, or from 2^24 on,
    /// where every Float is whole, a Double's shortest form (`-3.4028235e+38`) or its digits.
    private static let maxNumberLength = 24

    /// Writes `value` as `append(_:to:)` does into `buffer` from `index`; returns the index after it.
    private static func write(_ value: Float, into buffer: UnsafeMutableBufferPointer<UInt8>, at index: Int) -> Int {
        let rest = UnsafeMutableBufferPointer(rebasing: buffer[index...])
        guard abs(value) < 16_777_216 else {
            // From 2^24 on every Float is whole, but `.json` is its shortest decimal (1e15, not
            // 999999986991104); or it is NaN or infinite.
            var encoded: [UInt8] = []
            JSONWriter.append(number: value.json, to: &encoded)
            return rest.initialize(fromContentsOf: encoded) + index
        }
        // Below 2^24 a whole Float's shortest decimal is its integer, and any other's are the
        // digits `.json` reads back and prints.
        if Float(Int64(value)) == value { return JSONWriter.write(integer: Int64(value), into: buffer, at: index) }
        var description = value.description
        return description.withUTF8 { rest.initialize(fromContentsOf: $0) } + index
    }

    private static func write(literal: StaticString, into buffer: UnsafeMutableBufferPointer<UInt8>, at index: Int) -> Int {
        let bytes = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        return UnsafeMutableBufferPointer(rebasing: buffer[index...]).initialize(fromContentsOf: bytes) + index
    }

    /// A bar or separator: `{"layoutId":"…","x":…}`.
    static func append(_ part: EncodedPart, frame: LayoutFrame, to out: inout [UInt8]) {
        out.append(contentsOf: part.head)
        append(frame, first: false, to: &out)
        out.append(0x7D)
    }

    /// A few fixed bytes, copied as they are (a String's UTF-8 view is appended byte by byte).
    static func append(literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
