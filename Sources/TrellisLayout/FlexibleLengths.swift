/// [§9.7 Resolving Flexible Lengths](https://www.w3.org/TR/css-flexbox-1/#resolve-flexible-lengths).
///
/// The spec's loop by default (as browsers); `FlexibleLengthsAlgorithm.yogaTwoPass` makes Yoga's two
/// passes instead: the first freezes the items whose min or max constraint is violated and
/// removes them from the free space; the second sizes every item, laying it out at its final
/// main size.
extension FlexLayoutEngine {
    func resolveFlexibleLengths(_ container: inout FlexContainer, _ line: inout FlexLine) {
        let originalFreeSpace = line.remainingFreeSpace
        if config.flexibleLengthsAlgorithm == .specLoop && !config.errata.contains(.flexibleLengthsInTwoPasses) {
            let free = line.remainingFreeSpace
            if free.isNaN || free == 0 || (free > 0 ? line.totalFlexGrowFactors == 0 : line.totalFlexShrinkScaledFactors == 0) {
                // Nothing flexes (the common case): every item keeps its hypothetical main size.
                line.items.forEachUnretained { _, child in
                    layOutItemAtMainSize(child, &container, mainSize: hypotheticalMainSize(child, container))
                }
                return
            }
            // Per-item state on the stack for small lines (no heap allocation on the hot path).
            let distributed = withUnsafeTemporaryAllocation(of: FlexItemState.self, capacity: line.items.count) { state in
                resolveTargetMainSizes(container, line, state)
                var distributed: Float = 0
                line.items.forEachUnretained { index, child in
                    distributed += state[index].target - clampedFlexBasis(child, container)
                    layOutItemAtMainSize(child, &container, mainSize: state[index].target)
                }
                return distributed
            }
            line.remainingFreeSpace = originalFreeSpace - distributed
            return
        }
        freezeInflexibleItems(container, &line)
        let distributed = distributeFreeSpace(&container, line)
        line.remainingFreeSpace = originalFreeSpace - distributed
    }

    /// One item's state in the spec's loop.
    private struct FlexItemState {
        var base: Float
        var target: Float
        var factor: Float
        var violation: Float
        var frozen: Bool
    }

    /// The spec's loop ([§9.7 steps 1–5](https://www.w3.org/TR/css-flexbox-1/#resolve-flexible-lengths)):
    /// distribute the free space by flex factors, clamp, freeze the violators, repeat.
    /// Leaves each item's target main size (border box) in `state[index].target`.
    private func resolveTargetMainSizes(_ container: FlexContainer, _ line: FlexLine,
                                        _ state: UnsafeMutableBufferPointer<FlexItemState>) {
        let items = line.items
        let count = items.count
        let free = line.remainingFreeSpace.isNaN ? 0 : line.remainingFreeSpace
        // Step 1: grow when the hypothetical sizes leave space, else shrink.
        let growing = free > 0
        var hypotheticalSum: Float = 0
        var unfrozen = 0
        items.forEachUnretained { index, child in
            let base = child.layout.computedFlexBasis
            let hypothetical = clampedFlexBasis(child, container)
            hypotheticalSum += hypothetical
            let factor: Float
            if growing {
                factor = child.resolveFlexGrow()
            } else {
                // The scaled flex shrink factor uses the inner (content-box) flex base size.
                let innerBase = base - child.paddingAndBorder(container.mainAxis, container.direction, container.availableInnerWidth)
                factor = child.resolveFlexShrink(config) * max(innerBase, 0)
            }
            // Step 2: items that cannot flex, or whose min/max already pushes them the other way.
            let frozen = factor == 0 || factor.isNaN || (growing && base > hypothetical)
                || (!growing && base < hypothetical) || free == 0
            if !frozen { unfrozen += 1 }
            (state.baseAddress! + index).initialize(to: FlexItemState(base: base, target: hypothetical, factor: factor,
                                                                      violation: 0, frozen: frozen))
        }
        guard unfrozen > 0 else { return }
        // Step 3: free space relative to the flex base sizes of unfrozen items.
        func remainingFreeSpace() -> Float {
            var used: Float = 0
            for index in 0..<count { used += state[index].frozen ? state[index].target : state[index].base }
            return free + hypotheticalSum - used
        }
        let initialFreeSpace = remainingFreeSpace()
        // Step 4.
        for _ in 0...count {
            guard unfrozen > 0 else { break }
            var remaining = remainingFreeSpace()
            var factorSum: Float = 0
            for index in 0..<count where !state[index].frozen { factorSum += state[index].factor }
            if factorSum < 1 && growing {
                let scaled = initialFreeSpace * factorSum
                if abs(scaled) < abs(remaining) { remaining = scaled }
            }
            var totalViolation: Float = 0
            for index in 0..<count where !state[index].frozen {
                let share = factorSum > 0 ? state[index].factor / factorSum : 0
                let base = state[index].base
                let unclamped = growing ? base + remaining * share : base - abs(remaining) * share
                let clamped = boundMainSize(items[index], container, unclamped)
                state[index].target = clamped
                state[index].violation = clamped - unclamped
                totalViolation += clamped - unclamped
            }
            for index in 0..<count where !state[index].frozen {
                let violation = state[index].violation
                if totalViolation == 0 || (totalViolation > 0 && violation > 0) || (totalViolation < 0 && violation < 0) {
                    state[index].frozen = true
                    unfrozen -= 1
                }
            }
        }
    }

    /// The min/max-clamped flex base size used as the starting point of both passes.
    @inline(__always)
    private func clampedFlexBasis(_ child: LayoutNode, _ container: FlexContainer) -> Float {
        hypotheticalMainSize(child, container)
    }

    /// A target main size clamped by min, max and padding plus border.
    @inline(__always)
    private func boundMainSize(_ child: LayoutNode, _ container: FlexContainer, _ size: Float) -> Float {
        let bounded = child.boundAxis(container.mainAxis, container.direction, size,
                                      container.percentInnerMainDim, container.availableInnerWidth)
        return applyAutomaticMinimum(child, bounded)
    }

    /// First pass ([§9.7 steps 4.c–4.d](https://www.w3.org/TR/css-flexbox-1/#resolve-flexible-lengths)):
    /// items whose share would violate min or max are frozen at the clamped size, and their
    /// share and flex factor are removed from the line.
    private func freezeInflexibleItems(_ container: FlexContainer, _ line: inout FlexLine) {
        var deltaFreeSpace: Float = 0
        let items = line.items
        items.forEachUnretained { _, child in
            let flexBasis = clampedFlexBasis(child, container)
            if line.remainingFreeSpace < 0 {
                let scaledShrink = -child.resolveFlexShrink(config) * flexBasis
                if !scaledShrink.isNaN && scaledShrink != 0 {
                    let base = flexBasis + line.remainingFreeSpace / line.totalFlexShrinkScaledFactors * scaledShrink
                    let bound = boundMainSize(child, container, base)
                    if !base.isNaN && !bound.isNaN && base != bound {
                        deltaFreeSpace += bound - flexBasis
                        line.totalFlexShrinkScaledFactors -= -child.resolveFlexShrink(config) * child.layout.computedFlexBasis
                    }
                }
            } else if !line.remainingFreeSpace.isNaN && line.remainingFreeSpace > 0 {
                let grow = child.resolveFlexGrow()
                if !grow.isNaN && grow != 0 {
                    let base = flexBasis + line.remainingFreeSpace / line.totalFlexGrowFactors * grow
                    let bound = boundMainSize(child, container, base)
                    if !base.isNaN && !bound.isNaN && base != bound {
                        deltaFreeSpace += bound - flexBasis
                        line.totalFlexGrowFactors -= grow
                    }
                }
            }
        }
        line.remainingFreeSpace -= deltaFreeSpace
    }

    /// Second pass ([§9.7 step 4.e–5](https://www.w3.org/TR/css-flexbox-1/#resolve-flexible-lengths)):
    /// gives each item its share of the free space, then lays it out at that main size.
    /// Returns the space distributed.
    private func distributeFreeSpace(_ container: inout FlexContainer, _ line: FlexLine) -> Float {
        var deltaFreeSpace: Float = 0
        line.items.forEachUnretained { _, child in
            let flexBasis = clampedFlexBasis(child, container)
            var mainSize = flexBasis
            if !line.remainingFreeSpace.isNaN && line.remainingFreeSpace < 0 {
                let scaledShrink = -child.resolveFlexShrink(config) * flexBasis
                if scaledShrink != 0 {
                    let size: Float
                    if !line.totalFlexShrinkScaledFactors.isNaN && line.totalFlexShrinkScaledFactors == 0 {
                        size = flexBasis + scaledShrink
                    } else {
                        size = flexBasis + (line.remainingFreeSpace / line.totalFlexShrinkScaledFactors) * scaledShrink
                    }
                    mainSize = boundMainSize(child, container, size)
                }
            } else if !line.remainingFreeSpace.isNaN && line.remainingFreeSpace > 0 {
                let grow = child.resolveFlexGrow()
                if !grow.isNaN && grow != 0 {
                    mainSize = boundMainSize(child, container,
                                             flexBasis + line.remainingFreeSpace / line.totalFlexGrowFactors * grow)
                }
            }
            deltaFreeSpace += mainSize - flexBasis
            layOutItemAtMainSize(child, &container, mainSize: mainSize)
        }
        return deltaFreeSpace
    }

    /// Whether an item is a multi-line column without a height of its own in a column whose width
    /// is not known yet (measured for its content's width). That width comes from the items'
    /// intrinsic widths ([§9.9.2](https://www.w3.org/TR/css-flexbox-1/#intrinsic-cross-sizes)),
    /// found before they are flexed, and Chromium gives a multi-line column of auto height
    /// those of a single line (its widest item's), whatever height it is then flexed to. Yoga
    /// 3.2 sums the lines broken at the flexed height: `multiLineStretchIsMaxContent`.
    @inline(__always)
    private func countsAsOneLine(_ child: LayoutNode, _ container: FlexContainer) -> Bool {
        let style = child.styleStorage
        return !container.isMainAxisRow && container.crossMode != .stretchFit && style.flexWrap != .noWrap
            && style.flexDirection.isColumn && !child.hasDefiniteLength(.column, container.availableInnerHeight)
            && !config.errata.contains(.multiLineStretchIsMaxContent)
            // (An item with a ratio takes its width from its content and its min/max heights below.)
            && (style.aspectRatio == nil || !config.cssAspectRatio)
    }

    /// The height (outer) at which an item with children of a column whose width is not known yet
    /// (measured for its content's width) finds its width, when that is not the height it was
    /// flexed to (`mainSize`, outer): its own definite height, else none (NaN), or in a
    /// multi-line column its hypothetical height; nil when the flexed height serves. The column's intrinsic width comes from its items' contributions
    /// ([§9.9.2](https://www.w3.org/TR/css-flexbox-1/#intrinsic-cross-sizes)), found before they
    /// are flexed, with only their own heights definite, as Chromium measures them
    /// ([§9.8](https://www.w3.org/TR/css-flexbox-1/#definite-sizes)): in a row, an item with an
    /// aspect ratio stretched across it counts by its content, not by the height the row is
    /// flexed (or clamped) to; in a column, its items' percentage heights behave as `auto`, and
    /// a multi-line one breaks its lines at its own height.
    @inline(__always)
    private func heightBeforeFlexing(_ child: LayoutNode, _ container: FlexContainer, mainSize: Float) -> Float? {
        guard !container.isMainAxisRow && container.crossMode != .stretchFit && config.cssAspectRatio
            && !child.children.isEmpty && !child.hasMeasureFunction && child.pinLayoutStorage == nil else { return nil }
        if container.isWrapping {
            // Chromium lays a multi-line column's lines out to find its width (docs item 27), with
            // its items at their hypothetical heights, not flexed.
            let hypothetical = hypotheticalMainSize(child, container)
                + child.marginForAxis(.column, container.direction, container.availableInnerWidth)
            return inexactEquals(hypothetical, mainSize) ? nil : hypothetical
        }
        guard child.hasDefiniteLength(.column, container.percentInnerHeight) else { return .nan }
        let own = child.resolvedDimension(container.direction, .column, container.percentInnerHeight, container.availableInnerWidth)
            + child.marginForAxis(.column, container.direction, container.availableInnerWidth)
        return inexactEquals(own, mainSize) ? nil : own
    }

    /// Lays an item out with its resolved main size and the cross size it gets before line
    /// cross sizes are known ([§9.4 step 7, hypothetical cross size](https://www.w3.org/TR/css-flexbox-1/#algo-cross-item)).
    private func layOutItemAtMainSize(_ child: LayoutNode, _ container: inout FlexContainer, mainSize: Float) {
        let node = container.node
        let mainAxis = container.mainAxis, crossAxis = container.crossAxis
        let direction = container.direction
        let innerWidth = container.availableInnerWidth
        let innerCross = container.availableInnerCrossDim
        let marginMain = child.marginForAxis(mainAxis, direction, innerWidth)
        let marginCross = child.marginForAxis(crossAxis, direction, innerWidth)
        var childMainSize = mainSize + marginMain
        var childMainMode = SizingMode.stretchFit
        var childCrossSize: Float
        var childCrossMode: SizingMode
        let percentCross = container.percentInnerCrossDim
        let crossDefinite = child.hasDefiniteLength(crossAxis, percentCross)
        let stretches = resolveChildAlignment(node, child) == .stretch
            && child.styleStorage.dimension(crossAxis).sizingKeywordMode(available: 0) == nil
            && !child.marginIsAuto(flexStart: crossAxis, direction)
            && !child.marginIsAuto(flexEnd: crossAxis, direction)
            && !percentHeightIsAuto(child, container)

        // CSS stretches an item with an aspect ratio and an auto cross size to a definite line
        // (stretch wins); Yoga derives the cross size from the ratio.
        let stretchBeatsRatio = config.cssAspectRatio && stretches && !crossDefinite
            && (config.useWebDefaults || (container.crossMode == .stretchFit && !container.isWrapping))
        // A column whose width is not known yet (it is measured for its content width) counts an
        // item with a ratio and no definite height by its content's width, as CSS finds intrinsic
        // sizes without flexing: the flexed height gives the width only once the column's width
        // is final (`layoutNodeImpl` lays such a column out again at the width it measured).
        // (A definite height gives the width through the ratio; min/max heights limit it.)
        let ratioWidthFromContent = config.cssAspectRatio && !container.isMainAxisRow && container.crossMode != .stretchFit
            && !crossDefinite
        // A definite cross size wins over the ratio in CSS too. (Its percentages resolve only
        // against a definite height: the height the column is laid out at may not be. A height
        // definite only as a flex basis is, once the column's parent lays it out; while the
        // parent finds its own width the column is measured at no height, `heightBeforeFlexing`.)
        let percentHeight = container.percentInnerHeight
        if ratioWidthFromContent, let ratio = child.styleStorage.aspectRatio, ratio > 0, ratio.isFinite,
           child.hasDefiniteLength(.column, percentHeight) {
            let height = child.boundAxis(.column, direction, child.resolvedDimension(direction, .column, percentHeight, innerWidth),
                                         percentHeight, innerWidth)
            childCrossSize = child.boundAxis(.row, direction, widthThroughRatio(height, ratio), innerWidth, innerWidth) + marginCross
            childCrossMode = .stretchFit
        } else if let ratio = child.styleStorage.aspectRatio, ratio > 0, ratio.isFinite, !stretchBeatsRatio,
           !(crossDefinite && config.cssAspectRatio), !ratioWidthFromContent {
            childCrossSize = (container.isMainAxisRow ? heightThroughRatio(childMainSize - marginMain, ratio)
                              : widthThroughRatio(childMainSize - marginMain, ratio)) + marginCross
            childCrossMode = .stretchFit
        } else if !innerCross.isNaN && !crossDefinite && container.crossMode == .stretchFit
                    && !container.isWrapping && stretches {
            childCrossSize = innerCross
            childCrossMode = .stretchFit
        } else if !crossDefinite {
            childCrossSize = innerCross
            childCrossMode = childCrossSize.isNaN ? .maxContent : .fitContent
        } else {
            childCrossSize = child.resolvedDimension(direction, crossAxis, percentCross, innerWidth) + marginCross
            let isLoosePercentage = child.processedDimension(crossAxis).isPercent && container.crossMode != .stretchFit
            childCrossMode = childCrossSize.isNaN || isLoosePercentage ? .maxContent : .stretchFit
        }
        constrainMaxSizeForMode(child, direction, mainAxis, container.percentInnerMainDim, innerWidth,
                                &childMainMode, &childMainSize)
        applySizingKeyword(child.styleStorage.dimension(crossAxis), available: innerCross, &childCrossSize, &childCrossMode)
        constrainMaxSizeForMode(child, direction, crossAxis, percentCross, innerWidth, &childCrossMode, &childCrossSize)

        // (A ratio's width from content is limited by the min and max heights below, also when
        // it was found before flexing.)
        let limitsRatioWidth = ratioWidthFromContent && childCrossMode != .stretchFit
        if childCrossMode != .stretchFit,
           let height = countsAsOneLine(child, container) ? .nan : heightBeforeFlexing(child, container, mainSize: childMainSize) {
            // Its intrinsic width is found without the height it was flexed to, so its lines do not
            // break there (and its items take no width from it through a ratio); laid out at that
            // width and its height, the lines overflow it.
            layoutNode(child, availableWidth: childCrossSize, availableHeight: height, ownerDirection: node.layout.direction,
                       widthMode: childCrossMode, heightMode: height.isNaN ? .maxContent : .stretchFit, ownerWidth: innerWidth,
                       ownerHeight: container.percentInnerHeight, performLayout: false, depth: container.depth)
            childCrossSize = child.layout.measuredWidth + marginCross
            childCrossMode = .stretchFit
        }

        let requiresStretchLayout = !crossDefinite && stretches
        let laysOutForBaseline = laysOutToMeasureBaseline(child, container)
        let performLayout = (container.performLayout || laysOutForBaseline) && !requiresStretchLayout
        let isRow = container.isMainAxisRow
        layoutNode(child, availableWidth: isRow ? childMainSize : childCrossSize,
                   availableHeight: isRow ? childCrossSize : childMainSize, ownerDirection: node.layout.direction,
                   widthMode: isRow ? childMainMode : childCrossMode, heightMode: isRow ? childCrossMode : childMainMode,
                   ownerWidth: innerWidth, ownerHeight: container.percentInnerHeight,
                   performLayout: performLayout, depth: container.depth)
        if limitsRatioWidth, let ratio = child.styleStorage.aspectRatio, ratio > 0, ratio.isFinite {
            // The min and max heights (and padding and border) limit the content's width.
            let width = child.layout.measuredWidth
            let height = heightThroughRatio(width, ratio)
            let bounded = child.boundAxis(.column, direction, height, percentHeight, innerWidth)
            if bounded != height {
                let limited = child.boundAxis(.row, direction, widthThroughRatio(bounded, ratio), innerWidth, innerWidth)
                layoutNode(child, availableWidth: limited + marginCross, availableHeight: childMainSize,
                           ownerDirection: node.layout.direction, widthMode: .stretchFit, heightMode: childMainMode,
                           ownerWidth: innerWidth, ownerHeight: percentHeight,
                           performLayout: performLayout, depth: container.depth)
            }
        }
        if laysOutForBaseline { node.forgetCachedLayouts() }
        node.layout.hadOverflow = node.layout.hadOverflow || child.layout.hadOverflow
    }
}
