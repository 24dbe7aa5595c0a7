/// Reuse of earlier measurements: a node measured under compatible constraints keeps its size
/// (Yoga's `Cache.cpp`). Measure functions (text) are the expensive part of layout.
extension LayoutResults {
    mutating func invalidateCache() {
        nextCachedMeasurementsIndex = 0
        cachedLayout = CachedMeasurement()
    }

}

extension LayoutNode {
    /// Forgets the last layout of this node and its ancestors once a descendant was laid out
    /// while measuring (`laysOutToMeasureBaseline`): a layout taken from the cache does not visit
    /// its subtree again, so that descendant would keep the layout made for the measurement.
    func forgetCachedLayouts() {
        var node: LayoutNode? = self
        while let current = node {
            current.layout.cachedLayout = CachedMeasurement()
            node = current.parent
        }
    }

    /// Remembers the size just computed for `request`.
    @inline(__always)
    func storeMeasurement(_ request: CachedMeasurement, performLayout: Bool) {
        var entry = request
        entry.computedWidth = layout.measuredWidth
        entry.computedHeight = layout.measuredHeight
        entry.contentWidth = layout.contentWidth
        entry.contentHeight = layout.contentHeight
        if performLayout {
            layout.cachedLayout = entry
            return
        }
        if Int(layout.nextCachedMeasurementsIndex) == LayoutResults.maxCachedMeasurements {
            layout.nextCachedMeasurementsIndex = 0
        }
        cachedMeasurements.store(entry, at: Int(layout.nextCachedMeasurementsIndex))
        layout.nextCachedMeasurementsIndex += 1
    }
}

extension CachedMeasurement {
    init(availableWidth: Float, availableHeight: Float, widthMode: SizingMode, heightMode: SizingMode) {
        self.availableWidth = availableWidth
        self.availableHeight = availableHeight
        self.widthMode = widthMode
        self.heightMode = heightMode
    }

    @inline(__always)
    func hasSameConstraints(as other: CachedMeasurement) -> Bool {
        widthMode == other.widthMode && heightMode == other.heightMode
            && inexactEquals(availableWidth, other.availableWidth) && inexactEquals(availableHeight, other.availableHeight)
    }
}

extension FlexLayoutEngine {
    /// Whether a measure function's earlier answer `last` also answers `request`.
    func canUseCachedMeasurement(_ request: CachedMeasurement, _ last: CachedMeasurement,
                                 _ marginRow: Float, _ marginColumn: Float) -> Bool {
        if (!last.computedHeight.isNaN && last.computedHeight < 0) || (!last.computedWidth.isNaN && last.computedWidth < 0) {
            return false
        }
        // Yoga compares the offered sizes after rounding them to the pixel grid, so a measurement
        // made for 121.6 points is reused for 121.9; then a relayout can differ from a fresh
        // layout by a pixel. Trellis compares them exactly: the same tree always gets the same frames.
        let sameWidth = last.widthMode == request.widthMode && inexactEquals(last.availableWidth, request.availableWidth)
        let sameHeight = last.heightMode == request.heightMode && inexactEquals(last.availableHeight, request.availableHeight)
        let widthOK = sameWidth || Self.isCompatible(request.widthMode, request.availableWidth - marginRow, last.widthMode,
                                                     last.availableWidth - marginRow, last.computedWidth)
        let heightOK = sameHeight || Self.isCompatible(request.heightMode, request.availableHeight - marginColumn,
                                                       last.heightMode, last.availableHeight - marginColumn,
                                                       last.computedHeight)
        return widthOK && heightOK
    }

    private static func isCompatible(_ mode: SizingMode, _ size: Float, _ lastMode: SizingMode, _ lastSize: Float,
                                     _ lastComputed: Float) -> Bool {
        // An exact size equal to the size measured last time.
        if mode == .stretchFit, inexactEquals(size, lastComputed) { return true }
        // Measured unconstrained last time, and that size still fits.
        if mode == .fitContent, lastMode == .maxContent, size >= lastComputed || inexactEquals(size, lastComputed) {
            return true
        }
        // A stricter fit-content limit that the last measured size still satisfies.
        return lastMode == .fitContent && mode == .fitContent && !lastSize.isNaN && !size.isNaN
            && !lastComputed.isNaN && lastSize > size && (lastComputed <= size || inexactEquals(size, lastComputed))
    }
}
