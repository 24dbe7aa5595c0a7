/// The CSS keywords a `Style` is made of. Raw values are the CSS spellings.

/// [flex-direction](https://www.w3.org/TR/css-flexbox-1/#flex-direction-property): the main axis.
public enum FlexDirection: String, Sendable, CaseIterable {
    case column
    case columnReverse = "column-reverse"
    case row
    case rowReverse = "row-reverse"

    @inline(__always) var isRow: Bool { self == .row || self == .rowReverse }
    @inline(__always) var isColumn: Bool { self == .column || self == .columnReverse }
    @inline(__always) var isReverse: Bool { self == .rowReverse || self == .columnReverse }
}

/// [justify-content](https://www.w3.org/TR/css-flexbox-1/#justify-content-property).
public enum Justify: String, Sendable, CaseIterable {
    case flexStart = "flex-start"
    case center
    case flexEnd = "flex-end"
    case spaceBetween = "space-between"
    case spaceAround = "space-around"
    case spaceEvenly = "space-evenly"
}

/// [align-items](https://www.w3.org/TR/css-flexbox-1/#align-items-property),
/// `align-self` and [align-content](https://www.w3.org/TR/css-flexbox-1/#align-content-property).
public enum Align: String, Sendable, CaseIterable {
    case auto
    case flexStart = "flex-start"
    case center
    case flexEnd = "flex-end"
    case stretch
    case baseline
    case spaceBetween = "space-between"
    case spaceAround = "space-around"
    case spaceEvenly = "space-evenly"
}

/// [position](https://www.w3.org/TR/css-position-3/#position-property).
/// `relative` is Yoga's default; `static` ignores insets and is not a containing block.
public enum PositionType: String, Sendable, CaseIterable {
    case `static`
    case relative
    case absolute
}

/// [flex-wrap](https://www.w3.org/TR/css-flexbox-1/#flex-wrap-property).
public enum Wrap: String, Sendable, CaseIterable {
    case noWrap = "nowrap"
    case wrap
    case wrapReverse = "wrap-reverse"
}

/// [overflow](https://www.w3.org/TR/css-overflow-3/#propdef-overflow).
public enum Overflow: String, Sendable, CaseIterable {
    case visible
    case hidden
    case scroll
}

/// [display](https://www.w3.org/TR/css-display-3/#the-display-properties): `flex`, `none`
/// (no box, zero frame) or `contents` (no box; its children take its place).
public enum Display: String, Sendable, CaseIterable {
    case flex
    case none
    case contents
}

/// [direction](https://www.w3.org/TR/css-writing-modes-4/#direction): the inline direction.
public enum Direction: String, Sendable, CaseIterable {
    case inherit
    case ltr
    case rtl
}

/// [box-sizing](https://www.w3.org/TR/css-sizing-3/#box-sizing): what `width`/`height` measure.
public enum BoxSizing: String, Sendable, CaseIterable {
    case borderBox = "border-box"
    case contentBox = "content-box"
}

/// Lengths for the four sides of a box, settable by physical side (`left`), by flow-relative
/// side (`start`/`end`, which follow `direction`) or for several sides at once (`horizontal`,
/// `vertical`, `all`). The most specific one that is set wins, as in Yoga.
public struct Edges: Equatable, Sendable {
    public var left: Dimension = .undefined
    public var top: Dimension = .undefined
    public var right: Dimension = .undefined
    public var bottom: Dimension = .undefined
    public var start: Dimension = .undefined
    public var end: Dimension = .undefined
    public var horizontal: Dimension = .undefined
    public var vertical: Dimension = .undefined
    public var all: Dimension = .undefined

    public init() {}

    /// The value in force on `edge` for a box laid out in `direction`.
    @inline(__always)
    func value(_ edge: PhysicalEdge, _ direction: Direction) -> Dimension {
        switch edge {
        case .left:
            if direction == .ltr, start.isDefined { return start }
            if direction == .rtl, end.isDefined { return end }
            if left.isDefined { return left }
            return horizontal.isDefined ? horizontal : all
        case .right:
            if direction == .ltr, end.isDefined { return end }
            if direction == .rtl, start.isDefined { return start }
            if right.isDefined { return right }
            return horizontal.isDefined ? horizontal : all
        case .top:
            if top.isDefined { return top }
            return vertical.isDefined ? vertical : all
        case .bottom:
            if bottom.isDefined { return bottom }
            return vertical.isDefined ? vertical : all
        }
    }

    var hasPercent: Bool {
        left.isPercent || top.isPercent || right.isPercent || bottom.isPercent || start.isPercent || end.isPercent
            || horizontal.isPercent || vertical.isPercent || all.isPercent
    }

    var anyHorizontalDefined: Bool {
        left.isDefined || right.isDefined || all.isDefined || horizontal.isDefined || start.isDefined || end.isDefined
    }

    /// Whether `start` or `end` is set: the edges then read differently right to left.
    var isDirectional: Bool { start.isDefined || end.isDefined }

    var anyVerticalDefined: Bool {
        top.isDefined || bottom.isDefined || all.isDefined || vertical.isDefined
    }

    /// Whether any side is set.
    var anyDefined: Bool { anyHorizontalDefined || anyVerticalDefined }
}

/// A physical side of a box.
enum PhysicalEdge: Int {
    case left = 0, top = 1, right = 2, bottom = 3
}

/// One side's length as layout reads it: what `Dimension` says, with the kind in a byte of its
/// own, so that four sides pack into 20 bytes instead of 32.
struct EdgeLength {
    enum Kind: UInt8 {
        case undefined, auto, points, percent
        /// `max-content`, `fit-content`, `stretch`: set, but no length.
        case keyword
    }
    var value: Float
    var kind: Kind

    @inline(__always)
    init(_ value: Float, _ kind: Kind) {
        self.value = value
        self.kind = kind
    }

    init(_ dimension: Dimension) {
        switch dimension {
        case .undefined: self.init(0, .undefined)
        case .auto: self.init(0, .auto)
        case .points(let value): self.init(value, .points)
        case .percent(let value): self.init(value, .percent)
        case .maxContent, .fitContent, .stretch: self.init(0, .keyword)
        }
    }

    /// `Dimension.resolve(_:)`.
    @inline(__always)
    func resolve(_ reference: Float) -> Float {
        switch kind {
        case .points: return value
        case .percent: return value * reference * 0.01
        case .undefined, .auto, .keyword: return .nan
        }
    }

    @inline(__always) var isDefined: Bool { kind != .undefined }
    @inline(__always) var isAuto: Bool { kind == .auto }
}

/// The values in force on the four physical sides of a box for one direction.
struct SideValues {
    var leftValue: Float, topValue: Float, rightValue: Float, bottomValue: Float
    var leftKind: EdgeLength.Kind, topKind: EdgeLength.Kind, rightKind: EdgeLength.Kind, bottomKind: EdgeLength.Kind

    init(_ edges: Edges, _ direction: Direction) {
        // Most boxes set no margin, border or inset at all: four undefined sides without the fallbacks.
        guard edges.anyDefined else {
            (leftValue, topValue, rightValue, bottomValue) = (0, 0, 0, 0)
            (leftKind, topKind, rightKind, bottomKind) = (.undefined, .undefined, .undefined, .undefined)
            return
        }
        let left = EdgeLength(edges.value(.left, direction)), top = EdgeLength(edges.value(.top, direction))
        let right = EdgeLength(edges.value(.right, direction)), bottom = EdgeLength(edges.value(.bottom, direction))
        (leftValue, topValue, rightValue, bottomValue) = (left.value, top.value, right.value, bottom.value)
        (leftKind, topKind, rightKind, bottomKind) = (left.kind, top.kind, right.kind, bottom.kind)
    }

    @inline(__always) var left: EdgeLength { EdgeLength(leftValue, leftKind) }
    @inline(__always) var top: EdgeLength { EdgeLength(topValue, topKind) }
    @inline(__always) var right: EdgeLength { EdgeLength(rightValue, rightKind) }
    @inline(__always) var bottom: EdgeLength { EdgeLength(bottomValue, bottomKind) }

    @inline(__always)
    subscript(edge: PhysicalEdge) -> EdgeLength {
        switch edge {
        case .left: return left
        case .top: return top
        case .right: return right
        case .bottom: return bottom
        }
    }
}

/// A node's margins, paddings, borders and insets for one direction, resolved once when its
/// style is set, so that layout reads one value instead of walking the start/end/horizontal/all
/// fallbacks every time (80 bytes).
struct DirectedBoxEdges {
    var margin: SideValues
    var padding: SideValues
    var border: SideValues
    var position: SideValues

    /// `paddingAndBorder` for each main axis (column, column-reverse, row, row-reverse), when it
    /// does not depend on the containing block (no percentage padding); else unused.
    var fixedPaddingAndBorderColumn: Float = 0, fixedPaddingAndBorderColumnReverse: Float = 0
    var fixedPaddingAndBorderRow: Float = 0, fixedPaddingAndBorderRowReverse: Float = 0
    var hasFixedPaddingAndBorder = false

    /// The edges for both directions: one computation when nothing is set by `start` or `end`,
    /// the only sides that read differently right to left.
    static func both(_ style: Style) -> (ltr: DirectedBoxEdges, rtl: DirectedBoxEdges) {
        let ltr = DirectedBoxEdges(style, .ltr)
        return (ltr, style.margin.isDirectional || style.padding.isDirectional || style.border.isDirectional
                    || style.position.isDirectional ? DirectedBoxEdges(style, .rtl) : ltr)
    }

    init(_ style: Style, _ direction: Direction) {
        margin = SideValues(style.margin, direction)
        padding = SideValues(style.padding, direction)
        border = SideValues(style.border, direction)
        position = SideValues(style.position, direction)
        hasFixedPaddingAndBorder = padding.leftKind != .percent && padding.topKind != .percent
            && padding.rightKind != .percent && padding.bottomKind != .percent
        if hasFixedPaddingAndBorder {
            // The same arithmetic, in the same order, as `paddingAndBorder`; the reference size
            // does not matter without percentages.
            fixedPaddingAndBorderColumn = computePaddingAndBorder(.column, 0)
            fixedPaddingAndBorderColumnReverse = computePaddingAndBorder(.columnReverse, 0)
            fixedPaddingAndBorderRow = computePaddingAndBorder(.row, 0)
            fixedPaddingAndBorderRowReverse = computePaddingAndBorder(.rowReverse, 0)
        }
    }

    @inline(__always)
    func border(_ edge: PhysicalEdge) -> Float {
        max(zeroIfUndefined(border[edge].resolve(0)), 0)
    }

    @inline(__always)
    func padding(_ edge: PhysicalEdge, _ widthSize: Float) -> Float {
        max(zeroIfUndefined(padding[edge].resolve(widthSize)), 0)
    }

    /// Padding plus border on both sides of `axis`.
    @inline(__always)
    func paddingAndBorder(_ axis: FlexDirection, _ widthSize: Float) -> Float {
        if hasFixedPaddingAndBorder {
            switch axis {
            case .column: return fixedPaddingAndBorderColumn
            case .columnReverse: return fixedPaddingAndBorderColumnReverse
            case .row: return fixedPaddingAndBorderRow
            case .rowReverse: return fixedPaddingAndBorderRowReverse
            }
        }
        return computePaddingAndBorder(axis, widthSize)
    }

    private func computePaddingAndBorder(_ axis: FlexDirection, _ widthSize: Float) -> Float {
        let start = axis.flexStartEdge, end = axis.flexEndEdge
        return padding(start, widthSize) + border(start) + padding(end, widthSize) + border(end)
    }
}
