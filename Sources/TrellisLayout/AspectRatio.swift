// Sizes transferred through an aspect ratio ([CSS Sizing 4 §2](https://www.w3.org/TR/css-sizing-4/#aspect-ratio)).
//
// CSS leaves their precision to the user agent; the engine gives what Chromium computes, whose
// lengths are LayoutUnits (1/64 px) and whose transfer (`LayoutUnit::MulDiv`) truncates: a
// 110-wide box with `aspect-ratio: 3` is 36.65625 high, not 36.666…, and that height gives a
// width of 109.96875 back, in which a 110-wide word no longer fits. Without it the engine
// matched Chromium within 1/64 px but broke lines and wrapped items where Chromium does not.

/// The width a height gives through `ratio` (width / height), truncated to 1/64.
@inline(__always) func widthThroughRatio(_ height: Float, _ ratio: Float) -> Float {
    truncatedToLayoutUnit(height * ratio)
}

/// The height a width gives through `ratio` (width / height), truncated to 1/64.
@inline(__always) func heightThroughRatio(_ width: Float, _ ratio: Float) -> Float {
    truncatedToLayoutUnit(width / ratio)
}

/// `value` truncated towards 0 to a multiple of 1/64; a value a float rounding error below a
/// multiple (1.1999998 for 1.2 × 64 / 64) stays on it.
@inline(__always) func truncatedToLayoutUnit(_ value: Float) -> Float {
    guard value.isFinite else { return value }
    let units = value * 64
    return (units + (units < 0 ? -0.01 : 0.01)).rounded(.towardZero) / 64
}
