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
    /// The height the items' percentages resolved against in the last layout pass: the inner
    /// height where it is definite, else NaN (their percentage insets were then `auto`).
    var percentInnerHeight: Float = .nan
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

    /// Calls `body` with the entries in place: a tuple of one type lays its elements out as an
    /// array does, and a lookup that misses reads every valid entry (no switch, no copies).
    @inline(__always)
    private mutating func withEntries<R>(_ body: (UnsafeMutablePointer<CachedMeasurement>) -> R) -> R {
        withUnsafeMutablePointer(to: &entries) { tuple in
            tuple.withMemoryRebound(to: CachedMeasurement.self, capacity: LayoutResults.maxCachedMeasurements, body)
        }
    }

    @inline(__always)
    mutating func store(_ entry: CachedMeasurement, at index: Int) {
        withEntries { $0[index] = entry }
    }

    /// The first of the entries `0..<count` that `matches`.
    @inline(__always)
    mutating func first(_ count: Int, where matches: (CachedMeasurement) -> Bool) -> CachedMeasurement? {
        withEntries { entries in
            for index in 0..<count where matches(entries[index]) { return entries[index] }
            return nil
        }
    }
}
