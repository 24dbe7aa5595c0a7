/// The style of one node: the input of layout, in CSS terms.
///
/// The defaults are Yoga's (`column`, `flex-shrink: 0`, `align-content: flex-start`); use
/// `Style(mode: .web)` for CSS's initial values (`row`, `flex-shrink: 1`, `align-content: stretch`).
/// Properties that are `nil` or `.undefined` are unset.
public struct Style: Equatable, Sendable {
    public var direction: Direction = .inherit
    public var flexDirection: FlexDirection = .column
    public var justifyContent: Justify = .flexStart
    public var alignContent: Align = .flexStart
    public var alignItems: Align = .stretch
    public var alignSelf: Align = .auto
    public var positionType: PositionType = .relative
    public var flexWrap: Wrap = .noWrap
    public var overflow: Overflow = .visible
    public var display: Display = .flex
    public var boxSizing: BoxSizing = .borderBox

    /// The `flex` shorthand with Yoga's meaning: a positive value sets `flex-grow` (and a basis of
    /// 0 in Yoga mode, `auto` in web mode); a negative value sets `flex-shrink` (Yoga mode only).
    /// See [CSS Flexbox §7.1](https://www.w3.org/TR/css-flexbox-1/#flex-property).
    public var flex: Float?
    public var flexGrow: Float?
    public var flexShrink: Float?
    public var flexBasis: Dimension = .auto

    public var gap: Dimension = .undefined
    public var columnGap: Dimension = .undefined
    public var rowGap: Dimension = .undefined

    public var width: Dimension = .auto
    public var height: Dimension = .auto
    public var minWidth: Dimension = .undefined
    public var minHeight: Dimension = .undefined
    public var maxWidth: Dimension = .undefined
    public var maxHeight: Dimension = .undefined

    /// Width divided by height ([CSS Sizing 4 §2](https://www.w3.org/TR/css-sizing-4/#aspect-ratio)).
    /// Zero, negative, NaN and infinite ratios act as unset.
    public var aspectRatio: Float?

    // The edges come last: layout reads them through `BoxEdges`, so the fields above share
    // the first cache lines.
    public var margin = Edges()
    /// Insets: `left`, `top`, `right`, `bottom`, `start`, `end` ([CSS Position §3.1](https://www.w3.org/TR/css-position-3/#insets)).
    public var position = Edges()
    public var padding = Edges()
    public var border = Edges()

    /// `gap` for both axes; `columnGap`/`rowGap` override it ([CSS Box Alignment §8](https://www.w3.org/TR/css-align-3/#gaps)).

    /// Whether a percentage here resolves against the containing block's width (CSS Box §5:
    /// margins and paddings on every side; `width`, its min/max, a row's `flex-basis`, horizontal insets).
    var hasWidthPercentage: Bool {
        width.isPercent || minWidth.isPercent || maxWidth.isPercent || flexBasis.isPercent
            || margin.hasPercent || padding.hasPercent
            // (Only the horizontal insets: `top` and `bottom` resolve against the height, CSS
            // Position §3.4, so they make no percentage of a width cyclic.)
            || position.left.isPercent || position.right.isPercent || position.start.isPercent
            || position.end.isPercent || position.horizontal.isPercent || position.all.isPercent
    }

    /// Whether the box's own height, min height or max height is a percentage of its containing
    /// block's height.
    var hasHeightPercentage: Bool {
        height.isPercent || minHeight.isPercent || maxHeight.isPercent
    }

    /// Whether a percentage here may resolve against a height: the box's height, min or max
    /// height, flex basis or an inset. Relaying out a tree of boxes with none of these at another
    /// size is proven to give a fresh layout's frames (`CacheConsistencyTests`); with them, a
    /// cached measurement can outlive the height it was made for.
    public var resolvesPercentagesAgainstHeight: Bool {
        hasHeightPercentage || flexBasis.isPercent || position.hasPercent
    }

    /// Yoga's defaults.
    public init() {}

    /// The initial values of `mode`: Yoga's, or CSS's for `.web`.
    public init(mode: LayoutMode) {
        if mode == .web {
            flexDirection = .row
            alignContent = .stretch
        }
    }
}

// MARK: - Resolution helpers used by the algorithm

extension Style {
    @inline(__always)
    func dimension(_ axis: FlexDirection) -> Dimension { axis.isRow ? width : height }
    @inline(__always)
    func minDimension(_ axis: FlexDirection) -> Dimension { axis.isRow ? minWidth : minHeight }
    @inline(__always)
    func maxDimension(_ axis: FlexDirection) -> Dimension { axis.isRow ? maxWidth : maxHeight }

}

@inline(__always) func zeroIfUndefined(_ value: Float) -> Float { value.isNaN ? 0 : value }

// MARK: - Axis geometry

extension FlexDirection {
    /// The flex-start side of this axis.
    @inline(__always)
    var flexStartEdge: PhysicalEdge {
        switch self {
        case .column: return .top
        case .columnReverse: return .bottom
        case .row: return .left
        case .rowReverse: return .right
        }
    }
    @inline(__always)
    var flexEndEdge: PhysicalEdge {
        switch self {
        case .column: return .bottom
        case .columnReverse: return .top
        case .row: return .right
        case .rowReverse: return .left
        }
    }
    @inline(__always)
    func inlineStartEdge(_ direction: Direction) -> PhysicalEdge {
        if isRow { return direction == .rtl ? .right : .left }
        return .top
    }
    @inline(__always)
    func inlineEndEdge(_ direction: Direction) -> PhysicalEdge {
        if isRow { return direction == .rtl ? .left : .right }
        return .bottom
    }
    /// `row` and `row-reverse` swap under `direction: rtl`.
    @inline(__always)
    func resolved(_ direction: Direction) -> FlexDirection {
        guard direction == .rtl else { return self }
        switch self {
        case .row: return .rowReverse
        case .rowReverse: return .row
        default: return self
        }
    }
    /// The cross axis of a main axis.
    @inline(__always)
    func cross(_ direction: Direction) -> FlexDirection {
        isColumn ? FlexDirection.row.resolved(direction) : .column
    }
}
