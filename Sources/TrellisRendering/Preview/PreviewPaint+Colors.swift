import TrellisScreens

/// A colour as a preview paints it: channels from 0 to 255, alpha from 0 to 1.
public struct PaintedColor: Hashable, Sendable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// The page behind every screen in a preview (`#screen`'s background). Previews have one
    /// appearance, light: screens have no dark-mode colours to paint.
    public static let screenBackground = PaintedColor(red: 255, green: 255, blue: 255)

    /// `rgba(r,g,b,a)` as ``PreviewPaint/css(_:)`` writes it; nil for anything else.
    init?(css: String) {
        guard css.hasPrefix("rgba("), css.hasSuffix(")") else { return nil }
        let numbers = css.dropFirst(5).dropLast().split(separator: ",").compactMap { Double($0) }
        guard numbers.count == 4 else { return nil }
        self.init(red: numbers[0], green: numbers[1], blue: numbers[2], alpha: numbers[3])
    }
}

/// The colours a preview paints one component in, as numbers: what an accessibility check reads
/// to judge the contrast of what a user sees (TrellisLint), from the same decisions the HTML and
/// SVG previews draw with.
public struct ComponentPaint: Sendable {
    /// The box's background; for an image, its placeholder's (the picture itself is unknown).
    public var fill: PaintedColor?
    /// The colour a Text or a Button's title is drawn in.
    public var textColor: PaintedColor
    /// The component's `opacity`, which applies to it and everything inside it.
    public var opacity: Double
    /// An image: what lies behind text drawn over it is a picture, whose colours are unknown.
    public var isImage: Bool
}

extension LaidOutComponent {
    /// What the previews paint this component in.
    public var paint: ComponentPaint {
        let paint = PreviewPaint(self)
        return ComponentPaint(
            fill: paint.fill.flatMap(PaintedColor.init(css:)),
            textColor: PaintedColor(css: paint.textColor) ?? PaintedColor(red: 17, green: 24, blue: 39),
            opacity: paint.opacity.map(Double.init) ?? 1,
            isImage: paint.placeholderLabel != nil)
    }
}
