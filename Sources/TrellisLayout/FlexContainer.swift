/// The state of one flex container while it is being laid out: what
/// [§9.1 Initial Setup](https://www.w3.org/TR/css-flexbox-1/#box-manip) and
/// [§9.2 step 2](https://www.w3.org/TR/css-flexbox-1/#algo-available) compute, plus running totals.
struct FlexContainer {
    let node: LayoutNode
    /// The items, with `display: contents` children replaced by their children.
    let children: [LayoutNode]
    let direction: Direction
    let ownerDirection: Direction
    let mainAxis: FlexDirection
    let crossAxis: FlexDirection
    let isWrapping: Bool
    /// Whether items are aligned by their baselines ([§8.3](https://www.w3.org/TR/css-flexbox-1/#baseline-participation)).
    let isBaselineLayout: Bool
    let performLayout: Bool
    let depth: Int

    /// The space offered to the container (border box, without its margins), NaN if unbounded.
    var availableWidth: Float
    let availableHeight: Float
    let ownerWidth: Float
    let ownerHeight: Float
    var mainMode: SizingMode
    let crossMode: SizingMode

    let paddingAndBorderMain: Float
    let paddingAndBorderCross: Float
    let leadingPaddingAndBorderCross: Float

    // Step 2: the space for items inside padding and border.
    var availableInnerWidth: Float = .nan
    var availableInnerHeight: Float = .nan
    var availableInnerMainDim: Float = .nan
    var availableInnerCrossDim: Float = .nan
    /// Whether the container's height is definite ([§9.8](https://www.w3.org/TR/css-flexbox-1/#definite-sizes)),
    /// and how: see `HeightDefiniteness`.
    var heightDefiniteness = HeightDefiniteness.definite
    /// Whether the items' percentage heights resolve against the height; otherwise they behave
    /// as `auto`.
    @inline(__always) var heightIsDefinite: Bool { heightDefiniteness != .indefinite }
    /// What the items' percentage heights resolve against: `availableInnerHeight` when the
    /// height is definite, else NaN (and the same for the cross axis of a row).
    var percentInnerHeight: Float = .nan
    var percentInnerCrossDim: Float = .nan
    /// Whether percentages in the main axis do not resolve: a column whose height is not definite.
    var mainPercentIsIndefinite = false

    // Step 3: sum of outer flex base sizes and gaps.
    var totalMainDim: Float = 0
    /// Whether a child is absolutely positioned or static (and so may hold absolute descendants).
    var hasOutOfFlowCandidates = false
    var mainAxisOverflows = false

    // Steps 5–8: totals over the flex lines.
    var lineCount = 0
    var totalLineCrossDim: Float = 0
    var maxLineCrossDim: Float = 0
    var maxLineMainDim: Float = 0

    init(node: LayoutNode, children: [LayoutNode], direction: Direction, ownerDirection: Direction,
         availableWidth: Float, availableHeight: Float, widthMode: SizingMode, heightMode: SizingMode,
         ownerWidth: Float, ownerHeight: Float, performLayout: Bool, depth: Int, columnBaselines: Bool) {
        self.node = node
        self.children = children
        self.direction = direction
        self.ownerDirection = ownerDirection
        self.mainAxis = node.styleStorage.flexDirection.resolved(direction)
        self.crossAxis = mainAxis.cross(direction)
        self.isWrapping = node.styleStorage.flexWrap != .noWrap
        self.isBaselineLayout = TrellisLayout.isBaselineLayout(node, children, columnBaselines: columnBaselines)
        self.performLayout = performLayout
        self.depth = depth
        self.availableWidth = availableWidth
        self.availableHeight = availableHeight
        self.ownerWidth = ownerWidth
        self.ownerHeight = ownerHeight
        self.mainMode = mainAxis.isRow ? widthMode : heightMode
        self.crossMode = mainAxis.isRow ? heightMode : widthMode
        self.paddingAndBorderMain = node.paddingAndBorder(mainAxis, direction, ownerWidth)
        self.paddingAndBorderCross = node.paddingAndBorder(crossAxis, direction, ownerWidth)
        self.leadingPaddingAndBorderCross = node.paddingAndBorder(leading: crossAxis, direction, ownerWidth)
    }

    @inline(__always) var isMainAxisRow: Bool { mainAxis.isRow }
    var mainAxisOwnerSize: Float { mainAxis.isRow ? ownerWidth : ownerHeight }
    var crossAxisOwnerSize: Float { mainAxis.isRow ? ownerHeight : ownerWidth }
    /// What the items' percentages in the main axis resolve against: the content box's main
    /// size. A row sized by its content sets `availableInnerMainDim` to its content's size;
    /// its items' percentage widths stay cyclic (NaN) there, as its width is not known yet.
    var percentageBaseMain: Float = .nan
    var paddingAndBorderRow: Float { mainAxis.isRow ? paddingAndBorderMain : paddingAndBorderCross }
    var paddingAndBorderColumn: Float { mainAxis.isRow ? paddingAndBorderCross : paddingAndBorderMain }
    /// What the items' percentage sizes in the main axis resolve against.
    @inline(__always) var percentInnerMainDim: Float { mainPercentIsIndefinite ? .nan : percentageBaseMain }

    /// The cross size (border box) the lines ask for. A multi-line column whose width is
    /// fit-content is no wider than the width offered to it, unless one line is
    /// ([CSS Sizing §5.1](https://www.w3.org/TR/css-sizing-3/#fit-content-size): at least its
    /// min-content width, here its widest line); Yoga 3.2 takes the sum of its lines.
    func contentCrossSize(_ errata: LayoutErrata) -> Float {
        let content = totalLineCrossDim + paddingAndBorderCross
        guard isWrapping && crossMode == .fitContent && crossAxis.isRow && !availableInnerCrossDim.isNaN
                && !errata.contains(.multiLineStretchIsMaxContent) && node.styleStorage.overflow != .scroll else {
            return content
        }
        return min(content, max(availableInnerCrossDim, maxLineCrossDim) + paddingAndBorderCross)
    }
}

extension FlexLayoutEngine {
    /// [§9.2 step 2, Determine the available main and cross space](https://www.w3.org/TR/css-flexbox-1/#algo-available):
    /// the container's content box, clamped by its min and max sizes.
    func determineAvailableSpace(_ container: inout FlexContainer) {
        container.availableInnerWidth = availableInnerDimension(container, .row, container.availableWidth,
                                                                container.paddingAndBorderRow, container.ownerWidth)
        container.availableInnerHeight = availableInnerDimension(container, .column, container.availableHeight,
                                                                 container.paddingAndBorderColumn, container.ownerHeight)
        container.availableInnerMainDim = container.isMainAxisRow ? container.availableInnerWidth : container.availableInnerHeight
        container.availableInnerCrossDim = container.isMainAxisRow ? container.availableInnerHeight : container.availableInnerWidth
        container.percentageBaseMain = container.availableInnerMainDim
        container.heightDefiniteness = config.errata.contains(.percentageOfIndefiniteHeight)
            ? .definite : heightDefiniteness(container)
        let definite = container.heightIsDefinite
        container.percentInnerHeight = definite ? container.availableInnerHeight : .nan
        container.percentInnerCrossDim = definite || !container.isMainAxisRow ? container.availableInnerCrossDim : .nan
        container.mainPercentIsIndefinite = !definite && !container.isMainAxisRow
    }

    /// Whether the container's height is [definite](https://www.w3.org/TR/css-flexbox-1/#definite-sizes)
    /// for its items' percentages: a definite `height`, or a height its container fixes and
    /// treats as definite — the root's available height, a row's stretched item (§9.4 step 11),
    /// a size from an aspect ratio or from top and bottom insets, and a column's item when the
    /// column's height or the item's flex basis is definite. A column's item is otherwise laid
    /// out at its flexed height, but percentages of it behave as `auto`, as in a browser.
    private func heightDefiniteness(_ container: FlexContainer) -> HeightDefiniteness {
        let node = container.node
        let style = node.styleStorage
        let fixed = (container.isMainAxisRow ? container.crossMode : container.mainMode) == .stretchFit
        // (The common case first: a height fixed inside a definite one.)
        if fixed && !container.ownerHeight.isNaN && style.positionType != .absolute { return .definite }
        var parent = container.depth > 1 ? node.parent : nil
        while let contents = parent, contents.styleStorage.display == .contents { parent = contents.parent }
        if node.hasDefiniteLength(.column, container.ownerHeight) && !hasIndefiniteFlexBasis(container, parent: parent) {
            return .definite
        }
        guard fixed else { return .indefinite }
        guard let parent else { return .definite }
        if (style.aspectRatio ?? 0) > 0 { return .definite }
        if style.positionType == .absolute {
            // Between a top and a bottom inset ([CSS Position §4.1](https://www.w3.org/TR/css-position-3/#resolving-insets)),
            // unless an `align-self` other than `auto` or `stretch` sizes it to its content there
            // ([CSS Align §6.1](https://www.w3.org/TR/css-align-3/#align-abspos)): its height is then
            // its content's, not definite.
            let fitsContent = style.alignSelf != .auto && style.alignSelf != .stretch
                && !config.errata.contains(.absoluteSizedWithoutInsetsOrAlignment)
            return node.hasInset(.top, container.direction) && node.hasInset(.bottom, container.direction) && !fitsContent
                ? .definite : .indefinite
        }
        if parent.styleStorage.flexDirection.isRow || parent.pinLayoutStorage != nil { return .definite }
        // A column's item in a column whose height is not definite (`ownerHeight` is NaN).
        return node.resolveFlexBasis(config, container.direction, .column, container.ownerHeight, container.ownerWidth).isNaN
            ? .indefinite : .byFlexBasis
    }

    /// Whether the container is an item of a column whose height is not definite and has a
    /// `flex-basis` that does not resolve: its height is then its content's, not its `height`
    /// (a basis other than `auto` replaces the height as the item's main size, and such a basis
    /// is `content`), so not definite ([§9.8](https://www.w3.org/TR/css-flexbox-1/#definite-sizes)).
    private func hasIndefiniteFlexBasis(_ container: FlexContainer, parent: LayoutNode?) -> Bool {
        let node = container.node
        let basis = node.styleStorage.flexBasis
        guard let parent, parent.styleStorage.flexDirection.isColumn, parent.pinLayoutStorage == nil,
              node.styleStorage.positionType != .absolute, basis.isDefined, !basis.isAuto else { return false }
        return node.resolveFlexBasis(config, container.direction, .column, container.ownerHeight, container.ownerWidth).isNaN
    }

    private func availableInnerDimension(_ container: FlexContainer, _ axis: FlexDirection, _ available: Float,
                                         _ paddingAndBorder: Float, _ ownerSize: Float) -> Float {
        var inner = available - paddingAndBorder
        guard !inner.isNaN else { return inner }
        let minSize = container.node.resolvedMin(axis, container.direction, ownerSize, container.ownerWidth)
        let maxSize = container.node.resolvedMax(axis, container.direction, ownerSize, container.ownerWidth)
        // A content box is never negative, also when a min size is smaller than the padding and
        // border (`width: 0; min-width: 0; padding-right: 50%`; Yoga 3.2 lets it go below 0).
        let minInner = minSize.isNaN ? 0 : max(minSize - paddingAndBorder, 0)
        let maxInner = maxSize.isNaN ? Float.greatestFiniteMagnitude : maxSize - paddingAndBorder
        inner = maxOrDefined(minOrDefined(inner, maxInner), minInner)
        return inner
    }
}

/// How a container's height is definite for its items.
enum HeightDefiniteness {
    case indefinite
    case definite
    /// Only as a column item's definite flex basis in a column whose height is not: definite for
    /// percentages, but not for an intrinsic size (as in Chromium).
    case byFlexBasis
}
