import TrellisLayout
import TrellisRendering
import TrellisText

/// A phone a screen is linted on: its platform, its size in points (dp on Android), its pixel
/// density and the insets of its status bar and home indicator.
public struct Device: Hashable, Sendable {
    /// A short name for reports: `ios-small`.
    public var name: String
    public var platform: TextPlatform
    public var width: Float
    public var height: Float
    public var scale: Float
    public var safeTop: Float
    public var safeBottom: Float

    public init(name: String, platform: TextPlatform, width: Float, height: Float, scale: Float, safeTop: Float = 0, safeBottom: Float = 0) {
        self.name = name
        self.platform = platform
        self.width = width
        self.height = height
        self.scale = scale
        self.safeTop = safeTop
        self.safeBottom = safeBottom
    }

    /// iPhone SE (1st generation), 320×568 @2x: the narrowest iPhone apps still meet (docs/layout.md).
    public static let iosSmall = Device(name: "ios-small", platform: .ios, width: 320, height: 568, scale: 2, safeTop: 20)
    /// iPhone Pro Max, 430×932 @3x (docs/layout.md).
    public static let iosLarge = Device(name: "ios-large", platform: .ios, width: 430, height: 932, scale: 3, safeTop: 59, safeBottom: 34)
    /// A small Android phone, 360×640 dp @3x (xxhdpi): the most common small Android viewport.
    public static let androidSmall = Device(name: "android-small", platform: .android, width: 360, height: 640, scale: 3, safeTop: 24)
    /// A large Android phone, 412×915 dp @2.625 (Pixel 7 Pro class).
    public static let androidLarge = Device(name: "android-large", platform: .android, width: 412, height: 915, scale: 2.625, safeTop: 24)

    public static let standard: [Device] = [iosSmall, iosLarge, androidSmall, androidLarge]

    /// The unit sizes are given in on the device's platform: `pt` on iOS, `dp` on Android.
    public var unit: String { platform == .android ? "dp" : "pt" }
}

/// One way a user meets a screen: a device at a text size.
public struct LintConfiguration: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var device: Device
    /// The user's text size setting (iOS Dynamic Type, Android font scale).
    public var fontScale: Float
    /// The writing direction of the locale linted: right to left for Arabic, Hebrew, Persian, ….
    public var direction: Direction

    public init(device: Device, fontScale: Float, direction: Direction = .ltr) {
        self.device = device
        self.fontScale = fontScale
        self.direction = direction
    }

    /// The text sizes linted: the default, a common larger setting, and the largest commonly set.
    public static let fontScales: [Float] = [1, 1.3, 2]

    /// Every standard device at every font scale: 12 configurations.
    public static let matrix: [LintConfiguration] = Device.standard.flatMap { device in
        fontScales.map { LintConfiguration(device: device, fontScale: $0) }
    }

    /// The viewport this configuration lays a screen out in.
    public var viewport: LayoutViewport {
        LayoutViewport(
            width: device.width, height: device.height, scale: device.scale, fontScale: fontScale,
            safeTop: device.safeTop, safeBottom: device.safeBottom, direction: direction, platform: device.platform)
    }

    /// `ios-small@1.3`.
    public var description: String { "\(device.name)@\(LintNumber.text(Double(fontScale)))\(direction == .rtl ? " rtl" : "")" }

    public static func < (a: LintConfiguration, b: LintConfiguration) -> Bool {
        (a.device.name, a.fontScale, a.direction.rawValue) < (b.device.name, b.fontScale, b.direction.rawValue)
    }
}

/// Numbers as findings write them: `44`, `41.5`, `2.85`.
enum LintNumber {
    static func text(_ value: Double, decimals: Int = 2) -> String {
        var factor = 1.0
        for _ in 0..<decimals { factor *= 10 }
        let rounded = (value * factor).rounded() / factor
        if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int(rounded)) }
        var text = String(rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
