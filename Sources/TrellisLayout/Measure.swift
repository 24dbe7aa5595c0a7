/// Sizing nodes that have no flex items to lay out: leaves with a measure function, empty
/// containers, and containers whose size is already fixed.
extension FlexLayoutEngine {
    /// Sizes a leaf by calling its measure function with the content box it may use
    /// ([§9.2 step 3](https://www.w3.org/TR/css-flexbox-1/#algo-main-item): the item's max-content
    /// or fit-content size).
    func measureWithMeasureFunction(_ node: LayoutNode, _ direction: Direction, _ availableWidth: Float,
                                    _ availableHeight: Float, _ widthMode: SizingMode, _ heightMode: SizingMode,
                                    _ ownerWidth: Float, _ ownerHeight: Float) {
        var width = widthMode == .maxContent ? Float.nan : availableWidth
        var height = heightMode == .maxContent ? Float.nan : availableHeight
        if config.useWebDefaults || !config.errata.contains(.measureIgnoresMinMax) {
            // CSS measures content at the size the box will have: within its min and max sizes.
            width = clampOffered(node, .row, direction, width, ownerWidth, ownerWidth)
            height = clampOffered(node, .column, direction, height, ownerHeight, ownerWidth)
        }
        let padding = node.layout.padding, border = node.layout.border
        let paddingAndBorderRow = padding.left + padding.right + border.left + border.right
        let paddingAndBorderColumn = padding.top + padding.bottom + border.top + border.bottom

        if widthMode == .stretchFit && heightMode == .stretchFit {
            node.layout.measuredWidth = node.boundAxis(.row, direction, width, ownerWidth, ownerWidth)
            node.layout.measuredHeight = node.boundAxis(.column, direction, height, ownerHeight, ownerWidth)
            return
        }
        let innerWidth = width.isNaN ? width : maxOrDefined(0, width - paddingAndBorderRow)
        let innerHeight = height.isNaN ? height : maxOrDefined(0, height - paddingAndBorderColumn)
        var measured = callMeasureFunction(node, innerWidth, widthMode.measureMode, innerHeight, heightMode.measureMode)
        let measuredWidth = widthMode == .stretchFit ? width : measured.width + paddingAndBorderRow
        let boundWidth = node.boundAxis(.row, direction, measuredWidth, ownerWidth, ownerWidth)
        if boundWidth < measuredWidth && heightMode != .stretchFit && !config.errata.contains(.measureIgnoresMinMax) {
            // The content wanted more than the max width allows (text: its widest word): its lines
            // are laid out in the box it gets, as a browser does.
            measured = callMeasureFunction(node, maxOrDefined(0, boundWidth - paddingAndBorderRow), .exactly,
                                           innerHeight, heightMode.measureMode)
        }
        let measuredHeight = heightMode == .stretchFit ? height : measured.height + paddingAndBorderColumn
        node.layout.contentWidth = measuredWidth
        node.layout.contentHeight = measuredHeight
        node.layout.measuredWidth = boundWidth
        node.layout.measuredHeight = node.boundAxis(.column, direction, measuredHeight, ownerHeight, ownerWidth)
    }

    /// An offered size limited by the node's min and max sizes (NaN stays NaN).
    private func clampOffered(_ node: LayoutNode, _ axis: FlexDirection, _ direction: Direction, _ size: Float,
                              _ ownerSize: Float, _ ownerWidth: Float) -> Float {
        size.isNaN ? size : node.boundAxisWithinMinAndMax(direction, axis, size, ownerSize, ownerWidth)
    }

    /// Calls the measure function; negative or NaN answers become zero.
    @inline(__always)
    func callMeasureFunction(_ node: LayoutNode, _ width: Float, _ widthMode: MeasureMode, _ height: Float,
                             _ heightMode: MeasureMode) -> Size {
        guard let measure = node.measureFunctionStorage else { return Size(width: 0, height: 0) }
        var size = measure(width, widthMode, height, heightMode)
        if size.width.isNaN || size.width < 0 { size.width = 0 }
        if size.height.isNaN || size.height < 0 { size.height = 0 }
        return size
    }

    /// An empty container is as big as the space it is given, or its padding and border.
    func measureWithoutChildren(_ node: LayoutNode, _ direction: Direction, _ availableWidth: Float,
                                _ availableHeight: Float, _ widthMode: SizingMode, _ heightMode: SizingMode,
                                _ ownerWidth: Float, _ ownerHeight: Float) {
        let padding = node.layout.padding, border = node.layout.border
        var width = availableWidth
        if widthMode != .stretchFit { width = padding.left + padding.right + border.left + border.right }
        var height = availableHeight
        if heightMode != .stretchFit { height = padding.top + padding.bottom + border.top + border.bottom }
        node.layout.contentWidth = width
        node.layout.contentHeight = height
        node.layout.measuredWidth = node.boundAxis(.row, direction, width, ownerWidth, ownerWidth)
        node.layout.measuredHeight = node.boundAxis(.column, direction, height, ownerHeight, ownerWidth)
    }

    /// When only the size is asked for and both sides are fixed, skips the flex algorithm.
    func measureWithFixedSize(_ node: LayoutNode, _ direction: Direction, _ availableWidth: Float,
                              _ availableHeight: Float, _ widthMode: SizingMode, _ heightMode: SizingMode,
                              _ ownerWidth: Float, _ ownerHeight: Float) -> Bool {
        // CSS sizes a fit-content box offered no space at its min-content size, so only Yoga's
        // erratum takes a fit-content size of 0 or less as fixed.
        let zeroFitContentIsFixed = config.errata.contains(.fitContentWithoutSpaceIsEmpty)
        func isFixed(_ size: Float, _ mode: SizingMode) -> Bool {
            mode == .stretchFit || (zeroFitContentIsFixed && !size.isNaN && mode == .fitContent && size <= 0)
        }
        guard isFixed(availableWidth, widthMode) && isFixed(availableHeight, heightMode) else { return false }
        let width = availableWidth.isNaN || (widthMode == .fitContent && availableWidth < 0) ? 0 : availableWidth
        let height = availableHeight.isNaN || (heightMode == .fitContent && availableHeight < 0) ? 0 : availableHeight
        node.layout.measuredWidth = node.boundAxis(.row, direction, width, ownerWidth, ownerWidth)
        node.layout.measuredHeight = node.boundAxis(.column, direction, height, ownerHeight, ownerWidth)
        return true
    }
}
