/// A style value as written in Yoga's style names: a number (points, or a plain number for
/// `flexGrow`, `aspectRatio`…) or a string (`"50%"`, `"auto"`, `"row"`, `"12"`).
public enum StyleValue: Equatable, Sendable {
    case number(Float)
    case string(String)
}

/// Why a style property could not be applied.
public enum StyleParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The property name is not one of Yoga's.
    case unknownProperty(String)
    /// The value is not valid for the property; `expected` lists what is.
    case invalidValue(property: String, value: String, expected: String)
    /// A valid CSS value that this engine (like Yoga 3.2) does not implement, e.g. `max-content`.
    case unsupportedValue(property: String, value: String)

    public var description: String {
        switch self {
        case .unknownProperty(let name): return "unknown style property \"\(name)\""
        case .invalidValue(let property, let value, let expected):
            return "invalid value \"\(value)\" for \(property), expected \(expected)"
        case .unsupportedValue(let property, let value): return "\(property): \"\(value)\" is not supported"
        }
    }
}

/// Setting style properties by their Yoga names (`flexDirection`, `marginStart`, `width`…), the
/// names used by Yoga's test fixtures, React Native and the `trellis layout` tree files.
extension Style {
    /// Sets the property `name` from `value`.
    /// - Throws: `StyleParseError` naming the property and what it accepts.
    public mutating func set(_ name: String, _ value: StyleValue) throws(StyleParseError) {
        switch name {
        case "direction": direction = try keyword(name, value, Direction.self)
        case "flexDirection": flexDirection = try keyword(name, value, FlexDirection.self)
        case "justifyContent": justifyContent = try keyword(name, value, Justify.self, aliases: ["start": .flexStart, "end": .flexEnd])
        case "alignContent": alignContent = try keyword(name, value, Align.self, aliases: Self.alignAliases)
        case "alignItems": alignItems = try keyword(name, value, Align.self, aliases: Self.alignAliases)
        case "alignSelf": alignSelf = try keyword(name, value, Align.self, aliases: Self.alignAliases)
        case "positionType", "position": positionType = try keyword(name, value, PositionType.self)
        case "flexWrap": flexWrap = try keyword(name, value, Wrap.self, aliases: ["no-wrap": .noWrap])
        case "overflow": overflow = try keyword(name, value, Overflow.self)
        case "display": display = try keyword(name, value, Display.self)
        case "boxSizing": boxSizing = try keyword(name, value, BoxSizing.self)
        case "flex": flex = try number(name, value)
        case "flexGrow": flexGrow = try number(name, value)
        case "flexShrink": flexShrink = try number(name, value)
        case "aspectRatio": aspectRatio = try number(name, value)
        case "flexBasis": flexBasis = try length(name, value, allowAuto: true)
        case "width": width = try length(name, value, allowAuto: true)
        case "height": height = try length(name, value, allowAuto: true)
        case "minWidth": minWidth = try length(name, value, allowAuto: false)
        case "minHeight": minHeight = try length(name, value, allowAuto: false)
        case "maxWidth": maxWidth = try length(name, value, allowAuto: false)
        case "maxHeight": maxHeight = try length(name, value, allowAuto: false)
        case "gap": gap = try length(name, value, allowAuto: false)
        case "columnGap": columnGap = try length(name, value, allowAuto: false)
        case "rowGap": rowGap = try length(name, value, allowAuto: false)
        default:
            try setEdge(name, value)
        }
    }

    private static let alignAliases: [String: Align] = ["start": .flexStart, "end": .flexEnd, "normal": .stretch]

    /// `margin…`, `padding…`, `border…` and the insets (`left`, `top`, `start`…).
    private mutating func setEdge(_ name: String, _ value: StyleValue) throws(StyleParseError) {
        for (prefix, allowAuto) in [("margin", true), ("padding", false), ("border", false)] where name.hasPrefix(prefix) {
            guard let edge = Self.edgeKeyPath(String(name.dropFirst(prefix.count))) else { break }
            let parsed = try length(name, value, allowAuto: allowAuto)
            switch prefix {
            case "margin": margin[keyPath: edge] = parsed
            case "padding": padding[keyPath: edge] = parsed
            default: border[keyPath: edge] = parsed
            }
            return
        }
        let insetNames = ["left", "top", "right", "bottom", "start", "end", "horizontal", "vertical", "all"]
        if insetNames.contains(name), let edge = Self.edgeKeyPath(name.prefix(1).uppercased() + name.dropFirst()) {
            position[keyPath: edge] = try length(name, value, allowAuto: true)
            return
        }
        throw .unknownProperty(name)
    }

    private static func edgeKeyPath(_ suffix: String) -> WritableKeyPath<Edges, Dimension>? {
        switch suffix {
        case "": return \.all
        case "All": return \.all
        case "Left": return \.left
        case "Top": return \.top
        case "Right": return \.right
        case "Bottom": return \.bottom
        case "Start": return \.start
        case "End": return \.end
        case "Horizontal": return \.horizontal
        case "Vertical": return \.vertical
        default: return nil
        }
    }

    private func keyword<T: RawRepresentable & CaseIterable>(_ name: String, _ value: StyleValue, _ type: T.Type,
                                                             aliases: [String: T] = [:]) throws(StyleParseError) -> T
    where T.RawValue == String {
        let expected = "one of " + T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        guard case .string(let text) = value else {
            throw .invalidValue(property: name, value: Self.describe(value), expected: expected)
        }
        if let parsed = T(rawValue: text) ?? aliases[text] { return parsed }
        throw .invalidValue(property: name, value: text, expected: expected)
    }

    private func number(_ name: String, _ value: StyleValue) throws(StyleParseError) -> Float? {
        switch value {
        case .number(let number): return number
        case .string(let text):
            if text == "auto" || text.isEmpty { return nil }
            if let number = Float(text) { return number }
            throw .invalidValue(property: name, value: text, expected: "a number")
        }
    }

    /// Points (a number or `"12"`/`"12px"`), a percentage (`"50%"`) or, where allowed, `"auto"`.
    private func length(_ name: String, _ value: StyleValue, allowAuto: Bool) throws(StyleParseError) -> Dimension {
        switch value {
        case .number(let number): return number.isNaN ? .undefined : .points(number)
        case .string(let text):
            if text == "auto" {
                if allowAuto { return .auto }
                throw .invalidValue(property: name, value: text, expected: "points or a percentage")
            }
            if text == "undefined" || text.isEmpty { return .undefined }
            if text.hasSuffix("%"), let number = Float(text.dropLast()) { return .percent(number) }
            if let number = Float(text.hasSuffix("px") ? String(text.dropLast(2)) : text) { return .points(number) }
            let keywordsAllowed = ["width", "height", "flexBasis"].contains(name)
            if keywordsAllowed && text == "max-content" { return .maxContent }
            if keywordsAllowed && text == "fit-content" { return .fitContent }
            if keywordsAllowed && text == "stretch" { return .stretch }
            if ["max-content", "min-content", "fit-content", "stretch", "content"].contains(text) {
                throw .unsupportedValue(property: name, value: text)
            }
            throw .invalidValue(property: name, value: text,
                                expected: allowAuto ? "points, a percentage or \"auto\"" : "points or a percentage")
        }
    }

    private static func describe(_ value: StyleValue) -> String {
        switch value {
        case .number(let number): return "\(number)"
        case .string(let text): return text
        }
    }
}
