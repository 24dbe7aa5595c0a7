/// [§4.5 Automatic Minimum Size of Flex Items](https://www.w3.org/TR/css-flexbox-1/#min-size-auto),
/// web mode only: an item whose `min-width`/`min-height` is unset in the main axis cannot
/// shrink below its content (its min-content size), unless it scrolls.
extension FlexLayoutEngine {
    /// Computes each item's automatic minimum main size.
    func determineAutomaticMinimumSizes(_ container: inout FlexContainer) {
        for child in container.children {
            child.layout.automaticMinimumMain = .nan
        }
    }

    /// `size` raised to the item's automatic minimum main size, if it has one.
    @inline(__always)
    func applyAutomaticMinimum(_ child: LayoutNode, _ size: Float) -> Float {
        let minimum = child.layout.automaticMinimumMain
        return minimum.isNaN || !(size < minimum) ? size : minimum
    }
}
