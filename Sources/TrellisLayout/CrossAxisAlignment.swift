/// [§9.4 Cross Size Determination](https://www.w3.org/TR/css-flexbox-1/#cross-sizing) and
/// [§9.6 Cross-Axis Alignment](https://www.w3.org/TR/css-flexbox-1/#cross-alignment).
extension FlexLayoutEngine {
    /// [§9.4 step 8, Calculate the cross size of each flex line](https://www.w3.org/TR/css-flexbox-1/#algo-cross-line):
    /// a single-line container's line is as big as the container (clamped by its min and max).
    /// Returns the container's inner cross size used to align items in this line.
    func determineLineCrossSize(_ container: FlexContainer, _ line: inout FlexLine) -> Float {
        let node = container.node
        var containerCrossAxis = container.availableInnerCrossDim
        if container.crossMode != .stretchFit {
            containerCrossAxis = node.boundAxis(container.crossAxis, container.direction,
                                                line.crossDim + container.paddingAndBorderCross,
                                                container.crossAxisOwnerSize, container.ownerWidth)
                - container.paddingAndBorderCross
        }
        if !container.isWrapping && container.crossMode == .stretchFit {
            line.crossDim = container.availableInnerCrossDim
        }
        if !container.isWrapping {
            line.crossDim = node.boundAxis(container.crossAxis, container.direction,
                                           line.crossDim + container.paddingAndBorderCross,
                                           container.crossAxisOwnerSize, container.ownerWidth)
                - container.paddingAndBorderCross
        }
        return containerCrossAxis
    }

    /// [§9.4 step 11](https://www.w3.org/TR/css-flexbox-1/#algo-stretch) and
    /// [§9.6 steps 14–15](https://www.w3.org/TR/css-flexbox-1/#algo-cross-margins): stretches
    /// `align-self: stretch` items to the line and positions the others by auto margins or
    /// `align-self` within the line.
    func alignCrossAxis(_ container: FlexContainer, _ line: FlexLine, containerCrossAxis: Float) {
        let node = container.node
        let crossAxis = container.crossAxis
        let direction = container.direction
        let innerWidth = container.availableInnerWidth
        line.items.forEachUnretained { _, child in
            var leadingCrossDim = container.leadingPaddingAndBorderCross
            let align = resolveChildAlignment(node, child)
            let startAuto = child.marginIsAuto(flexStart: crossAxis, direction)
            let endAuto = child.marginIsAuto(flexEnd: crossAxis, direction)
            // Only an auto cross size stretches; sizing keywords keep their size.
            let keywordSized = child.styleStorage.dimension(crossAxis).sizingKeywordMode(available: 0) != nil
            if align == .stretch && !startAuto && !endAuto && !keywordSized {
                if !keepsOwnCrossSize(child, container) {
                    stretchItem(child, container, lineCrossDim: line.crossDim)
                }
            } else {
                let remaining = containerCrossAxis - child.dimensionWithMargin(crossAxis, direction, innerWidth)
                if startAuto && endAuto {
                    leadingCrossDim += maxOrDefined(0, remaining / 2)
                } else if endAuto {
                    // The auto margin takes the space.
                } else if startAuto {
                    leadingCrossDim += maxOrDefined(0, remaining)
                } else if align == .flexStart {
                    // Already at the start.
                } else if align == .center {
                    leadingCrossDim += remaining / 2
                } else {
                    leadingCrossDim += remaining
                }
            }
            child.layout.position[crossAxis.flexStartEdge] += container.totalLineCrossDim + leadingCrossDim
        }
    }

    /// Lays a stretched item out again with the line's cross size as its exact cross size.
    private func stretchItem(_ child: LayoutNode, _ container: FlexContainer, lineCrossDim: Float) {
        let mainAxis = container.mainAxis, crossAxis = container.crossAxis
        let direction = container.direction
        let innerWidth = container.availableInnerWidth
        let isRow = container.isMainAxisRow
        var childMainSize = child.measured(mainAxis)
        var childCrossSize: Float
        if let ratio = child.styleStorage.aspectRatio, ratio > 0, ratio.isFinite, !config.cssAspectRatio {
            childCrossSize = child.marginForAxis(crossAxis, direction, innerWidth) + (isRow ? heightThroughRatio(childMainSize, ratio) : widthThroughRatio(childMainSize, ratio))
        } else {
            childCrossSize = lineCrossDim
        }
        childMainSize += child.marginForAxis(mainAxis, direction, innerWidth)
        var mainMode = SizingMode.stretchFit, crossMode = SizingMode.stretchFit
        constrainMaxSizeForMode(child, direction, mainAxis, container.percentInnerMainDim, innerWidth, &mainMode, &childMainSize)
        constrainMaxSizeForMode(child, direction, crossAxis, container.percentInnerCrossDim, innerWidth, &crossMode, &childCrossSize)
        let width = isRow ? childMainSize : childCrossSize
        let height = isRow ? childCrossSize : childMainSize
        // The line's cross size is the item's: CSS stretches to it exactly. Yoga 3.2 measures the
        // cross axis of an item in a multi-line container that does not stretch its lines at
        // max-content instead, so a text stretched in a wrapping column is as wide as its one line.
        let crossAxisDoesNotGrow = config.errata.contains(.multiLineStretchIsMaxContent)
            && container.node.styleStorage.alignContent != .stretch && container.isWrapping
        let widthMode: SizingMode = width.isNaN || (!isRow && crossAxisDoesNotGrow) ? .maxContent : .stretchFit
        let heightMode: SizingMode = height.isNaN || (isRow && crossAxisDoesNotGrow) ? .maxContent : .stretchFit
        layoutNode(child, availableWidth: width, availableHeight: height, ownerDirection: direction,
                   widthMode: widthMode, heightMode: heightMode, ownerWidth: innerWidth,
                   ownerHeight: container.percentInnerHeight, performLayout: true, depth: container.depth)
    }

    /// Whether an item aligned `stretch` keeps its own cross size: a definite one, or a
    /// percentage height that behaves as `auto` because the container's height is not definite
    /// (CSS stretches only an `auto` cross size; Yoga 3.2, `percentageOfIndefiniteHeight`,
    /// stretches it).
    @inline(__always)
    func keepsOwnCrossSize(_ child: LayoutNode, _ container: FlexContainer) -> Bool {
        child.hasDefiniteLength(container.crossAxis, container.percentInnerCrossDim) || percentHeightIsAuto(child, container)
    }

    /// Whether a row's item has a percentage height that behaves as `auto`.
    @inline(__always)
    func percentHeightIsAuto(_ child: LayoutNode, _ container: FlexContainer) -> Bool {
        !container.heightIsDefinite && container.isMainAxisRow && child.processedDimension(.column).isPercent
    }
}
