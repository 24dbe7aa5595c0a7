/// [§9.5 Main-Axis Alignment](https://www.w3.org/TR/css-flexbox-1/#main-alignment).
extension FlexLayoutEngine {
    /// Steps 12–13: distributes the line's remaining free space to auto margins
    /// ([§8.1](https://www.w3.org/TR/css-flexbox-1/#auto-margins)), else by `justify-content`
    /// ([§8.2](https://www.w3.org/TR/css-flexbox-1/#justify-content-property)), and positions the
    /// items along the main axis. Also measures the line's main size and its cross size
    /// ([§9.4 step 8](https://www.w3.org/TR/css-flexbox-1/#algo-cross-line)).
    func alignMainAxis(_ container: FlexContainer, _ line: inout FlexLine) {
        let node = container.node
        let mainAxis = container.mainAxis, crossAxis = container.crossAxis
        let direction = container.direction
        let innerWidth = container.availableInnerWidth
        let leadingPaddingAndBorder = node.paddingAndBorder(leading: mainAxis, direction, container.ownerWidth)
        let trailingPaddingAndBorder = node.paddingAndBorder(trailing: mainAxis, direction, container.ownerWidth)
        let gap = node.gap(mainAxis, container.availableInnerMainDim)

        if container.mainMode == .fitContent && line.remainingFreeSpace > 0 && !line.hasContainersMainSize {
            line.remainingFreeSpace = freeSpaceUnderFitContent(container, line, leadingPaddingAndBorder + trailingPaddingAndBorder)
        }
        let (leadingMainDim, betweenMainDim) = justifySpacing(container, line, gap: gap)

        line.mainDim = leadingPaddingAndBorder + leadingMainDim
        line.contentMainDim = leadingPaddingAndBorder + trailingPaddingAndBorder
            + (line.items.count > 1 ? gap * Float(line.items.count - 1) : 0)
        line.crossDim = 0
        // (An item's descent may be negative: a 0-tall text has its baseline below its box.)
        var maxAscent = -Float.infinity, maxDescent = -Float.infinity
        let isBaseline = container.isBaselineLayout
        let autoMarginShare = line.numberOfAutoMargins > 0 ? line.remainingFreeSpace / Float(line.numberOfAutoMargins) : 0
        let canSkipFlex = !container.performLayout && container.crossMode == .stretchFit
        let items = line.items
        items.forEachUnretained { index, child in
            if child.marginIsAuto(flexStart: mainAxis, direction) && line.remainingFreeSpace > 0 {
                line.mainDim += autoMarginShare
            }
            if container.performLayout {
                child.layout.position[mainAxis.flexStartEdge] += line.mainDim
            }
            if index != line.items.count - 1 { line.mainDim += betweenMainDim }
            if child.marginIsAuto(flexEnd: mainAxis, direction) && line.remainingFreeSpace > 0 {
                line.mainDim += autoMarginShare
            }
            if canSkipFlex {
                // Sizes were not computed; the hypothetical main size stands in for them.
                let outer = child.marginForAxis(mainAxis, direction, innerWidth) + hypotheticalMainSize(child, container)
                line.mainDim += outer
                line.contentMainDim += outer
                line.crossDim = container.availableInnerCrossDim
            } else {
                let outer = child.dimensionWithMargin(mainAxis, direction, innerWidth)
                line.mainDim += outer
                // A main size the container takes from its content asks for the items'
                // hypothetical main sizes (§9.9.1), not the sizes they flexed to once the
                // container's min or max main size clamped it.
                line.contentMainDim += container.mainMode == .stretchFit ? outer
                    : child.marginForAxis(mainAxis, direction, innerWidth) + hypotheticalMainSize(child, container)
                // Across a single-line column, baselines place the items but do not size the line
                // (Chromium's intrinsic width of such a column ignores them); a multi-line
                // column's lines count them, for its width too, as Chromium's do.
                if isBaseline && (!crossAxis.isRow || container.isWrapping)
                    && participatesInBaselineAlignment(node, child, direction) {
                    let usePositions = container.performLayout || laysOutToMeasureBaseline(child, container)
                    let (ascent, descent) = baselineMetrics(child, node, crossAxis, direction, innerWidth,
                                                            usePositions: usePositions)
                    maxAscent = maxOrDefined(maxAscent, ascent)
                    maxDescent = maxOrDefined(maxDescent, descent)
                } else {
                    line.crossDim = maxOrDefined(line.crossDim, child.dimensionWithMargin(crossAxis, direction, innerWidth))
                }
            }
        }
        line.mainDim += trailingPaddingAndBorder
        // Items that do not take part in baseline alignment count with their outer size.
        if isBaseline && maxAscent > -Float.infinity { line.crossDim = max(line.crossDim, maxAscent + maxDescent) }
    }

    /// Under a fit-content main size the container shrinks to its content, so only the space
    /// needed to reach its min size is free.
    private func freeSpaceUnderFitContent(_ container: FlexContainer, _ line: FlexLine, _ paddingAndBorder: Float) -> Float {
        let style = container.node.styleStorage
        let axis = container.mainAxis
        let minSize = container.node.resolvedMin(axis, container.direction, container.mainAxisOwnerSize, container.ownerWidth)
        guard style.minDimension(axis).isDefined, !minSize.isNaN else { return 0 }
        let minAvailableMainDim = minSize - paddingAndBorder
        let occupied = container.availableInnerMainDim - line.remainingFreeSpace
        return maxOrDefined(0, minAvailableMainDim - occupied)
    }

    /// The space before the first item and between items for `justify-content`
    /// ([§8.2](https://www.w3.org/TR/css-flexbox-1/#justify-content-property)); none when
    /// auto margins take the free space ([§8.1](https://www.w3.org/TR/css-flexbox-1/#auto-margins):
    /// only positive free space, so `justify-content` still places overflowing items).
    private func justifySpacing(_ container: FlexContainer, _ line: FlexLine, gap: Float) -> (leading: Float, between: Float) {
        let free = line.remainingFreeSpace
        let yoga = config.errata.contains(.distributedJustifyFallsBackToFlexStart)
        guard line.numberOfAutoMargins == 0 || (free < 0 && !yoga) else { return (0, gap) }
        // A line without items (only `display: none` or absolute children) has nothing to space.
        guard !line.items.isEmpty else { return (0, gap) }
        let style = container.node.styleStorage
        var justify = free >= 0 ? style.justifyContent : fallbackAlignment(style.justifyContent)
        // `space-around` and `space-evenly` fall back to `safe center`, which aligns overflowing
        // items to the start of the container's own direction: its flex-end in a reversed axis
        // ([CSS Align §4.3](https://www.w3.org/TR/css-align-3/#distribution-values)).
        if free < 0 && !yoga && (style.justifyContent == .spaceAround || style.justifyContent == .spaceEvenly)
            && style.flexDirection.isReverse {
            justify = .flexEnd
        }
        let count = Float(line.items.count)
        switch justify {
        case .flexStart: return (0, gap)
        case .center: return (free / 2, gap)
        case .flexEnd: return (free, gap)
        case .spaceBetween: return (0, line.items.count > 1 ? gap + free / (count - 1) : gap)
        case .spaceEvenly:
            let leading = free / (count + 1)
            return (leading, gap + leading)
        case .spaceAround:
            let leading = 0.5 * free / count
            return (leading, gap + leading * 2)
        }
    }
}
