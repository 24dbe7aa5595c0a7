import TrellisJSON
import TrellisLayout

extension AuthoringSchema {
    /// How the layout engine reads one Yoga style property (`Style.set(_:_:)` in TrellisLayout).
    enum StyleValueKind {
        /// One of a keyword enum's raw values, or an alias.
        case keyword([String])
        /// A number, or a string of one; `"auto"` and `""` leave it unset.
        case number
        /// Points, `"N%"`, `"Npx"`, `"undefined"`, `""`; `"auto"` and the sizing keywords where allowed.
        case length(auto: Bool, keywords: Bool)

        var schema: JSONValue {
            let num = Pattern.styleNumber
            switch self {
            case .keyword(let names):
                return object([("enum", .array(names.map(JSONValue.string) + [.null]))])
            case .number:
                return object([("type", strings(["number", "string", "null"])), ("pattern", .string("^(|auto|\(num))$"))])
            case .length(let auto, let keywords):
                var forms = ["", "undefined", "\(num)(%|px)?"]
                if auto { forms.append("auto") }
                if keywords { forms += ["max-content", "fit-content", "stretch"] }
                return object([("type", strings(["number", "string", "null"])), ("pattern", .string("^(\(forms.joined(separator: "|")))$"))])
            }
        }
    }

    /// Every style property name the layout engine reads, in `Style.set`'s order, with its values.
    /// The names are listed here because the engine's parser is a switch; `AuthoringSchemaTests`
    /// checks each against the engine.
    static var styleProperties: [(name: String, kind: StyleValueKind)] {
        func keywords<T: RawRepresentable & CaseIterable>(_ type: T.Type, _ aliases: [String] = []) -> StyleValueKind where T.RawValue == String {
            .keyword(T.allCases.map(\.rawValue) + aliases)
        }
        let align = keywords(Align.self, ["start", "end", "normal"])
        var properties: [(String, StyleValueKind)] = [
            ("direction", keywords(Direction.self)), ("flexDirection", keywords(FlexDirection.self)),
            ("justifyContent", keywords(Justify.self, ["start", "end"])), ("alignContent", align), ("alignItems", align),
            ("alignSelf", align), ("positionType", keywords(PositionType.self)), ("position", keywords(PositionType.self)),
            ("flexWrap", keywords(Wrap.self, ["no-wrap"])), ("overflow", keywords(Overflow.self)), ("display", keywords(Display.self)),
            ("boxSizing", keywords(BoxSizing.self)),
            ("flex", .number), ("flexGrow", .number), ("flexShrink", .number), ("aspectRatio", .number),
            ("flexBasis", .length(auto: true, keywords: true)), ("width", .length(auto: true, keywords: true)),
            ("height", .length(auto: true, keywords: true)),
        ]
        for name in ["minWidth", "minHeight", "maxWidth", "maxHeight", "gap", "columnGap", "rowGap"] {
            properties.append((name, .length(auto: false, keywords: false)))
        }
        let edges = ["", "All", "Left", "Top", "Right", "Bottom", "Start", "End", "Horizontal", "Vertical"]
        for (prefix, auto) in [("margin", true), ("padding", false), ("border", false)] {
            properties += edges.map { (prefix + $0, .length(auto: auto, keywords: false)) }
        }
        for name in ["left", "top", "right", "bottom", "start", "end", "horizontal", "vertical", "all"] {
            properties.append((name, .length(auto: true, keywords: false)))
        }
        return properties
    }

    static func styleDefinitions() -> [(String, JSONValue)] {
        [
            (
                "style",
                described(
                    "Raw flexbox style by Yoga style name, applied over what the type and properties give (docs/screens.md, \"Raw style\"). Numbers are points; null leaves a property unset.",
                    closedObject(styleProperties.map { ($0.name, $0.kind.schema) }))
            )
        ]
    }
}
