/// Baselines ([§8.5 Flex Container Baselines](https://www.w3.org/TR/css-flexbox-1/#flex-baselines)).
extension FlexLayoutEngine {
    /// The node's first baseline, from its top: its baseline function's answer, else the
    /// baseline of its first baseline-aligned (or reference, or first) item on the first line,
    /// else its height.
    ///
    /// Only a layout pass leaves reliable positions, lines and sizes in the node's subtree
    /// (`layout.width`/`height` are written by layout passes only; measuring writes the measured
    /// sizes of whatever it visits). So, for `usePositions: true` (the node was just laid out),
    /// descendants are read through their last layout; while only measuring, the baseline is
    /// the node's bottom edge (or its baseline function's answer). Either way the answer does not
    /// depend on what earlier layouts left behind, and a relayout gives a fresh layout's frames.
    func calculateBaseline(_ node: LayoutNode, usePositions: Bool) -> Float {
        if let baseline = node.baselineFunction {
            return baseline(node.layout.measuredWidth, node.layout.measuredHeight)
        }
        if !usePositions { return node.layout.measuredHeight }
        return laidOutBaseline(node)
    }

    /// The baseline of a laid-out node, from the results of its last layout pass.
    private func laidOutBaseline(_ node: LayoutNode) -> Float {
        if let baseline = node.baselineFunction {
            return baseline(node.layout.width, node.layout.height)
        }
        var baselineChild: LayoutNode?
        // The first item is the one at the main-start edge: the last one in `column-reverse`.
        let children = node.layoutChildren
        let ordered = node.styleStorage.flexDirection == .columnReverse && config.useWebDefaults
            ? Array(children.reversed()) : children
        for child in ordered {
            if child.lineIndex > 0 { break }
            if child.styleStorage.positionType == .absolute { continue }
            if resolveChildAlignment(node, child) == .baseline || child.isReferenceBaseline {
                baselineChild = child
                break
            }
            if baselineChild == nil { baselineChild = child }
        }
        guard let baselineChild else { return node.layout.height }
        return laidOutBaseline(baselineChild) + baselineChild.layout.position.top
    }

    /// The item's baseline measured from the edge lines are stacked from: its top, or its bottom
    /// in a `wrap-reverse` container in web mode, where lines (and baseline alignment) start at
    /// the bottom ([§8.3](https://www.w3.org/TR/css-flexbox-1/#baseline-participation)). Lines
    /// are laid out top-down and mirrored afterwards, so the bottom becomes the leading edge.
    @inline(__always)
    func baselineFromLeadingEdge(_ child: LayoutNode, _ container: LayoutNode, usePositions: Bool) -> Float {
        let baseline = calculateBaseline(child, usePositions: usePositions)
        if config.useWebDefaults && container.styleStorage.flexWrap == .wrapReverse {
            return child.layout.measuredHeight - baseline
        }
        return baseline
    }

    /// The distance from the item's leading margin edge to its baseline.
    @inline(__always)
    func baselineAscent(_ child: LayoutNode, _ container: LayoutNode, _ direction: Direction, _ widthSize: Float,
                        usePositions: Bool) -> Float {
        let leadingMargin = config.useWebDefaults && container.styleStorage.flexWrap == .wrapReverse
            ? child.margin(flexEnd: .column, direction, widthSize) : child.margin(flexStart: .column, direction, widthSize)
        return baselineFromLeadingEdge(child, container, usePositions: usePositions) + leadingMargin
    }

}

/// Whether `child` takes part in baseline alignment: it is aligned `baseline` and has no auto
/// margin in the cross axis ([§8.3](https://www.w3.org/TR/css-flexbox-1/#baseline-participation)).
@inline(__always)
func participatesInBaselineAlignment(_ node: LayoutNode, _ child: LayoutNode, _ direction: Direction) -> Bool {
    resolveChildAlignment(node, child) == .baseline
        && !child.marginIsAuto(flexStart: .column, direction) && !child.marginIsAuto(flexEnd: .column, direction)
}

/// Whether the container aligns items by baseline (a row with a baseline-aligned item).
func isBaselineLayout(_ node: LayoutNode, _ children: [LayoutNode]) -> Bool {
    if node.styleStorage.flexDirection.isColumn { return false }
    if node.styleStorage.alignItems == .baseline { return true }
    let end = children.forEachUnretained(from: 0) { _, child in
        child.styleStorage.positionType == .absolute || child.styleStorage.alignSelf != .baseline
    }
    return end < children.count
}
