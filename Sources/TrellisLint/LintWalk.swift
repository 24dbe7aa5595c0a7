import TrellisJSON
import TrellisLayout
import TrellisRendering
import TrellisScreens

/// A rectangle on the screen, in points from its top left corner.
struct ScreenRect {
    var x: Float, y: Float, width: Float, height: Float
    var maxX: Float { x + width }
    var maxY: Float { y + height }
}

/// One laid-out screen walked once, in one configuration: each rule looks at each component
/// where it is met, with its place on the screen and what lies under it.
struct LintWalk {
    let screenId: String
    let locale: String
    let configuration: LintConfiguration
    let options: LintOptions
    var findings: [LintFinding] = []
    /// Every tap target met, judged together at the end (the spacing exception compares them).
    var targets: [(node: LaidOutComponent, path: JSONPath, rect: ScreenRect)] = []

    /// Frames are rounded to the pixel grid: a size may be a pixel off what was asked.
    var pixel: Float { 1 / configuration.device.scale }
    var unit: String { configuration.device.unit }

    init(screenId: String, locale: String, configuration: LintConfiguration, options: LintOptions) {
        self.screenId = screenId
        self.locale = locale
        self.configuration = configuration
        self.options = options
    }

    mutating func report(_ rule: LintRule, _ node: LaidOutComponent, at path: JSONPath, _ value: String) {
        findings.append(LintFinding(
            screenId: screenId, path: path, layoutId: node.layoutId, rule: rule, locale: locale, configuration: configuration, value: value))
    }

    /// - Parameters:
    ///   - paths: the node's authored paths, when known; else `resolvedPath` names it.
    ///   - origin: where the parent's frame starts on the screen.
    ///   - ancestors: the node's ancestors, root first, for what is painted under it.
    mutating func visit(
        _ node: LaidOutComponent, paths: AuthoredPaths?, resolvedPath: JSONPath, origin: (x: Float, y: Float),
        ancestors: [LaidOutComponent], scrollsHorizontally: Bool
    ) {
        guard !node.isHidden else { return }
        let path = paths?.path ?? resolvedPath
        let rect = ScreenRect(x: origin.x + node.frame.left, y: origin.y + node.frame.top, width: node.frame.width, height: node.frame.height)
        let properties = Members(node.component.properties)
        let overflows = !scrollsHorizontally && (rect.x < -pixel || rect.maxX > Float(configuration.device.width) + pixel)
        if overflows { checkOverflow(node, rect, at: path, ancestors: ancestors) }
        if let text = node.text, !text.text.isEmpty {
            checkTruncation(node, text, at: path)
            // Where the glyphs are: inside the text's padding, which a longer translation may push
            // past a picture under it while the glyphs stay on it.
            let insets = node.insets
            let glyphs = ScreenRect(
                x: rect.x + insets.left, y: rect.y + insets.top, width: max(rect.width - insets.left - insets.right, 0),
                height: max(rect.height - insets.top - insets.bottom, 0))
            checkContrast(node, text, glyphs, at: path, ancestors: ancestors)
        }
        checkLabel(node, at: path)
        if node.component.kind == .button || properties["action"] != nil { targets.append((node, path, rect)) }
        let horizontal = node.component.kind == .carousel
            || (node.component.kind == .scrollView && properties.string("axis") == "horizontal")
        // The authored paths match the resolved subviews one to one; should they ever not, the
        // resolved paths are still true of the answer.
        let childPaths = paths.flatMap { $0.subviews.count == node.subviews.count ? $0.subviews : nil }
        for (index, child) in node.subviews.enumerated() {
            visit(
                child, paths: childPaths?[index], resolvedPath: resolvedPath.appending("subviews").appending(index), origin: (rect.x, rect.y),
                ancestors: ancestors + [node], scrollsHorizontally: scrollsHorizontally || horizontal)
        }
    }

    // MARK: overflow

    /// Reported at the outermost component past the edge: what is inside it goes with it.
    private mutating func checkOverflow(_ node: LaidOutComponent, _ rect: ScreenRect, at path: JSONPath, ancestors: [LaidOutComponent]) {
        var x: Float = 0
        for ancestor in ancestors {
            x += ancestor.frame.left
            if x < -pixel || x + ancestor.frame.width > Float(configuration.device.width) + pixel { return }
        }
        let width = LintNumber.text(Double(configuration.device.width))
        report(.overflow, node, at: path, "from \(LintNumber.text(Double(rect.x))) to \(LintNumber.text(Double(rect.maxX))) \(unit) in a \(width) \(unit) viewport")
    }

    // MARK: text-truncated

    private mutating func checkTruncation(_ node: LaidOutComponent, _ text: LaidOutText, at path: JSONPath) {
        if text.isTruncated {
            let limit = Members(node.component.properties).number("lineLimit").map { Int($0) } ?? text.lineCount
            return report(.textTruncated, node, at: path, "cut at lineLimit \(limit): needs more than \(limit) line\(limit == 1 ? "" : "s")")
        }
        let contentHeight = Double(node.frame.height - node.insets.top - node.insets.bottom)
        let needed = Double(text.lineCount) * text.lineHeight
        guard needed > contentHeight + Double(pixel), text.lineHeight > 0 else { return }
        let fits = max(0, Int(((contentHeight + Double(pixel)) / text.lineHeight).rounded(.down)))
        report(.textTruncated, node, at: path, "\(text.lineCount) lines in a frame of \(fits)")
    }

    // MARK: label

    private mutating func checkLabel(_ node: LaidOutComponent, at path: JSONPath) {
        let properties = Members(node.component.properties)
        let label = properties.string("accessibilityLabel").map(Self.trimmed) ?? ""
        switch node.component.kind {
        case .image:
            guard properties.bool("decorative") != true, label.isEmpty else { return }
            report(.label, node, at: path, "image without accessibilityLabel (not marked decorative)")
        case .button:
            let title = Members(node.component.values).string("title").map(Self.trimmed) ?? ""
            guard label.isEmpty, title.isEmpty else { return }
            report(.label, node, at: path, "button without a name (no accessibilityLabel, blank title)")
        default:
            return
        }
    }

    /// The text without the white space around it: a label of spaces says nothing.
    static func trimmed(_ text: String) -> String {
        String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

/// A component's `properties` or `values`, read by name (the decoder checked their types).
struct Members {
    let members: [JSONMember]
    init(_ members: [JSONMember]) { self.members = members }
    subscript(key: String) -> JSONValue? { members.first { $0.key == key }?.value }
    func string(_ key: String) -> String? { self[key]?.stringValue }
    func number(_ key: String) -> Double? { self[key]?.numberValue }
    func bool(_ key: String) -> Bool? { self[key]?.boolValue }
}
