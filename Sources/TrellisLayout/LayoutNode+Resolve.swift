/// How a node's style resolves against its containing block, for the algorithm.
extension LayoutNode {
    /// The node's direction: its own, or inherited from its owner (LTR at the root).
    @inline(__always)
    func resolveDirection(_ ownerDirection: Direction) -> Direction {
        if styleStorage.direction == .inherit { return ownerDirection == .inherit ? .ltr : ownerDirection }
        return styleStorage.direction
    }

    /// The preferred size on `axis`; when min and max are equal they win (Yoga's processed dimension).
    @inline(__always)
    func processedDimension(_ axis: FlexDirection) -> Dimension {
        let maxSize = styleStorage.maxDimension(axis)
        if maxSize.isDefined, maxSize == styleStorage.minDimension(axis) { return maxSize }
        return styleStorage.dimension(axis)
    }

    /// Whether the size on `axis` is [definite](https://www.w3.org/TR/css-sizing-3/#definite).
    @inline(__always)
    func hasDefiniteLength(_ axis: FlexDirection, _ ownerSize: Float) -> Bool {
        let used = processedDimension(axis).resolve(ownerSize)
        return !used.isNaN && used >= 0
    }

    /// The preferred size on `axis` as a border-box size, or NaN.
    @inline(__always)
    func resolvedDimension(_ direction: Direction, _ axis: FlexDirection, _ reference: Float, _ ownerWidth: Float) -> Float {
        let value = processedDimension(axis).resolve(reference)
        if styleStorage.boxSizing == .borderBox { return value }
        return value + paddingAndBorder(axis, direction, ownerWidth)
    }

    /// [flex-grow](https://www.w3.org/TR/css-flexbox-1/#flex-grow-property), with the `flex` shorthand.
    @inline(__always)
    func resolveFlexGrow() -> Float {
        if !hasParent { return 0 }
        if let grow = styleStorage.flexGrow { return grow }
        if let flex = styleStorage.flex, flex > 0 { return flex }
        return 0
    }

    /// [flex-shrink](https://www.w3.org/TR/css-flexbox-1/#flex-shrink-property), with the `flex`
    /// shorthand and the mode's default (0 in Yoga mode, 1 in web mode).
    @inline(__always)
    func resolveFlexShrink(_ config: LayoutConfig) -> Float {
        if !hasParent { return 0 }
        if let shrink = styleStorage.flexShrink { return shrink }
        if !config.useWebDefaults, let flex = styleStorage.flex, flex < 0 { return -flex }
        return config.useWebDefaults ? 1 : 0
    }

    @inline(__always)
    func isFlexible(_ config: LayoutConfig) -> Bool {
        styleStorage.positionType != .absolute && (resolveFlexGrow() != 0 || resolveFlexShrink(config) != 0)
    }

    /// [flex-basis](https://www.w3.org/TR/css-flexbox-1/#flex-basis-property) as a border-box size, or NaN for `auto`.
    @inline(__always)
    func resolveFlexBasis(_ config: LayoutConfig, _ direction: Direction, _ mainAxis: FlexDirection,
                          _ reference: Float, _ ownerWidth: Float) -> Float {
        var basis = styleStorage.flexBasis
        if !basis.isDefined || basis.isAuto {
            if let flex = styleStorage.flex, flex > 0 {
                basis = config.useWebDefaults ? .auto : .points(0)
            } else {
                basis = .auto
            }
        }
        let value = basis.resolve(reference)
        if styleStorage.boxSizing == .borderBox { return value }
        return value + paddingAndBorder(mainAxis, direction, ownerWidth)
    }

    /// The size on `axis` from the latest measure or layout pass.
    @inline(__always)
    func measured(_ axis: FlexDirection) -> Float { axis.isRow ? layout.measuredWidth : layout.measuredHeight }

    @inline(__always)
    func setMeasured(_ axis: FlexDirection, _ value: Float) {
        if axis.isRow { layout.measuredWidth = value } else { layout.measuredHeight = value }
    }

    /// The measured size on `axis` plus the margins.
    @inline(__always)
    func dimensionWithMargin(_ axis: FlexDirection, _ direction: Direction, _ widthSize: Float) -> Float {
        measured(axis) + marginForAxis(axis, direction, widthSize)
    }

    @inline(__always)
    func isLayoutDimensionDefined(_ axis: FlexDirection) -> Bool {
        let value = measured(axis)
        return !value.isNaN && value >= 0
    }

    /// Clamps `value` between the min and max sizes on `axis` (no padding floor).
    /// In web mode a flex item's automatic minimum main size counts as its min size.
    @inline(__always)
    func boundAxisWithinMinAndMax(_ direction: Direction, _ axis: FlexDirection, _ value: Float,
                                  _ axisSize: Float, _ widthSize: Float) -> Float {
        let minSize = resolvedMin(axis, direction, axisSize, widthSize)
        let maxSize = resolvedMax(axis, direction, axisSize, widthSize)
        // CSS: the min size wins over a smaller max size ([CSS 2 §10.4](https://www.w3.org/TR/CSS2/visudet.html#min-max-widths)).
        var result = value
        if !maxSize.isNaN, maxSize >= 0, result > maxSize { result = maxSize }
        if !minSize.isNaN, minSize >= 0, result < minSize { result = minSize }
        return result
    }

    /// Clamps `value` between min and max on `axis`, and never below padding plus border.
    @inline(__always)
    func boundAxis(_ axis: FlexDirection, _ direction: Direction, _ value: Float,
                   _ axisSize: Float, _ widthSize: Float) -> Float {
        maxOrDefined(boundAxisWithinMinAndMax(direction, axis, value, axisSize, widthSize),
                     paddingAndBorder(axis, direction, widthSize))
    }

    /// The offset of a `relative` node from its normal position on `axis`: the start inset,
    /// else minus the end inset ([CSS Position §3.4](https://www.w3.org/TR/css-position-3/#relpos-insets)).
    @inline(__always)
    func relativePosition(_ axis: FlexDirection, _ direction: Direction, _ axisSize: Float) -> Float {
        if styleStorage.positionType == .static { return 0 }
        let startEdge = axis.inlineStartEdge(direction), endEdge = axis.inlineEndEdge(direction)
        if hasInset(startEdge, direction) {
            // A percentage of a height that is not definite behaves as `auto`: the end inset applies.
            let start = edges(direction).position[startEdge].resolve(axisSize)
            if !start.isNaN || !hasInset(endEdge, direction) { return zeroIfUndefined(start) }
        }
        return -insetValue(endEdge, direction, axisSize)
    }

    /// Sets the node's initial position from its margins and relative offset, before alignment.
    func setInitialPosition(_ direction: Direction, _ ownerWidth: Float, _ ownerHeight: Float, errata: LayoutErrata) {
        let directionRespectingRoot = hasParent ? direction : .ltr
        let mainAxis = styleStorage.flexDirection.resolved(directionRespectingRoot)
        let crossAxis = mainAxis.cross(directionRespectingRoot)
        let relativeMain = relativePosition(mainAxis, directionRespectingRoot, mainAxis.isRow ? ownerWidth : ownerHeight)
        let relativeCross = relativePosition(crossAxis, directionRespectingRoot, mainAxis.isRow ? ownerHeight : ownerWidth)
        // An offset moves the box towards the end of its axis in `directionRespectingRoot`
        // (CSS Position §3.4): added to the start edge, taken from the end edge, where a reversed
        // axis starts. Yoga's erratum adds it to both edges.
        let yogaOffsets = errata.contains(.reversedAxisRelativeOffset)
        @inline(__always) func place(_ axis: FlexDirection, _ relative: Float) {
            let start = axis.inlineStartEdge(direction), end = axis.inlineEndEdge(direction)
            let startIsStart = yogaOffsets || start == axis.inlineStartEdge(directionRespectingRoot)
            layout.position[start] = margin(inlineStart: axis, direction, ownerWidth) + (startIsStart ? relative : -relative)
            layout.position[end] = margin(inlineEnd: axis, direction, ownerWidth) + (yogaOffsets || !startIsStart ? relative : -relative)
        }
        place(mainAxis, relativeMain)
        place(crossAxis, relativeCross)
    }

    /// Resets the layout of a `display: none` subtree to zero.
    func zeroOutLayoutRecursively() {
        layout = LayoutResults()
        layout.width = 0
        layout.height = 0
        isDirty = false
        for child in children { child.zeroOutLayoutRecursively() }
    }

    /// Resets `display: contents` children (they have no box) to a zero frame.
    func cleanupContentsNodesRecursively() {
        guard contentsChildrenCount > 0 else { return }
        for child in children where child.styleStorage.display == .contents {
            child.layout = LayoutResults()
            child.layout.width = 0
            child.layout.height = 0
            child.isDirty = false
            child.cleanupContentsNodesRecursively()
        }
    }
}

/// The alignment of `child` in `node`'s cross axis: its `align-self`, else the container's
/// `align-items` ([§8.3](https://www.w3.org/TR/css-flexbox-1/#align-items-property)); baseline
/// alignment in a column container acts as `flex-start`.
@inline(__always)
func resolveChildAlignment(_ node: LayoutNode, _ child: LayoutNode) -> Align {
    let align = child.styleStorage.alignSelf == .auto ? node.styleStorage.alignItems : child.styleStorage.alignSelf
    if align == .baseline, node.styleStorage.flexDirection.isColumn { return .flexStart }
    return align
}

/// Where overflowing content goes for a distributed alignment ([CSS Align §4.3](https://www.w3.org/TR/css-align-3/#distribution-values)).
@inline(__always)
func fallbackAlignment(_ align: Align) -> Align {
    switch align {
    case .spaceBetween, .stretch, .spaceAround, .spaceEvenly: return .flexStart
    default: return align
    }
}

@inline(__always)
func fallbackAlignment(_ justify: Justify) -> Justify {
    switch justify {
    case .spaceBetween, .spaceAround, .spaceEvenly: return .flexStart
    default: return justify
    }
}
