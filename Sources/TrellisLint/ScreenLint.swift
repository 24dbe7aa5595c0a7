import TrellisJSON
import TrellisLayout
import TrellisRendering
import TrellisScreens
import TrellisText

/// Thresholds a lint judges by. The defaults are the platforms' own; the oracle
/// (scripts/lint-vs-axe) sets axe-core's, to compare like with like.
public struct LintOptions: Hashable, Sendable {
    /// The least width and height of a tap target, in points (iOS) or dp (Android): Apple's Human
    /// Interface Guidelines ask 44×44 pt, Material Design 48×48 dp.
    public var minimumTarget: [TextPlatform: Float]
    /// WCAG 2.5.8's spacing exception: a smaller target passes when a circle of the minimum's
    /// diameter centred on it meets no other target, nor the circle of another small one. The
    /// platforms' guidelines have no such exception; axe-core applies it.
    public var targetSpacingException: Bool
    /// What is behind a screen's root: the previews' page (light; screens have no dark colours).
    public var screenBackground: PaintedColor

    public init(
        minimumTarget: [TextPlatform: Float] = [.ios: 44, .android: 48], targetSpacingException: Bool = false,
        screenBackground: PaintedColor = .screenBackground
    ) {
        self.minimumTarget = minimumTarget
        self.targetSpacingException = targetSpacingException
        self.screenBackground = screenBackground
    }

    /// WCAG 2.5.8 (AA) as axe-core checks it: 24×24 CSS px, with the spacing exception.
    public static let wcagTargetSize = LintOptions(minimumTarget: [.ios: 24, .android: 24], targetSpacingException: true)
}

/// Checks a screen the way users meet it: lays it out for each configuration with the layout
/// core and reports what a user would meet — text cut or clipped, small tap targets, low
/// contrast, unnamed images and buttons, content off the screen (``LintRule``).
public struct ScreenLint: Sendable {
    public let fonts: FontCollection
    public let options: LintOptions

    public init(fonts: FontCollection, options: LintOptions = LintOptions()) {
        self.fonts = fonts
        self.options = options
    }

    /// The findings of one resolved screen, sorted, one per rule, component and configuration.
    /// - Parameters:
    ///   - screen: the screen as a client receives it (its strings already in `locale`).
    ///   - screenId: the id findings name; the resolved screen's by default.
    ///   - locale: the locale tag the screen's strings were resolved in, which findings carry.
    ///   - paths: where each component is in the document; without, the resolved tree's own paths
    ///     (the same for a screen without Rules and Experiments).
    public func findings(
        screen: ResolvedScreen, screenId: String? = nil, locale: String, configurations: [LintConfiguration] = LintConfiguration.matrix,
        paths: AuthoredPaths? = nil
    ) -> [LintFinding] {
        var found: [LintFinding] = []
        for configuration in configurations {
            let frames = ScreenLayout(viewport: configuration.viewport, fonts: fonts).layOut(screen)
            guard let root = frames.root else { continue }
            var walk = LintWalk(
                screenId: screenId ?? screen.id, locale: locale, configuration: configuration, options: options)
            walk.visit(root, paths: paths, resolvedPath: JSONPath.root.appending("root"), origin: (0, 0), ancestors: [], scrollsHorizontally: false)
            found += walk.tapTargetFindings()
            found += walk.findings
        }
        return found.sorted()
    }

    /// The findings of every screen a user can be shown of `screen` (``Screen/reachableScreens(resolver:limit:)``):
    /// each variant's components at their authored paths, a finding met in several variants once.
    /// - Parameter filling: what fills each resolved screen's placeholders in, as a request would;
    ///   by default the sample parameters (``Screen/sampleParameters``). A caller with string tables
    ///   passes one that puts in `locale`'s strings too.
    public func findings(
        screen: Screen, locale: String, configurations: [LintConfiguration] = LintConfiguration.matrix,
        resolver: ScreenResolver = ScreenResolver(), filling: ((ResolvedScreen) throws -> ResolvedScreen)? = nil
    ) throws -> [LintFinding] {
        let samples = screen.sampleParameters
        let fill = filling ?? { resolved in try resolved.substituting(samples, registry: resolver.registry) }
        var seen: Set<LintFinding.Key> = []
        var found: [LintFinding] = []
        for reachable in screen.reachableScreens(resolver: resolver) {
            for finding in findings(screen: try fill(reachable.screen), locale: locale, configurations: configurations, paths: reachable.paths)
            where seen.insert(finding.key).inserted {
                found.append(finding)
            }
        }
        return found.sorted()
    }
}
