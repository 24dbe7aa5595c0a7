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
///
/// The answer is written into memory reserved once, as large as its plan says the answer can be
/// (``LayoutPlan/answerCapacity``): the array never grows, and a write is a copy and a pointer
/// bump, with no uniqueness or capacity check of an array per member.
struct LayoutAnswerWriter: TextOutputStream {
    private var next: UnsafeMutablePointer<UInt8>
    private let end: UnsafeMutablePointer<UInt8>

    /// The bytes `body` writes, at most `capacity` of them. An answer is kept in the answer cache,
    /// so one that leaves much of its capacity unused is copied into an array of its own size.
    static func bytes(capacity: Int, _ body: (inout LayoutAnswerWriter) -> Void) -> [UInt8] {
        let written = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            guard let start = buffer.baseAddress else { return }
            var writer = LayoutAnswerWriter(next: start, end: start + buffer.count)
            body(&writer)
            count = writer.next - start
        }
        guard written.capacity - written.count > written.count / 8 else { return written }
        return written.withUnsafeBufferPointer { [UInt8]($0) }
    }

    private init(next: UnsafeMutablePointer<UInt8>, end: UnsafeMutablePointer<UInt8>) {
        self.next = next
        self.end = end
    }

    /// Makes room for `count` bytes. The plan's bound covers every answer; should it not, the
    /// process stops here rather than write past the memory.
    @inline(__always)
    private func reserve(_ count: Int) {
        precondition(count <= end - next, "LayoutAnswerWriter: an answer outgrew its plan's bound")
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress else { return }
        reserve(bytes.count)
        next.initialize(from: start, count: bytes.count)
        next += bytes.count
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    mutating func append(byte: UInt8) {
        reserve(1)
        next.initialize(to: byte)
        next += 1
    }

    /// A few fixed bytes, copied as they are.
    mutating func append(literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func append(integer n: Int64) {
        reserve(JSONWriter.maxIntegerLength)
        next += JSONWriter.write(integer: n, into: UnsafeMutableBufferPointer(start: next, count: end - next), at: 0)
    }

    /// The most bytes ``append(_:)-(Float)`` writes: `-1.17549435e-38`, or from 2^24 on, where
    /// every Float is whole, a Double's shortest form (`-3.4028235e+38`) or its digits.
    static let maxNumberLength = 24

    /// A point value as `.number(value.json)` writes it, without the round trip through a Double.
    mutating func append(_ value: Float) {
        guard abs(value) < 16_777_216 else {
            // From 2^24 on every Float is whole, but `.json` is its shortest decimal (1e15, not
            // 999999986991104); or it is NaN or infinite.
            return append(JSONWriter.encode(.number(value.json)))
        }
        // Below 2^24 a whole Float's shortest decimal is its integer, and any other's are the
        // digits `.json` reads back and prints.
        if Float(Int64(value)) == value { return append(integer: Int64(value)) }
        reserve(Self.maxNumberLength)
        value.write(to: &self)  // its `description`'s digits, handed to `_writeASCII` without making a String
    }

    /// The most bytes ``append(_:first:)`` writes.
    static let maxFrameLength = 29 + 4 * maxNumberLength

    /// The frame's members, `"x":…,"y":…,"width":…,"height":…`, after a comma unless `first`.
    mutating func append(_ frame: LayoutFrame, first: Bool) {
        append(literal: first ? "\"x\":" : ",\"x\":")
        append(frame.left)
        append(literal: ",\"y\":")
        append(frame.top)
        append(literal: ",\"width\":")
        append(frame.width)
        append(literal: ",\"height\":")
        append(frame.height)
    }

    /// A bar or separator: `{"layoutId":"…","x":…}`.
    mutating func append(_ part: EncodedPart, frame: LayoutFrame) {
        append(part.head)
        append(frame, first: false)
        append(byte: 0x7D)
    }

    // TextOutputStream, for `Float.write(to:)`: it hands its digits to `_writeASCII`.
    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { append($0) }
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        append(buffer)
    }

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
                JSONWriter.append(number: number.json, to: &out)
            }
            for (key, string) in [("direction", v.direction.rawValue), ("platform", v.platform.rawValue), ("mode", v.mode == .web ? "web" : "yoga")] {
                JSONWriter.appendKey(key, first: &inner, to: &out)
                JSONWriter.append(string: string, to: &out)
            }
            out.append(0x7D)
            JSONWriter.appendKey("root", first: &first, to: &out)
            afterHeight = out
        }

        /// The most bytes ``append(width:height:to:)`` writes.
        var maxLength: Int { beforeWidth.count + afterHeight.count + 10 + 2 * LayoutAnswerWriter.maxNumberLength }

        /// The head for a viewport `width` × `height`.
        func append(width: Float, height: Float, to out: inout LayoutAnswerWriter) {
            out.append(beforeWidth)
            out.append(width)
            out.append(literal: ",\"height\":")
            out.append(height)
            out.append(afterHeight)
        }
    }
}
