import TrellisLayout
import TrellisText

/// The client's screen a layout is computed for: everything besides the user that changes frames.
/// Part of the answer cache key of layouts and previews.
public struct LayoutViewport: Hashable, Sendable {
    /// Screen size in points.
    public var width: Float
    public var height: Float
    /// Physical pixels per point; frames are rounded to multiples of `1 / scale`.
    public var scale: Float
    /// The user's text size setting (iOS Dynamic Type, Android font scale), 1 by default.
    public var fontScale: Float
    /// Insets of the status bar / notch and of the home indicator, in points.
    public var safeTop: Float
    public var safeBottom: Float
    public var direction: Direction
    /// `.web` for CSS defaults (`?web=1`), else Yoga's.
    public var mode: LayoutMode
    /// Selects text styles, the system font stand-in and bar heights.
    public var platform: TextPlatform

    public init(
        width: Float, height: Float, scale: Float = 3, fontScale: Float = 1, safeTop: Float = 0, safeBottom: Float = 0,
        direction: Direction = .ltr, mode: LayoutMode = .yoga, platform: TextPlatform = .ios
    ) {
        self.width = width
        self.height = height
        self.scale = scale
        self.fontScale = fontScale
        self.safeTop = safeTop
        self.safeBottom = safeBottom
        self.direction = direction
        self.mode = mode
        self.platform = platform
    }

    /// The widths and heights accepted, in points: no screen is narrower than a point, and a
    /// smaller value would round to nothing in the engine's Float.
    public static let sizes: ClosedRange<Float> = 1...10_000
    public static let scales: ClosedRange<Float> = 1...4
    public static let fontScales: ClosedRange<Float> = 0.5...4

    /// The names a viewport is given by (a layout's or preview's query parameters).
    public static let parameterNames = Set(parameterList)
    private static let parameterList = ["width", "height", "scale", "fontScale", "safeTop", "safeBottom", "direction", "web"]

    /// Whether `name` is one of ``parameterNames``. Looked for in a list, lengths first: eight
    /// short names compare in less time than one is hashed, and every screen query's names are
    /// read here.
    public static func isParameter(_ name: String) -> Bool {
        let length = name.utf8.count
        return parameterList.contains { $0.utf8.count == length && $0 == name }
    }

    /// A viewport parameter that is missing or wrong, and why.
    public struct ParameterProblem: Sendable, Equatable {
        public var parameter: String
        public var message: String
    }

    /// Every problem of the parameters a viewport was to be read from.
    public struct ParameterError: Error, Sendable {
        public var problems: [ParameterProblem]
        /// All problems in one line: `width is required: …; scale must be …`.
        public var summary: String { problems.map { "\($0.parameter) \($0.message)" }.joined(separator: "; ") }
    }

    /// Reads a viewport from named values (``parameterNames``), reporting every bad one at once.
    /// - Parameters:
    ///   - value: the text given for a name, nil when it is absent.
    ///   - platform: the user context's `platform`; `android` selects Android, anything else iOS.
    public static func parse(_ value: (String) -> String?, platform: String?) throws(ParameterError) -> LayoutViewport {
        var problems: [ParameterProblem] = []
        func report(_ parameter: String, _ message: String) { problems.append(ParameterProblem(parameter: parameter, message: message)) }
        func number(_ name: String, default fallback: Float?, in range: ClosedRange<Float>) -> Float {
            guard let text = value(name) else {
                if let fallback { return fallback }
                report(name, "is required: the screen's \(name) in points, e.g. \(name)=\(name == "width" ? 390 : 844)")
                return 1
            }
            guard let parsed = Float(text), parsed.isFinite else {
                report(name, "must be a number, not \"\(text)\"")
                return fallback ?? 1
            }
            if !range.contains(parsed) {
                report(name, "must be from \(format(range.lowerBound)) to \(format(range.upperBound)), not \(text)")
            }
            return parsed
        }
        let width = number("width", default: nil, in: sizes)
        let height = number("height", default: nil, in: sizes)
        let scale = number("scale", default: 3, in: scales)
        let fontScale = number("fontScale", default: 1, in: fontScales)
        let safeTop = number("safeTop", default: 0, in: 0...sizes.upperBound)
        let safeBottom = number("safeBottom", default: 0, in: 0...sizes.upperBound)
        var direction = Direction.ltr
        switch value("direction") {
        case nil, "ltr": break
        case "rtl": direction = .rtl
        case let other?: report("direction", "must be ltr or rtl, not \"\(other)\"")
        }
        var web = false
        switch value("web") {
        case nil, "0", "false": break
        case "", "1", "true": web = true
        case _?: report("web", "must be 1, true, 0 or false")
        }
        if problems.isEmpty && safeTop + safeBottom >= height {
            report("safeTop", "plus safeBottom (\(format(safeTop + safeBottom))) must be less than height (\(format(height)))")
        }
        guard problems.isEmpty else { throw ParameterError(problems: problems) }
        return LayoutViewport(
            width: width, height: height, scale: scale, fontScale: fontScale, safeTop: safeTop, safeBottom: safeBottom,
            direction: direction, mode: web ? .web : .yoga, platform: platform == "android" ? .android : .ios)
    }

    private static func format(_ value: Float) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
