/// The items of one flex line, indexed from 0: usually a run of the container's children (no
/// copy, no per-item retain); a filtered copy when the run contains `display: none` or
/// absolutely positioned children.
struct LineItems: RandomAccessCollection {
    typealias Indices = Range<Int>
    private var nodes: [LayoutNode]
    private var offset: Int
    let count: Int

    init() {
        nodes = []
        offset = 0
        count = 0
    }

    init(_ nodes: [LayoutNode], _ range: Range<Int>) {
        self.nodes = nodes
        offset = range.lowerBound
        count = range.count
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    @inline(__always)
    subscript(index: Int) -> LayoutNode { nodes[offset + index] }

    /// Calls `body` with each item and its index in the line, without retaining the item.
    @inline(__always)
    func forEachUnretained(_ body: (_ index: Int, _ node: LayoutNode) -> Void) {
        nodes.withUnsafeBufferPointer { buffer in
            for index in 0..<count {
                Unmanaged.passUnretained(buffer[offset + index])._withUnsafeGuaranteedRef { body(index, $0) }
            }
        }
    }
}

/// One flex line: the items that fit on it and the line's running layout.
struct FlexLine {
    var items = LineItems()
    /// Sum of the items' outer hypothetical main sizes and the gaps between them.
    var sizeConsumed: Float = 0
    /// Index in the container's children after this line's last item.
    var endIndex = 0
    var numberOfAutoMargins = 0
    var totalFlexGrowFactors: Float = 0
    var totalFlexShrinkScaledFactors: Float = 0
    var remainingFreeSpace: Float = 0
    /// Main size of the line's content, after justification.
    var mainDim: Float = 0
    /// The same without what `justify-content` and auto margins add: the items, gaps, padding
    /// and border alone, the main size the line's content asks for.
    var contentMainDim: Float = 0
    /// Cross size of the line.
    var crossDim: Float = 0
    /// Whether the line is as long as its multi-line container's main size clamped by its max
    /// size, not its own content's (see `determineRemainingFreeSpace`).
    var hasContainersMainSize = false
}

extension FlexLayoutEngine {
    /// Lays out the lines one after another: steps 5 to 15 of the algorithm for each line.
    func layOutFlexLines(_ container: inout FlexContainer) {
        let crossGap = container.node.gap(container.crossAxis, container.availableInnerCrossDim)
        var start = 0
        container.lineCount = 0
        // What the content asks for: the lines before a single line is clamped by the container's
        // min and max cross sizes, without what `justify-content` adds (kept in the node, not the
        // container, which is copied often).
        var contentMain: Float = 0, contentCross: Float = 0
        while start < container.children.count {
            var line = collectFlexLine(container, startingAt: start, lineIndex: container.lineCount)
            start = line.endIndex
            // With an exact cross size and no layout wanted, the items' sizes are not needed.
            let canSkipFlex = !container.performLayout && container.crossMode == .stretchFit
            determineRemainingFreeSpace(&container, &line)
            if !canSkipFlex { resolveFlexibleLengths(&container, &line) }
            container.node.layout.hadOverflow = container.node.layout.hadOverflow || line.remainingFreeSpace < 0
            alignMainAxis(container, &line)
            let contentCrossDim = line.crossDim
            let containerCrossAxis = determineLineCrossSize(container, &line)
            if container.performLayout {
                alignCrossAxis(container, line, containerCrossAxis: containerCrossAxis)
            }
            container.totalLineCrossDim += line.crossDim + (container.lineCount != 0 ? crossGap : 0)
            contentCross += contentCrossDim + (container.lineCount != 0 ? crossGap : 0)
            container.maxLineCrossDim = maxOrDefined(container.maxLineCrossDim, line.crossDim)
            container.maxLineMainDim = maxOrDefined(container.maxLineMainDim, line.mainDim)
            contentMain = maxOrDefined(contentMain, line.contentMainDim)
            container.lineCount += 1
        }
        let node = container.node, cross = contentCross + container.paddingAndBorderCross
        node.layout.contentWidth = container.isMainAxisRow ? contentMain : cross
        node.layout.contentHeight = container.isMainAxisRow ? cross : contentMain
    }

    /// [§9.3 step 5, Collect flex items into flex lines](https://www.w3.org/TR/css-flexbox-1/#algo-line-break):
    /// takes items until the next one would overflow the line (single-line containers take all).
    func collectFlexLine(_ container: FlexContainer, startingAt start: Int, lineIndex: Int) -> FlexLine {
        let mainAxis = container.mainAxis
        let gap = container.node.gap(mainAxis, container.availableInnerMainDim)
        var line = FlexLine()
        // A column's auto height does not depend on the height offered to it, so its lines break
        // only at its max height (CSS); Yoga 3.2 breaks them at the offered height.
        var limit = container.availableInnerMainDim
        if container.isWrapping && !mainAxis.isRow && container.mainMode != .stretchFit
            && !config.errata.contains(.columnWrapsAtOfferedHeight) {
            let maxHeight = container.node.resolvedMax(.column, container.direction, container.ownerHeight, container.ownerWidth)
            limit = maxHeight.isNaN ? .infinity : maxHeight - container.paddingAndBorderMain
            // A `height` of its own that a `content` flex basis replaced as its main size in its
            // container (§7.2.3, a percentage basis of a column whose height is not definite)
            // still breaks its lines, as in Chromium: measured for that basis, `height: 0` puts
            // each item on a line of its own.
            let node = container.node
            if node.hasDefiniteLength(.column, container.ownerHeight) {
                let height = node.boundAxis(.column, container.direction,
                                            node.resolvedDimension(container.direction, .column, container.ownerHeight, container.ownerWidth),
                                            container.ownerHeight, container.ownerWidth)
                limit = min(limit, height - container.paddingAndBorderMain)
            }
        }
        var firstIndex = start
        var itemCount = 0
        var skippedWithin = false
        let endIndex = container.children.forEachUnretained(from: start) { index, child in
            if child.styleStorage.display == .none || child.styleStorage.positionType == .absolute {
                if firstIndex == index { firstIndex += 1 } else { skippedWithin = true }
                return true
            }
            let leadingGap: Float = index == firstIndex ? 0 : gap
            // Only a layout pass records lines: a measurement must not disturb the lines of a
            // tree laid out earlier (baselines read them).
            if container.performLayout { child.lineIndex = Int32(lineIndex) }
            let outerMain = hypotheticalMainSize(child, container)
                + child.marginForAxis(mainAxis, container.direction, container.availableInnerWidth) + leadingGap
            // (Within Yoga's 0.0001: a container sized by these very items, less a padding, comes
            // out a rounding error short of them, and must not break a line there.)
            if line.sizeConsumed + outerMain > limit + 0.0001 && container.isWrapping && itemCount != 0 {
                return false  // this item starts the next line
            }
            // (Only the line's own items' auto margins take its free space; Yoga 3.2 also counts
            // those of the item that starts the next line, and this line then ignores `justify-content`.)
            if child.marginIsAuto(flexStart: mainAxis, container.ownerDirection) { line.numberOfAutoMargins += 1 }
            if child.marginIsAuto(flexEnd: mainAxis, container.ownerDirection) { line.numberOfAutoMargins += 1 }
            line.sizeConsumed += outerMain
            if child.isFlexible(config) {
                line.totalFlexGrowFactors += child.resolveFlexGrow()
                line.totalFlexShrinkScaledFactors += -child.resolveFlexShrink(config) * child.layout.computedFlexBasis
            }
            itemCount += 1
            return true
        }
        line.endIndex = endIndex
        if skippedWithin {
            let items = container.children[firstIndex..<endIndex].filter {
                $0.styleStorage.display != .none && $0.styleStorage.positionType != .absolute
            }
            line.items = LineItems(items, 0..<items.count)
        } else {
            line.items = LineItems(container.children, firstIndex..<(firstIndex + itemCount))
        }
        finishFlexLine(&line)
        return line
    }

    /// The flex base size clamped by min and max: the
    /// [hypothetical main size](https://www.w3.org/TR/css-flexbox-1/#hypothetical-main-size).
    @inline(__always)
    func hypotheticalMainSize(_ child: LayoutNode, _ container: FlexContainer) -> Float {
        // Percentage min/max sizes resolve against the container's content box, as for the final
        // size (Yoga 3.2 resolves them here against the container's owner); a column's height
        // only where it is definite.
        let clamped = child.boundAxisWithinMinAndMax(container.direction, container.mainAxis, child.layout.computedFlexBasis,
                                                     container.percentInnerMainDim, container.availableInnerWidth)
        // A box is never smaller than its padding and border, whatever its max size says.
        let floored = maxOrDefined(clamped, child.paddingAndBorder(container.mainAxis, container.direction,
                                                                   container.availableInnerWidth))
        return applyAutomaticMinimum(child, floored)
    }

    private func finishFlexLine(_ line: inout FlexLine) {
        // Flex factors that sum to less than 1 are floored to 1 (Yoga's rule).
        if line.totalFlexGrowFactors > 0 && line.totalFlexGrowFactors < 1 { line.totalFlexGrowFactors = 1 }
        if line.totalFlexShrinkScaledFactors > 0 && line.totalFlexShrinkScaledFactors < 1 {
            line.totalFlexShrinkScaledFactors = 1
        }
    }

    /// The outer hypothetical main size of the container's longest line (§9.3 step 5).
    @inline(never)
    private func longestLine(_ container: FlexContainer) -> Float {
        var longest: Float = 0, start = 0, index = 0
        while start < container.children.count {
            let line = collectFlexLine(container, startingAt: start, lineIndex: index)
            longest = max(longest, line.sizeConsumed)
            start = line.endIndex
            index += 1
        }
        return longest
    }

    /// [§9.2 step 4, Determine the main size of the flex container](https://www.w3.org/TR/css-flexbox-1/#algo-main-container)
    /// for this line, and from it the line's free space ([§9.7 step 1](https://www.w3.org/TR/css-flexbox-1/#resolve-flexible-lengths)).
    func determineRemainingFreeSpace(_ container: inout FlexContainer, _ line: inout FlexLine) {
        var sizeBasedOnContent = false
        if container.mainMode != .stretchFit {
            let axis = container.mainAxis
            let minInner = container.node.resolvedMin(axis, container.direction, container.mainAxisOwnerSize, container.ownerWidth)
                - container.paddingAndBorderMain
            let maxInner = container.node.resolvedMax(axis, container.direction, container.mainAxisOwnerSize, container.ownerWidth)
                - container.paddingAndBorderMain
            // A multi-line container whose items break into lines at its max size is as long as
            // its longest line (at most that max, at least its min), as in Chromium, and every
            // line is that long: a shorter line has that free space too.
            if container.isWrapping && !maxInner.isNaN && container.totalMainDim > maxInner {
                var length = min(longestLine(container), maxInner)
                if !minInner.isNaN { length = max(length, minInner) }
                container.availableInnerMainDim = length
                line.hasContainersMainSize = true
            } else if !minInner.isNaN && line.sizeConsumed < minInner {
                container.availableInnerMainDim = minInner
            } else if !maxInner.isNaN && line.sizeConsumed > maxInner {
                container.availableInnerMainDim = maxInner
            } else {
                let legacyStretch = config.errata.contains(.stretchFlexBasis)
                if !legacyStretch && (line.totalFlexGrowFactors == 0 || container.node.resolveFlexGrow() == 0) {
                    // Nothing can grow: the space used is all the space needed.
                    container.availableInnerMainDim = line.sizeConsumed
                }
                sizeBasedOnContent = !legacyStretch
            }
        }
        if !container.isMainAxisRow { container.percentageBaseMain = container.availableInnerMainDim }
        if !sizeBasedOnContent && !container.availableInnerMainDim.isNaN {
            line.remainingFreeSpace = container.availableInnerMainDim - line.sizeConsumed
        } else if line.sizeConsumed < 0 {
            // Sized by content with negative margins: the content takes 0, the rest is free.
            line.remainingFreeSpace = -line.sizeConsumed
        }
    }
}
