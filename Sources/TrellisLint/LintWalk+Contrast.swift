import TrellisJSON
import TrellisLayout
import TrellisRendering
import TrellisScreens

extension LintWalk {
    /// A text's colour against what is painted under it, as the preview paints both: the screen's
    /// background, each ancestor's `backgroundColor`, the layers of a ZStack under the text's
    /// branch that overlap it, each `opacity` applied to all inside it (WCAG 1.4.3).
    mutating func checkContrast(_ node: LaidOutComponent, _ text: LaidOutText, _ rect: ScreenRect, at path: JSONPath, ancestors: [LaidOutComponent]) {
        guard let colors = colors(of: node, rect, ancestors: ancestors) else { return }
        let ratio = Contrast.ratio(colors.text, colors.background)
        let minimum = Contrast.minimum(size: text.size, weight: text.weight)
        // WCAG's ratio is a threshold, not a rounding: 4.49 fails. axe-core compares the ratio
        // rounded to two decimals, as it reports it; so does the lint, to say the same.
        let shown = (ratio * 100).rounded() / 100
        guard shown < minimum else { return }
        report(.contrast, node, at: path, "contrast \(LintNumber.text(shown)):1 (needs \(LintNumber.text(minimum)):1)")
    }

    /// The colour of the text and of the background right behind it, both opaque; nil when a
    /// picture lies behind it (an image's colours are unknown until it is drawn).
    private func colors(of node: LaidOutComponent, _ rect: ScreenRect, ancestors: [LaidOutComponent]) -> (text: PaintedColor, background: PaintedColor)? {
        let chain = ancestors + [node]
        guard let background = render(chain, rect, level: 0, origin: (0, 0), under: options.screenBackground, withText: false),
              let text = render(chain, rect, level: 0, origin: (0, 0), under: options.screenBackground, withText: true)
        else { return nil }
        return (text, background)
    }

    /// What `chain[level...]` paints over `under` where the text is: its fill, what lies under the
    /// next level in a ZStack, the next level, and (at the last) the text's colour when `withText`;
    /// the whole composited with the level's opacity, as CSS groups an element's opacity.
    private func render(
        _ chain: [LaidOutComponent], _ rect: ScreenRect, level: Int, origin: (x: Float, y: Float), under: PaintedColor, withText: Bool
    ) -> PaintedColor? {
        let node = chain[level]
        let paint = node.paint
        var inside = under
        if let fill = paint.fill, !paint.isImage { inside = Contrast.over(fill, inside) }
        let frameOrigin = (x: origin.x + node.frame.left, y: origin.y + node.frame.top)
        if level == chain.count - 1 {
            if withText { inside = Contrast.over(paint.textColor, inside) }
        } else {
            let next = chain[level + 1]
            if node.component.kind == .zStack, let index = node.subviews.firstIndex(where: { $0.layoutId == next.layoutId }) {
                for layer in node.subviews[..<index] where !layer.isHidden && overlaps(layer, frameOrigin, rect) {
                    let layerPaint = layer.paint
                    // A picture under all of the text leaves its contrast unknown; under a part of
                    // it (a longer translation running past a banner), the rest lies over what is
                    // beneath the picture, which is judged.
                    if layerPaint.isImage {
                        if contains(layer, frameOrigin, rect) { return nil }
                        continue
                    }
                    if let fill = layerPaint.fill { inside = Contrast.over(fill, inside, opacity: layerPaint.opacity) }
                }
            }
            guard let shown = render(chain, rect, level: level + 1, origin: frameOrigin, under: inside, withText: withText) else { return nil }
            inside = shown
        }
        return Contrast.over(inside, under, opacity: paint.opacity)
    }

    private func contains(_ layer: LaidOutComponent, _ origin: (x: Float, y: Float), _ rect: ScreenRect) -> Bool {
        let x = origin.x + layer.frame.left, y = origin.y + layer.frame.top
        return x <= rect.x && x + layer.frame.width >= rect.maxX && y <= rect.y && y + layer.frame.height >= rect.maxY
    }

    private func overlaps(_ layer: LaidOutComponent, _ origin: (x: Float, y: Float), _ rect: ScreenRect) -> Bool {
        let x = origin.x + layer.frame.left, y = origin.y + layer.frame.top
        return x < rect.maxX && x + layer.frame.width > rect.x && y < rect.maxY && y + layer.frame.height > rect.y
    }
}
