/// The container's own size and the final item positions.
extension FlexLayoutEngine {
    /// [§9.6 step 16, Determine the flex container's used cross size](https://www.w3.org/TR/css-flexbox-1/#algo-cross-container)
    /// and the used main size ([§9.2 step 4](https://www.w3.org/TR/css-flexbox-1/#algo-main-container)):
    /// the offered size, or the content's size when the container sizes to content.
    func determineContainerSize(_ container: inout FlexContainer) {
        let node = container.node
        let direction = container.direction
        node.layout.measuredWidth = node.boundAxis(.row, direction, container.availableWidth,
                                                   container.ownerWidth, container.ownerWidth)
        node.layout.measuredHeight = node.boundAxis(.column, direction, container.availableHeight,
                                                    container.ownerHeight, container.ownerWidth)
        let scrolls = node.styleStorage.overflow == .scroll
        let mainAxis = container.mainAxis, crossAxis = container.crossAxis
        recordContentSize(&container)
        if container.mainMode == .maxContent || (!scrolls && container.mainMode == .fitContent) {
            node.setMeasured(mainAxis, node.boundAxis(mainAxis, direction, container.maxLineMainDim,
                                                             container.mainAxisOwnerSize, container.ownerWidth))
        } else if container.mainMode == .fitContent && scrolls {
            let content = node.boundAxisWithinMinAndMax(direction, mainAxis, container.maxLineMainDim,
                                                        container.mainAxisOwnerSize, container.ownerWidth)
            node.setMeasured(mainAxis, maxOrDefined(
                minOrDefined(container.availableInnerMainDim + container.paddingAndBorderMain, content),
                container.paddingAndBorderMain))
        }
        let contentCross = container.contentCrossSize(config.errata)
        if container.crossMode == .maxContent || (!scrolls && container.crossMode == .fitContent) {
            node.setMeasured(crossAxis, node.boundAxis(crossAxis, direction, contentCross,
                                                              container.crossAxisOwnerSize, container.ownerWidth))
        } else if container.crossMode == .fitContent && scrolls {
            let content = node.boundAxisWithinMinAndMax(direction, crossAxis, contentCross,
                                                        container.crossAxisOwnerSize, container.ownerWidth)
            node.setMeasured(crossAxis, maxOrDefined(
                minOrDefined(container.availableInnerCrossDim + container.paddingAndBorderCross, content),
                container.paddingAndBorderCross))
        }
    }

    /// Remembers the size the content asks for before this node's own min/max clamp (a single
    /// line's cross size too, which the clamp made the container's): a row measuring this node
    /// for its flex basis takes that size, and only the flexible lengths meet the clamp (§9.7).
    /// (`layOutFlexLines` recorded the content's; an imposed size replaces it.)
    private func recordContentSize(_ container: inout FlexContainer) {
        let node = container.node
        let (widthMode, heightMode) = container.isMainAxisRow
            ? (container.mainMode, container.crossMode) : (container.crossMode, container.mainMode)
        if widthMode == .stretchFit { node.layout.contentWidth = node.layout.measuredWidth }
        if heightMode == .stretchFit { node.layout.contentHeight = node.layout.measuredHeight }
    }

    /// `flex-wrap: wrap-reverse` stacks lines from the cross-end side
    /// ([§5.2](https://www.w3.org/TR/css-flexbox-1/#flex-wrap-property)): lines were placed in
    /// normal order, so each item's margin box is mirrored within the container's content box
    /// (its margins stay on their physical sides) and its relative offset is applied again after.
    func reverseWrappedLines(_ container: inout FlexContainer) {
        guard container.node.styleStorage.flexWrap == .wrapReverse else { return }
        let node = container.node
        let crossAxis = container.crossAxis
        let direction = container.direction
        let innerWidth = container.availableInnerWidth
        let edge = crossAxis.flexStartEdge
        let yoga = config.errata.contains(.wrapReverseMirrorsBorderBox)
        // size - pos - measured mirrors the border box across the whole container (Yoga 3.2).
        var size = node.measured(crossAxis)
        if !yoga {
            size += container.leadingPaddingAndBorderCross - node.paddingAndBorder(trailing: crossAxis, direction, container.ownerWidth)
        }
        for child in container.children
        where child.styleStorage.positionType != .absolute && child.styleStorage.display != .none {
            var position = size - child.layout.position[edge] - child.measured(crossAxis)
            if !yoga {
                let relative = child.relativePosition(crossAxis, direction, container.percentInnerCrossDim)
                position += 2 * relative + child.margin(flexStart: crossAxis, direction, innerWidth)
                    - child.margin(flexEnd: crossAxis, direction, innerWidth)
            }
            child.layout.position[edge] = position
        }
    }

    /// Items in a reversed axis were positioned from its flex-start (right or bottom) edge;
    /// this sets their left/top positions from that.
    func setTrailingPositions(_ container: inout FlexContainer) {
        let needsMain = container.mainAxis.isReverse
        let needsCross = container.crossAxis.isReverse
        guard needsMain || needsCross else { return }
        for child in container.children where child.styleStorage.display != .none && child.styleStorage.positionType != .absolute {
            if needsMain { setChildTrailingPosition(container.node, child, container.mainAxis) }
            if needsCross { setChildTrailingPosition(container.node, child, container.crossAxis) }
        }
    }

    @inline(__always)
    func setChildTrailingPosition(_ node: LayoutNode, _ child: LayoutNode, _ axis: FlexDirection) {
        child.layout.position[axis.flexEndEdge] = positionOfOppositeEdge(child.layout.position[axis.flexStartEdge],
                                                                          axis, node, child)
    }

    /// The distance from the other side of `containingNode` to the other side of `node` on `axis`.
    @inline(__always)
    func positionOfOppositeEdge(_ position: Float, _ axis: FlexDirection, _ containingNode: LayoutNode,
                                _ node: LayoutNode) -> Float {
        containingNode.measured(axis) - node.measured(axis) - position
    }
}
