/// Which defaults the engine follows.
public enum LayoutMode: Sendable, Equatable {
    /// Yoga's (React Native, ALLKit): `column`, `flex-shrink: 0`, `flex: N` means grow N from a
    /// zero basis, no automatic minimum size.
    case yoga
    /// CSS's: `row`, `flex-shrink: 1`, `flex: N` keeps an `auto` basis, and flex items get an
    /// [automatic minimum size](https://www.w3.org/TR/css-flexbox-1/#min-size-auto).
    case web
}

/// Yoga's deliberate departures from the spec, kept for compatibility (Yoga's `Errata`).
public struct LayoutErrata: OptionSet, Sendable, Hashable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Size an item with `flex-basis` from its content as if stretched (pre-2.0 behaviour).
    public static let stretchFlexBasis = LayoutErrata(rawValue: 1 << 0)
    /// Place absolute children without insets at the border edge instead of the padding edge.
    public static let absolutePositionWithoutInsetsExcludesPadding = LayoutErrata(rawValue: 1 << 1)
    /// Resolve absolute children's percentages against the parent's inner size.
    public static let absolutePercentAgainstInnerSize = LayoutErrata(rawValue: 1 << 2)
    /// Move a relatively positioned item in a reversed axis (`row-reverse`, `column-reverse`) the
    /// wrong way: Yoga 3.2 adds the offset to the edge the reversed axis starts from, so `top: 5`
    /// in a `column-reverse` container moves the item up. CSS moves it down
    /// ([CSS Position §3.4](https://www.w3.org/TR/css-position-3/#relpos-insets)).
    public static let reversedAxisRelativeOffset = LayoutErrata(rawValue: 1 << 3)
    /// Measure an item's content-based flex basis at most as big as the container's main size
    /// (Yoga 3.2, unless the container scrolls) instead of at its max-content size
    /// ([§9.2 step 3 E](https://www.w3.org/TR/css-flexbox-1/#algo-main-item)): an item that does
    /// not shrink then wraps its text to the container although its line does not fit.
    public static let flexBasisFitsContainer = LayoutErrata(rawValue: 1 << 4)
    /// Align items aligned `baseline` in a column container `flex-start`, as Yoga 3.2 does, instead
    /// of lining up their baselines in the cross axis: a box has no baseline in that axis, so CSS
    /// synthesizes one at its line-left border edge
    /// ([CSS Align §9.1](https://www.w3.org/TR/css-align-3/#baseline-export)), which moves the
    /// group by the largest cross-start margin (LTR) or lines up the items' left edges (RTL).
    public static let columnBaselineIsFlexStart = LayoutErrata(rawValue: 1 << 5)
    /// Give the only flexible item of a container with a definite main size a flex base size of
    /// 0 even when its flex factors are below 1 or the container wraps (Yoga 3.2's shortcut, which
    /// assumes the item fills the container's one line): an item with `flexGrow: 0.5` then gets
    /// half the container instead of its own size plus half the free space
    /// ([§9.7 step 4.b](https://www.w3.org/TR/css-flexbox-1/#resolve-flexible-lengths)), and a
    /// wrapping container puts the items after it on the same line.
    public static let singleFlexChildFillsContainer = LayoutErrata(rawValue: 1 << 6)
    /// Size a row container whose width is fit-content (not stretched, not set) to its items'
    /// flex bases even when they add up to more than the width offered to it, as Yoga 3.2 does;
    /// CSS makes it no wider than that (nor than its min-content width,
    /// [CSS Sizing §5.1](https://www.w3.org/TR/css-sizing-3/#fit-content-size)), and the items
    /// shrink or overflow it. Matters once flex bases are max-content (`flexBasisFitsContainer` off).
    public static let rowFitsContentPastAvailableWidth = LayoutErrata(rawValue: 1 << 7)
    /// When a line's items overflow it, align them `flex-start` for `space-around` and
    /// `space-evenly`, and let auto margins keep `justify-content` from applying (Yoga 3.2). CSS
    /// falls back to `safe center`, the start of the container's direction (its flex-end in
    /// `row-reverse` and `column-reverse`), and auto margins take only positive free space
    /// ([§8.1](https://www.w3.org/TR/css-flexbox-1/#auto-margins)).
    public static let distributedJustifyFallsBackToFlexStart = LayoutErrata(rawValue: 1 << 8)
    /// Size a container offered a fit-content size of 0 or less in one axis (and a fixed or
    /// equally empty one in the other) at that size without laying out its content, as Yoga 3.2
    /// does; CSS gives it its min-content size ([CSS Sizing §5.1](https://www.w3.org/TR/css-sizing-3/#fit-content-size)),
    /// so a column of text in a zero-width box is as wide as its widest word.
    public static let fitContentWithoutSpaceIsEmpty = LayoutErrata(rawValue: 1 << 9)
    /// Let an item's relative offset (`top`, `bottom`) move the baseline its container takes from
    /// it, as Yoga 3.2 does; in a browser the offset moves the item after layout and the
    /// container's baseline stays where it was.
    public static let baselineMovesWithRelativeOffset = LayoutErrata(rawValue: 1 << 10)
    /// Ignore a definite `flex-basis` when the container's main size is not known (a column of
    /// unset height), measuring the item's content instead, as Yoga 3.2 does; CSS uses the basis
    /// ([§9.2 step 3 A](https://www.w3.org/TR/css-flexbox-1/#algo-main-item)), so `flexBasis: 5`
    /// in such a column is 5 points tall.
    public static let flexBasisIgnoredInUnboundedContainer = LayoutErrata(rawValue: 1 << 11)
    /// Keep the flex basis first resolved from a definite `flex-basis` for every later pass over
    /// the item, as Yoga 3.2 does (unless `webFlexBasis` is on): a percentage basis measured while
    /// the container's size was unknown stays its content size. CSS resolves it again each time.
    public static let flexBasisKeptAcrossPasses = LayoutErrata(rawValue: 1 << 12)
    /// Resolve flexible lengths with Yoga 3.2's two passes (`FlexibleLengthsAlgorithm.yogaTwoPass`)
    /// instead of the spec's loop: the free space is what the *clamped* flex bases leave, so two
    /// growing items in 10 points, one with `minHeight: 5`, get 7.5 and 2.5 instead of 5 and 5,
    /// and shrinking is scaled by border-box instead of content-box flex bases
    /// ([§9.7](https://www.w3.org/TR/css-flexbox-1/#resolve-flexible-lengths)).
    public static let flexibleLengthsInTwoPasses = LayoutErrata(rawValue: 1 << 13)
    /// Take an item's content-based flex basis after clamping it by the item's min and max sizes,
    /// as Yoga 3.2 does; CSS takes the content size itself and clamps only the hypothetical main
    /// size ([§9.2 step 3 E](https://www.w3.org/TR/css-flexbox-1/#algo-main-item)), so an empty
    /// growing item with `minHeight: 5` starts from 0 when free space is shared.
    public static let flexBasisClampedByMinMax = LayoutErrata(rawValue: 1 << 14)
    /// Offer a measure function (text) the space available to the node even when its max size is
    /// smaller (or its min size larger), as Yoga 3.2 does, and clamp the answer afterwards; CSS
    /// lays the content out at the size the box will have: text in a box with `maxWidth: 0` wraps
    /// at every word, not at its widest word ([CSS Sizing §5.2](https://www.w3.org/TR/css-sizing-3/#intrinsic-contribution)).
    public static let measureIgnoresMinMax = LayoutErrata(rawValue: 1 << 15)
    /// Lay out the items of a fit-content column that ends up wider than the width offered to it
    /// (its min-content or min width is larger) in the offered width, as Yoga 3.2 does; CSS lays
    /// them out in the column's own width, so a text stretched in it wraps at that width
    /// ([CSS Sizing §5.1](https://www.w3.org/TR/css-sizing-3/#fit-content-size)).
    public static let fitContentColumnKeepsOfferedWidth = LayoutErrata(rawValue: 1 << 16)
    /// Take a `row-reverse` or `column-reverse` container's baseline from its first child (the
    /// one at main-start), as Yoga 3.2 does; Chromium takes its items last first, so the
    /// visually first one (top, or left in LTR) gives the baseline
    /// ([§8.5](https://www.w3.org/TR/css-flexbox-1/#flex-baselines)).
    public static let baselineFromFirstChildInReversedAxis = LayoutErrata(rawValue: 1 << 17)
    /// Mirror the items of a `wrap-reverse` container across its whole border box, as Yoga 3.2
    /// does, instead of mirroring each item's margin box within the content box and keeping its
    /// relative offset ([§5.2](https://www.w3.org/TR/css-flexbox-1/#flex-wrap-property)): with
    /// unequal padding, border or margins on the two cross sides, or a relative offset, Yoga's
    /// items land off by the difference.
    public static let wrapReverseMirrorsBorderBox = LayoutErrata(rawValue: 1 << 20)
    /// Stretch the items of a multi-line container with `align-content: space-between`,
    /// `space-around` or `space-evenly` over their line and the space after it, as Yoga 3.2 does;
    /// CSS stretches them to their line only ([§9.4 step 11](https://www.w3.org/TR/css-flexbox-1/#algo-stretch)).
    public static let stretchIntoSpaceBetweenLines = LayoutErrata(rawValue: 1 << 21)
    /// Treat the stretched items of a multi-line container as Yoga 3.2 does: measure their flex
    /// basis stretched to the container's cross size, lay them out at their max-content cross
    /// size when `align-content` is not `stretch`, and make a fit-content wrapping column as wide
    /// as all its lines. CSS stretches an item to its line only
    /// ([§9.4 step 11](https://www.w3.org/TR/css-flexbox-1/#algo-stretch)), whose size comes from
    /// the items' own sizes, and a fit-content column is no wider than the space offered to it
    /// (unless one line is): a wrapping text stretched in a wrapping column would otherwise become
    /// as wide as its unwrapped text.
    public static let multiLineStretchIsMaxContent = LayoutErrata(rawValue: 1 << 22)
    /// Size an absolutely positioned box with an auto width at most as wide as its containing
    /// block only in a column container (and not at all in a zero-width one), as Yoga 3.2 does,
    /// and stretch its auto height between `top` and `bottom` whatever its `align-self`. CSS
    /// offers it the width between its insets, or beside its static position
    /// ([CSS Position §4.1](https://www.w3.org/TR/css-position-3/#resolving-insets)), and sizes
    /// and aligns it by `align-self` in the block axis ([CSS Align §6.1](https://www.w3.org/TR/css-align-3/#align-abspos)).
    public static let absoluteSizedWithoutInsetsOrAlignment = LayoutErrata(rawValue: 1 << 23)
    /// Derive an item's cross size from its main size through its aspect ratio even when it is
    /// stretched, measure a column item's height before its width, leave the margins out of the
    /// size transferred from a stretched cross size, and size absolutely positioned boxes with a
    /// ratio from their insets alone, as Yoga 3.2 does. CSS lets stretching win over the ratio,
    /// sizes a box with a ratio and no definite size from its content's width, and transfers
    /// min/max sizes through the ratio ([CSS Sizing 4 §2](https://www.w3.org/TR/css-sizing-4/#aspect-ratio)).
    public static let aspectRatioFromMainSize = LayoutErrata(rawValue: 1 << 24)
    /// Lay out a column whose width depends on its content (fit-content or max-content) with that
    /// width still unknown, as Yoga 3.2 does: its stretched items are measured under the space
    /// offered to the column, then stretched. CSS finds the column's width first, so its items
    /// stretch to a definite width: a text wraps at it, an item with an aspect ratio takes its
    /// height from it ([§9.8](https://www.w3.org/TR/css-flexbox-1/#definite-sizes)).
    public static let columnStretchesToIndefiniteWidth = LayoutErrata(rawValue: 1 << 25)
    /// Break the lines of a wrapping column whose height is not fixed at the height offered to
    /// it, and make it that tall, as Yoga 3.2 does. A browser gives a column an auto height
    /// whatever the space around it, so its lines break only at its `max-height`
    /// ([§9.2 step 2](https://www.w3.org/TR/css-flexbox-1/#algo-available)).
    public static let columnWrapsAtOfferedHeight = LayoutErrata(rawValue: 1 << 26)
    /// Resolve percentage heights (and min/max heights, flex bases and offsets in the column axis)
    /// against the height their container is laid out at even where that height is not definite,
    /// as Yoga 3.2 does: the flexed height of a column's item when the column's height is not
    /// definite, or the content height of an item that is not stretched. CSS treats them as `auto`
    /// there ([§9.8](https://www.w3.org/TR/css-flexbox-1/#definite-sizes)), an item whose
    /// percentage height behaves as `auto` is not stretched, and a percentage `flex-basis` that
    /// cannot resolve in a column is `content`, not the item's `height`.
    public static let percentageOfIndefiniteHeight = LayoutErrata(rawValue: 1 << 32)
    /// Every erratum: Yoga 3.2's answer wherever Trellis knows it to differ from a browser's.
    public static let all: LayoutErrata = [.stretchFlexBasis, .absolutePositionWithoutInsetsExcludesPadding,
                                           .absolutePercentAgainstInnerSize, .reversedAxisRelativeOffset,
                                           .flexBasisFitsContainer, .columnBaselineIsFlexStart,
                                           .singleFlexChildFillsContainer, .rowFitsContentPastAvailableWidth,
                                           .distributedJustifyFallsBackToFlexStart, .fitContentWithoutSpaceIsEmpty,
                                           .baselineMovesWithRelativeOffset, .flexBasisIgnoredInUnboundedContainer,
                                           .flexBasisKeptAcrossPasses, .flexibleLengthsInTwoPasses,
                                           .flexBasisClampedByMinMax, .measureIgnoresMinMax,
                                           .fitContentColumnKeepsOfferedWidth, .baselineFromFirstChildInReversedAxis,
                                           .wrapReverseMirrorsBorderBox,
                                           .stretchIntoSpaceBetweenLines, .multiLineStretchIsMaxContent,
                                           .absoluteSizedWithoutInsetsOrAlignment, .aspectRatioFromMainSize,
                                           .columnStretchesToIndefiniteWidth, .columnWrapsAtOfferedHeight,
                                           .percentageOfIndefiniteHeight]
    /// Yoga's "classic" errata set.
    public static let classic: LayoutErrata = [.stretchFlexBasis, .absolutePositionWithoutInsetsExcludesPadding,
                                               .absolutePercentAgainstInnerSize]
}

/// Yoga's experimental features (Yoga's `ExperimentalFeature`).
public struct LayoutExperiments: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Recompute the flex basis of an item on every layout pass.
    public static let webFlexBasis = LayoutExperiments(rawValue: 1 << 0)
    /// Measure an item's flex basis under fit-content rather than max-content inside scroll containers.
    public static let fixFlexBasisFitContent = LayoutExperiments(rawValue: 1 << 1)
}

/// How [§9.7 Resolving Flexible Lengths](https://www.w3.org/TR/css-flexbox-1/#resolve-flexible-lengths) is done.
public enum FlexibleLengthsAlgorithm: Sendable, Equatable {
    /// Yoga's two passes (freeze min/max violators once, then distribute), starting from the
    /// clamped flex basis (Yoga 3.2); also chosen by `LayoutErrata.flexibleLengthsInTwoPasses`.
    case yogaTwoPass
    /// The spec's loop, as browsers do. The default in both modes.
    case specLoop
}

/// Settings shared by every node of one layout pass.
public struct LayoutConfig: Sendable, Equatable {
    public var mode: LayoutMode
    /// Physical pixels per point: frames are rounded to multiples of `1 / pointScaleFactor`.
    /// Zero disables rounding.
    public var pointScaleFactor: Float
    public var errata: LayoutErrata
    public var experiments: LayoutExperiments
    /// How free space is distributed among flexible items; see `FlexibleLengthsAlgorithm`.
    public var flexibleLengthsAlgorithm: FlexibleLengthsAlgorithm

    public init(mode: LayoutMode = .yoga, pointScaleFactor: Float = 1, errata: LayoutErrata = [],
                experiments: LayoutExperiments = [], flexibleLengthsAlgorithm: FlexibleLengthsAlgorithm? = nil) {
        self.mode = mode
        self.pointScaleFactor = pointScaleFactor
        self.errata = errata
        self.experiments = experiments
        self.flexibleLengthsAlgorithm = flexibleLengthsAlgorithm ?? .specLoop
    }

    /// Yoga's defaults.
    public static let yoga = LayoutConfig()
    /// CSS's defaults.
    public static let web = LayoutConfig(mode: .web)

    @inline(__always) var useWebDefaults: Bool { mode == .web }
    /// Whether aspect ratios follow CSS (see `LayoutErrata.aspectRatioFromMainSize`).
    @inline(__always) var cssAspectRatio: Bool { !errata.contains(.aspectRatioFromMainSize) }
}
