import TrellisJSON
import TrellisLayout
import TrellisLayoutJSON
import TrellisScreens
import TrellisText

/// Lays a resolved screen out for one viewport: each component becomes a flexbox node (the mapping
/// table is in docs/layout.md, "From a screen to frames"), text is measured with TrellisText, and
/// the frames are rounded to the viewport's pixel grid.
public struct ScreenLayout {
    public let viewport: LayoutViewport
    public let fonts: FontCollection
    /// Whether laid-out text keeps the string of each line (``LaidOutText/lines``), which previews
    /// draw; without, only their number (``LaidOutText/lineCount``), all a layout answer gives.
    public let keepsLines: Bool
    /// The viewport's edges that frames are put on (``place(_:in:)``).
    let screenLines: (x: ScreenLines, y: ScreenLines)

    public init(viewport: LayoutViewport, fonts: FontCollection, keepsLines: Bool = true) {
        self.viewport = viewport
        self.fonts = fonts
        self.keepsLines = keepsLines
        screenLines = ScreenLines.of(viewport)
    }

    /// Platform bar heights in points: navigation bar (inline, large title), tab bar.
    static func navigationBarHeight(_ platform: TextPlatform, large: Bool) -> Float {
        platform == .android ? 64 : (large ? 96 : 44)
    }
    static func tabBarHeight(_ platform: TextPlatform) -> Float { platform == .android ? 80 : 49 }
    /// Image size when a screen gives neither a size nor an aspect ratio: icons and pictures.
    static let iconPlaceholder: Float = 24
    static let imagePlaceholder: Float = 100
    static func placeholderSide(_ values: ComponentProperties) -> Float {
        values["systemIconName"] != nil ? iconPlaceholder : imagePlaceholder
    }
    /// Button padding when the screen gives none (`plain` buttons have none).
    static let buttonPadding: (vertical: Float, horizontal: Float) = (10, 16)

    /// The frames of `screen` (which are the same at every revision).
    public func layOut(_ screen: ResolvedScreen) -> ScreenFrames { layOut(plan(screen, revision: 0)) }

    /// Lays `plan` out at this layout's viewport, which must differ from the plan's in width and
    /// height only.
    public func layOut(_ plan: LayoutPlan) -> ScreenFrames {
        withNodes(of: plan) { root in ScreenFrames(screen: plan.screen, viewport: viewport, root: root.map { result($0) }) }
    }

    /// The compact layout answer of `plan` at this layout's viewport (``layOut(_:)``'s frames as
    /// ``ScreenFrames/jsonValue(revision:)`` encodes them), written as the nodes are read back.
    public func answer(_ plan: LayoutPlan) -> [UInt8] {
        withNodes(of: plan) { root in
            LayoutAnswerWriter.bytes(capacity: plan.answerCapacity) { out in
                plan.head.append(width: viewport.width, height: viewport.height, to: &out)
                if let root { write(root, in: .screen, to: &out) } else { out.append(literal: "null") }
                out.append(byte: 0x7D)
            }
        }
    }

    /// Calls `body` with the nodes of `plan` laid out at this layout's viewport. The nodes are the
    /// plan's last layout's when it keeps them (``LayoutPlan/keepsNodes``) and no other layout
    /// holds them (``NodeTreeShelf``), else new ones.
    private func withNodes<Result>(of plan: LayoutPlan, _ body: (Placed?) -> Result) -> Result {
        let kept = plan.keepsNodes ? plan.nodeTrees.take() : nil
        let tree = kept ?? makeTree(plan)
        let root = tree.root
        if let root { resetSafeAreaInsets(root) }
        tree.screen.style = screenStyle(ignoresSafeArea: plan.ignoresSafeArea)
        let config = LayoutConfig(mode: viewport.mode, pointScaleFactor: viewport.scale)
        tree.screen.calculateLayout(
            availableWidth: viewport.width, availableHeight: viewport.height, direction: viewport.direction, config: config)
        if let root, updateSafeAreaInsets(root, left: 0, top: 0) {
            tree.screen.calculateLayout(
                availableWidth: viewport.width, availableHeight: viewport.height, direction: viewport.direction, config: config)
        }
        let result = body(root)
        if plan.keepsNodes { plan.nodeTrees.put(tree) }
        return result
    }

    /// The screen's node: the viewport, less the safe area unless the root ignores it.
    private func screenStyle(ignoresSafeArea: Bool) -> Style {
        var style = Style(mode: viewport.mode)
        style.flexDirection = .column
        style.alignItems = .stretch
        style.width = .points(viewport.width)
        style.height = .points(viewport.height)
        if !ignoresSafeArea {
            style.padding.top = .points(viewport.safeTop)
            style.padding.bottom = .points(viewport.safeBottom)
        }
        return style
    }

    private func makeTree(_ plan: LayoutPlan) -> NodeTree {
        let screen = LayoutNode(style: screenStyle(ignoresSafeArea: plan.ignoresSafeArea))
        let root = plan.root.map { instantiate($0) }
        if let root { screen.addChild(root.node) }
        return NodeTree(screen: screen, root: root)
    }

    /// The plan of `screen` at `revision` for this layout's viewport (of any width and height).
    /// - Parameter concurrentLayouts: how many layouts of the plan may run at once (the server's
    ///   event loops): the plan keeps at most that many node trees for the next layouts to reuse.
    public func plan(_ screen: ResolvedScreen, revision: Int, concurrentLayouts: Int = 1) -> LayoutPlan {
        let chains = FontChains(fonts)
        return LayoutPlan(
            screen: screen, nodeTrees: NodeTreeShelf(places: concurrentLayouts),
            head: LayoutAnswerWriter.Head(screen, kind: viewport, revision: revision),
            root: screen.root.map {
                plan($0, path: JSONPath.root.appending("root"), in: Parent(axis: .vertical, role: .area), chains: chains)
            },
            ignoresSafeArea: ComponentProperties(members: screen.root?.properties ?? []).bool("ignoresSafeArea") == true)
    }

    // MARK: Building the tree

    enum Axis { case horizontal, vertical }

    /// What a child needs to know of its parent.
    struct Parent {
        enum Role {
            /// A stack, list, scroll view or carousel item.
            case flow
            /// The content of a screen area (root, Navigation, Tab, TabBar): fills it unless sized.
            case area
            /// A ZStack layer above the first: absolutely positioned; `fill` insets it by the
            /// ZStack's padding (top, leading, bottom, trailing).
            case overlay(top: Float, leading: Float, bottom: Float, trailing: Float)
            /// A Pins subview: placed by its container's pins; its size comes from its content
            /// and from the sizes it is given (`fill` is the container's content box).
            case pinned
        }
        var axis: Axis?
        var role: Role
        /// A Carousel's `itemWidth` for its items.
        var itemWidth: ComponentProperties.Size? = nil
    }

    /// One component's nodes in a ``NodeTree``, beside what it was planned as: its node, and its
    /// bar's, separators' and subviews', which are the node's children in the order
    /// ``instantiate(_:)`` adds them.
    final class Placed {
        let planned: PlannedComponent
        let node: LayoutNode
        let bar: LayoutNode?
        let separators: [LayoutNode]
        let children: [Placed]
        /// A text's lines at the content width the last answer counted them for: from one size to
        /// the next, most texts keep their width.
        var counted: (width: Float, lines: (count: Int, truncated: Bool))?

        init(planned: PlannedComponent, node: LayoutNode, bar: LayoutNode?, separators: [LayoutNode], children: [Placed]) {
            self.planned = planned
            self.node = node
            self.bar = bar
            self.separators = separators
            self.children = children
        }

        /// The text's line count and truncation in a content box `width` wide.
        func lineSummary(of spec: TextSpec, width: Float) -> (count: Int, truncated: Bool) {
            if let counted, counted.width == width { return counted.lines }
            let lines = spec.lineSummary(width: width)
            counted = (width, lines)
            return lines
        }
    }

    /// The nodes of `planned` and its subviews: a Navigation's bar first, then each subview (in a
    /// List with separators, a separator between two), a TabBar's bar last.
    func instantiate(_ planned: PlannedComponent) -> Placed {
        let node = LayoutNode(style: planned.style)
        node.tag = planned.layoutId
        switch planned.content {
        case .text(let spec):
            node.measureFunction = spec.measureFunction
        case .placeholder(let side):
            node.measureFunction = { _, _, _, _ in Size(width: side, height: side) }
        case .children:
            node.pinLayout = planned.pinLayout
        }
        let bar = planned.bar.map { LayoutNode(style: $0.style) }
        if let bar, planned.bar?.first == true { node.addChild(bar) }
        var separators: [LayoutNode] = []
        var children: [Placed] = []
        for (index, child) in planned.children.enumerated() {
            if index > 0, let style = planned.separatorStyle {
                separators.append(LayoutNode(style: style))
                node.addChild(separators[separators.count - 1])
            }
            children.append(instantiate(child))
            node.addChild(children[index].node)
        }
        if let bar, planned.bar?.first == false { node.addChild(bar) }
        return Placed(planned: planned, node: node, bar: bar, separators: separators, children: children)
    }

    /// `component` planned at `path` in `parent`; `shown` is false for a TabBar's unselected tabs.
    func plan(
        _ component: ResolvedComponent, path: JSONPath, in parent: Parent, shown: Bool = true, chains: FontChains
    ) -> PlannedComponent {
        let properties = ComponentProperties(members: component.properties)
        let values = ComponentProperties(members: component.values)
        var style = Style(mode: viewport.mode)
        style.flexDirection = .column
        var draft = PlannedComponent.Draft()
        var content = PlannedComponent.Content.children
        var childParent = Parent(axis: .vertical, role: .flow)
        let spacing = properties.number("spacing").map { Dimension.points($0) } ?? .undefined
        // The padding the kind gives a component whose `properties` give none (a button's), for its insets.
        var implicitPadding: (top: Float, leading: Float, bottom: Float, trailing: Float)?
        // Whether the subviews after the first are layers over it (a ZStack's).
        var layersOverFirst = false
        // Whether only the selected subview is shown (a TabBar's tabs).
        var showsSelectedOnly = false

        switch component.kind {
        case .vStack:
            style.rowGap = spacing
            style.alignItems = Self.horizontal(properties.string("horizontalAlignment") ?? "center")
            if Self.isGreedy(component, along: .vertical) { fill(.vertical, in: parent, &style) }
            if Self.isGreedy(component, along: .horizontal) { fill(.horizontal, in: parent, &style) }
        case .hStack:
            style.flexDirection = .row
            style.columnGap = spacing
            style.alignItems = Self.vertical(properties.string("verticalAlignment") ?? "center")
            childParent.axis = .horizontal
            if Self.isGreedy(component, along: .horizontal) { fill(.horizontal, in: parent, &style) }
            if Self.isGreedy(component, along: .vertical) { fill(.vertical, in: parent, &style) }
        case .zStack:
            let alignment = Self.zAlignment(properties.string("alignment") ?? "center")
            style.justifyContent = alignment.justify
            style.alignItems = alignment.align
            layersOverFirst = true
        case .list:
            let separators = properties.bool("separators") ?? true
            style.alignItems = .stretch
            fill(.horizontal, in: parent, &style)
            style.rowGap = separators ? properties.number("spacing").map { .points($0 / 2) } ?? .undefined : spacing
            if separators {
                var separator = Style(mode: viewport.mode)
                separator.height = .points(1 / viewport.scale)
                separator.flexShrink = 0
                separator.alignSelf = .stretch
                draft.separatorStyle = separator
            }
        case .scrollView:
            let horizontal = properties.string("axis") == "horizontal"
            style.flexDirection = horizontal ? .row : .column
            style.overflow = .scroll
            style.alignItems = .stretch
            if horizontal { style.columnGap = spacing } else { style.rowGap = spacing }
            childParent.axis = horizontal ? .horizontal : .vertical
            fill(horizontal ? .horizontal : .vertical, in: parent, &style)
        case .carousel:
            style.flexDirection = .row
            style.overflow = .scroll
            style.alignItems = .flexStart
            style.columnGap = spacing
            childParent.axis = .horizontal
            childParent.itemWidth = properties.size("itemWidth")
            fill(.horizontal, in: parent, &style)
        case .text:
            content = .text(TextSpec(values.string("text") ?? "", properties, defaultStyle: .body, viewport: viewport, fonts: chains))
        case .button:
            let plain = properties.string("style") == "plain"
            content = .text(TextSpec(
                values.string("title") ?? "", properties, defaultStyle: plain ? .body : .headline, viewport: viewport, fonts: chains))
            if !plain {
                let padding = Self.buttonPadding
                style.padding.vertical = .points(padding.vertical)
                style.padding.horizontal = .points(padding.horizontal)
                implicitPadding = (padding.vertical, padding.horizontal, padding.vertical, padding.horizontal)
            }
        case .image:
            let hasWidth = properties["width"] != nil, hasHeight = properties["height"] != nil
            if let ratio = properties.number("aspectRatio") {
                style.aspectRatio = ratio
                if !hasWidth && !hasHeight { style.alignSelf = .stretch }
            } else if case .pinned = parent.role, !hasWidth || !hasHeight {
                // The placeholder is the image's content size, which pins may stretch, as Auto
                // Layout treats an image view's intrinsic size.
                content = .placeholder(Self.placeholderSide(values))
            } else {
                let side = Self.placeholderSide(values)
                if !hasWidth { style.width = .points(side) }
                if !hasHeight { style.height = .points(side) }
            }
        case .spacer:
            style.flexGrow = 1
            style.flexShrink = 1
            if let minLength = properties.number("minLength") {
                if parent.axis == .horizontal { style.minWidth = .points(minLength) } else { style.minHeight = .points(minLength) }
            }
        case .divider:
            let thickness = properties.number("thickness").map { Dimension.points($0) } ?? .points(1 / viewport.scale)
            if parent.axis == .horizontal { style.width = thickness } else { style.height = thickness }
            style.alignSelf = .stretch
            style.flexShrink = 0
        case .rectangle, .circle:
            let hasWidth = properties["width"] != nil, hasHeight = properties["height"] != nil
            if !hasWidth && !hasHeight {
                fill(.horizontal, in: parent, &style)
                fill(.vertical, in: parent, &style)
            } else if component.kind == .circle && hasWidth != hasHeight {
                style.aspectRatio = 1
            }
        case .pins:
            style.alignItems = .stretch
            childParent = Parent(axis: nil, role: .pinned)
            if let pins = component.pins {
                draft.pinLayout = pins.layout(views: component.subviews.map { $0.id ?? "" })
                draft.usesSafeArea = pins.constraints.contains { $0.first.item == .safeArea || $0.second?.item == .safeArea }
            }
        case .navigation:
            style.alignItems = .stretch
            draft.bar = PlannedComponent.Bar(
                style: barStyle(height: Self.navigationBarHeight(viewport.platform, large: properties.string("titleDisplayMode") != "inline")),
                first: true)
            childParent.role = .area
        case .tab:
            style.alignItems = .stretch
            childParent.role = .area
        case .tabBar:
            style.alignItems = .stretch
            draft.bar = PlannedComponent.Bar(style: barStyle(height: Self.tabBarHeight(viewport.platform)), first: false)
            childParent.role = .area
            showsSelectedOnly = true
        }

        applyPlacement(in: parent, properties, &style)
        applyCommon(properties, implicitPadding: implicitPadding, in: parent, &style, &draft)
        if let itemWidth = parent.itemWidth {  // a carousel's items keep the item width, whatever their own
            style.flexGrow = 0
            style.flexShrink = 0
            // An item's own `fill` left a basis of 0, which would outweigh the width set here.
            style.flexBasis = .auto
            set(itemWidth, horizontal: true, in: parent, &style)
        }
        LayoutTree.apply(component.style, to: &style, at: .root, nil)  // validated when the screen was loaded
        if !shown {
            style.display = .none
            draft.hidden = true
        }
        let layoutId = component.id ?? path.description
        guard case .children = content else {
            return PlannedComponent(component, layoutId: layoutId, style: style, content: content, draft: draft, children: [])
        }
        let selected = min(max(0, Int(properties.number("selectedIndex") ?? 0)), max(0, component.subviews.count - 1))
        var children: [PlannedComponent] = []
        children.reserveCapacity(component.subviews.count)
        for (index, child) in component.subviews.enumerated() {
            var placement = childParent
            if layersOverFirst && index > 0 {
                let p = properties.padding() ?? (0, 0, 0, 0)
                placement.role = .overlay(top: p.top, leading: p.leading, bottom: p.bottom, trailing: p.trailing)
            }
            children.append(plan(
                child, path: path.appending("subviews").appending(index), in: placement,
                shown: !showsSelectedOnly || index == selected, chains: chains))
        }
        return PlannedComponent(component, layoutId: layoutId, style: style, content: content, draft: draft, children: children)
    }

    /// Gives the Pins containers that pin to their safe area back the insets they were planned
    /// with, as new nodes have them: a reused tree keeps those of the size it was last laid out at.
    private func resetSafeAreaInsets(_ placed: Placed) {
        guard placed.planned.safeAreaInside else { return }
        if placed.planned.usesSafeArea, let planned = placed.planned.pinLayout,
           placed.node.pinLayout?.safeAreaInsets != planned.safeAreaInsets {
            placed.node.pinLayout = planned
        }
        for child in placed.children { resetSafeAreaInsets(child) }
    }

    /// Gives each Pins container that pins to its safe area the part of it the status bar and the
    /// home indicator cover, from where the last layout put it; returns whether any changed (the
    /// screen is then laid out again: a container's insets do not move the container itself).
    private func updateSafeAreaInsets(_ placed: Placed, left: Float, top: Float) -> Bool {
        guard placed.planned.safeAreaInside else { return false }
        let frame = placed.node.frame
        let absoluteTop = top + frame.top, absoluteBottom = absoluteTop + frame.height
        var changed = false
        if placed.planned.usesSafeArea, var pins = placed.node.pinLayout {
            let insets = PinInsets(
                top: Double(max(0, min(frame.height, viewport.safeTop - absoluteTop))), left: 0,
                bottom: Double(max(0, min(frame.height, absoluteBottom - (viewport.height - viewport.safeBottom)))), right: 0)
            if insets != pins.safeAreaInsets {
                pins.safeAreaInsets = insets
                placed.node.pinLayout = pins
                changed = true
            }
        }
        for child in placed.children where updateSafeAreaInsets(child, left: left + frame.left, top: absoluteTop) {
            changed = true
        }
        return changed
    }

    private func barStyle(height: Float) -> Style {
        var style = Style(mode: viewport.mode)
        style.height = .points(height)
        style.flexShrink = 0
        style.alignSelf = .stretch
        return style
    }
}
