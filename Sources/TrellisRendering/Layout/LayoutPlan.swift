import TrellisJSON
import TrellisLayout
import Synchronization
import TrellisScreens

/// A resolved screen made into flexbox styles and prepared text for one kind of viewport: all of a
/// viewport but its width and height. Reading a screen's properties, choosing its fonts and
/// looking its glyphs up cost more than the flexbox pass itself, and none of it depends on the
/// size, so a snapshot keeps a plan per outcome and viewport kind (``Snapshot/layoutPlans``) and a
/// client sweeping sizes has each laid out from the same plan.
public struct LayoutPlan: Sendable {
    public let screen: ResolvedScreen
    /// The nodes of the plan's last layout, for the next (``ScreenLayout/withNodes(of:_:)``).
    let nodeTrees: NodeTreeShelf
    /// The compact answer's bytes before the root, but for the viewport's size.
    let head: LayoutAnswerWriter.Head
    let root: PlannedComponent?
    /// The root's `ignoresSafeArea`: the screen then has no safe-area padding.
    let ignoresSafeArea: Bool
    /// Whether a layout reuses the last one's nodes: only where no style has a percentage that
    /// may resolve against a height (``Style/resolvesPercentagesAgainstHeight``).
    var keepsNodes: Bool { root?.relaysOutExactly ?? true }
    /// The most bytes an answer of this plan can have, at any size (``ScreenLayout/answer(_:)``).
    var answerCapacity: Int { head.maxLength + (root?.answerBound ?? 4) + 1 }

    /// `viewport` as a plan's key: its width and height do not change the plan.
    public static func kind(of viewport: LayoutViewport) -> LayoutViewport {
        var kind = viewport
        kind.width = 0
        kind.height = 0
        return kind
    }
}

/// A plan's nodes, laid out at some size: the screen's node and the root component's.
///
/// Laying a tree out again at another size gives the frames a new tree would (docs/layout.md,
/// "Relayout gives the same frames as a fresh layout") and keeps every measurement the new size
/// does not change — a carousel's cards, an icon, a text offered the same width — so a plan keeps
/// its last tree rather than making and freeing a node per component for each size.
final class NodeTree: @unchecked Sendable {  // held by one layout at a time: NodeTreeShelf lends it to one taker
    let screen: LayoutNode
    let root: ScreenLayout.Placed?

    init(screen: LayoutNode, root: ScreenLayout.Placed?) {
        self.screen = screen
        self.root = root
    }
}

/// Places for ``NodeTree``s, taken and put back without a lock: one per layout that may run at
/// once (the server gives its event-loop count), because each may be laying the same plan out. A layout takes any tree, or makes one when
/// other layouts hold them all; putting back fills an empty place, or drops the tree when there is
/// none. So a plan keeps no more trees than layouts of it ever ran at the same time.
final class NodeTreeShelf: @unchecked Sendable {  // its places are read and written only atomically
    private let slots: UnsafeMutablePointer<Atomic<Unmanaged<NodeTree>?>>
    private let count: Int
    /// The most trees it keeps.
    var places: Int { count }

    init(places: Int) {
        count = max(places, 1)
        slots = .allocate(capacity: count)
        for index in 0..<count { (slots + index).initialize(to: Atomic(nil)) }
    }

    func take() -> NodeTree? {
        for index in 0..<count {
            if let tree = slots[index].exchange(nil, ordering: .acquiring) { return tree.takeRetainedValue() }
        }
        return nil
    }

    func put(_ tree: NodeTree) {
        let retained = Unmanaged.passRetained(tree)
        for index in 0..<count {
            if slots[index].compareExchange(expected: nil, desired: retained, ordering: .releasing).exchanged { return }
        }
        retained.release()
    }

    deinit {
        for index in 0..<count { slots[index].exchange(nil, ordering: .acquiring)?.release() }
        slots.deinitialize(count: count)
        slots.deallocate()
    }
}

/// One component of a ``LayoutPlan``: its node's style and content, never changed after it is made
/// (each layout makes its own nodes from it, ``ScreenLayout/instantiate(_:)``).
final class PlannedComponent: Sendable {
    /// What fills the node.
    enum Content: Sendable {
        /// A Text's or Button's text, measured by its measure function.
        case text(TextSpec)
        /// A pinned image without a size: a square of this side, which pins may stretch.
        case placeholder(Float)
        /// Its subviews (and bar and separators).
        case children
    }

    /// A navigation or tab bar's node: first (Navigation) or last (TabBar) among the children.
    struct Bar: Sendable {
        var style: Style
        var first: Bool
    }

    /// What ``ScreenLayout/plan(_:path:in:shown:chains:)`` gathers before the style is final.
    struct Draft {
        var hidden = false
        var insets: (top: Float, left: Float, bottom: Float, right: Float) = (0, 0, 0, 0)
        var pinLayout: PinLayout?
        var usesSafeArea = false
        var bar: Bar?
        var separatorStyle: Style?
    }

    let component: ResolvedComponent
    /// The component's `id`, else its JSON path in the resolved screen.
    let layoutId: String
    let style: Style
    let content: Content
    /// `hidden: true`, or a Tab that is not selected.
    let hidden: Bool
    /// Content insets (padding + border) in points, physical edges.
    let insets: (top: Float, left: Float, bottom: Float, right: Float)
    let pinLayout: PinLayout?
    /// Whether this is a Pins container with pins to its safe area.
    let usesSafeArea: Bool
    /// Whether it or a component inside it uses the safe area: only then does a layout look for
    /// insets to update (``ScreenLayout/updateSafeAreaInsets(_:left:top:)``).
    let safeAreaInside: Bool
    let bar: Bar?
    /// A List's separator between rows (nil: none).
    let separatorStyle: Style?
    let children: [PlannedComponent]
    /// `<layoutId>/bar` and `<layoutId>/separator[N]`, with their answers' opening bytes.
    let barPart: EncodedPart?
    let separatorParts: [EncodedPart]
    /// The bytes of the answer that do not change with the size.
    let encoded: EncodedComponent
    /// Whether neither it nor a component inside it has a style with a percentage that may
    /// resolve against a height: its nodes then lay out again at any size as new ones would.
    let relaysOutExactly: Bool
    /// The most bytes ``ScreenLayout/write(_:in:to:)`` writes for it and the components inside it.
    let answerBound: Int

    init(_ component: ResolvedComponent, layoutId: String, style: Style, content: Content, draft: Draft, children: [PlannedComponent]) {
        self.component = component
        self.layoutId = layoutId
        self.style = style
        self.content = content
        hidden = draft.hidden
        insets = draft.insets
        pinLayout = draft.pinLayout
        usesSafeArea = draft.usesSafeArea
        bar = draft.bar
        separatorStyle = draft.separatorStyle
        self.children = children
        safeAreaInside = draft.usesSafeArea || children.contains { $0.safeAreaInside }
        barPart = draft.bar == nil ? nil : EncodedPart(layoutId: layoutId + "/bar")
        separatorParts = draft.separatorStyle == nil ? [] : children.indices.dropFirst().map {
            EncodedPart(layoutId: layoutId + "/separator[\($0 - 1)]")
        }
        encoded = EncodedComponent(component, layoutId: layoutId)
        relaysOutExactly = !style.resolvesPercentagesAgainstHeight && children.allSatisfy(\.relaysOutExactly)
        let parts = (barPart.map { [$0] } ?? []) + separatorParts
        answerBound = encoded.byteCount + Self.literalBound
            + (1 + parts.count) * (LayoutAnswerWriter.maxFrameLength + 2) + parts.reduce(0) { $0 + $1.head.count }
            + children.reduce(0) { $0 + $1.answerBound + 1 }
    }

    /// The most bytes of a component's answer that are neither encoded with the plan nor a frame:
    /// `},"hidden":true,"bar":,"separators":[],"lines":<20 digits>,"truncated":true,"subviews":[]}`
    /// and the braces around them.
    private static let literalBound = 128

    var text: TextSpec? {
        if case .text(let spec) = content { spec } else { nil }
    }
}

/// The parts of a component's layout answer that do not depend on the size, encoded once per plan;
/// ``ScreenLayout/write(_:in:to:)`` writes the frames between them.
struct EncodedComponent: Sendable {
    /// `{"type":…,"id":…,"layoutId":…,"frame":{`
    let head: [UInt8]
    /// `,"properties":{…},"values":{…},"style":{…}`, each only when not empty.
    let members: [UInt8]
    /// `,"metadata":{…}`, or nothing.
    let metadata: [UInt8]
    var byteCount: Int { head.count + members.count + metadata.count }

    init(_ c: ResolvedComponent, layoutId: String) {
        var head: [UInt8] = [0x7B]
        var first = true
        JSONWriter.appendKey("type", first: &first, to: &head)
        JSONWriter.append(string: c.type, to: &head)
        if let id = c.id {
            JSONWriter.appendKey("id", first: &first, to: &head)
            JSONWriter.append(string: id, to: &head)
        }
        JSONWriter.appendKey("layoutId", first: &first, to: &head)
        JSONWriter.append(string: layoutId, to: &head)
        JSONWriter.appendKey("frame", first: &first, to: &head)
        head.append(0x7B)
        self.head = head
        var members: [UInt8] = []
        var notFirst = false
        for (key, object) in [("properties", c.properties), ("values", c.values), ("style", c.style)] where !object.isEmpty {
            JSONWriter.appendKey(key, first: &notFirst, to: &members)
            JSONWriter.append(members: object, to: &members)
        }
        self.members = members
        var metadata: [UInt8] = []
        if !c.metadata.isEmpty {
            JSONWriter.appendKey("metadata", first: &notFirst, to: &metadata)
            JSONWriter.append(members: c.metadata, to: &metadata)
        }
        self.metadata = metadata
    }
}

/// A bar's or separator's layout id, and `{"layoutId":"…"` for its answer.
struct EncodedPart: Sendable {
    let layoutId: String
    let head: [UInt8]

    init(layoutId: String) {
        self.layoutId = layoutId
        var head: [UInt8] = [0x7B]
        var first = true
        JSONWriter.appendKey("layoutId", first: &first, to: &head)
        JSONWriter.append(string: layoutId, to: &head)
        self.head = head
    }
}
