/// Rounding frames to the device's pixel grid (Yoga's `roundLayoutResultsToPixelGrid`).
///
/// Edges, not sizes, are rounded, in absolute coordinates: a node's width is the rounded
/// position of its right edge minus the rounded position of its left edge, so adjacent boxes
/// never overlap or leave gaps. Text (nodes with a measure function) is never rounded smaller.
extension FlexLayoutEngine {
    func roundToPixelGrid(_ node: LayoutNode, absoluteLeft: Double, absoluteTop: Double) {
        let scale = Double(config.pointScaleFactor)
        let nodeLeft = Double(node.layout.position.left)
        let nodeTop = Double(node.layout.position.top)
        let nodeWidth = Double(node.layout.width)
        let nodeHeight = Double(node.layout.height)
        let absoluteNodeLeft = absoluteLeft + nodeLeft
        let absoluteNodeTop = absoluteTop + nodeTop
        let absoluteNodeRight = absoluteNodeLeft + nodeWidth
        let absoluteNodeBottom = absoluteNodeTop + nodeHeight

        guard scale != 0 else {
            node.layout.frame = LayoutFrame(left: Float(nodeLeft), top: Float(nodeTop), width: Float(nodeWidth),
                                            height: Float(nodeHeight))
            node.children.forEachUnretained { _, child in
                roundToPixelGrid(child, absoluteLeft: absoluteNodeLeft, absoluteTop: absoluteNodeTop)
            }
            return
        }
        let isText = node.hasMeasureFunction
        let fractionalWidth = isText && hasFraction(nodeWidth * scale)
        let fractionalHeight = isText && hasFraction(nodeHeight * scale)
        let roundedLeft = roundValueToPixelGrid(absoluteNodeLeft, scale, forceCeil: false, forceFloor: isText)
        let roundedTop = roundValueToPixelGrid(absoluteNodeTop, scale, forceCeil: false, forceFloor: isText)
        node.layout.frame = LayoutFrame(
            left: roundValueToPixelGrid(nodeLeft, scale, forceCeil: false, forceFloor: isText),
            top: roundValueToPixelGrid(nodeTop, scale, forceCeil: false, forceFloor: isText),
            width: roundValueToPixelGrid(absoluteNodeRight, scale, forceCeil: isText && fractionalWidth,
                                         forceFloor: isText && !fractionalWidth) - roundedLeft,
            height: roundValueToPixelGrid(absoluteNodeBottom, scale, forceCeil: isText && fractionalHeight,
                                          forceFloor: isText && !fractionalHeight) - roundedTop)
        node.children.forEachUnretained { _, child in
            roundToPixelGrid(child, absoluteLeft: absoluteNodeLeft, absoluteTop: absoluteNodeTop)
        }
    }

    private func hasFraction(_ scaled: Double) -> Bool {
        let fraction = fractionalPart(scaled)
        return !inexactEquals(fraction, 0) && !inexactEquals(fraction, 1)
    }
}

/// Rounds `value` (points) to the nearest multiple of `1 / pointScaleFactor`, or up/down when forced.
@inline(__always)  // six edges per node on every layout
func roundValueToPixelGrid(_ value: Double, _ pointScaleFactor: Double, forceCeil: Bool, forceFloor: Bool) -> Float {
    var scaled = value * pointScaleFactor
    var fraction = fractionalPart(scaled)
    if fraction < 0 { fraction += 1 }  // make `scaled - fraction` the floor for negative values
    if inexactEquals(fraction, 0) {
        scaled -= fraction
    } else if inexactEquals(fraction, 1) {
        scaled = scaled - fraction + 1
    } else if forceCeil {
        scaled = scaled - fraction + 1
    } else if forceFloor {
        scaled -= fraction
    } else {
        scaled = scaled - fraction + (!fraction.isNaN && (fraction > 0.5 || inexactEquals(fraction, 0.5)) ? 1 : 0)
    }
    return scaled.isNaN || pointScaleFactor.isNaN ? .nan : Float(scaled / pointScaleFactor)
}

/// `fmod(value, 1)` without libm: the fractional part, with the sign of `value`.
@inline(__always)
func fractionalPart(_ value: Double) -> Double {
    guard value.isFinite else { return .nan }
    if value.magnitude >= 4_503_599_627_370_496 { return 0 }  // 2^52: no fractional bits left
    return value - Double(Int64(value))
}
