/// [§4.5 Automatic Minimum Size of Flex Items](https://www.w3.org/TR/css-flexbox-1/#min-size-auto),
/// web mode only: an item whose min size in the main axis is unset (`auto`) and that does not
/// scroll cannot shrink below its content — its
/// [content-based minimum size](https://www.w3.org/TR/css-flexbox-1/#content-based-minimum-size):
/// the smaller of its specified size and its min-content size, clamped by its max size.
extension FlexLayoutEngine {
    /// Computes each item's automatic minimum main size (NaN when it has none).
    func determineAutomaticMinimumSizes(_ container: inout FlexContainer) {
        for child in container.children {
            child.layout.automaticMinimumMain = automaticMinimumMainSize(child, container)
        }
    }

    private func automaticMinimumMainSize(_ child: LayoutNode, _ container: FlexContainer) -> Float {
        let style = child.styleStorage
        let mainAxis = container.mainAxis
        guard style.display != .none, style.positionType != .absolute, style.overflow == .visible,
              !style.minDimension(mainAxis).isDefined else { return .nan }
        let direction = container.direction
        let innerMain = container.percentInnerMainDim
        let innerWidth = container.availableInnerWidth
        var minimum = minContentMainSize(child, container)
        // The specified size suggestion: a definite preferred main size.
        let specified = child.resolvedDimension(direction, mainAxis, innerMain, innerWidth)
        if !specified.isNaN && specified >= 0 { minimum = minOrDefined(minimum, specified) }
        let maxSize = child.resolvedMax(mainAxis, direction, innerMain, innerWidth)
        if !maxSize.isNaN { minimum = minOrDefined(minimum, maxSize) }
        return minimum
    }

    /// The item's [min-content size](https://www.w3.org/TR/css-sizing-3/#min-content) in the main axis.
    private func minContentMainSize(_ child: LayoutNode, _ container: FlexContainer) -> Float {
        if container.isMainAxisRow {
            return minContentWidth(child, container.direction, container.availableInnerWidth, ownSizeCounts: false)
        }
        // A box's min-content height is its height at its used width.
        let innerWidth = container.availableInnerWidth
        let stretches = resolveChildAlignment(container.node, child) == .stretch && container.crossMode == .stretchFit
        var width = child.resolvedDimension(container.direction, .row, innerWidth, innerWidth)
        var widthMode = SizingMode.stretchFit
        if width.isNaN {
            width = innerWidth
            widthMode = width.isNaN ? .maxContent : (stretches ? .stretchFit : .fitContent)
        } else {
            width += child.marginForAxis(.row, container.direction, innerWidth)
        }
        layoutNode(child, availableWidth: width, availableHeight: .nan, ownerDirection: container.direction,
                   widthMode: widthMode, heightMode: .maxContent, ownerWidth: innerWidth,
                   ownerHeight: container.percentInnerHeight, performLayout: false, depth: container.depth)
        return child.layout.measuredHeight
    }

    /// An item's intrinsic contribution clamped by its flex base size
    /// ([§9.9.3](https://www.w3.org/TR/css-flexbox-1/#intrinsic-item-contributions)): at most the
    /// base if the item cannot grow, at least it if it cannot shrink.
    @inline(__always)
    func clampedByFlexBase(_ contribution: Float, _ base: Float, of child: LayoutNode) -> Float {
        var clamped = contribution
        if child.resolveFlexGrow() == 0 { clamped = min(clamped, base) }
        if child.resolveFlexShrink(config) == 0 { clamped = max(clamped, base) }
        return clamped
    }

    /// The node's min-content width (border box): a definite width, else its content's
    /// narrowest size — the longest word of a text, the sum of a row's items or the widest of a
    /// column's items. `percentHeight` is what a percentage height of the node resolves against:
    /// its container's definite content height, NaN if there is none. `fixedInnerHeight` is the
    /// node's content-box height where its container fixes it as definite without a `height` of
    /// its own (between insets, say).
    func minContentWidth(_ node: LayoutNode, _ direction: Direction, _ ownerWidth: Float,
                         ownSizeCounts: Bool = true, percentHeight: Float = .nan, fixedInnerHeight: Float = .nan) -> Float {
        let style = node.styleStorage
        let definite = node.processedDimension(.row)
        if ownSizeCounts, case .points = definite {
            return node.boundAxis(.row, direction, node.resolvedDimension(direction, .row, ownerWidth, ownerWidth),
                                  ownerWidth, ownerWidth)
        }
        let paddingAndBorder = node.paddingAndBorder(.row, direction, ownerWidth)
        // (A percentage of a definite height is definite too.)
        let height = node.resolvedDimension(direction, .column, percentHeight, ownerWidth)
        if config.cssAspectRatio, let ratio = style.aspectRatio, ratio > 0, ratio.isFinite, !height.isNaN {
            // A definite height gives the width through the ratio.
            // (Clamped by its min and max heights first.)
            let borderBoxHeight = node.boundAxis(.column, direction, height, percentHeight, ownerWidth)
            return node.boundAxis(.row, direction, widthThroughRatio(borderBoxHeight, ratio), ownerWidth, ownerWidth)
        }
        var content: Float = 0
        if node.hasMeasureFunction {
            content = callMeasureFunction(node, 0, .atMost, .nan, .undefined).width
        } else {
            let isRow = style.flexDirection.isRow
            let sums = isRow && style.flexWrap == .noWrap
            var count = 0
            // What the items' percentage heights resolve against: the definite height within
            // the node's min and max heights, or the one its container fixed, which wins over a
            // `height` of its own (a column's item flexed from `height: 0` to 5 is 5 high, §9.8).
            // (Either within its min and max heights: an absolutely positioned row with `height: 0`
            // and `minHeight: 5` is 5 high.)
            let paddingAndBorderHeight = node.paddingAndBorder(.column, direction, ownerWidth)
            let ownHeight = fixedInnerHeight.isNaN ? height : fixedInnerHeight + paddingAndBorderHeight
            let innerHeight = ownHeight.isNaN ? ownHeight
                : node.boundAxis(.column, direction, ownHeight, percentHeight, ownerWidth) - paddingAndBorderHeight
            // A single-line row of definite height stretches an item with a ratio to that height,
            // which gives its width.
            let stretchedHeight = sums && config.cssAspectRatio ? innerHeight : .nan
            for child in node.layoutChildren {
                let childStyle = child.styleStorage
                if childStyle.display == .none || childStyle.positionType == .absolute { continue }
                // A box stretched to that height has it as a definite height too (§9.8), so the
                // items with a ratio a row stretches take their width from it, and a column's
                // items resolve their percentage heights against it.
                var childFixedHeight = Float.nan
                if !stretchedHeight.isNaN && (childStyle.flexDirection.isColumn || childStyle.flexWrap == .noWrap)
                    && childStyle.aspectRatio == nil && (childStyle.height.isAuto || !childStyle.height.isDefined)
                    && resolveChildAlignment(node, child) == .stretch
                    && !child.marginIsAuto(flexStart: .column, direction) && !child.marginIsAuto(flexEnd: .column, direction) {
                    childFixedHeight = child.boundAxis(.column, direction, stretchedHeight - child.marginForAxis(.column, direction, .nan),
                                                       .nan, .nan) - child.paddingAndBorder(.column, direction, .nan)
                }
                // (A height the container fixes as definite is what their percentages resolve against too.)
                var contribution = minContentWidth(child, child.resolveDirection(direction), .nan,
                                                   percentHeight: innerHeight,
                                                   fixedInnerHeight: childFixedHeight)
                    + child.marginForAxis(.row, direction, .nan)
                // (A percentage width is cyclic here, as `auto`: CSS Sizing 3 §5.2.1.)
                if !stretchedHeight.isNaN, let ratio = childStyle.aspectRatio, ratio > 0, ratio.isFinite,
                   childStyle.width.isAuto || !childStyle.width.isDefined || childStyle.width.isPercent,
                   childStyle.height.isAuto || !childStyle.height.isDefined, resolveChildAlignment(node, child) == .stretch,
                   !child.marginIsAuto(flexStart: .column, direction), !child.marginIsAuto(flexEnd: .column, direction) {
                    // (The transferred width replaces the content's, as for a definite height.)
                    let height = child.boundAxis(.column, direction, stretchedHeight - child.marginForAxis(.column, direction, .nan),
                                                 .nan, .nan)
                    contribution = child.boundAxis(.row, direction, widthThroughRatio(height, ratio), .nan, .nan)
                        + child.marginForAxis(.row, direction, .nan)
                }
                if isRow && childStyle.overflow != .visible {
                    // A scrolling item may shrink below its content: it contributes only its min size.
                    contribution = zeroIfUndefined(child.resolvedMin(.row, direction, .nan, .nan)) + child.marginForAxis(.row, direction, .nan)
                }
                if sums {
                    // In a single-line row a definite flex basis is the least an item that cannot
                    // shrink contributes and the most one that cannot grow does
                    // ([§9.9.3](https://www.w3.org/TR/css-flexbox-1/#intrinsic-item-contributions));
                    // a wrapping row is as wide as its widest item's content, as in Chromium.
                    let basis = child.resolveFlexBasis(config, direction, .row, .nan, .nan)
                    if !basis.isNaN {
                        let size = child.boundAxis(.row, direction, basis, .nan, .nan) + child.marginForAxis(.row, direction, .nan)
                        contribution = clampedByFlexBase(contribution, size, of: child)
                    }
                }
                content = sums ? content + contribution : max(content, contribution)
                count += 1
            }
            if sums && count > 1 { content += node.gap(.row, .nan) * Float(count - 1) }
        }
        var borderBox = content + paddingAndBorder
        if config.cssAspectRatio, let ratio = style.aspectRatio, ratio > 0, ratio.isFinite {
            // A min height transfers through the ratio as a min width (below the box's own), and
            // so does the padding and border of its height, which it is never less than.
            let minHeight = node.resolvedMin(.column, direction, percentHeight, ownerWidth)
            if !minHeight.isNaN { borderBox = max(borderBox, widthThroughRatio(minHeight, ratio)) }
            borderBox = max(borderBox, widthThroughRatio(node.paddingAndBorder(.column, direction, ownerWidth), ratio))
        }
        return node.boundAxis(.row, direction, borderBox, ownerWidth, ownerWidth)
    }
}

extension FlexLayoutEngine {
    /// `size` raised to the item's automatic minimum main size, if it has one.
    @inline(__always)
    func applyAutomaticMinimum(_ child: LayoutNode, _ size: Float) -> Float {
        let minimum = child.layout.automaticMinimumMain
        return minimum.isNaN || !(size < minimum) ? size : minimum
    }
}
