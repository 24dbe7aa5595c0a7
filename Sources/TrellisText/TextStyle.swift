/// The platform a client runs on, for its text styles and system font stand-in.
public enum TextPlatform: String, CaseIterable, Hashable, Sendable {
    case ios
    case android

    /// The family shipped in `Config/fonts/` that stands in for the platform's system font:
    /// Inter for iOS (SF Pro is not redistributable), Roboto for Android.
    public var systemFamily: String {
        switch self {
        case .ios: return "Inter"
        case .android: return "Roboto"
        }
    }
}

/// Point size, weight and line height of a named text style on one platform, at font scale 1.
public struct TextStyleMetrics: Hashable, Sendable {
    public var size: Double
    public var weight: Int
    /// Line height in points.
    public var lineHeight: Double

    public init(size: Double, weight: Int, lineHeight: Double) {
        self.size = size
        self.weight = weight
        self.lineHeight = lineHeight
    }
}

/// A named text style: the iOS Dynamic Type styles (`largeTitle` … `caption2`), or the Material 3
/// type scale names (`displayLarge` … `labelSmall`). Each platform resolves every name: iOS maps a
/// Material name to the nearest iOS style, Android maps an iOS name to its Material counterpart
/// (the tables are in docs/text.md).
public struct TextStyle: Hashable, Sendable, CustomStringConvertible {
    public let name: String

    /// The style called `name` (iOS or Material 3 name; `title1` and `caption1` are accepted as
    /// aliases), or nil when no such style exists.
    public init?(name: String) {
        let canonical = name == "title1" ? "title" : name == "caption1" ? "caption" : name
        guard TextStyle.iosTable[canonical] != nil || TextStyle.iosAliases[canonical] != nil else { return nil }
        self.name = canonical
    }

    private init(known: String) { name = known }

    public var description: String { name }

    public static let largeTitle = TextStyle(known: "largeTitle")
    public static let title = TextStyle(known: "title")
    public static let title2 = TextStyle(known: "title2")
    public static let title3 = TextStyle(known: "title3")
    public static let headline = TextStyle(known: "headline")
    public static let body = TextStyle(known: "body")
    public static let callout = TextStyle(known: "callout")
    public static let subheadline = TextStyle(known: "subheadline")
    public static let footnote = TextStyle(known: "footnote")
    public static let caption = TextStyle(known: "caption")
    public static let caption2 = TextStyle(known: "caption2")

    /// The iOS styles, largest first.
    public static let iosStyles: [TextStyle] = [
        .largeTitle, .title, .title2, .title3, .headline, .body, .callout, .subheadline, .footnote, .caption, .caption2,
    ]
    /// The Material 3 type scale, largest first.
    public static let materialStyles: [TextStyle] = [
        "displayLarge", "displayMedium", "displaySmall", "headlineLarge", "headlineMedium", "headlineSmall",
        "titleLarge", "titleMedium", "titleSmall", "bodyLarge", "bodyMedium", "bodySmall",
        "labelLarge", "labelMedium", "labelSmall",
    ].map { TextStyle(known: $0) }

    /// iOS Dynamic Type at the default ("Large") content size: Apple HIG, Typography, "iOS, iPadOS
    /// Dynamic Type sizes".
    static let iosTable: [String: TextStyleMetrics] = [
        "largeTitle": .init(size: 34, weight: 400, lineHeight: 41),
        "title": .init(size: 28, weight: 400, lineHeight: 34),
        "title2": .init(size: 22, weight: 400, lineHeight: 28),
        "title3": .init(size: 20, weight: 400, lineHeight: 25),
        "headline": .init(size: 17, weight: 600, lineHeight: 22),
        "body": .init(size: 17, weight: 400, lineHeight: 22),
        "callout": .init(size: 16, weight: 400, lineHeight: 21),
        "subheadline": .init(size: 15, weight: 400, lineHeight: 20),
        "footnote": .init(size: 13, weight: 400, lineHeight: 18),
        "caption": .init(size: 12, weight: 400, lineHeight: 16),
        "caption2": .init(size: 11, weight: 400, lineHeight: 13),
    ]
    /// Material 3 name → the iOS style used for it on iOS.
    static let iosAliases: [String: String] = [
        "displayLarge": "largeTitle", "displayMedium": "largeTitle", "displaySmall": "largeTitle",
        "headlineLarge": "largeTitle", "headlineMedium": "title", "headlineSmall": "title2",
        "titleLarge": "title3", "titleMedium": "headline", "titleSmall": "subheadline",
        "bodyLarge": "body", "bodyMedium": "callout", "bodySmall": "footnote",
        "labelLarge": "subheadline", "labelMedium": "caption", "labelSmall": "caption2",
    ]
    /// Material 3 type scale (m3.material.io, Typography, "Type scale tokens"), size/line height in sp.
    static let androidTable: [String: TextStyleMetrics] = [
        "displayLarge": .init(size: 57, weight: 400, lineHeight: 64),
        "displayMedium": .init(size: 45, weight: 400, lineHeight: 52),
        "displaySmall": .init(size: 36, weight: 400, lineHeight: 44),
        "headlineLarge": .init(size: 32, weight: 400, lineHeight: 40),
        "headlineMedium": .init(size: 28, weight: 400, lineHeight: 36),
        "headlineSmall": .init(size: 24, weight: 400, lineHeight: 32),
        "titleLarge": .init(size: 22, weight: 400, lineHeight: 28),
        "titleMedium": .init(size: 16, weight: 500, lineHeight: 24),
        "titleSmall": .init(size: 14, weight: 500, lineHeight: 20),
        "bodyLarge": .init(size: 16, weight: 400, lineHeight: 24),
        "bodyMedium": .init(size: 14, weight: 400, lineHeight: 20),
        "bodySmall": .init(size: 12, weight: 400, lineHeight: 16),
        "labelLarge": .init(size: 14, weight: 500, lineHeight: 20),
        "labelMedium": .init(size: 12, weight: 500, lineHeight: 16),
        "labelSmall": .init(size: 11, weight: 500, lineHeight: 16),
    ]
    /// iOS name → the Material 3 style used for it on Android.
    static let androidAliases: [String: String] = [
        "largeTitle": "headlineLarge", "title": "headlineMedium", "title2": "headlineSmall",
        "title3": "titleLarge", "headline": "titleMedium", "body": "bodyLarge", "callout": "bodyMedium",
        "subheadline": "titleSmall", "footnote": "bodySmall", "caption": "labelMedium", "caption2": "labelSmall",
    ]

    /// Size, weight and line height of this style on `platform` at font scale 1.
    public func metrics(on platform: TextPlatform) -> TextStyleMetrics {
        switch platform {
        case .ios: return TextStyle.iosTable[name] ?? TextStyle.iosTable[TextStyle.iosAliases[name] ?? "body"]!
        case .android:
            return TextStyle.androidTable[name] ?? TextStyle.androidTable[TextStyle.androidAliases[name] ?? "bodyLarge"]!
        }
    }

    /// What to measure this style with on `platform`: the platform's system family stand-in (or
    /// `family`), the style's weight (or `weight`), and size and line height multiplied by
    /// `fontScale` (iOS Dynamic Type or Android font scale; 1 is the default, applied linearly).
    public func attributes(
        on platform: TextPlatform, fontScale: Double = 1, family: String? = nil, weight: Int? = nil,
        lineLimit: Int = 0
    ) -> TextAttributes {
        let m = metrics(on: platform)
        let scale = fontScale.isFinite && fontScale > 0 ? fontScale : 1
        return TextAttributes(
            family: family ?? platform.systemFamily, weight: weight ?? m.weight, size: m.size * scale,
            lineHeight: .points(m.lineHeight * scale), lineLimit: lineLimit)
    }
}
