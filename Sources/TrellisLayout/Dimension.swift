/// A length in the CSS box model: the value of `width`, `margin-left`, `flex-basis`, `top`, `gap`…
///
/// `undefined` means "not set" (the property falls back to another edge or to its default);
/// `auto` is the CSS keyword. Lengths are in points (density-independent pixels).
/// See [CSS Values §5](https://www.w3.org/TR/css-values-4/#lengths).
public enum Dimension: Equatable, Sendable {
    case undefined
    case auto
    case points(Float)
    case percent(Float)
    /// [CSS Sizing 3 keywords](https://www.w3.org/TR/css-sizing-3/#sizing-values) for `width`,
    /// `height` and `flex-basis`: size to the content without limit (`max-content`), to the
    /// content within the available space (`fit-content`), or to the available space (`stretch`).
    case maxContent
    case fitContent
    case stretch

    /// The used value against `reference` (the containing block's size for percentages);
    /// NaN when undefined, `auto`, or a percentage of an indefinite reference.
    @inline(__always)
    func resolve(_ reference: Float) -> Float {
        switch self {
        case .points(let value): return value
        case .percent(let value): return value * reference * 0.01
        case .undefined, .auto, .maxContent, .fitContent, .stretch: return .nan
        }
    }

    /// Whether the property was set at all (`auto` counts as set).
    @inline(__always)
    var isDefined: Bool {
        if case .undefined = self { return false }
        return true
    }

    @inline(__always)
    var isAuto: Bool {
        if case .auto = self { return true }
        return false
    }

    /// The sizing rule a sizing keyword imposes, given the space available; nil for other values.
    @inline(__always)
    func sizingKeywordMode(available: Float) -> SizingMode? {
        switch self {
        case .maxContent: return .maxContent
        case .fitContent: return available.isNaN ? .maxContent : .fitContent
        case .stretch: return available.isNaN ? .maxContent : .stretchFit
        default: return nil
        }
    }

    @inline(__always)
    var isPercent: Bool {
        if case .percent = self { return true }
        return false
    }
}

/// A width and height in points.
public struct Size: Equatable, Sendable {
    public var width: Float
    public var height: Float
    public init(width: Float, height: Float) {
        self.width = width
        self.height = height
    }
}

/// How a measure function must treat the size it is given (Yoga's `YGMeasureMode`).
///
/// - `undefined`: no constraint, return the content's natural (max-content) size; the size is NaN.
/// - `exactly`: the node will be exactly this size.
/// - `atMost`: the node may be at most this size (fit-content).
public enum MeasureMode: Sendable, Equatable {
    case undefined
    case exactly
    case atMost
}

/// A function that measures a leaf's content (text, an image): `(width, widthMode, height, heightMode) -> Size`.
/// Sizes are content-box sizes (without padding and border). Undefined sizes are `Float.nan`.
public typealias MeasureFunction = (_ width: Float, _ widthMode: MeasureMode, _ height: Float, _ heightMode: MeasureMode) -> Size

/// A function that returns a leaf's first baseline, measured from its top, given its final size.
public typealias BaselineFunction = (_ width: Float, _ height: Float) -> Float

/// The sizing rule a node is laid out under (Yoga's `SizingMode`, named after CSS Sizing 3).
enum SizingMode: UInt8 {
    /// Exactly the available size ([stretch-fit](https://www.w3.org/TR/css-sizing-3/#stretch-fit-size)).
    case stretchFit
    /// At most the available size ([fit-content](https://www.w3.org/TR/css-sizing-3/#fit-content-size)).
    case fitContent
    /// No constraint ([max-content](https://www.w3.org/TR/css-sizing-3/#max-content)).
    case maxContent

    var measureMode: MeasureMode {
        switch self {
        case .stretchFit: return .exactly
        case .fitContent: return .atMost
        case .maxContent: return .undefined
        }
    }
}

// MARK: - Float helpers (NaN stands for "undefined", as in Yoga)

@inline(__always) func isUndefined(_ value: Float) -> Bool { value.isNaN }
@inline(__always) func isDefined(_ value: Float) -> Bool { !value.isNaN }

/// The larger of two values, ignoring an undefined one.
@inline(__always) func maxOrDefined(_ a: Float, _ b: Float) -> Float {
    if !a.isNaN && !b.isNaN { return a > b ? a : b }
    return a.isNaN ? b : a
}

/// The smaller of two values, ignoring an undefined one.
@inline(__always) func minOrDefined(_ a: Float, _ b: Float) -> Float {
    if !a.isNaN && !b.isNaN { return a < b ? a : b }
    return a.isNaN ? b : a
}

/// Equality with Yoga's tolerance (0.0001); two undefined values are equal.
@inline(__always) func inexactEquals(_ a: Float, _ b: Float) -> Bool {
    if !a.isNaN && !b.isNaN { return abs(a - b) < 0.0001 }
    return a.isNaN && b.isNaN
}

@inline(__always) func inexactEquals(_ a: Double, _ b: Double) -> Bool {
    if !a.isNaN && !b.isNaN { return abs(a - b) < 0.0001 }
    return a.isNaN && b.isNaN
}
