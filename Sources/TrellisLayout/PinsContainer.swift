/// Laying out a Pins container: its children are placed by constraints (``PinLayout``), each
/// then laid out in its frame by flexbox (or by its own pins).
extension FlexLayoutEngine {
    /// How many times a view's content is measured again at the width the constraints gave it
    /// (text that wraps grows taller, which can move what is pinned below it).
    static let pinRefinementRounds = 3

    /// Sizes the container from its pins and, for a layout pass, lays out and places each child.
    func layOutPinsContainer(_ node: LayoutNode, _ pins: PinLayout, direction: Direction, availableWidth: Float,
                             availableHeight: Float, widthMode: SizingMode, heightMode: SizingMode, ownerWidth: Float,
                             ownerHeight: Float, performLayout: Bool, depth: Int) {
        let padding = node.layout.padding, border = node.layout.border
        let inset = (left: Double(padding.left + border.left), top: Double(padding.top + border.top),
                     right: Double(padding.right + border.right), bottom: Double(padding.bottom + border.bottom))
        let children = node.layoutChildren
        var present: [(node: LayoutNode, name: String)] = []
        for (position, child) in children.enumerated() {
            if child.styleStorage.display == .none || position >= pins.views.count {
                child.zeroOutLayoutRecursively()
                continue
            }
            present.append((child, pins.views[position]))
        }
        let sizing = present.map { contentSizing(of: $0.node, direction: direction, depth: depth) }
        let safeArea = PinInsets(top: pins.safeAreaInsets.top - inset.top, left: pins.safeAreaInsets.left - inset.left,
                                 bottom: pins.safeAreaInsets.bottom - inset.bottom,
                                 right: pins.safeAreaInsets.right - inset.right)
        func solve(_ width: PinContainerSize, _ height: PinContainerSize) -> PinSystem {
            var system = PinSystem(layout: pins, views: present.map(\.name), sizing: sizing, safeArea: safeArea,
                                   rightToLeft: direction == .rtl, width: width, height: height)
            refineContentHeights(&system, present.map(\.node), direction: direction, depth: depth)
            return system
        }
        let insetRow = inset.left + inset.right, insetColumn = inset.top + inset.bottom
        let solution: PinSolution
        if let last = node.pinSolution, last.generation == generation, last.views == present.count,
           widthMode == .stretchFit, heightMode == .stretchFit,
           abs(Double(availableWidth) - insetRow - last.width) < 0.001, abs(Double(availableHeight) - insetColumn - last.height) < 0.001 {
            // Laying out at the size this pass's measurement found: the same solution.
            solution = last
        } else {
            var system = solve(Self.containerSize(availableWidth, widthMode, inset: insetRow),
                               Self.containerSize(availableHeight, heightMode, inset: insetColumn))
            var content = system.containerSize
            // The container's own min and max sizes win over what its pins would like.
            let width = node.boundAxis(.row, direction, Float(content.width + insetRow), ownerWidth, ownerWidth)
            let height = node.boundAxis(.column, direction, Float(content.height + insetColumn), ownerHeight, ownerWidth)
            if abs(Double(width) - (content.width + insetRow)) > 0.001 || abs(Double(height) - (content.height + insetColumn)) > 0.001 {
                system = solve(.exactly(Double(width) - insetRow), .exactly(Double(height) - insetColumn))
                content = system.containerSize
            }
            solution = PinSolution(generation: generation, width: content.width, height: content.height,
                                   frames: present.indices.map { system.frame($0) })
            node.pinSolution = solution
        }
        let content = (width: solution.width, height: solution.height)
        let width = node.boundAxis(.row, direction, Float(content.width + insetRow), ownerWidth, ownerWidth)
        let height = node.boundAxis(.column, direction, Float(content.height + insetColumn), ownerHeight, ownerWidth)
        node.layout.measuredWidth = width
        node.layout.measuredHeight = height
        node.layout.contentWidth = Float(content.width + insetRow)
        node.layout.contentHeight = Float(content.height + insetColumn)
        guard performLayout else { return }
        for (view, child) in present.enumerated() {
            let frame = solution.frames[view]
            layoutNode(child.node, availableWidth: Float(frame.width), availableHeight: Float(frame.height),
                       ownerDirection: direction, widthMode: .stretchFit, heightMode: .stretchFit,
                       ownerWidth: Float(content.width), ownerHeight: Float(content.height), performLayout: true,
                       depth: depth)
            let left = Float(inset.left + frame.x), top = Float(inset.top + frame.y)
            child.node.layout.position.left = left
            child.node.layout.position.top = top
            child.node.layout.position.right = width - left - child.node.layout.measuredWidth
            child.node.layout.position.bottom = height - top - child.node.layout.measuredHeight
        }
    }

    /// The content box's size constraint from the space the parent offers.
    private static func containerSize(_ available: Float, _ mode: SizingMode, inset: Double) -> PinContainerSize {
        if available.isNaN { return .unbounded }
        let size = max(0, Double(available) - inset)
        switch mode {
        case .stretchFit: return .exactly(size)
        case .fitContent: return .atMost(size)
        case .maxContent: return .unbounded
        }
    }

    /// A child's content size at max-content (nil on an axis where it has no content: an empty
    /// box), its first baseline, and the sizes its style fixes.
    private func contentSizing(of child: LayoutNode, direction: Direction, depth: Int) -> PinViewSizing {
        layoutNode(child, availableWidth: .nan, availableHeight: .nan, ownerDirection: direction, widthMode: .maxContent,
                   heightMode: .maxContent, ownerWidth: .nan, ownerHeight: .nan, performLayout: false, depth: depth)
        let hasContent = child.hasMeasureFunction || child.pinLayoutStorage != nil || !child.layoutChildren.isEmpty
        let style = child.styleStorage
        var sizing = PinViewSizing(
            width: PinSizeLimits(exact: Self.length(style.width), minimum: Self.length(style.minWidth),
                                 maximum: Self.length(style.maxWidth)),
            height: PinSizeLimits(exact: Self.length(style.height), minimum: Self.length(style.minHeight),
                                  maximum: Self.length(style.maxHeight)))
        if hasContent {
            sizing.intrinsicWidth = Double(child.layout.measuredWidth)
            sizing.intrinsicHeight = Double(child.layout.measuredHeight)
        }
        if let baseline = child.baselineFunction {
            sizing.baseline = Double(baseline(child.layout.measuredWidth, child.layout.measuredHeight))
        }
        return sizing
    }

    private static func length(_ dimension: Dimension) -> PinLength? {
        switch dimension {
        case .points(let points): .points(Double(points))
        case .percent(let percent): .fraction(Double(percent) / 100)
        default: nil
        }
    }

    /// Measures each view with content again at the width it was given, until the heights settle.
    private func refineContentHeights(_ system: inout PinSystem, _ nodes: [LayoutNode], direction: Direction, depth: Int) {
        for _ in 0..<Self.pinRefinementRounds {
            var changed = false
            for (view, node) in nodes.enumerated() {
                guard let contentWidth = system.sizing[view].intrinsicWidth,
                      let contentHeight = system.sizing[view].intrinsicHeight else { continue }
                let frame = system.frame(view)
                guard abs(frame.width - contentWidth) > 0.01 else { continue }
                layoutNode(node, availableWidth: Float(frame.width), availableHeight: .nan, ownerDirection: direction,
                           widthMode: .stretchFit, heightMode: .maxContent, ownerWidth: Float(system.containerSize.width),
                           ownerHeight: .nan, performLayout: false, depth: depth)
                let height = Double(node.layout.measuredHeight)
                if abs(height - contentHeight) > 0.01 {
                    system.setIntrinsicHeight(height, of: view)
                    changed = true
                }
            }
            if !changed { return }
        }
    }
}

/// One solve of a Pins container: its content box's size and its views' frames in it.
struct PinSolution {
    /// The layout pass it was solved in.
    let generation: UInt32
    let width: Double
    let height: Double
    let frames: [(x: Double, y: Double, width: Double, height: Double)]
    var views: Int { frames.count }
}
