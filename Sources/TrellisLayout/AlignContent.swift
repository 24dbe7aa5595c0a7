/// [§9.6 step 17, Align all flex lines per align-content](https://www.w3.org/TR/css-flexbox-1/#algo-line-align)
/// ([§8.4](https://www.w3.org/TR/css-flexbox-1/#align-content-property)), with baseline alignment
/// of items within each line ([§8.3](https://www.w3.org/TR/css-flexbox-1/#baseline-participation)).
extension FlexLayoutEngine {
    func alignContent(_ container: inout FlexContainer) {
        guard container.performLayout && (container.isWrapping || container.isBaselineLayout) else { return }
        let node = container.node
        let crossAxis = container.crossAxis
        let direction = container.direction
        let lineCount = Float(container.lineCount)
        let unclampedCrossDim: Float
        if container.crossMode == .stretchFit {
            unclampedCrossDim = container.availableInnerCrossDim + container.paddingAndBorderCross
        } else if node.hasDefiniteLength(crossAxis, container.crossAxisOwnerSize) {
            unclampedCrossDim = node.resolvedDimension(direction, crossAxis, container.crossAxisOwnerSize, container.ownerWidth)
        } else {
            unclampedCrossDim = container.contentCrossSize(config.errata)
        }
        let innerCrossDim = node.boundAxis(crossAxis, direction, unclampedCrossDim, container.crossAxisOwnerSize,
                                           container.ownerWidth) - container.paddingAndBorderCross
        let remaining = innerCrossDim - container.totalLineCrossDim
        var alignContent = remaining >= 0 ? node.styleStorage.alignContent : fallbackAlignment(node.styleStorage.alignContent)
        // `space-around` and `space-evenly` fall back to `safe center`, which puts overflowing
        // lines at the container's start ([CSS Align §4.3](https://www.w3.org/TR/css-align-3/#distribution-values)):
        // its flex-end once `wrap-reverse` has mirrored the lines. (`space-between` falls back to
        // `flex-start`, unsafe, as in Chromium: the bottom of a `wrap-reverse` row.)
        if remaining < 0 && node.styleStorage.flexWrap == .wrapReverse
            && !config.errata.contains(.distributedJustifyFallsBackToFlexStart) {
            switch node.styleStorage.alignContent {
            case .spaceAround, .spaceEvenly: alignContent = .flexEnd
            default: break
            }
        }

        var currentLead = container.leadingPaddingAndBorderCross
        var leadPerLine: Float = 0
        var extraSpacePerLine: Float = 0
        switch alignContent {
        case .flexEnd: currentLead += remaining
        case .center: currentLead += remaining / 2
        case .stretch: extraSpacePerLine = remaining / lineCount
        case .spaceAround:
            currentLead += remaining / (2 * lineCount)
            leadPerLine = remaining / lineCount
        case .spaceEvenly:
            currentLead += remaining / (lineCount + 1)
            leadPerLine = remaining / (lineCount + 1)
        case .spaceBetween:
            if container.lineCount > 1 { leadPerLine = remaining / (lineCount - 1) }
        case .auto, .flexStart, .baseline: break
        }

        let crossGap = node.gap(crossAxis, container.availableInnerCrossDim)
        var start = 0
        for lineIndex in 0..<container.lineCount {
            let metrics = measureLine(container, lineIndex: lineIndex, start: start)
            currentLead += lineIndex != 0 ? crossGap : 0
            var lineHeight = metrics.height + extraSpacePerLine
            // A single line is as big as the container: its definite cross size
            // ([§9.4 step 8](https://www.w3.org/TR/css-flexbox-1/#algo-cross-line)), or the line's
            // own size clamped by the container's min and max cross sizes (step 15).
            if !container.isWrapping { lineHeight = innerCrossDim }
            for index in start..<metrics.end {
                let child = container.children[index]
                if child.styleStorage.display == .none || child.styleStorage.positionType == .absolute { continue }
                alignItemInLine(child, container, lead: currentLead, lineHeight: lineHeight,
                                leadPerLine: leadPerLine, maxAscent: metrics.maxAscent)
            }
            start = metrics.end
            currentLead += leadPerLine + lineHeight
        }
    }

    /// The cross size and the largest ascent of a line, and where it ends.
    private func measureLine(_ container: FlexContainer, lineIndex: Int, start: Int)
        -> (height: Float, maxAscent: Float, end: Int) {
        let node = container.node
        let crossAxis = container.crossAxis
        let innerWidth = container.availableInnerWidth
        // (An item's descent may be negative: a 0-tall text has its baseline below its box.)
        var lineHeight: Float = 0, maxAscent = -Float.infinity, maxDescent = -Float.infinity
        let end = container.children.forEachUnretained(from: start) { _, child in
            if child.styleStorage.display == .none || child.styleStorage.positionType == .absolute { return true }
            if Int(child.lineIndex) != lineIndex { return false }
            if child.isLayoutDimensionDefined(crossAxis) {
                lineHeight = maxOrDefined(lineHeight, child.measured(crossAxis) + child.marginForAxis(crossAxis, container.direction, innerWidth))
            }
            if participatesInBaselineAlignment(node, child, container.direction) {
                let (ascent, descent) = baselineMetrics(child, node, crossAxis, container.direction, innerWidth,
                                                        usePositions: true)
                maxAscent = maxOrDefined(maxAscent, ascent)
                maxDescent = maxOrDefined(maxDescent, descent)
                lineHeight = maxOrDefined(lineHeight, maxAscent + maxDescent)
            }
            return true
        }
        return (lineHeight, maxAscent, end)
    }

    /// Positions an item within its line per `align-self` once the line's final cross size is known.
    private func alignItemInLine(_ child: LayoutNode, _ container: FlexContainer, lead: Float, lineHeight: Float,
                                 leadPerLine: Float, maxAscent: Float) {
        let crossAxis = container.crossAxis
        let direction = container.direction
        let innerWidth = container.availableInnerWidth
        let startEdge = crossAxis.flexStartEdge
        // Chrome places the margin box and then applies the relative offset; Yoga drops the
        // margin for flex-start and centres the border box (see docs/layout.md).
        let relative = child.relativePosition(crossAxis, direction, container.percentInnerCrossDim)
        let marginStart = child.margin(flexStart: crossAxis, direction, innerWidth)
        let align = alignmentInLine(container.node, child)
        var startAuto = child.marginIsAuto(flexStart: crossAxis, direction)
        var endAuto = child.marginIsAuto(flexEnd: crossAxis, direction)
        if container.node.styleStorage.flexWrap == .wrapReverse && !config.errata.contains(.wrapReverseMirrorsBorderBox) {
            // Lines are mirrored afterwards (`reverseWrappedLines`): an auto margin on the physical
            // start side takes the space on what is then the other side.
            swap(&startAuto, &endAuto)
        }
        if lineHeight > container.availableInnerCrossDim && container.isWrapping && crossAxis.isRow
            && (align != .stretch || startAuto || endAuto) {
            offerLineWidth(child, container, lineHeight: lineHeight)
        }
        if startAuto || endAuto {
            // Auto cross margins take the line's free space, whatever `align-self` says
            // ([§8.1](https://www.w3.org/TR/css-flexbox-1/#auto-margins)).
            let free = lineHeight - child.measured(crossAxis) - child.marginForAxis(crossAxis, direction, innerWidth)
            let offset: Float = startAuto && endAuto ? max(free, 0) / 2 : (startAuto ? max(free, 0) : 0)
            child.layout.position[startEdge] = lead + offset + marginStart + relative
            return
        }
        switch align {
        case .flexStart:
            child.layout.position[startEdge] = lead + marginStart + relative
        case .flexEnd:
            child.layout.position[startEdge] = lead + lineHeight - child.margin(flexEnd: crossAxis, direction, innerWidth)
                - child.measured(crossAxis) + relative
        case .center:
            let outer = child.measured(crossAxis) + child.marginForAxis(crossAxis, direction, innerWidth)
            child.layout.position[startEdge] = lead + (lineHeight - outer) / 2 + marginStart + relative
        case .stretch:
            child.layout.position[startEdge] = lead + marginStart + relative
            restretchItem(child, container, lineHeight: lineHeight, leadPerLine: leadPerLine)
        case .baseline where crossAxis.isRow:
            // The synthesized baseline is the line-left border edge (see `baselineMetrics`).
            let wrapReverse = container.node.styleStorage.flexWrap == .wrapReverse
            let farSide = (crossAxis == .rowReverse) != wrapReverse
            var ascentInBorderBox: Float = farSide ? child.layout.measuredWidth : 0
            if wrapReverse && !config.errata.contains(.wrapReverseMirrorsBorderBox) {
                // (Mirroring keeps the margins on their physical sides.)
                ascentInBorderBox += child.margin(flexEnd: crossAxis, direction, innerWidth) - marginStart
            }
            child.layout.position[startEdge] = lead + maxAscent - ascentInBorderBox + relative
        case .baseline:
            var ascentInBorderBox = baselineFromLeadingEdge(child, container.node, usePositions: true)
            if container.node.styleStorage.flexWrap == .wrapReverse && !config.errata.contains(.wrapReverseMirrorsBorderBox) {
                // The ascent starts at the bottom margin, and mirroring keeps the margins on their
                // physical sides.
                ascentInBorderBox += child.margin(flexEnd: crossAxis, direction, innerWidth) - marginStart
            }
            child.layout.position[.top] = lead + maxAscent - ascentInBorderBox + relative
        case .auto, .spaceBetween, .spaceAround, .spaceEvenly:
            break
        }
    }

    /// An item of a multi-line column that is not stretched takes its auto width from the space
    /// its line offers, as in Chromium, where that line is wider than the container (the item's
    /// hypothetical width was fit to the container's width): `width: 0` with a 15-point item
    /// and a text `H H` lays the text out 15 wide, on one line.
    private func offerLineWidth(_ child: LayoutNode, _ container: FlexContainer, lineHeight: Float) {
        let direction = container.direction
        guard !child.hasDefiniteLength(.row, container.availableInnerWidth), child.styleStorage.aspectRatio == nil,
              child.styleStorage.width.sizingKeywordMode(available: 0) == nil else { return }
        let innerWidth = container.availableInnerWidth
        var width = lineHeight, widthMode = SizingMode.fitContent
        constrainMaxSizeForMode(child, direction, .row, innerWidth, innerWidth, &widthMode, &width)
        let height = child.layout.measuredHeight + child.marginForAxis(.column, direction, innerWidth)
        layoutNode(child, availableWidth: width, availableHeight: height, ownerDirection: direction,
                   widthMode: widthMode, heightMode: .stretchFit, ownerWidth: innerWidth,
                   ownerHeight: container.percentInnerHeight, performLayout: true, depth: container.depth)
    }

    /// A stretched item is measured again with the line's final cross size.
    private func restretchItem(_ child: LayoutNode, _ container: FlexContainer, lineHeight: Float, leadPerLine: Float) {
        guard !keepsOwnCrossSize(child, container) else { return }
        let innerWidth = container.availableInnerWidth
        let isRow = container.isMainAxisRow
        // A line is as big as its items (plus its share of `align-content: stretch`); the space
        // `space-*` puts between lines is not the items' (Yoga 3.2 stretches them into it).
        let crossSize = config.errata.contains(.stretchIntoSpaceBetweenLines) ? leadPerLine + lineHeight : lineHeight
        let width = isRow ? child.layout.measuredWidth + child.marginForAxis(container.mainAxis, container.direction, innerWidth)
            : crossSize
        // (Yoga 3.2 adds the cross-axis margins to a column item's height here.)
        let height = !isRow ? child.layout.measuredHeight + child.marginForAxis(container.mainAxis, container.direction, innerWidth)
            : crossSize
        if inexactEquals(width, child.layout.measuredWidth) && inexactEquals(height, child.layout.measuredHeight) { return }
        layoutNode(child, availableWidth: width, availableHeight: height, ownerDirection: container.direction,
                   widthMode: .stretchFit, heightMode: .stretchFit, ownerWidth: innerWidth,
                   ownerHeight: container.percentInnerHeight, performLayout: true, depth: container.depth)
    }
}
