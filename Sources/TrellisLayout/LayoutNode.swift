/// A node of the layout tree: a style, children, and for leaves optional measure and
/// baseline functions. After `calculateLayout` each node's `frame` holds its result.
///
/// Nodes are reference types so that a tree can be built once and laid out many times;
/// a node belongs to at most one parent. Not thread-safe: lay out one tree on one thread.
public final class LayoutNode {
    // Stored properties are laid out in declaration order. A layout pass over a large tree is
    // bound by cache misses, so the state it touches for every node comes first and together:
    // flags and children, the layout results, the edges resolved for left-to-right, then the
    // style (whose layout-relevant fields come first, its `Edges` last). Rarely read state —
    // measurements beyond the layout's own, right-to-left edges, parent, measure and baseline
    // functions, tag — follows.
    //
    // The storage the algorithm reads in its inner loops is marked `@exclusivity(unchecked)`:
    // the dynamic exclusivity checks cost more than the layout arithmetic, and no access can
    // overlap — a tree is laid out on one thread (see above), and the algorithm never holds an
    // `inout` access to a node's storage across a call that reaches the same node.

    @exclusivity(unchecked) var isDirty = true
    @exclusivity(unchecked) var hasParent = false
    /// Whether `measureFunction` is set (read by layout without touching the closure).
    @exclusivity(unchecked) var hasMeasureFunction = false
    /// `hasWidthPercentage` (bit 0), `hasWidthPercentageChildren` (bit 1),
    /// `hasHeightPercentage` (bit 2) and `hasHeightPercentageChildren` (bit 3), in the byte the
    /// flags above leave free.
    @exclusivity(unchecked) var percentageFlags: UInt8 = 0
    /// Whether the style sets a margin on any side: most boxes have none, and layout asks for an
    /// item's margins at every step.
    @exclusivity(unchecked) var hasMargin = false
    /// Counts `calculateLayout` calls made on this node as a root; tells passes apart for the caches.
    var layoutPassCount: UInt32 = 0
    @exclusivity(unchecked) var contentsChildrenCount: Int32 = 0
    @exclusivity(unchecked) var lineIndex: Int32 = 0

    @exclusivity(unchecked) public private(set) var children: [LayoutNode] = []

    /// Measures the content of a leaf (text, image). A node with a measure function must not have children.
    public var measureFunction: MeasureFunction? {
        get { measureFunctionStorage }
        set {
            measureFunctionStorage = newValue
            hasMeasureFunction = newValue != nil
            markDirty()
        }
    }

    @exclusivity(unchecked) var layout = LayoutResults()
    /// The style's edges resolved for `direction: ltr` (kept in step with `styleStorage`).
    @exclusivity(unchecked) var ltrEdges: DirectedBoxEdges

    /// The node's style; changing it marks the node (and its ancestors) for re-layout.
    public var style: Style {
        get { styleStorage }
        set {
            let oldValue = styleStorage
            styleStorage = newValue
            (ltrEdges, rtlEdges) = DirectedBoxEdges.both(newValue)
            hasMargin = newValue.margin.anyDefined
            hasWidthPercentage = newValue.hasWidthPercentage
            hasHeightPercentage = newValue.hasHeightPercentage
            if newValue != oldValue { styleDidChange(from: oldValue) }
        }
    }

    /// The style, read directly by the algorithm (no copy, no observers).
    @exclusivity(unchecked) var styleStorage: Style

    /// Measurements under other constraints than the layout's own (`layout.cachedLayout`);
    /// `layout.nextCachedMeasurementsIndex` says how many are valid.
    @exclusivity(unchecked) var cachedMeasurements = MeasurementCache()
    /// The style's edges resolved for `direction: rtl`.
    @exclusivity(unchecked) var rtlEdges: DirectedBoxEdges
    /// The node this node is a child of. (Not a `weak` reference: weak references make every
    /// retain of the node slow; a parent clears its children's back references when it goes away.)
    public var parent: LayoutNode? { parentReference }
    private unowned(unsafe) var parentReference: LayoutNode?
    /// `measureFunction` (layout reads `hasMeasureFunction` and calls this only for leaves that have one).
    @exclusivity(unchecked) var measureFunctionStorage: MeasureFunction?

    /// Returns a leaf's baseline (distance from its top) for `align-items: baseline`.
    public var baselineFunction: BaselineFunction? {
        didSet { markDirty() }
    }

    /// Places the children by constraints instead of flexbox (a Pins container); nil for flexbox.
    public var pinLayout: PinLayout? {
        get { pinLayoutStorage }
        set {
            pinLayoutStorage = newValue
            markDirty()
        }
    }
    var pinLayoutStorage: PinLayout?
    /// The frames a Pins container's last solve gave its views, for the layout that follows a
    /// measurement in the same pass at the size the measurement found.
    var pinSolution: PinSolution?
    /// The containing block's width the cached measurements were made with, for a node with
    /// `hasWidthPercentage` (kept here, out of the state every visit touches).
    var lastOwnerWidth: Float = .nan
    /// The containing block's height the cached measurements were made with, for a node with
    /// `hasHeightPercentage`.
    var lastOwnerHeight: Float = .nan

    /// Use this child's baseline as its parent's baseline, even if it is not the first item.
    public var isReferenceBaseline = false {
        didSet { if isReferenceBaseline != oldValue { markDirty() } }
    }

    /// Any value the caller wants to attach (e.g. the id of a UI component).
    public var tag: String?

    deinit {
        for child in children {
            child.parentReference = nil
            child.hasParent = false
        }
    }

    public init(style: Style = Style(), measure: MeasureFunction? = nil) {
        self.styleStorage = style
        (self.ltrEdges, self.rtlEdges) = DirectedBoxEdges.both(style)
        self.hasMargin = style.margin.anyDefined
        self.measureFunctionStorage = measure
        self.hasMeasureFunction = measure != nil
        self.hasWidthPercentage = style.hasWidthPercentage
        self.hasHeightPercentage = style.hasHeightPercentage
    }

    // MARK: Tree

    /// Appends `child`; it must not have a parent.
    public func addChild(_ child: LayoutNode) {
        insertChild(child, at: children.count)
    }

    /// Inserts `child` at `index`; it must not have a parent.
    public func insertChild(_ child: LayoutNode, at index: Int) {
        precondition(child.parent == nil && !child.hasParent, "LayoutNode: the child already has a parent")
        precondition(measureFunction == nil, "LayoutNode: a node with a measure function cannot have children")
        children.insert(child, at: index)
        child.parentReference = self
        child.hasParent = true
        if child.styleStorage.display == .contents { contentsChildrenCount += 1 }
        updateWidthPercentageChildren()
        markDirty()
    }

    /// Removes the child at `index` and returns it.
    @discardableResult
    public func removeChild(at index: Int) -> LayoutNode {
        let child = children.remove(at: index)
        child.parentReference = nil
        child.hasParent = false
        if child.styleStorage.display == .contents { contentsChildrenCount -= 1 }
        updateWidthPercentageChildren()
        markDirty()
        return child
    }

    /// Removes every child.
    public func removeAllChildren() {
        for child in children {
            child.parentReference = nil
            child.hasParent = false
        }
        children.removeAll()
        contentsChildrenCount = 0
        updateWidthPercentageChildren()
        markDirty()
    }

    /// Marks this node and its ancestors as needing layout (call after the content a measure
    /// function reports has changed).
    public func markDirty() {
        var node: LayoutNode? = self
        while let current = node {
            current.isDirty = true
            current.layout.computedFlexBasis = .nan
            node = current.parent
        }
    }

    func styleDidChange(from oldValue: Style) {
        if oldValue.display != style.display, let parent {
            var count = 0
            for child in parent.children where child.styleStorage.display == .contents { count += 1 }
            parent.contentsChildrenCount = Int32(count)
        }
        if oldValue.hasWidthPercentage != style.hasWidthPercentage || oldValue.display != style.display
            || oldValue.hasHeightPercentage != style.hasHeightPercentage {
            parent?.updateWidthPercentageChildren()
        }
        markDirty()
    }

    /// Whether the style has a percentage that resolves against the containing block's width:
    /// `width`, `min-width`, `max-width`, `flex-basis`, a margin, padding or inset.
    @inline(__always)
    var hasWidthPercentage: Bool {
        get { percentageFlags & 1 != 0 }
        set { percentageFlags = newValue ? percentageFlags | 1 : percentageFlags & ~1 }
    }

    /// Whether the style's `height`, `min-height` or `max-height` is a percentage: the node's size
    /// depends on its containing block's height, which a measurement may not know yet (a row of
    /// auto height measured by its column) and the layout that follows does.
    @inline(__always)
    var hasHeightPercentage: Bool {
        get { percentageFlags & 4 != 0 }
        set { percentageFlags = newValue ? percentageFlags | 4 : percentageFlags & ~4 }
    }

    /// Whether a layout child has `hasWidthPercentage`: the child's size or position depends on
    /// this node's width, which is cyclic while that width depends on the content.
    @inline(__always)
    var hasWidthPercentageChildren: Bool {
        get { percentageFlags & 2 != 0 }
        set { percentageFlags = newValue ? percentageFlags | 2 : percentageFlags & ~2 }
    }

    /// Whether a layout child has `hasHeightPercentage`: the child's size depends on whether this
    /// node's height is definite, which a measurement made before its container's height was
    /// known may not have found (so the node is measured again when that changes).
    @inline(__always)
    var hasHeightPercentageChildren: Bool {
        get { percentageFlags & 8 != 0 }
        set { percentageFlags = newValue ? percentageFlags | 8 : percentageFlags & ~8 }
    }

    /// Recomputes `hasWidthPercentageChildren` and `hasHeightPercentageChildren` here and,
    /// through `display: contents` nodes, above.
    func updateWidthPercentageChildren() {
        var node: LayoutNode? = self
        while let current = node {
            var found = false, foundHeight = false
            for child in current.layoutChildren {
                found = found || child.hasWidthPercentage
                foundHeight = foundHeight || child.hasHeightPercentage
                if found && foundHeight { break }
            }
            current.hasWidthPercentageChildren = found
            current.hasHeightPercentageChildren = foundHeight
            guard current.styleStorage.display == .contents else { break }
            node = current.parent
        }
    }

    // MARK: Results

    /// The node's frame after `calculateLayout`: position relative to the parent, size.
    public var frame: LayoutFrame { layout.frame }

    /// The direction the node was laid out in.
    public var layoutDirection: Direction { layout.direction }

    /// Whether the content overflowed the node in the last layout.
    public var hadOverflow: Bool { layout.hadOverflow }

    /// The node's top border plus top padding as its last layout or measurement resolved them
    /// (Yoga's `YGNodeLayoutGetBorder` plus `YGNodeLayoutGetPadding` for the top edge): where its
    /// content box starts, for a baseline function that measures from the content, as text does.
    public var contentBoxTop: Float { layout.border.top + layout.padding.top }

    /// The node's padding plus border on each side, as its last layout or measurement resolved
    /// them: what a baseline function subtracts from the size it is given to find the content box.
    public var contentBoxInsets: (top: Float, left: Float, bottom: Float, right: Float) {
        (layout.border.top + layout.padding.top, layout.border.left + layout.padding.left,
         layout.border.bottom + layout.padding.bottom, layout.border.right + layout.padding.right)
    }

    // MARK: Layout children

    /// The children that take part in this node's layout: `display: contents` children are
    /// replaced by their own layout children ([CSS Display §2.5](https://www.w3.org/TR/css-display-3/#box-generation)).
    @inline(__always)
    var layoutChildren: [LayoutNode] {
        if contentsChildrenCount == 0 { return children }
        var result: [LayoutNode] = []
        result.reserveCapacity(children.count)
        appendLayoutChildren(into: &result)
        return result
    }

    private func appendLayoutChildren(into result: inout [LayoutNode]) {
        for child in children {
            if child.styleStorage.display == .contents {
                child.appendLayoutChildren(into: &result)
            } else {
                result.append(child)
            }
        }
    }
}

extension Array where Element == LayoutNode {
    /// Calls `body` with each node and its index, without retaining the node.
    ///
    /// The array keeps its nodes alive, and layout never adds or removes children while walking
    /// them; skipping the retain/release pair per visit saves about a tenth of layout time.
    @inline(__always)
    func forEachUnretained(_ body: (_ index: Int, _ node: LayoutNode) -> Void) {
        withUnsafeBufferPointer { nodes in
            for index in nodes.indices {
                Unmanaged.passUnretained(nodes[index])._withUnsafeGuaranteedRef { body(index, $0) }
            }
        }
    }

    /// Like `forEachUnretained(_:)`, from index `start` for as long as `body` returns true.
    /// - Returns: the index at which `body` returned false, or `count`.
    @inline(__always)
    func forEachUnretained(from start: Int, while body: (_ index: Int, _ node: LayoutNode) -> Bool) -> Int {
        withUnsafeBufferPointer { nodes in
            var index = start
            while index < nodes.count {
                let proceed = Unmanaged.passUnretained(nodes[index])._withUnsafeGuaranteedRef { body(index, $0) }
                if !proceed { return index }
                index += 1
            }
            return nodes.count
        }
    }
}
