/// [§9.2 step 3, Determine the flex base size and hypothetical main size of each item](https://www.w3.org/TR/css-flexbox-1/#algo-main-item).
extension FlexLayoutEngine {
    /// Computes every item's flex base size and sums the outer hypothetical main sizes and gaps
    /// into `totalMainDim`; also sets each item's initial position.
    func determineFlexBaseSizes(_ container: inout FlexContainer) {
        // The shortcut assumes one line: a wrapping container breaks its lines by flex bases.
        let singleFlexChild = container.mainMode == .stretchFit
            && (!container.isWrapping || config.errata.contains(.singleFlexChildFillsContainer))
            ? findSingleFlexChild(container) : nil
        var total: Float = 0, inFlowCount = 0
        var hasDefiniteBasis = false
        let children = container.children
        children.forEachUnretained { index, child in
            if child.styleStorage.display == .none {
                child.zeroOutLayoutRecursively()
                return
            }
            if container.performLayout {
                child.setInitialPosition(child.resolveDirection(container.direction),
                                         container.availableInnerWidth, container.percentInnerHeight, errata: config.errata)
            }
            if child.styleStorage.positionType != .relative { container.hasOutOfFlowCandidates = true }
            if child.styleStorage.positionType == .absolute { return }
            if index == singleFlexChild {
                child.layout.computedFlexBasisGeneration = generation
                child.layout.computedFlexBasis = 0
            } else {
                if determineFlexBaseSize(of: child, in: container) { hasDefiniteBasis = true }
            }
            // (The outer hypothetical main size: whether the items overflow the space offered is
            // a question about their max-content contributions, within their min and max sizes,
            // §9.9.3; `hypotheticalMainSize` without the automatic minimum, found later. A flex
            // base size is never below the padding and border already.)
            var hypothetical = child.layout.computedFlexBasis
            let style = child.styleStorage
            if style.minDimension(container.mainAxis).isDefined || style.maxDimension(container.mainAxis).isDefined {
                hypothetical = maxOrDefined(
                    child.boundAxisWithinMinAndMax(container.direction, container.mainAxis, hypothetical,
                                                   container.percentInnerMainDim, container.availableInnerWidth),
                    child.paddingAndBorder(container.mainAxis, container.direction, container.availableInnerWidth))
            }
            total += hypothetical + child.marginForAxis(container.mainAxis, container.direction, container.availableInnerWidth)
            inFlowCount += 1
        }
        // (Gaps only between the items in flow: not beside absolutely positioned or hidden children.)
        if inFlowCount > 1 {
            total += container.node.gap(container.mainAxis, container.availableInnerMainDim) * Float(inFlowCount - 1)
        }
        container.totalMainDim = total
        if hasDefiniteBasis && container.isMainAxisRow && container.mainMode != .stretchFit,
           let maxContent = maxContentWidthFromContributions(container) {
            // CSS sizes a row of unknown width by its items' max-content contributions
            // ([§9.9.1](https://www.w3.org/TR/css-flexbox-1/#intrinsic-main-sizes)), not by their
            // flex bases; the items then flex in that width. A fit-content width is at least the
            // min-content width found the same way.
            var inner = maxContent
            if container.isWrapping {
                // (A wrapping row's is never below its min-content width, its widest item.)
                inner = max(inner, containerMinContentWidth(container) - container.paddingAndBorderMain)
            }
            if container.mainMode == .fitContent && inner > container.availableInnerWidth {
                let minContent = containerMinContentWidth(container) - container.paddingAndBorderMain
                inner = min(inner, max(container.availableInnerWidth, minContent))
            }
            let node = container.node
            let minSize = node.resolvedMin(.row, container.direction, container.ownerWidth, container.ownerWidth)
            let maxSize = node.resolvedMax(.row, container.direction, container.ownerWidth, container.ownerWidth)
            if !maxSize.isNaN { inner = min(inner, maxSize - container.paddingAndBorderMain) }
            if !minSize.isNaN { inner = max(inner, minSize - container.paddingAndBorderMain) }
            inner = max(inner, 0)
            container.mainMode = .stretchFit
            container.availableWidth = inner + container.paddingAndBorderMain
            container.availableInnerWidth = inner
            container.availableInnerMainDim = inner
        }
        container.mainAxisOverflows = container.mainMode != .maxContent && total > container.availableInnerMainDim
        // A wrapping container (Yoga), and a row whose items overflow the width offered to it
        // (CSS: a fit-content width is at most the available width, the items shrink or
        // overflow; https://www.w3.org/TR/css-sizing-3/#fit-content-size), takes the offered size.
        let overflowingRow = container.isMainAxisRow && !config.errata.contains(.rowFitsContentPastAvailableWidth)
        let wrapsAtOfferedSize = container.isWrapping
            && (container.isMainAxisRow || config.errata.contains(.columnWrapsAtOfferedHeight))
        if (wrapsAtOfferedSize || overflowingRow) && container.mainAxisOverflows && container.mainMode == .fitContent {
            container.mainMode = .stretchFit
            if overflowingRow {
                // ... but never less than its min-content width.
                let minContent = containerMinContentWidth(container)
                if minContent > container.availableWidth {
                    container.availableWidth = minContent
                    container.availableInnerWidth = minContent - container.paddingAndBorderMain
                    container.availableInnerMainDim = container.availableInnerWidth
                    container.percentageBaseMain = container.availableInnerWidth
                }
            }
        }
    }

    /// The container's min-content width (border box); a height its container fixes as definite
    /// (between insets, say) counts as its own `height` would: an item with a ratio stretched
    /// to it takes its width from it.
    private func containerMinContentWidth(_ container: FlexContainer) -> Float {
        let fixedHeight = container.heightDefiniteness == .definite
            && (container.isMainAxisRow ? container.crossMode : container.mainMode) == .stretchFit
        return minContentWidth(container.node, container.direction, container.ownerWidth,
                               fixedInnerHeight: fixedHeight ? container.availableInnerHeight : .nan)
    }

    /// The max-content width (content box) of a row whose items have definite flex bases, from
    /// their contributions ([§9.9.3](https://www.w3.org/TR/css-flexbox-1/#intrinsic-item-contributions),
    /// as Chromium computes it): an item's content size or preferred width, whichever is larger,
    /// at most its flex base size if it cannot grow and at least that if it cannot shrink, then
    /// clamped by its min and max widths; summed with the gaps. Nil when no item has a definite `flex-basis` (the flex bases are the
    /// contributions then).
    @inline(never)
    private func maxContentWidthFromContributions(_ container: FlexContainer) -> Float? {
        let direction = container.direction
        let innerWidth = container.availableInnerWidth
        let children = container.children
        let end = children.forEachUnretained(from: 0) { _, child in
            child.styleStorage.positionType == .absolute || child.styleStorage.display == .none
                || child.resolveFlexBasis(config, direction, .row, innerWidth, innerWidth).isNaN
        }
        guard end < children.count else { return nil }
        var total: Float = 0, count = 0
        children.forEachUnretained { _, child in
            if child.styleStorage.positionType == .absolute || child.styleStorage.display == .none { return }
            count += 1
            let base = child.layout.computedFlexBasis
            var contribution: Float
            if child.hasDefiniteLength(.row, innerWidth) {
                contribution = child.resolvedDimension(direction, .row, innerWidth, innerWidth)
            } else if child.resolveFlexBasis(config, direction, .row, innerWidth, innerWidth).isNaN {
                contribution = base
            } else {
                measureContentFlexBasis(of: child, in: container, contentBasis: false)
                contribution = child.layout.contentWidth.isNaN ? child.layout.measuredWidth : child.layout.contentWidth
            }
            contribution = clampedByFlexBase(contribution, base, of: child)
            total += child.boundAxis(.row, direction, contribution, innerWidth, innerWidth)
                + child.marginForAxis(.row, direction, innerWidth)
        }
        if count > 1 { total += container.node.gap(.row, innerWidth) * Float(count - 1) }
        return total
    }

    /// If exactly one item can both grow and shrink, its basis can be 0: it will take exactly the
    /// remaining space, so measuring it is unnecessary (a Yoga optimisation).
    /// - Returns: the index of that item in `container.children`.
    private func findSingleFlexChild(_ container: FlexContainer) -> Int? {
        var single: Int?
        var several = false
        _ = container.children.forEachUnretained(from: 0) { index, child in
            guard child.isFlexible(config) else { return true }
            // Flex factors below 1 take only that fraction of the free space (§9.7 step 4.b), so
            // the item does not fill the container and its own flex base size counts.
            let partial = !config.errata.contains(.singleFlexChildFillsContainer)
                && (child.resolveFlexGrow() < 1 || child.resolveFlexShrink(config) < 1)
            if single != nil || partial || inexactEquals(child.resolveFlexGrow(), 0)
                || inexactEquals(child.resolveFlexShrink(config), 0) {
                several = true
                return false
            }
            single = index
            return true
        }
        return several ? nil : single
    }

    /// The flex base size of one item: its definite `flex-basis`, else its definite main size,
    /// else its content size measured under the container's constraints.
    /// - Returns: whether the item has a definite `flex-basis`.
    @discardableResult
    private func determineFlexBaseSize(of child: LayoutNode, in container: FlexContainer) -> Bool {
        let mainAxis = container.mainAxis
        let direction = container.direction
        let width = container.availableInnerWidth, height = container.availableInnerHeight
        let ownerWidth = width, ownerHeight = container.percentInnerHeight
        let mainAxisSize = container.isMainAxisRow ? width : height
        let mainAxisOwnerSize = container.isMainAxisRow ? ownerWidth : ownerHeight
        let paddingAndBorderMain = child.paddingAndBorder(mainAxis, direction, ownerWidth)

        let resolvedBasis = child.resolveFlexBasis(config, direction, mainAxis, mainAxisOwnerSize, ownerWidth)
        // A definite basis is used as is (CSS); Yoga 3.2 only does so when the container's main
        // size is known too (`flexBasisIgnoredInUnboundedContainer`), unless
        // `fixFlexBasisFitContent` is on (and in web mode), and keeps the first basis it computed
        // (`flexBasisKeptAcrossPasses`, unless `webFlexBasis` is on).
        let errata = config.errata
        // A percentage basis of a column whose height is not definite is `content`
        // ([§7.2.3](https://www.w3.org/TR/css-flexbox-1/#flex-basis-property)): the item's content
        // size, whatever its height says (Yoga 3.2 takes the height).
        let contentBasis = resolvedBasis.isNaN && !container.heightIsDefinite && !container.isMainAxisRow
            && child.styleStorage.flexBasis.isPercent
        if !resolvedBasis.isNaN && (!mainAxisSize.isNaN || config.useWebDefaults
                                    || !errata.contains(.flexBasisIgnoredInUnboundedContainer)
                                    || config.experiments.contains(.fixFlexBasisFitContent)) {
            if !errata.contains(.flexBasisKeptAcrossPasses) || child.layout.computedFlexBasis.isNaN
                || (config.experiments.contains(.webFlexBasis) && child.layout.computedFlexBasisGeneration != generation) {
                child.layout.computedFlexBasis = maxOrDefined(resolvedBasis, paddingAndBorderMain)
            }
        } else if container.isMainAxisRow && child.hasDefiniteLength(.row, ownerWidth) {
            child.layout.computedFlexBasis = maxOrDefined(
                child.resolvedDimension(direction, .row, ownerWidth, ownerWidth), paddingAndBorderMain)
        } else if !container.isMainAxisRow && !contentBasis && child.hasDefiniteLength(.column, ownerHeight) {
            child.layout.computedFlexBasis = maxOrDefined(
                child.resolvedDimension(direction, .column, ownerHeight, ownerWidth), paddingAndBorderMain)
        } else {
            let transferred = measureContentFlexBasis(of: child, in: container, contentBasis: contentBasis)
            // CSS takes the content's size unclamped (min/max apply to the hypothetical size);
            // Yoga takes the measured, clamped size (`flexBasisClampedByMinMax`).
            var contentSize = child.measured(mainAxis)
            if config.useWebDefaults || !config.errata.contains(.flexBasisClampedByMinMax) {
                let unclamped = mainAxis.isRow ? child.layout.contentWidth : child.layout.contentHeight
                if !unclamped.isNaN { contentSize = unclamped }
                // §9.2 step 3 B: with a ratio and a definite cross size, the flex base size is that
                // cross size through the ratio, before the item's own main-axis min/max clamp.
                if !transferred.isNaN { contentSize = transferred }
            }
            child.layout.computedFlexBasis = maxOrDefined(contentSize, paddingAndBorderMain)
        }
        child.layout.computedFlexBasisGeneration = generation
        return !resolvedBasis.isNaN
    }

    /// Lays the item out under max-content (or the container's size as fit-content) in the main
    /// axis to find its content-based flex base size.
    /// - Returns: the main size (border box) an aspect ratio transfers from a definite cross size,
    ///   before the item's main-axis min/max clamp; NaN when no ratio gives it.
    @discardableResult
    private func measureContentFlexBasis(of child: LayoutNode, in container: FlexContainer, contentBasis: Bool) -> Float {
        var transferred = Float.nan
        let node = container.node
        let isMainAxisRow = container.isMainAxisRow
        let direction = container.direction
        let width = container.availableInnerWidth, height = container.availableInnerHeight
        let ownerWidth = width, ownerHeight = container.percentInnerHeight
        var childWidth = Float.nan, childHeight = Float.nan
        var childWidthMode = SizingMode.maxContent, childHeightMode = SizingMode.maxContent
        let marginRow = child.marginForAxis(.row, direction, ownerWidth)
        let marginColumn = child.marginForAxis(.column, direction, ownerWidth)
        let isRowDefinite = child.hasDefiniteLength(.row, ownerWidth)
        let isColumnDefinite = child.hasDefiniteLength(.column, ownerHeight)

        if isRowDefinite {
            childWidth = child.resolvedDimension(direction, .row, ownerWidth, ownerWidth) + marginRow
            childWidthMode = .stretchFit
        }
        if isColumnDefinite {
            childHeight = child.resolvedDimension(direction, .column, ownerHeight, ownerWidth) + marginColumn
            childHeightMode = .stretchFit
        }
        // §9.2 step 3 E: the content-based flex basis is the max-content main size; the item
        // fits the container only in the cross axis. Yoga (an erratum) fits it in the main axis
        // too, unless the container scrolls.
        let fitsMainAxis = config.errata.contains(.flexBasisFitsContainer) && node.styleStorage.overflow != .scroll
        if !isMainAxisRow || fitsMainAxis, childWidth.isNaN, !width.isNaN {
            childWidth = width
            childWidthMode = .fitContent
        }
        if isMainAxisRow || fitsMainAxis, childHeight.isNaN, !height.isNaN {
            childHeight = height
            childHeightMode = .fitContent
        }
        // A ratio transfers the border box, which is never smaller than its padding and border
        // (CSS; Yoga 3.2 transfers the size asked for).
        let cssAspect = config.cssAspectRatio
        @inline(__always) func borderBox(_ size: Float, _ axis: FlexDirection) -> Float {
            cssAspect ? maxOrDefined(size, child.paddingAndBorder(axis, direction, ownerWidth)) : size
        }
        if let ratio = child.styleStorage.aspectRatio, ratio > 0, ratio.isFinite {
            if !isMainAxisRow && childWidthMode == .stretchFit {
                childHeight = marginColumn + heightThroughRatio(borderBox(childWidth - marginRow, .row), ratio)
                childHeightMode = .stretchFit
            } else if isMainAxisRow && childHeightMode == .stretchFit {
                childWidth = marginRow + widthThroughRatio(borderBox(childHeight - marginColumn, .column), ratio)
                childWidthMode = .stretchFit
            }
        }
        // An item stretched in the cross axis is measured at the container's cross size (auto
        // cross margins keep it from stretching, §8.1); in a multi-line container it stretches to
        // its line, whose size is not known yet (Yoga 3.2 takes the container's).
        @inline(__always) func stretches() -> Bool {
            resolveChildAlignment(node, child) == .stretch
                && !child.marginIsAuto(flexStart: container.crossAxis, direction)
                && !child.marginIsAuto(flexEnd: container.crossAxis, direction)
                && (!container.isWrapping || config.errata.contains(.multiLineStretchIsMaxContent))
                && !percentHeightIsAuto(child, container)
        }
        if !isMainAxisRow && !isRowDefinite && !width.isNaN && container.crossMode == .stretchFit
            && childWidthMode != .stretchFit && stretches() {
            childWidth = width
            childWidthMode = .stretchFit
            if let ratio = child.styleStorage.aspectRatio, ratio > 0, ratio.isFinite {
                // (Yoga 3.2 leaves the margins out of this outer height.)
                childHeight = heightThroughRatio(borderBox(childWidth - marginRow, .row), ratio) + (cssAspect ? marginColumn : 0)
                childHeightMode = .stretchFit
            }
        }
        // An item is measured stretched to the row's height only where that height is definite
        // (also where it is only a flex basis: the row is laid out at that height). A column
        // measured for its width finds its row items' widths before flexing them
        // (`heightBeforeFlexing`), so there a row sized by its content counts the item by its
        // content (as Chromium), and an item with a ratio takes no width from a flexed height.
        if isMainAxisRow && !isColumnDefinite && !height.isNaN && container.crossMode == .stretchFit
            && childHeightMode != .stretchFit && stretches()
            && (container.heightIsDefinite || !config.cssAspectRatio && (child.styleStorage.aspectRatio ?? 0) > 0) {
            childHeight = height
            childHeightMode = .stretchFit
            if let ratio = child.styleStorage.aspectRatio, ratio > 0, ratio.isFinite {
                childWidth = widthThroughRatio(borderBox(childHeight - marginColumn, .column), ratio) + (cssAspect ? marginRow : 0)
                childWidthMode = .stretchFit
            }
        }
        applySizingKeyword(child.styleStorage.width, available: width, &childWidth, &childWidthMode)
        applySizingKeyword(child.styleStorage.height, available: height, &childHeight, &childHeightMode)
        if child.styleStorage.flexBasis == .maxContent || contentBasis {
            if isMainAxisRow { (childWidth, childWidthMode) = (.nan, .maxContent) } else { (childHeight, childHeightMode) = (.nan, .maxContent) }
        }
        // §9.2 step 3 E: the content's max-content main size, not limited by the item's max main
        // size (that clamps the hypothetical main size); Yoga measures it under its max
        // (`flexBasisClampedByMinMax`). The cross axis is offered at most the max cross size.
        let mainMaxClamps = !config.useWebDefaults && config.errata.contains(.flexBasisClampedByMinMax)
        if !isMainAxisRow || mainMaxClamps || childWidthMode != .maxContent {
            constrainMaxSizeForMode(child, direction, .row, ownerWidth, ownerWidth, &childWidthMode, &childWidth)
        }
        if isMainAxisRow || mainMaxClamps || childHeightMode != .maxContent {
            constrainMaxSizeForMode(child, direction, .column, ownerHeight, ownerWidth, &childHeightMode, &childHeight)
        }
        if config.cssAspectRatio, let ratio = child.styleStorage.aspectRatio, ratio > 0, ratio.isFinite {
            // CSS transfers the definite cross size *after* its min/max clamp through the ratio.
            // (The min size counts too: `width: 0; min-width: 5` transfers 5.)
            if isMainAxisRow && childHeightMode == .stretchFit {
                let height = child.boundAxis(.column, direction, childHeight - marginColumn, ownerHeight, ownerWidth)
                childWidth = marginRow + widthThroughRatio(height, ratio)
                childWidthMode = .stretchFit
                transferred = widthThroughRatio(height, ratio)
                constrainMaxSizeForMode(child, direction, .row, ownerWidth, ownerWidth, &childWidthMode, &childWidth)
            } else if !isMainAxisRow && childWidthMode == .stretchFit {
                childHeight = marginColumn + heightThroughRatio(child.boundAxis(.row, direction, childWidth - marginRow, ownerWidth, ownerWidth), ratio)
                childHeightMode = .stretchFit
                transferred = childHeight - marginColumn
                constrainMaxSizeForMode(child, direction, .column, ownerHeight, ownerWidth, &childHeightMode, &childHeight)
            }
        }
        if cssAspect && childWidthMode != .stretchFit && childHeightMode != .stretchFit,
           let ratio = child.styleStorage.aspectRatio, ratio > 0, ratio.isFinite {
            sizeFromContentWidth(child, ratio, container, margins: (marginRow, marginColumn), &childWidth, &childWidthMode,
                                 &childHeight, &childHeightMode)
        }
        layoutNode(child, availableWidth: childWidth, availableHeight: childHeight, ownerDirection: direction,
                   widthMode: childWidthMode, heightMode: childHeightMode, ownerWidth: ownerWidth,
                   ownerHeight: ownerHeight, performLayout: false, depth: container.depth)
        return transferred
    }

    /// A box with an aspect ratio and no definite size (in a row, an unstretched item; in a
    /// column, any) takes its width from its content and its height from that width
    /// ([CSS Sizing 4 §2](https://www.w3.org/TR/css-sizing-4/#aspect-ratio)); Yoga 3.2 measures
    /// the height and derives the width from it.
    @inline(never)
    private func sizeFromContentWidth(_ child: LayoutNode, _ ratio: Float, _ container: FlexContainer,
                                      margins: (row: Float, column: Float), _ childWidth: inout Float,
                                      _ childWidthMode: inout SizingMode, _ childHeight: inout Float,
                                      _ childHeightMode: inout SizingMode) {
        let direction = container.direction
        let ownerWidth = container.availableInnerWidth, ownerHeight = container.percentInnerHeight
        layoutNode(child, availableWidth: childWidth, availableHeight: .nan, ownerDirection: direction,
                   widthMode: childWidthMode, heightMode: .maxContent, ownerWidth: ownerWidth,
                   ownerHeight: ownerHeight, performLayout: false, depth: container.depth)
        // (Its height is at least its padding and border, which the ratio transfers too, and its
        // min and max heights transfer as limits on the width, below its own min and max widths.)
        var innerWidth = max(child.layout.measuredWidth, widthThroughRatio(child.paddingAndBorder(.column, direction, ownerWidth), ratio))
        let maxHeight = child.resolvedMax(.column, direction, ownerHeight, ownerWidth)
        let minHeight = child.resolvedMin(.column, direction, ownerHeight, ownerWidth)
        // (A max height below the padding and border leaves the box that tall: CSS Box Sizing §3.)
        let paddingAndBorderHeight = child.paddingAndBorder(.column, direction, ownerWidth)
        if !maxHeight.isNaN, innerWidth > widthThroughRatio(max(maxHeight, paddingAndBorderHeight), ratio) {
            innerWidth = widthThroughRatio(max(maxHeight, paddingAndBorderHeight), ratio)
        }
        if !minHeight.isNaN, innerWidth < widthThroughRatio(minHeight, ratio) { innerWidth = widthThroughRatio(minHeight, ratio) }
        innerWidth = child.boundAxis(.row, direction, innerWidth, ownerWidth, ownerWidth)
        childWidth = innerWidth + margins.row
        childWidthMode = .stretchFit
        childHeight = heightThroughRatio(innerWidth, ratio) + margins.column
        childHeightMode = .stretchFit
        constrainMaxSizeForMode(child, direction, .column, ownerHeight, ownerWidth, &childHeightMode, &childHeight)
    }

    /// A `max-content`, `fit-content` or `stretch` preferred size replaces the rule the item would
    /// otherwise be sized under ([CSS Sizing 3 §3.2](https://www.w3.org/TR/css-sizing-3/#sizing-values)).
    func applySizingKeyword(_ preferred: Dimension, available: Float, _ size: inout Float, _ mode: inout SizingMode) {
        guard let keywordMode = preferred.sizingKeywordMode(available: available) else { return }
        mode = keywordMode
        size = keywordMode == .maxContent ? .nan : available
    }

    /// Applies an item's max size to the space it is offered: a stricter limit for fit-content
    /// and stretch-fit, and a fit-content limit instead of max-content.
    func constrainMaxSizeForMode(_ node: LayoutNode, _ direction: Direction, _ axis: FlexDirection,
                                 _ ownerAxisSize: Float, _ ownerWidth: Float, _ mode: inout SizingMode,
                                 _ size: inout Float) {
        // Most nodes have no max: nothing to constrain, and no margins to resolve.
        let max = node.resolvedMax(axis, direction, ownerAxisSize, ownerWidth)
        let maxSize = max.isNaN ? max : max + node.marginForAxis(axis, direction, ownerWidth)
        guard !maxSize.isNaN else { return }
        switch mode {
        case .stretchFit, .fitContent:
            if !(size < maxSize) { size = maxSize }
        case .maxContent:
            mode = .fitContent
            size = maxSize
        }
    }
}
