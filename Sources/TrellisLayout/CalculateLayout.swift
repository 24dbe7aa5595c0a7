/// The entry point: lays out a tree, then rounds it to the pixel grid.
extension LayoutNode {
    /// Lays out this node and its subtree, as the root, in the given space.
    ///
    /// - Parameters:
    ///   - availableWidth: the width of the space the root is laid out in; `nil` for unbounded
    ///     (the root then sizes to its content unless its style fixes the width).
    ///   - availableHeight: the same for height.
    ///   - direction: the inline direction of the root's parent (LTR or RTL).
    ///   - config: defaults mode, pixel grid and errata.
    /// After this call every node's `frame` is set.
    public func calculateLayout(availableWidth: Float? = nil, availableHeight: Float? = nil,
                                direction: Direction = .ltr, config: LayoutConfig = .yoga) {
        let ownerWidth = availableWidth ?? .nan
        let ownerHeight = availableHeight ?? .nan
        layoutPassCount &+= 1
        let engine = FlexLayoutEngine(config: config, generation: layoutPassCount)
        engine.layoutRoot(self, ownerWidth: ownerWidth, ownerHeight: ownerHeight, ownerDirection: direction)
    }
}

/// One layout pass over a tree: the configuration and the pass number that invalidates caches.
///
/// The algorithm follows [CSS Flexible Box Layout Level 1 §9](https://www.w3.org/TR/css-flexbox-1/#layout-algorithm)
/// the way Yoga 3.2 implements it (`yoga/algorithm/CalculateLayout.cpp`); each step is one method,
/// named after its section. Undefined sizes are NaN.
struct FlexLayoutEngine {
    let config: LayoutConfig
    let generation: UInt32

    /// Sizes the root from its own style or the available space, lays it out and rounds the results.
    func layoutRoot(_ node: LayoutNode, ownerWidth: Float, ownerHeight: Float, ownerDirection: Direction) {
        if node.styleStorage.display == .none && config.useWebDefaults {
            node.zeroOutLayoutRecursively()  // CSS: no box at all
            return
        }
        let direction = node.resolveDirection(ownerDirection)
        let (width, widthMode) = rootSize(node, .row, direction, ownerWidth, ownerWidth)
        let (height, heightMode) = rootSize(node, .column, direction, ownerHeight, ownerWidth)
        let didLayout = layoutNode(node, availableWidth: width, availableHeight: height, ownerDirection: ownerDirection,
                                   widthMode: widthMode, heightMode: heightMode, ownerWidth: ownerWidth,
                                   ownerHeight: ownerHeight, performLayout: true, depth: 0)
        if didLayout {
            node.setInitialPosition(node.layout.direction, ownerWidth, ownerHeight, errata: config.errata)
            roundToPixelGrid(node, absoluteLeft: 0, absoluteTop: 0)
        }
    }

    private func rootSize(_ node: LayoutNode, _ axis: FlexDirection, _ direction: Direction,
                          _ ownerSize: Float, _ ownerWidth: Float) -> (Float, SizingMode) {
        if node.hasDefiniteLength(axis, ownerSize) {
            let size = node.resolvedDimension(direction, axis, ownerSize, ownerWidth) + node.marginForAxis(axis, direction, ownerWidth)
            return (size, .stretchFit)
        }
        if let keywordMode = node.styleStorage.dimension(axis).sizingKeywordMode(available: ownerSize) {
            return (keywordMode == .maxContent ? .nan : ownerSize, keywordMode)
        }
        let maxSize = node.resolvedMax(axis, direction, ownerSize, ownerWidth)
        if !maxSize.isNaN { return (maxSize, .fitContent) }
        return (ownerSize, ownerSize.isNaN ? .maxContent : .stretchFit)
    }

    /// Lays out or measures `node` unless a cached result for the same constraints exists
    /// (Yoga's `calculateLayoutInternal`). Returns whether work was done.
    @discardableResult
    func layoutNode(_ node: LayoutNode, availableWidth: Float, availableHeight: Float, ownerDirection: Direction,
                    widthMode: SizingMode, heightMode: SizingMode, ownerWidth: Float, ownerHeight: Float,
                    performLayout: Bool, depth: Int) -> Bool {
        let depth = depth + 1
        // (A node with percentages of its containing block's width is measured again when that
        // width changes: a box sized by its content measures its items with them cyclic first.
        // So is a node with a percentage height when its containing block's height changes: a
        // measurement made while that height was not definite does not answer for a layout
        // where it is. The same for a node whose items have percentage heights, when whether its
        // containing block's height is known changes: its own height may be definite only then.)
        let needToVisitNode = (node.isDirty && node.layout.generationCount != generation)
            || node.layout.lastConfig != config || node.layout.lastOwnerDirection != ownerDirection
            || node.hasWidthPercentage && !inexactEquals(node.lastOwnerWidth, ownerWidth)
            || node.hasHeightPercentage && !inexactEquals(node.lastOwnerHeight, ownerHeight)
            || node.hasHeightPercentageChildren && node.lastOwnerHeight.isNaN != ownerHeight.isNaN
        if needToVisitNode {
            node.layout.invalidateCache()
            if node.hasWidthPercentage { node.lastOwnerWidth = ownerWidth }
            if node.hasHeightPercentage || node.hasHeightPercentageChildren { node.lastOwnerHeight = ownerHeight }
        }

        let request = CachedMeasurement(availableWidth: availableWidth, availableHeight: availableHeight,
                                        widthMode: widthMode, heightMode: heightMode)
        let cached = needToVisitNode ? nil : cachedResult(node, request, ownerDirection: ownerDirection, ownerWidth: ownerWidth,
                                                               performLayout: performLayout)
        if let cached {
            // (Percentage margins and paddings resolve against this containing block's width,
            // which a measurement since, with its percentages cyclic, may have resolved
            // otherwise: a text's baseline and the node's position read them.)
            if node.hasWidthPercentage { resolveBoxEdges(node, node.resolveDirection(ownerDirection), ownerWidth) }
            node.layout.measuredWidth = cached.computedWidth
            node.layout.measuredHeight = cached.computedHeight
            // (A size asked for exactly is the content's size too, as a fresh layout finds: an
            // entry made under another constraint that came out at that size answers the size,
            // not what the content asked for then.)
            node.layout.contentWidth = widthMode == .stretchFit ? cached.computedWidth : cached.contentWidth
            node.layout.contentHeight = heightMode == .stretchFit ? cached.computedHeight : cached.contentHeight
        } else {
            // (A measurement of such a node leaves its edges as its last layout resolved them.)
            let edges = !performLayout && node.hasWidthPercentage
                ? (node.layout.margin, node.layout.border, node.layout.padding) : nil
            layoutNodeImpl(node, availableWidth: availableWidth, availableHeight: availableHeight,
                           ownerDirection: ownerDirection, widthMode: widthMode, heightMode: heightMode,
                           ownerWidth: ownerWidth, ownerHeight: ownerHeight, performLayout: performLayout, depth: depth)
            if let edges { (node.layout.margin, node.layout.border, node.layout.padding) = edges }
            node.layout.lastOwnerDirection = ownerDirection
            node.layout.lastConfig = config
            node.storeMeasurement(request, performLayout: performLayout)
        }
        if performLayout {
            node.layout.width = node.layout.measuredWidth
            node.layout.height = node.layout.measuredHeight
            node.isDirty = false
        }
        node.layout.generationCount = generation
        return cached == nil
    }

    /// Lays out `node` under the given constraints: the steps of [§9](https://www.w3.org/TR/css-flexbox-1/#layout-algorithm).
    private func layoutNodeImpl(_ node: LayoutNode, availableWidth: Float, availableHeight: Float,
                                ownerDirection: Direction, widthMode: SizingMode, heightMode: SizingMode,
                                ownerWidth: Float, ownerHeight: Float, performLayout: Bool, depth: Int,
                                widthIsFinal: Bool = false) {
        let direction = node.resolveDirection(ownerDirection)
        node.layout.direction = direction
        node.layout.contentWidth = .nan
        node.layout.contentHeight = .nan
        resolveBoxEdges(node, direction, ownerWidth)
        let margins = (row: node.layout.margin.left + node.layout.margin.right,
                       column: node.layout.margin.top + node.layout.margin.bottom)

        if node.hasMeasureFunction {
            measureWithMeasureFunction(node, direction, availableWidth - margins.row, availableHeight - margins.column,
                                       widthMode, heightMode, ownerWidth, ownerHeight)
            node.cleanupContentsNodesRecursively()
            return
        }
        if let pins = node.pinLayoutStorage {
            node.cleanupContentsNodesRecursively()
            layOutPinsContainer(node, pins, direction: direction, availableWidth: availableWidth - margins.row,
                                availableHeight: availableHeight - margins.column, widthMode: widthMode,
                                heightMode: heightMode, ownerWidth: ownerWidth, ownerHeight: ownerHeight,
                                performLayout: performLayout, depth: depth)
            return
        }
        let children = node.layoutChildren
        if children.isEmpty {
            measureWithoutChildren(node, direction, availableWidth - margins.row, availableHeight - margins.column,
                                   widthMode, heightMode, ownerWidth, ownerHeight)
            node.cleanupContentsNodesRecursively()
            return
        }
        if !performLayout, measureWithFixedSize(node, direction, availableWidth - margins.row,
                                                availableHeight - margins.column, widthMode, heightMode,
                                                ownerWidth, ownerHeight) {
            node.cleanupContentsNodesRecursively()
            return
        }
        var availableWidth = availableWidth, widthMode = widthMode
        var contentWidthBeforeMinMax = Float.nan
        if widthMode != .stretchFit && !widthIsFinal && node.hasWidthPercentageChildren,
           let width = widthWithCyclicPercentages(node, availableWidth: availableWidth, availableHeight: availableHeight,
                                                  ownerDirection: ownerDirection, widthMode: widthMode,
                                                  heightMode: heightMode, ownerWidth: ownerWidth,
                                                  ownerHeight: ownerHeight, depth: depth) {
            // CSS Sizing 3 §5.2.1: while a box's width depends on its content, its items'
            // percentages of that width are cyclic (margins and paddings count as 0, widths as
            // auto); they resolve against the width the box then takes.
            availableWidth = width + margins.row
            widthMode = .stretchFit
            // The width its content asks for so found, before the box's own min/max clamp: a row
            // measuring the box for its flex basis takes that (§9.2 step 3 E), not the clamped
            // width nor the content laid out in it.
            contentWidthBeforeMinMax = node.layout.contentWidth
        }
        if widthMode != .stretchFit && !widthIsFinal && !config.errata.contains(.columnStretchesToIndefiniteWidth)
            && node.styleStorage.flexDirection.isColumn && hasStretchedItem(node, children) {
            // CSS finds a column's width before laying out its content, so its items stretch to a
            // definite width (and an item with an aspect ratio takes its height from it).
            if performLayout {
                layoutNode(node, availableWidth: availableWidth, availableHeight: availableHeight, ownerDirection: ownerDirection,
                           widthMode: widthMode, heightMode: heightMode, ownerWidth: ownerWidth, ownerHeight: ownerHeight,
                           performLayout: false, depth: depth - 1)
            } else {
                layoutNodeImpl(node, availableWidth: availableWidth, availableHeight: availableHeight,
                               ownerDirection: ownerDirection, widthMode: widthMode, heightMode: heightMode,
                               ownerWidth: ownerWidth, ownerHeight: ownerHeight, performLayout: false, depth: depth,
                               widthIsFinal: true)
            }
            availableWidth = node.layout.measuredWidth + margins.row
            widthMode = .stretchFit
            // The width its content asks for, before the column's own min/max clamp: a row measuring
            // the column for its flex basis takes that (§9.2 step 3 E), not the clamped width.
            contentWidthBeforeMinMax = node.layout.contentWidth
        }
        node.layout.hadOverflow = false
        node.cleanupContentsNodesRecursively()

        var container = FlexContainer(node: node, children: children, direction: direction, ownerDirection: ownerDirection,
                                      availableWidth: availableWidth - margins.row,
                                      availableHeight: availableHeight - margins.column,
                                      widthMode: widthMode, heightMode: heightMode, ownerWidth: ownerWidth,
                                      ownerHeight: ownerHeight, performLayout: performLayout, depth: depth,
                                      columnBaselines: !config.errata.contains(.columnBaselineIsFlexStart))
        determineAvailableSpace(&container)
        if performLayout { node.layout.percentInnerHeight = container.percentInnerHeight }
        determineFlexBaseSizes(&container)
        if config.useWebDefaults { determineAutomaticMinimumSizes(&container) }
        layOutFlexLines(&container)
        alignContent(&container)
        determineContainerSize(&container)
        if !contentWidthBeforeMinMax.isNaN { node.layout.contentWidth = contentWidthBeforeMinMax }
        let innerAvailableWidth = availableWidth - margins.row
        if widthMode == .fitContent && !container.isMainAxisRow
            && node.layout.measuredWidth > innerAvailableWidth + 0.001
            && !config.errata.contains(.fitContentColumnKeepsOfferedWidth) {
            // A fit-content column, single- or multi-line, wider than the space offered to it
            // (its min-content or min width is larger): CSS lays its items out at the width it
            // takes, so a text in it wraps at that width, not at the offered one.
            let contentWidth = node.layout.contentWidth
            layoutNodeImpl(node, availableWidth: node.layout.measuredWidth + margins.row, availableHeight: availableHeight,
                           ownerDirection: ownerDirection, widthMode: .stretchFit, heightMode: heightMode,
                           ownerWidth: ownerWidth, ownerHeight: ownerHeight, performLayout: performLayout, depth: depth)
            node.layout.contentWidth = contentWidth
            return
        }
        if performLayout {
            reverseWrappedLines(&container)
            setTrailingPositions(&container)
            if container.hasOutOfFlowCandidates && (node.styleStorage.positionType != .static || depth == 1) {
                layoutAbsoluteChildren(containingNode: node, node: node,
                                       widthMode: container.mainAxis.isRow ? container.mainMode : container.crossMode,
                                       direction: direction, depth: depth, leftOffset: 0, topOffset: 0,
                                       availableInnerWidth: container.availableInnerWidth,
                                       availableInnerHeight: container.availableInnerHeight)
            }
        }
    }

    /// The width (border box) of a node whose width depends on its content, found with its
    /// items' percentages of that width cyclic ([CSS Sizing 3 §5.2.1](https://www.w3.org/TR/css-sizing-3/#cyclic-percentage-contribution)):
    /// its max-content width, measured with no width to resolve them against, or under a
    /// fit-content width smaller than that, the offered width or its min-content width if larger.
    @inline(never)
    private func widthWithCyclicPercentages(_ node: LayoutNode, availableWidth: Float, availableHeight: Float,
                                            ownerDirection: Direction, widthMode: SizingMode, heightMode: SizingMode,
                                            ownerWidth: Float, ownerHeight: Float, depth: Int) -> Float? {
        layoutNodeImpl(node, availableWidth: .nan, availableHeight: availableHeight, ownerDirection: ownerDirection,
                       widthMode: .maxContent, heightMode: heightMode, ownerWidth: ownerWidth, ownerHeight: ownerHeight,
                       performLayout: false, depth: depth, widthIsFinal: true)
        let maxContent = node.layout.measuredWidth
        guard widthMode == .fitContent else { return maxContent }
        let offered = availableWidth - node.marginForAxis(.row, node.layout.direction, ownerWidth)
        if maxContent <= offered { return maxContent }
        // Fit-content: the offered width, but at least the min-content width (§5.1). A height
        // fixed inside a definite one is definite (§9.8): items with a ratio stretched to it
        // count the width it transfers.
        let fixedInnerHeight = heightMode == .stretchFit && !ownerHeight.isNaN && (node.styleStorage.positionType != .absolute
            || node.hasDefiniteLength(.column, ownerHeight)
            || node.hasInset(.top, node.layout.direction) && node.hasInset(.bottom, node.layout.direction))
            ? availableHeight - node.marginForAxis(.column, node.layout.direction, ownerWidth)
                - node.paddingAndBorder(.column, node.layout.direction, ownerWidth)
            : .nan
        return max(offered, minContentWidth(node, node.layout.direction, ownerWidth, fixedInnerHeight: fixedInnerHeight))
    }

    /// Whether an in-flow child of a column stretches across it: an auto width, `stretch`
    /// alignment and no auto margin across; or takes its width from its flexed height through
    /// an aspect ratio (measured by its content's width while the column's width is not known).
    private func hasStretchedItem(_ node: LayoutNode, _ children: [LayoutNode]) -> Bool {
        let cssAspectRatio = config.cssAspectRatio
        let end = children.forEachUnretained(from: 0) { _, child in
            let style = child.styleStorage
            if cssAspectRatio && style.aspectRatio != nil && style.positionType != .absolute && style.display != .none
                && (style.width.isAuto || !style.width.isDefined) { return false }
            return style.positionType == .absolute || style.display == .none || !style.width.isAuto && style.width.isDefined
                || resolveChildAlignment(node, child) != .stretch
                || child.marginIsAuto(flexStart: .row, .ltr) || child.marginIsAuto(flexEnd: .row, .ltr)
        }
        return end < children.count
    }

    /// Records the node's used margins, borders and paddings for its physical edges.
    private func resolveBoxEdges(_ node: LayoutNode, _ direction: Direction, _ ownerWidth: Float) {
        // The edges for `direction` are already physical: each side resolves on its own.
        if direction == .rtl {
            Self.resolveBoxEdges(node, node.rtlEdges, ownerWidth)
        } else {
            Self.resolveBoxEdges(node, node.ltrEdges, ownerWidth)
        }
    }

    @inline(__always)
    private static func resolveBoxEdges(_ node: LayoutNode, _ edges: DirectedBoxEdges, _ ownerWidth: Float) {
        let margin = edges.margin
        node.layout.margin = EdgeValues(left: zeroIfUndefined(margin.left.resolve(ownerWidth)),
                                        top: zeroIfUndefined(margin.top.resolve(ownerWidth)),
                                        right: zeroIfUndefined(margin.right.resolve(ownerWidth)),
                                        bottom: zeroIfUndefined(margin.bottom.resolve(ownerWidth)))
        node.layout.border = EdgeValues(left: edges.border(.left), top: edges.border(.top),
                                        right: edges.border(.right), bottom: edges.border(.bottom))
        node.layout.padding = EdgeValues(left: edges.padding(.left, ownerWidth), top: edges.padding(.top, ownerWidth),
                                         right: edges.padding(.right, ownerWidth),
                                         bottom: edges.padding(.bottom, ownerWidth))
    }

    /// The cached size for `request`, if one is valid (Yoga's Cache.cpp).
    private func cachedResult(_ node: LayoutNode, _ request: CachedMeasurement, ownerDirection direction: Direction, ownerWidth: Float,
                              performLayout: Bool) -> CachedMeasurement? {
        let count = Int(node.layout.nextCachedMeasurementsIndex)
        if node.hasMeasureFunction {
            let marginRow = node.marginForAxis(.row, direction, ownerWidth)
            let marginColumn = node.marginForAxis(.column, direction, ownerWidth)
            if canUseCachedMeasurement(request, node.layout.cachedLayout, marginRow, marginColumn) {
                return node.layout.cachedLayout
            }
            return node.cachedMeasurements.first(count) { canUseCachedMeasurement(request, $0, marginRow, marginColumn) }
        }
        if performLayout {
            return node.layout.cachedLayout.hasSameConstraints(as: request) ? node.layout.cachedLayout : nil
        }
        return node.cachedMeasurements.first(count) { $0.hasSameConstraints(as: request) }
    }
}
