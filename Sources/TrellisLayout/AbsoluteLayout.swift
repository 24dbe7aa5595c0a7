/// [§4.1 Absolutely-Positioned Flex Children](https://www.w3.org/TR/css-flexbox-1/#abspos-items):
/// sized and placed against their containing block (the nearest non-static ancestor, or the root).
extension FlexLayoutEngine {
    /// Lays out the absolute children of `node` and, through static descendants, the absolute
    /// descendants whose containing block is `containingNode`.
    func layoutAbsoluteChildren(containingNode: LayoutNode, node: LayoutNode, widthMode: SizingMode,
                                direction: Direction, depth: Int, leftOffset: Float, topOffset: Float,
                                availableInnerWidth: Float, availableInnerHeight: Float) {
        node.layoutChildren.forEachUnretained { _, child in
            if child.styleStorage.display == .none { return }
            if child.styleStorage.positionType == .absolute {
                let useInnerSize = config.errata.contains(.absolutePercentAgainstInnerSize)
                let blockWidth = useInnerSize ? availableInnerWidth
                    : containingNode.layout.measuredWidth - containingNode.borderForAxis(.row)
                let blockHeight = useInnerSize ? availableInnerHeight
                    : containingNode.layout.measuredHeight - containingNode.borderForAxis(.column)
                layoutAbsoluteChild(containingNode: containingNode, node: node, child: child, blockWidth: blockWidth,
                                    blockHeight: blockHeight, widthMode: widthMode, direction: direction, depth: depth,
                                    leftOffset: leftOffset)
                convertToParentRelative(containingNode: containingNode, node: node, child: child, direction: direction,
                                        leftOffset: leftOffset, topOffset: topOffset)
            } else if child.styleStorage.positionType == .static {
                child.cleanupContentsNodesRecursively()
                layoutAbsoluteChildren(containingNode: containingNode, node: child, widthMode: widthMode,
                                       direction: child.resolveDirection(direction), depth: depth + 1,
                                       leftOffset: leftOffset + child.layout.position.left,
                                       topOffset: topOffset + child.layout.position.top,
                                       availableInnerWidth: availableInnerWidth,
                                       availableInnerHeight: availableInnerHeight)
            }
        }
    }

    /// Positions were computed in the containing block; frames are relative to the parent.
    private func convertToParentRelative(containingNode: LayoutNode, node: LayoutNode, child: LayoutNode,
                                         direction: Direction, leftOffset: Float, topOffset: Float) {
        let mainAxis = node.styleStorage.flexDirection.resolved(direction)
        let crossAxis = mainAxis.cross(direction)
        let horizontal = child.styleStorage.position.anyHorizontalDefined
        let vertical = child.styleStorage.position.anyVerticalDefined
        if mainAxis.isReverse {
            let insets = mainAxis.isRow ? horizontal : vertical
            setChildTrailingPosition(insets ? containingNode : node, child, mainAxis)
        }
        if crossAxis.isReverse {
            let insets = crossAxis.isRow ? horizontal : vertical
            setChildTrailingPosition(insets ? containingNode : node, child, crossAxis)
        }
        if horizontal { child.layout.position.left -= leftOffset }
        if vertical { child.layout.position.top -= topOffset }
    }

    /// Sizes an absolute child from its size, its insets or its aspect ratio, else its content,
    /// then lays it out and places it.
    private func layoutAbsoluteChild(containingNode: LayoutNode, node: LayoutNode, child: LayoutNode,
                                     blockWidth: Float, blockHeight: Float, widthMode: SizingMode,
                                     direction: Direction, depth: Int, leftOffset: Float) {
        let mainAxis = node.styleStorage.flexDirection.resolved(direction)
        let crossAxis = mainAxis.cross(direction)
        let marginRow = child.marginForAxis(.row, direction, blockWidth)
        let marginColumn = child.marginForAxis(.column, direction, blockWidth)
        var childWidth = sizeFromInsets(containingNode, child, .row, direction, blockWidth, blockWidth, marginRow)
        var childHeight = sizeFromInsets(containingNode, child, .column, direction, blockHeight, blockWidth, marginColumn)
        // `align-self` applies to an absolutely positioned box in its block axis (CSS Align §6.1):
        // anything but `stretch` (or `auto`, `normal`) sizes an auto height between `top` and
        // `bottom` to its content and aligns it in the space they leave.
        let cssSizing = !config.errata.contains(.absoluteSizedWithoutInsetsOrAlignment)
        var heightLimit = Float.nan
        if cssSizing && fitsContentBetweenVerticalInsets(child, direction) && !child.hasDefiniteLength(.column, blockHeight) {
            heightLimit = childHeight
            childHeight = .nan
        }

        if config.cssAspectRatio, let ratio = child.styleStorage.aspectRatio, ratio > 0, ratio.isFinite {
            let available = childWidth.isNaN && childHeight.isNaN
                ? availableWidth(containingNode, node, child, direction, mainAxis, crossAxis, blockWidth, leftOffset: leftOffset)
                : .nan
            (childWidth, childHeight) = sizeWithAspectRatio(child, ratio, childWidth, childHeight, margins: (marginRow, marginColumn),
                                                            block: (blockWidth, blockHeight), available: available,
                                                            direction: direction, depth: depth)
        }
        // With one size known, the aspect ratio gives the other.
        if childWidth.isNaN != childHeight.isNaN, let ratio = child.styleStorage.aspectRatio, ratio > 0, ratio.isFinite {
            if childWidth.isNaN {
                childWidth = marginRow + widthThroughRatio(childHeight - marginColumn, ratio)
            } else {
                childHeight = marginColumn + heightThroughRatio(childWidth - marginRow, ratio)
            }
        }
        if childWidth.isNaN || childHeight.isNaN {
            var childWidthMode: SizingMode = childWidth.isNaN ? .maxContent : .stretchFit
            var childHeightMode: SizingMode = childHeight.isNaN ? .maxContent : .stretchFit
            if childWidth.isNaN && cssSizing {
                // Shrink-to-fit ([CSS Position §5.1](https://www.w3.org/TR/css-position-3/#abspos-auto-size)):
                // at most the width between its insets, or from its static position.
                let available = availableWidth(containingNode, node, child, direction, mainAxis, crossAxis,
                                               blockWidth, leftOffset: leftOffset)
                if !available.isNaN {
                    childWidth = maxOrDefined(available, 0)
                    childWidthMode = .fitContent
                }
            } else if !mainAxis.isRow && childWidth.isNaN && widthMode != .maxContent && !blockWidth.isNaN && blockWidth > 0 {
                // Yoga 3.2: text in an absolute child of a column wraps at its containing block's width.
                childWidth = blockWidth
                childWidthMode = .fitContent
            }
            if childHeight.isNaN && !heightLimit.isNaN {
                childHeight = maxOrDefined(heightLimit, 0)
                childHeightMode = .fitContent
            }
            layoutNode(child, availableWidth: childWidth, availableHeight: childHeight, ownerDirection: direction,
                       widthMode: childWidthMode, heightMode: childHeightMode, ownerWidth: blockWidth,
                       ownerHeight: blockHeight, performLayout: false, depth: depth)
            childWidth = child.layout.measuredWidth + marginRow
            childHeight = child.layout.measuredHeight + marginColumn
        }
        layoutNode(child, availableWidth: childWidth, availableHeight: childHeight, ownerDirection: direction,
                   widthMode: .stretchFit, heightMode: .stretchFit, ownerWidth: blockWidth, ownerHeight: blockHeight,
                   performLayout: true, depth: depth)
        positionAbsoluteChild(containingNode, node, child, direction, mainAxis, isMainAxis: true, blockWidth, blockHeight)
        positionAbsoluteChild(containingNode, node, child, direction, crossAxis, isMainAxis: false, blockWidth, blockHeight)
        if cssSizing {
            alignBetweenVerticalInsets(containingNode, child, direction, verticalAxis: mainAxis.isRow ? crossAxis : mainAxis,
                                       blockHeight: blockHeight, marginColumn: marginColumn)
        }
    }

    /// Aligns a box between `top` and `bottom` by its `align-self` in the inset-modified
    /// containing block ([CSS Position §4.1](https://www.w3.org/TR/css-position-3/#resolving-insets),
    /// [CSS Align §6.1](https://www.w3.org/TR/css-align-3/#align-abspos)), as Chromium does: a
    /// negative block is emptied by its end inset whatever the alignment, and a box that
    /// overflows it is moved back inside the containing block (`keptInsideContainingBlock`).
    /// `auto` (`normal`) keeps the box at its top inset; so do auto margins, which take the
    /// space left.
    private func alignBetweenVerticalInsets(_ containingNode: LayoutNode, _ child: LayoutNode, _ direction: Direction,
                                            verticalAxis: FlexDirection, blockHeight: Float, marginColumn: Float) {
        let align = child.styleStorage.alignSelf
        guard align != .auto, child.hasInset(.top, direction), child.hasInset(.bottom, direction),
              !child.marginIsAuto(flexStart: .column, direction), !child.marginIsAuto(flexEnd: .column, direction) else {
            return
        }
        let block = containingNode.measured(.column) - containingNode.borderForAxis(.column)
        let topInset = child.insetValue(.top, direction, blockHeight)
        // The insets of the inset-modified containing block, its end one giving way.
        let start = topInset
        let end = min(child.insetValue(.bottom, direction, blockHeight), block - start)
        let outer = child.layout.measuredHeight + marginColumn
        let free = block - start - end - outer
        var top: Float
        switch align {
        case .center: top = start + free / 2
        case .flexEnd: top = start + free
        default: top = start
        }
        top = keptInsideContainingBlock(top, outer: outer, block: block, imcbStart: start, imcbEnd: end)
        let shift = top - topInset
        if shift != 0 {
            if verticalAxis.flexStartEdge == .top { child.layout.position.top += shift } else { child.layout.position.bottom -= shift }
        }
    }

    /// The default overflow alignment of a box aligned between insets
    /// ([CSS Align §4.4](https://www.w3.org/TR/css-align-3/#overflow-values), as Chromium does
    /// it): a box whose bottom edge is below the containing block's (or below the bottom inset,
    /// where that is outside the block) moves up to it, then one whose top edge is above the
    /// block's (or above the top inset, where that is outside) moves down to it.
    @inline(__always)
    private func keptInsideContainingBlock(_ top: Float, outer: Float, block: Float, imcbStart: Float,
                                           imcbEnd: Float) -> Float {
        var top = top
        let bottom = block - top - outer, safeBottom = min(imcbEnd, 0)
        if bottom < safeBottom { top += bottom - safeBottom }
        return max(top, min(imcbStart, 0))
    }

    /// Whether the child's `align-self` (or the parent's `align-items`) is `baseline`, in a row or
    /// a column: Chrome keeps such an absolute child at the start edge of a `wrap-reverse` container.
    @inline(__always)
    private func isAlignedBaseline(_ parent: LayoutNode, _ child: LayoutNode) -> Bool {
        let align = child.styleStorage.alignSelf == .auto ? parent.styleStorage.alignItems : child.styleStorage.alignSelf
        return align == .baseline
    }

    /// Whether an absolutely positioned box with both `top` and `bottom` has an `align-self`
    /// other than `auto` and `stretch`, which makes an auto height fit its content (CSS Align
    /// applies it in the block axis, whatever the axes of the flex container).
    @inline(__always)
    private func fitsContentBetweenVerticalInsets(_ child: LayoutNode, _ direction: Direction) -> Bool {
        let align = child.styleStorage.alignSelf
        return align != .auto && align != .stretch && child.hasInset(.top, direction) && child.hasInset(.bottom, direction)
    }

    /// The width an absolutely positioned box with an auto width may take
    /// ([CSS Position §4.1](https://www.w3.org/TR/css-position-3/#resolving-insets)): its containing
    /// block's padding box less its insets; where both horizontal insets are auto, the room on the
    /// side its static position is aligned to (both sides, twice the nearer, when centred).
    private func availableWidth(_ containingNode: LayoutNode, _ parent: LayoutNode, _ child: LayoutNode, _ direction: Direction,
                                _ mainAxis: FlexDirection, _ crossAxis: FlexDirection, _ blockWidth: Float,
                                leftOffset: Float) -> Float {
        guard !blockWidth.isNaN else { return .nan }
        let hasLeft = child.hasInset(.left, direction), hasRight = child.hasInset(.right, direction)
        if hasLeft || hasRight {
            return blockWidth - child.insetValue(.left, direction, blockWidth) - child.insetValue(.right, direction, blockWidth)
        }
        // The parent's content box in the containing block's padding box.
        let start = leftOffset + parent.layout.border.left + parent.layout.padding.left - containingNode.layout.border.left
        let end = leftOffset + parent.layout.measuredWidth - parent.layout.border.right - parent.layout.padding.right
            - containingNode.layout.border.left
        let axis = mainAxis.isRow ? mainAxis : crossAxis
        var edge: PhysicalEdge?  // nil: centred
        if mainAxis.isRow {
            switch parent.styleStorage.justifyContent {
            case .flexStart, .spaceBetween: edge = axis.flexStartEdge
            case .flexEnd: edge = axis.flexEndEdge
            case .center, .spaceAround, .spaceEvenly: edge = nil
            }
        } else {
            var align = resolveChildAlignment(parent, child)
            if parent.styleStorage.flexWrap == .wrapReverse && !isAlignedBaseline(parent, child) {
                if align == .flexEnd { align = .flexStart } else if align != .center { align = .flexEnd }
            }
            switch align {
            case .flexEnd: edge = axis.flexEndEdge
            case .center: edge = nil
            default: edge = axis.flexStartEdge
            }
        }
        switch edge {
        case .left: return blockWidth - start
        case .right: return end
        default:
            let middle = (start + end) / 2
            return 2 * min(middle, blockWidth - middle)
        }
    }

    /// CSS sizing of an absolutely positioned box with an aspect ratio
    /// ([CSS Sizing 4 §2](https://www.w3.org/TR/css-sizing-4/#aspect-ratio)): a `width` gives the
    /// height unless `height` is set, and a `height` gives the width; a width between both insets
    /// is a stretch-fit size, which the min and max heights limit through the ratio before it gives
    /// the height (a height between insets is ignored); without one, a height stretched between
    /// both insets gives the width, which gives the height; with neither, the content's width does what a width between
    /// insets does. Sizes are clamped before they are transferred. Returns outer sizes.
    private func sizeWithAspectRatio(_ child: LayoutNode, _ ratio: Float, _ width: Float, _ height: Float,
                                     margins: (row: Float, column: Float), block: (width: Float, height: Float),
                                     available: Float, direction: Direction, depth: Int) -> (Float, Float) {
        let widthFromStyle = child.hasDefiniteLength(.row, block.width)
        let heightFromStyle = child.hasDefiniteLength(.column, block.height)
        // The ratio transfers the border box, never smaller than its padding and border.
        let paddingAndBorderRow = child.paddingAndBorder(.row, direction, block.width)
        let paddingAndBorderColumn = child.paddingAndBorder(.column, direction, block.width)
        @inline(__always) func boundWidth(_ value: Float) -> Float {
            child.boundAxis(.row, direction, value, block.width, block.width)
        }
        @inline(__always) func boundHeight(_ value: Float) -> Float {
            child.boundAxis(.column, direction, value, block.height, block.width)
        }
        @inline(__always) func transferredHeight(_ innerWidth: Float) -> Float {
            boundHeight(heightThroughRatio(max(innerWidth, paddingAndBorderRow), ratio))
        }
        // (`align-self: stretch` between `top` and `bottom` sizes the height from the insets,
        // which then wins over the ratio, as a definite height does; `auto`, `normal`, does not:
        // CSS Align §6.1, as Chromium.)
        let stretchedBetweenInsets = child.styleStorage.alignSelf == .stretch && !height.isNaN
            && child.hasInset(.top, direction) && child.hasInset(.bottom, direction)
        if widthFromStyle {
            if heightFromStyle || stretchedBetweenInsets { return (width, height) }
            return (width, transferredHeight(boundWidth(width - margins.row)) + margins.column)
        }
        if heightFromStyle {
            let innerHeight = boundHeight(height - margins.column)
            return (boundWidth(widthThroughRatio(max(innerHeight, paddingAndBorderColumn), ratio)) + margins.row, height)
        }
        if width.isNaN && !height.isNaN {
            // Stretched between `top` and `bottom` (already within its min and max), the height
            // is known before the content is laid out, so it gives the width, as in Chromium;
            // the width, once within its own min and max, gives the height back.
            let innerWidth = boundWidth(widthThroughRatio(max(height - margins.column, paddingAndBorderColumn), ratio))
            return (innerWidth + margins.row, transferredHeight(innerWidth) + margins.column)
        }
        var innerWidth: Float
        if !width.isNaN {
            innerWidth = width - margins.row
        } else {
            // Shrink-to-fit in the width available beside its static position.
            layoutNode(child, availableWidth: available.isNaN ? .nan : max(available, 0), availableHeight: .nan,
                       ownerDirection: direction, widthMode: available.isNaN ? .maxContent : .fitContent,
                       heightMode: .maxContent, ownerWidth: block.width, ownerHeight: block.height, performLayout: false,
                       depth: depth)
            innerWidth = max(child.layout.measuredWidth, widthThroughRatio(paddingAndBorderColumn, ratio))
        }
        // The min and max heights limit the width through the ratio; its own min and max win.
        var innerHeight = heightThroughRatio(innerWidth, ratio)
        let boundedHeight = boundHeight(innerHeight)
        if boundedHeight != innerHeight {
            innerHeight = boundedHeight
            innerWidth = boundWidth(widthThroughRatio(innerHeight, ratio))
        }
        return (innerWidth + margins.row, innerHeight + margins.column)
    }

    /// The child's outer size on `axis`: its definite size, else the containing block minus
    /// both insets when both are set, else NaN.
    private func sizeFromInsets(_ containingNode: LayoutNode, _ child: LayoutNode, _ axis: FlexDirection,
                                _ direction: Direction, _ blockSize: Float, _ blockWidth: Float, _ margin: Float) -> Float {
        if child.hasDefiniteLength(axis, blockSize) {
            return child.resolvedDimension(direction, axis, blockSize, blockWidth) + margin
        }
        guard child.hasInset(axis.flexStartEdge, direction) && child.hasInset(axis.flexEndEdge, direction) else {
            return .nan
        }
        let size = containingNode.measured(axis) - containingNode.borderForAxis(axis)
            - (child.insetValue(axis.flexStartEdge, direction, blockSize) + child.insetValue(axis.flexEndEdge, direction, blockSize))
        // Min and max sizes clamp the box inside its margins.
        return child.boundAxis(axis, direction, size - margin, blockSize, blockWidth) + margin
    }

    /// Places the child on `axis` from its inline-start inset, else its inline-end inset, else
    /// by the parent's `justify-content` (main axis) or `align-items` (cross axis)
    /// ([§4.1](https://www.w3.org/TR/css-flexbox-1/#abspos-items): as if it were the sole item).
    private func positionAbsoluteChild(_ containingNode: LayoutNode, _ parent: LayoutNode, _ child: LayoutNode,
                                       _ direction: Direction, _ axis: FlexDirection, isMainAxis: Bool,
                                       _ blockWidth: Float, _ blockHeight: Float) {
        let blockSize = axis.isRow ? blockWidth : blockHeight
        let startEdge = axis.inlineStartEdge(direction), endEdge = axis.inlineEndEdge(direction)
        let flexStart = axis.flexStartEdge
        let hasStart = child.hasInset(startEdge, direction), hasEnd = child.hasInset(endEdge, direction)
        // Between two insets, auto margins take the space left
        // ([CSS Position §5.1](https://www.w3.org/TR/css-position-3/#abspos-margins)): an auto start
        // margin alone puts the box at its end inset, two centre it.
        var autoShift: Float = 0
        if hasStart && hasEnd && !config.errata.contains(.absoluteSizedWithoutInsetsOrAlignment) {
            let margins = child.edges(direction).margin
            let startAuto = margins[startEdge].isAuto, endAuto = margins[endEdge].isAuto
            if startAuto || endAuto {
                // The inset-modified containing block is never negative (the end inset gives
                // way); a single auto margin takes what the box leaves of it, even when that is
                // negative, two take half of it each when it is positive, else 0.
                let insetBlock = max(0, containingNode.measured(axis) - containingNode.borderForAxis(axis)
                    - child.insetValue(startEdge, direction, blockSize) - child.insetValue(endEdge, direction, blockSize))
                let space = insetBlock - child.measured(axis) - child.marginForAxis(axis, direction, blockWidth)
                if startAuto && endAuto {
                    autoShift = max(0, space) / 2
                } else if startAuto {
                    autoShift = space
                }
            }
        }
        // (Margins resolve against the containing block's width on every side, CSS Box §5.)
        if hasStart {
            let position = child.insetValue(startEdge, direction, blockSize) + containingNode.border(startEdge, direction)
                + child.margin(inlineStart: axis, direction, blockWidth) + autoShift
            child.layout.position[flexStart] = startEdge != flexStart
                ? positionOfOppositeEdge(position, axis, containingNode, child) : position
        } else if hasEnd {
            let position = containingNode.measured(axis) - child.measured(axis)
                - containingNode.border(endEdge, direction) - child.margin(inlineEnd: axis, direction, blockWidth)
                - child.insetValue(endEdge, direction, blockSize)
            child.layout.position[flexStart] = startEdge != flexStart
                ? positionOfOppositeEdge(position, axis, containingNode, child) : position
        } else if isMainAxis {
            switch parent.styleStorage.justifyContent {
            case .flexStart, .spaceBetween: setFlexStartPosition(parent, child, direction, axis, blockWidth)
            case .flexEnd: setFlexEndPosition(parent, child, direction, axis, blockWidth)
            case .center, .spaceAround, .spaceEvenly: setCenterPosition(parent, child, direction, axis, blockWidth)
            }
        } else {
            var align = resolveChildAlignment(parent, child)
            // Chrome places a baseline-aligned absolute child at the start edge even in a
            // wrap-reverse container; Yoga flips it to the end.
            let keepsStart = (config.useWebDefaults || !config.errata.contains(.wrapReverseMirrorsBorderBox))
                && isAlignedBaseline(parent, child)
            if parent.styleStorage.flexWrap == .wrapReverse && !keepsStart {
                if align == .flexEnd { align = .flexStart } else if align != .center { align = .flexEnd }
            }
            switch align {
            case .flexEnd: setFlexEndPosition(parent, child, direction, axis, blockWidth)
            case .center: setCenterPosition(parent, child, direction, axis, blockWidth)
            default: setFlexStartPosition(parent, child, direction, axis, blockWidth)
            }
        }
    }

    /// Whether the static position is measured from the padding edge (CSS) or the border edge (errata).
    @inline(__always)
    private var includesPadding: Bool { !config.errata.contains(.absolutePositionWithoutInsetsExcludesPadding) }

    private func setFlexStartPosition(_ parent: LayoutNode, _ child: LayoutNode, _ direction: Direction,
                                      _ axis: FlexDirection, _ blockWidth: Float) {
        let edge = axis.flexStartEdge
        var position = child.margin(flexStart: axis, direction, blockWidth) + parent.layout.border[edge]
        if includesPadding { position += parent.layout.padding[edge] }
        child.layout.position[edge] = position
    }

    private func setFlexEndPosition(_ parent: LayoutNode, _ child: LayoutNode, _ direction: Direction,
                                    _ axis: FlexDirection, _ blockWidth: Float) {
        let edge = axis.flexEndEdge
        var position = parent.layout.border[edge] + child.margin(flexEnd: axis, direction, blockWidth)
        if includesPadding { position += parent.layout.padding[edge] }
        child.layout.position[axis.flexStartEdge] = positionOfOppositeEdge(position, axis, parent, child)
    }

    private func setCenterPosition(_ parent: LayoutNode, _ child: LayoutNode, _ direction: Direction,
                                   _ axis: FlexDirection, _ blockWidth: Float) {
        let start = axis.flexStartEdge, end = axis.flexEndEdge
        var contentBoxSize = parent.measured(axis) - parent.layout.border[start] - parent.layout.border[end]
        if includesPadding { contentBoxSize -= parent.layout.padding[start] + parent.layout.padding[end] }
        let childOuterSize = child.measured(axis) + child.marginForAxis(axis, direction, blockWidth)
        var position = (contentBoxSize - childOuterSize) / 2 + parent.layout.border[start]
            + child.margin(flexStart: axis, direction, blockWidth)
        if includesPadding { position += parent.layout.padding[start] }
        child.layout.position[start] = position
    }
}
