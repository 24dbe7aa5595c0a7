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
        // Chromium takes the items of a reversed axis (`row-reverse`, `column-reverse`) last
        // first: the visually first one (top, or left in LTR). Yoga 3.2 takes the first child
        // (`baselineFromFirstChildInReversedAxis`; web mode reverses `column-reverse` only).
        let children = node.layoutChildren
        let flexDirection = node.styleStorage.flexDirection
        let reversed = flexDirection.isReverse && (!config.errata.contains(.baselineFromFirstChildInReversedAxis)
                                                   || (flexDirection == .columnReverse && config.useWebDefaults))
        let firstLine = visuallyFirstLine(node, children)
        let count = children.count
        for position in 0..<count {
            let child = children[reversed ? count - 1 - position : position]
            if child.styleStorage.positionType == .absolute || child.styleStorage.display == .none { continue }
            if child.lineIndex != firstLine {
                // Lines follow the children's order: past the line, no later child is on it.
                if (child.lineIndex > firstLine) != reversed { break }
                continue
            }
            // (An item with an auto cross margin is placed by it, not by its baseline, so it
            // gives no baseline to its line, as in Chromium: §8.3.)
            if child.isReferenceBaseline || resolveChildAlignment(node, child) == .baseline
                && participatesInBaselineAlignment(node, child, node.layout.direction) {
                baselineChild = child
                break
            }
            if baselineChild == nil { baselineChild = child }
        }
        guard let baselineChild else { return node.layout.height }
        // A relative offset moves the item after layout, not the baseline it gives its container
        // (Yoga 3.2 counts it): the offset its layout applied, a percentage of a height that is
        // not definite being none.
        let offset = config.errata.contains(.baselineMovesWithRelativeOffset) ? 0
            : baselineChild.relativePosition(.column, node.layout.direction, node.layout.percentInnerHeight)
        return laidOutBaseline(baselineChild) + baselineChild.layout.position.top - offset
    }

    /// The line a container's first baseline comes from: the first, or in a `wrap-reverse`
    /// container the last, which is stacked at the top ([§8.5](https://www.w3.org/TR/css-flexbox-1/#flex-baselines):
    /// the first line is the one visually first, as Chromium takes it; Yoga 3.2 takes the first
    /// line laid out).
    private func visuallyFirstLine(_ node: LayoutNode, _ children: [LayoutNode]) -> Int32 {
        guard node.styleStorage.flexWrap == .wrapReverse,
              let last = children.last(where: { $0.styleStorage.positionType != .absolute && $0.styleStorage.display != .none })
        else { return 0 }
        return last.lineIndex
    }

    /// The item's baseline measured from the edge lines are stacked from: its top, or its bottom
    /// in a `wrap-reverse` container, where lines start at the bottom: the flipped line puts
    /// first-baseline items in the end baseline-sharing group, aligned by their first baselines
    /// measured from that edge ([CSS Align §9.3](https://www.w3.org/TR/css-align-3/#align-by-baseline)),
    /// as Chromium does in both modes (Yoga 3.2 measures them from the top). Lines are laid out
    /// top-down and mirrored afterwards, so the bottom becomes the leading edge.
    @inline(__always)
    func baselineFromLeadingEdge(_ child: LayoutNode, _ container: LayoutNode, usePositions: Bool) -> Float {
        let baseline = calculateBaseline(child, usePositions: usePositions)
        if container.styleStorage.flexWrap == .wrapReverse {
            return child.layout.measuredHeight - baseline
        }
        return baseline
    }

    /// The distance from the item's cross-start margin edge to its baseline (its ascent) and from
    /// there to its cross-end margin edge (its descent), for baseline alignment in `container`.
    /// In a row that is the item's own first baseline. A box has no baseline across a column, so
    /// one is synthesized at its line-left border edge
    /// ([CSS Align §9.1](https://www.w3.org/TR/css-align-3/#baseline-export)): the cross-start
    /// margin in LTR, that margin plus the width in RTL, where the cross axis starts at the right.
    @inline(__always)
    func baselineMetrics(_ child: LayoutNode, _ container: LayoutNode, _ crossAxis: FlexDirection,
                         _ direction: Direction, _ widthSize: Float, usePositions: Bool) -> (ascent: Float, descent: Float) {
        let ascent: Float
        if crossAxis.isRow {
            // (`wrap-reverse` mirrors the lines afterwards, so the left edge is then on the far side.)
            // Its margins stay on their physical sides: the cross-start one is then the flex-end one.
            let wrapReverse = container.styleStorage.flexWrap == .wrapReverse
            let farSide = (crossAxis == .rowReverse) != wrapReverse
            let physicalMargins = wrapReverse && !config.errata.contains(.wrapReverseMirrorsBorderBox)
            ascent = (physicalMargins ? child.margin(flexEnd: crossAxis, direction, widthSize)
                      : child.margin(flexStart: crossAxis, direction, widthSize)) + (farSide ? child.layout.measuredWidth : 0)
        } else {
            let leadingMargin = container.styleStorage.flexWrap == .wrapReverse
                ? child.margin(flexEnd: .column, direction, widthSize) : child.margin(flexStart: .column, direction, widthSize)
            ascent = baselineFromLeadingEdge(child, container, usePositions: usePositions) + leadingMargin
        }
        return (ascent, child.measured(crossAxis) + child.marginForAxis(crossAxis, direction, widthSize) - ascent)
    }

    /// Whether measuring `container` lays `child` out to read its baseline: a row measured for
    /// its content's height sizes its lines by its items' baselines
    /// ([§9.4 step 8](https://www.w3.org/TR/css-flexbox-1/#algo-cross-line)), and the baseline of
    /// an item with children comes from where they are placed, which only a layout finds (as
    /// Chromium lays flex items out to read their baselines). Yoga 3.2 sizes the lines of a
    /// measured row by its items' margin boxes, so a row of an item with `marginTop: 10` and a
    /// box holding a text was 10 high, not 12.
    @inline(__always)
    func laysOutToMeasureBaseline(_ child: LayoutNode, _ container: FlexContainer) -> Bool {
        !container.performLayout && container.isBaselineLayout && container.isMainAxisRow
            && child.baselineFunction == nil && !child.children.isEmpty
            && participatesInBaselineAlignment(container.node, child, container.direction)
    }

    /// Whether `child` takes part in baseline alignment: it is aligned `baseline` and has no auto
    /// margin in the cross axis ([§8.3](https://www.w3.org/TR/css-flexbox-1/#baseline-participation)).
    @inline(__always)
    func participatesInBaselineAlignment(_ node: LayoutNode, _ child: LayoutNode, _ direction: Direction) -> Bool {
        let crossAxis: FlexDirection = node.styleStorage.flexDirection.isColumn ? .row : .column
        return alignmentInLine(node, child) == .baseline
            && !child.marginIsAuto(flexStart: crossAxis, direction) && !child.marginIsAuto(flexEnd: crossAxis, direction)
    }

    /// The item's alignment within its line: `resolveChildAlignment`, except that `baseline` in a
    /// column container stays `baseline` unless `LayoutErrata.columnBaselineIsFlexStart` is set.
    @inline(__always)
    func alignmentInLine(_ node: LayoutNode, _ child: LayoutNode) -> Align {
        let align = child.styleStorage.alignSelf == .auto ? node.styleStorage.alignItems : child.styleStorage.alignSelf
        if align == .baseline, node.styleStorage.flexDirection.isColumn,
           config.errata.contains(.columnBaselineIsFlexStart) { return .flexStart }
        return align
    }
}

/// Whether the container aligns items by baseline: a row with a baseline-aligned item, or a
/// column with one when `columnBaselines` (see `LayoutErrata.columnBaselineIsFlexStart`).
func isBaselineLayout(_ node: LayoutNode, _ children: [LayoutNode], columnBaselines: Bool) -> Bool {
    if node.styleStorage.flexDirection.isColumn && !columnBaselines { return false }
    if node.styleStorage.alignItems == .baseline { return true }
    let end = children.forEachUnretained(from: 0) { _, child in
        child.styleStorage.positionType == .absolute || child.styleStorage.alignSelf != .baseline
    }
    return end < children.count
}
