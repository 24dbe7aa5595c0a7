/// The frame of a laid-out node, in points, relative to its parent's border box
/// (for children of a `display: contents` node: relative to the nearest box ancestor).
public struct LayoutFrame: Equatable, Sendable {
    public var left: Float
    public var top: Float
    public var width: Float
    public var height: Float

    public init(left: Float, top: Float, width: Float, height: Float) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
    }

    public static let zero = LayoutFrame(left: 0, top: 0, width: 0, height: 0)
}

/// One remembered answer to "how big is this node under these constraints" (Yoga's Cache.cpp).
struct CachedMeasurement {
    var availableWidth: Float = -1
    var availableHeight: Float = -1
    var widthMode: SizingMode = .maxContent
    var heightMode: SizingMode = .maxContent
    var computedWidth: Float = -1
    var computedHeight: Float = -1
    var contentWidth: Float = .nan
    var contentHeight: Float = .nan
}

/// Four values indexed by `PhysicalEdge`.
struct EdgeValues {
    var left: Float = 0, top: Float = 0, right: Float = 0, bottom: Float = 0

    @inline(__always)
    subscript(edge: PhysicalEdge) -> Float {
        get {
            switch edge {
            case .left: return left
            case .top: return top
            case .right: return right
            case .bottom: return bottom
            }
        }
        set {
            switch edge {
            case .left: left = newValue
            case .top: top = newValue
            case .right: right = newValue
            case .bottom: bottom = newValue
            }
        }
    }
}

/// What layout computes for a node: its output and the working state of the algorithm
/// (Yoga's `LayoutResults`).
struct LayoutResults {
    // Grouped by use (see `LayoutNode` on why the order matters): what the cache check of every
    // visit reads and writes, then what positioning and rounding read, then the resolved edges.

    /// Final size (set by a layout pass).
    var width: Float = .nan
    var height: Float = .nan
    /// Size from the latest measure or layout pass.
    var measuredWidth: Float = .nan
    var measuredHeight: Float = .nan
    /// The border-box size the content asks for, before the node's own min/max clamp; NaN when
    /// the size was imposed. Web mode uses it as the [flex base size](https://www.w3.org/TR/css-flexbox-1/#flex-base-size).
    var contentWidth: Float = .nan
    var contentHeight: Float = .nan
    var generationCount: UInt32 = 0
    var lastOwnerDirection: Direction = .inherit
    var direction: Direction = .inherit
    var hadOverflow = false
    /// How many of the node's `cachedMeasurements` are valid.
    var nextCachedMeasurementsIndex: UInt8 = 0
    var cachedLayout = CachedMeasurement()
    var lastConfig: LayoutConfig?

    var computedFlexBasis: Float = .nan
    var computedFlexBasisGeneration: UInt32 = 0
    /// The content-based minimum main size of a flex item in web mode ([§4.5](https://www.w3.org/TR/css-flexbox-1/#min-size-auto)); NaN if none.
    var automaticMinimumMain: Float = .nan

    /// Position of each edge relative to the parent.
    var position = EdgeValues()
    /// The output: the frame rounded to the pixel grid (`roundToPixelGrid`). The algorithm's own
    /// values stay unrounded, so that a later layout that reuses them rounds them afresh.
    var frame = LayoutFrame.zero
    var margin = EdgeValues()
    var border = EdgeValues()
    var padding = EdgeValues()
    static let maxCachedMeasurements = 8

    @inline(__always)
    func measured(_ axis: FlexDirection) -> Float { axis.isRow ? measuredWidth : measuredHeight }

    @inline(__always)
    mutating func setMeasured(_ axis: FlexDirection, _ value: Float) {
        if axis.isRow { measuredWidth = value } else { measuredHeight = value }
    }
}

/// Up to eight remembered measurements, stored inline (no heap allocation, nothing to retain).
struct MeasurementCache {
    private var entries = (CachedMeasurement(), CachedMeasurement(), CachedMeasurement(), CachedMeasurement(),
                           CachedMeasurement(), CachedMeasurement(), CachedMeasurement(), CachedMeasurement())

    @inline(__always)
    subscript(index: Int) -> CachedMeasurement {
        get {
            switch index {
            case 0: return entries.0
            case 1: return entries.1
            case 2: return entries.2
            case 3: return entries.3
            case 4: return entries.4
            case 5: return entries.5
            case 6: return entries.6
            default: return entries.7
            }
        }
        set {
            switch index {
            case 0: entries.0 = newValue
            case 1: entries.1 = newValue
            case 2: entries.2 = newValue
            case 3: entries.3 = newValue
            case 4: entries.4 = newValue
            case 5: entries.5 = newValue
            case 6: entries.6 = newValue
            default: entries.7 = newValue
            }
        }
    }
}
