import TrellisJSON
import TrellisLayout
import TrellisScreens
import TrellisText

/// A component's `properties` read for layout. The decoder has checked every value's type, so a
/// value of the wrong shape cannot occur; it is treated as absent.
struct ComponentProperties {
    let members: [JSONMember]

    subscript(key: String) -> TrellisJSON.JSONValue? { members.first { $0.key == key }?.value }
    func number(_ key: String) -> Float? { self[key]?.numberValue.map { Float($0) } }
    func string(_ key: String) -> String? { self[key]?.stringValue }
    func bool(_ key: String) -> Bool? { self[key]?.boolValue }

    /// A `dimension` value: points, `"N%"`, `"fill"` or `"auto"`.
    enum Size: Equatable {
        case points(Float)
        case percent(Float)
        case fill
        case auto
    }

    func size(_ key: String) -> Size? {
        guard let value = self[key] else { return nil }
        if let n = value.numberValue { return .points(Float(n)) }
        guard let s = value.stringValue else { return nil }
        if s == "fill" { return .fill }
        if s == "auto" { return .auto }
        if s.hasSuffix("%"), let p = Float(s.dropLast()) { return .percent(p) }
        return nil
    }

    /// Padding edges in points: (top, leading, bottom, trailing). A number sets all four; an
    /// object sets `top`, `bottom`, `leading`, `trailing`, `horizontal`, `vertical` (the specific
    /// edge wins over `horizontal`/`vertical`).
    func padding() -> (top: Float, leading: Float, bottom: Float, trailing: Float)? {
        guard let value = self["padding"] else { return nil }
        if let n = value.numberValue { return (Float(n), Float(n), Float(n), Float(n)) }
        let p = ComponentProperties(members: value.objectValue ?? [])
        let h = p.number("horizontal") ?? 0, v = p.number("vertical") ?? 0
        return (p.number("top") ?? v, p.number("leading") ?? h, p.number("bottom") ?? v, p.number("trailing") ?? h)
    }
}

/// The font chains of one plan, each looked up once: a screen has many texts in a few styles,
/// and finding a chain (families lowercased, faces ranked by weight) cost more than measuring.
final class FontChains {
    private struct Key: Hashable {
        var family: String
        var weight: Int
    }

    private let fonts: FontCollection
    private var chains: [Key: FontChain] = [:]

    init(_ fonts: FontCollection) { self.fonts = fonts }

    func chain(family: String, weight: Int) -> FontChain {
        let key = Key(family: family, weight: weight)
        if let known = chains[key] { return known }
        let chain = fonts.chain(family: family, weight: weight)
        chains[key] = chain
        return chain
    }
}

/// How one Text (or a Button's title) is measured: resolved once per plan, used by the measure
/// function and again to break the lines a preview draws.
struct TextSpec: Sendable {
    var text: String
    var chain: FontChain
    var family: String
    var weight: Int
    /// Points, font scale applied.
    var size: Double
    /// Points per line, font scale applied.
    var lineHeight: Double
    var lineLimit: Int
    /// The text's glyphs in `chain` at `size`, looked up once for every width it is measured at.
    var prepared: PreparedText

    /// `font` (a platform text style) or `fontSize` (points, system family), `weight`,
    /// `lineHeight` (a multiple of the style's or font's line height), `lineLimit`, and the font scale.
    init(_ text: String, _ properties: ComponentProperties, defaultStyle: TextStyle, viewport: LayoutViewport, fonts: FontChains) {
        let fontScale = Double(viewport.fontScale)
        let weight = properties.string("weight").flatMap { ComponentRegistry.fontWeights[$0] }
        family = viewport.platform.systemFamily
        if let fontSize = properties.number("fontSize"), properties.string("font") == nil {
            size = Double(fontSize) * fontScale
            self.weight = weight ?? 400
            chain = fonts.chain(family: family, weight: self.weight)
            lineHeight = chain.lineHeight(size: size, .font)
        } else {
            let style = properties.string("font").flatMap { TextStyle(name: $0) } ?? defaultStyle
            let attributes = style.attributes(on: viewport.platform, fontScale: fontScale, weight: weight)
            self.weight = attributes.weight
            chain = fonts.chain(family: family, weight: self.weight)
            var size = attributes.size
            var lineHeight: Double = if case .points(let p) = attributes.lineHeight { p } else { chain.lineHeight(size: size) }
            if let fontSize = properties.number("fontSize") {  // both: the size wins, the style's leading scales with it
                lineHeight *= Double(fontSize) * fontScale / size
                size = Double(fontSize) * fontScale
            }
            self.size = size
            self.lineHeight = lineHeight
        }
        if let multiple = properties.number("lineHeight") { lineHeight *= Double(multiple) }
        lineLimit = properties.number("lineLimit").map { Int($0) } ?? 0
        self.text = text
        prepared = chain.prepare(text, size: size)
    }

    func measure(availableWidth: Double) -> TextMeasurement {
        prepared.measure(lineHeight: .points(lineHeight), lineLimit: lineLimit, availableWidth: availableWidth)
    }

    /// The measure function of a text leaf: the text's size when broken at the offered width.
    var measureFunction: MeasureFunction {
        let spec = self
        return { width, widthMode, height, heightMode in
            let available = widthMode == .undefined || width.isNaN ? Double.infinity : Double(width)
            let measured = spec.measure(availableWidth: available)
            var usedWidth = Float(measured.width)
            if widthMode == .exactly { usedWidth = width } else if widthMode == .atMost { usedWidth = min(usedWidth, width) }
            // Its lines' height under any `atMost` offer (lineLimit already applied): a label never
            // shrinks below its lines; the engine, not the text, decides what overflows.
            return Size(width: usedWidth, height: heightMode == .exactly ? height : Float(measured.height))
        }
    }

    /// The lines shown in a content box `width` points wide (trailing spaces dropped, "…" ending
    /// a line the line limit cut), and whether the line limit cut the text.
    func lines(width: Float) -> (lines: [String], widths: [Double], truncated: Bool) {
        let measured = measure(availableWidth: Double(width) + 0.01)
        return (measured.lineTexts(of: text), measured.lines.map(\.width), measured.isTruncated)
    }

    /// How many lines are shown in a content box `width` points wide, and whether the line limit
    /// cut the text: what a layout answer gives, without the lines' strings.
    func lineSummary(width: Float) -> (count: Int, truncated: Bool) {
        let measured = measure(availableWidth: Double(width) + 0.01)
        return (measured.lines.count, measured.isTruncated)
    }
}
