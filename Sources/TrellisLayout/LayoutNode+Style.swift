/// Style resolution read field by field from the node's style.
///
/// These mirror the `Style` helpers, but load only the fields they need: calling a method on
/// the whole `Style` of a node would copy the struct (some 400 bytes) for every call, and these
/// run in the algorithm's inner loops.
extension LayoutNode {
    /// The resolved edges for `direction`.
    @inline(__always)
    func edges(_ direction: Direction) -> DirectedBoxEdges {
        direction == .rtl ? rtlEdges : ltrEdges
    }

    /// The item's margins on both sides of `axis`, resolved for `direction`: Yoga 3.2 resolves
    /// them left to right, which counts a side twice (or not at all) when it has both a physical
    /// and a logical margin, as `marginRight` and `marginStart` in RTL.
    @inline(__always)
    func marginForAxis(_ axis: FlexDirection, _ direction: Direction, _ widthSize: Float) -> Float {
        if !hasMargin { return 0 }
        // Field by field: selecting one of the two edge structs is measurable in a whole layout
        // (`scripts/bench-layout-callgrind`).
        if !axis.isRow {
            return zeroIfUndefined(ltrEdges.margin.top.resolve(widthSize)) + zeroIfUndefined(ltrEdges.margin.bottom.resolve(widthSize))
        }
        if direction == .rtl {
            return zeroIfUndefined(rtlEdges.margin.left.resolve(widthSize)) + zeroIfUndefined(rtlEdges.margin.right.resolve(widthSize))
        }
        return zeroIfUndefined(ltrEdges.margin.left.resolve(widthSize)) + zeroIfUndefined(ltrEdges.margin.right.resolve(widthSize))
    }

    @inline(__always)
    func margin(flexStart axis: FlexDirection, _ direction: Direction, _ widthSize: Float) -> Float {
        zeroIfUndefined(edges(direction).margin[axis.flexStartEdge].resolve(widthSize))
    }

    @inline(__always)
    func margin(flexEnd axis: FlexDirection, _ direction: Direction, _ widthSize: Float) -> Float {
        zeroIfUndefined(edges(direction).margin[axis.flexEndEdge].resolve(widthSize))
    }

    @inline(__always)
    func margin(inlineStart axis: FlexDirection, _ direction: Direction, _ widthSize: Float) -> Float {
        zeroIfUndefined(edges(direction).margin[axis.inlineStartEdge(direction)].resolve(widthSize))
    }

    @inline(__always)
    func margin(inlineEnd axis: FlexDirection, _ direction: Direction, _ widthSize: Float) -> Float {
        zeroIfUndefined(edges(direction).margin[axis.inlineEndEdge(direction)].resolve(widthSize))
    }

    @inline(__always)
    func marginIsAuto(flexStart axis: FlexDirection, _ direction: Direction) -> Bool {
        edges(direction).margin[axis.flexStartEdge].isAuto
    }

    @inline(__always)
    func marginIsAuto(flexEnd axis: FlexDirection, _ direction: Direction) -> Bool {
        edges(direction).margin[axis.flexEndEdge].isAuto
    }

    @inline(__always)
    func border(_ edge: PhysicalEdge, _ direction: Direction) -> Float {
        direction == .rtl ? rtlEdges.border(edge) : ltrEdges.border(edge)
    }

    @inline(__always)
    func padding(_ edge: PhysicalEdge, _ direction: Direction, _ widthSize: Float) -> Float {
        direction == .rtl ? rtlEdges.padding(edge, widthSize) : ltrEdges.padding(edge, widthSize)
    }

    /// Padding plus border on both sides of `axis` (precomputed unless the padding has percentages).
    @inline(__always)
    func paddingAndBorder(_ axis: FlexDirection, _ direction: Direction, _ widthSize: Float) -> Float {
        direction == .rtl ? rtlEdges.paddingAndBorder(axis, widthSize) : ltrEdges.paddingAndBorder(axis, widthSize)
    }

    @inline(__always)
    func paddingAndBorder(leading axis: FlexDirection, _ direction: Direction, _ widthSize: Float) -> Float {
        padding(axis.flexStartEdge, direction, widthSize) + border(axis.flexStartEdge, direction)
    }

    @inline(__always)
    func paddingAndBorder(trailing axis: FlexDirection, _ direction: Direction, _ widthSize: Float) -> Float {
        padding(axis.flexEndEdge, direction, widthSize) + border(axis.flexEndEdge, direction)
    }

    @inline(__always)
    func borderForAxis(_ axis: FlexDirection) -> Float {
        // The borders resolved for the node's own direction by its last layout.
        axis.isRow ? layout.border.left + layout.border.right : layout.border.top + layout.border.bottom
    }

    /// The min size on `axis` as a border-box size, or NaN.
    @inline(__always)
    func resolvedMin(_ axis: FlexDirection, _ direction: Direction, _ reference: Float, _ widthSize: Float) -> Float {
        let value = (axis.isRow ? styleStorage.minWidth : styleStorage.minHeight).resolve(reference)
        if value.isNaN || styleStorage.boxSizing == .borderBox { return value }
        return value + paddingAndBorder(axis, direction, widthSize)
    }

    /// The max size on `axis` as a border-box size, or NaN.
    @inline(__always)
    func resolvedMax(_ axis: FlexDirection, _ direction: Direction, _ reference: Float, _ widthSize: Float) -> Float {
        let value = (axis.isRow ? styleStorage.maxWidth : styleStorage.maxHeight).resolve(reference)
        if value.isNaN || styleStorage.boxSizing == .borderBox { return value }
        return value + paddingAndBorder(axis, direction, widthSize)
    }

    /// The gap between items along `axis`.
    @inline(__always)
    func gap(_ axis: FlexDirection, _ ownerSize: Float) -> Float {
        let specific = axis.isRow ? styleStorage.columnGap : styleStorage.rowGap
        let length = specific.isDefined ? specific : styleStorage.gap
        return max(zeroIfUndefined(length.resolve(ownerSize)), 0)
    }

    @inline(__always)
    func insetValue(_ edge: PhysicalEdge, _ direction: Direction, _ axisSize: Float) -> Float {
        zeroIfUndefined(edges(direction).position[edge].resolve(axisSize))
    }

    @inline(__always)
    func hasInset(_ edge: PhysicalEdge, _ direction: Direction) -> Bool {
        let value = edges(direction).position[edge]
        return value.isDefined && !value.isAuto
    }
}
