import TrellisJSON
import TrellisLayout
import TrellisScreens
import TrellisText

extension DrivenUIFormat {
    /// A component's properties as DrivenUI's `ViewProperties` declares them, except `padding`,
    /// which depends on whether the insets are uniform (``DrivenUIFormat/node(_:laidOut:registry:)``).
    /// Trellis properties DrivenUI has no member for are not written (docs/clients.md lists them).
    struct Converted {
        /// DrivenUI's `ViewProperties`, in declaration order (the order it decodes them).
        static let declarationOrder = [
            "font", "fontWeight", "foregroundColor", "backgroundColor", "borderColor", "borderWidth", "padding", "spacing",
            "width", "height", "minLength", "horizontalAlignment", "verticalAlignment",
        ]
        /// What belongs to the box around the padding, and moves to a padding wrapper.
        static let boxKeys: Set<String> = ["backgroundColor", "borderColor", "borderWidth", "width", "height"]
        static let horizontalAlignments: Set<String> = ["leading", "center", "trailing"]
        static let verticalAlignments: Set<String> = ["top", "center", "bottom", "firstTextBaseline", "lastTextBaseline"]

        var members: [String: JSONValue] = [:]

        /// - Parameter frame: the component's laid-out frame, for sizes DrivenUI cannot express.
        init(_ properties: ComponentProperties, type: ViewType, frame: LayoutFrame?) {
            if type.hasFont { font(properties) }
            for key in ["foregroundColor", "backgroundColor", "borderColor"] {
                if let text = properties.string(key), let color = HexColor(text), !color.isClear {
                    members[key] = .string(color.rrggbb)  // alpha is lost: DrivenUI draws every colour opaque
                }
            }
            if let border = properties.number("borderWidth") { members["borderWidth"] = .number(Self.integer(border)) }
            if let spacing = properties.number("spacing") {
                members["spacing"] = .number(Self.integer(spacing))
            } else if type.isSpaced {
                members["spacing"] = .number(0)
            }
            if let width = Self.size(properties.size("width"), laidOut: frame?.width) { members["width"] = .number(width) }
            if let height = Self.size(properties.size("height"), laidOut: frame?.height) { members["height"] = .number(height) }
            if let minLength = properties.number("minLength") { members["minLength"] = .number(Self.points(minLength)) }
            if let a = properties.string("horizontalAlignment"), Self.horizontalAlignments.contains(a) {
                members["horizontalAlignment"] = .string(a)
            }
            if let a = properties.string("verticalAlignment"), Self.verticalAlignments.contains(a) {
                members["verticalAlignment"] = .string(a)
            }
        }

        /// Points where the author gave points; the laid-out size for `"fill"`, `"N%"` and `"auto"`
        /// (DrivenUI's `Float?` refuses a string), or nil without a layout.
        static func size(_ size: ComponentProperties.Size?, laidOut: Float?) -> Double? {
            switch size {
            case .points(let p): points(p)
            case .fill, .percent, .auto: laidOut.map(points)
            case nil: nil
            }
        }

        /// Points to a thousandth: Float frames (multiples of 1/3 at scale 3) written without the
        /// binary noise of widening to Double (`119.333`, not `119.33333587646484`).
        static func points(_ value: Float) -> Double { (Double(value) * 1000).rounded() / 1000 }

        /// DrivenUI's `Int?` members refuse `12.5`: the nearest whole point, halves away from zero,
        /// so a hairline border of 0.5 is kept as 1 rather than lost.
        static func integer(_ value: Float) -> Int { Int(value.rounded()) }

        static func isUniform(_ p: (top: Float, leading: Float, bottom: Float, trailing: Float)) -> Bool {
            p.top == p.leading && p.top == p.bottom && p.top == p.trailing
        }

        // MARK: Fonts

        /// DrivenUI's text styles; any other name is drawn as body.
        static let fonts = ["largeTitle", "title", "headline", "subheadline", "body", "callout", "footnote", "caption"]
        /// Trellis styles DrivenUI lacks → the nearest it has by iOS size: title2 (22 pt) and title3
        /// (20 pt) → headline (17 pt; title is 28), caption2 (11 pt) → caption (12 pt). Their own
        /// weight (regular) is kept by writing `fontWeight`, since headline's default is semibold.
        static let fontSubstitutes = ["title2": "headline", "title3": "headline", "caption2": "caption"]

        /// `font` and `fontWeight` for what Trellis would draw: the authored style, its substitute,
        /// or for a `fontSize` the style nearest in size; the weight written whenever it differs from
        /// the chosen style's own, or was authored.
        private mutating func font(_ properties: ComponentProperties) {
            let authoredWeight = properties.string("weight").flatMap { ComponentRegistry.fontWeights[$0] != nil ? $0 : nil }
            let style = properties.string("font")
            let fontSize = properties.number("fontSize")
            guard style != nil || fontSize != nil else {
                if let authoredWeight { members["fontWeight"] = .string(authoredWeight) }
                return
            }
            // The weight Trellis draws: the authored one, else the style's, else the system font's regular.
            let drawnWeight = authoredWeight.flatMap { ComponentRegistry.fontWeights[$0] } ?? style.map { Self.iosMetrics($0).weight } ?? 400
            let chosen: String
            if let fontSize {
                chosen = Self.nearestFont(size: Double(fontSize), weight: drawnWeight)
            } else {
                let style = style ?? "body"
                chosen = Self.fonts.contains(style) ? style : Self.fontSubstitutes[style] ?? "body"
            }
            members["font"] = .string(chosen)
            if let authoredWeight {
                members["fontWeight"] = .string(authoredWeight)
            } else if drawnWeight != Self.iosMetrics(chosen).weight, let name = Self.weightName(drawnWeight) {
                members["fontWeight"] = .string(name)
            }
        }

        /// The DrivenUI style nearest `size` in points; of two as near, the one of `weight`, else the larger.
        static func nearestFont(size: Double, weight: Int) -> String {
            fonts.min { a, b in
                let (ma, mb) = (iosMetrics(a), iosMetrics(b))
                let (da, db) = (abs(ma.size - size), abs(mb.size - size))
                if da != db { return da < db }
                if (ma.weight == weight) != (mb.weight == weight) { return ma.weight == weight }
                return ma.size > mb.size
            } ?? "body"
        }

        /// DrivenUI is an iOS framework: styles are measured by Apple's Dynamic Type table (TrellisText).
        static func iosMetrics(_ style: String) -> TextStyleMetrics {
            (TextStyle(name: style) ?? .body).metrics(on: .ios)
        }

        static func weightName(_ weight: Int) -> String? {
            ComponentRegistry.fontWeights.first { $0.value == weight }?.key
        }
    }
}
