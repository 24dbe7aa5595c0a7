import TrellisJSON
import TrellisLayout
import TrellisScreens
import TrellisText

/// The common properties, `fill`, alignments, and reading the results back.
extension ScreenLayout {
    /// How the parent places this component: screen areas fill, ZStack layers float, carousel
    /// items take the item width.
    func applyPlacement(in parent: Parent, _ properties: ComponentProperties, _ style: inout Style) {
        switch parent.role {
        case .flow:
            // Views in a row give up width as SwiftUI's do (text wraps) rather than overflow.
            if parent.axis == .horizontal && parent.itemWidth == nil { style.flexShrink = 1 }
        case .area:
            if properties["height"] == nil {
                style.flexGrow = 1
                style.flexShrink = 1
            }
        case .overlay:
            style.positionType = .absolute
        case .pinned:
            break
        }
    }

    /// width/height/min/max, padding, borderWidth, flexGrow, hidden.
    /// - Parameter implicitPadding: the padding the component's kind gives it when `properties` give none
    ///   (already in `style`), for its insets.
    func applyCommon(
        _ properties: ComponentProperties, implicitPadding: (top: Float, leading: Float, bottom: Float, trailing: Float)?,
        in parent: Parent, _ style: inout Style, _ draft: inout PlannedComponent.Draft
    ) {
        if let width = properties.size("width") { set(width, horizontal: true, in: parent, &style) }
        if let height = properties.size("height") { set(height, horizontal: false, in: parent, &style) }
        func limit(_ size: ComponentProperties.Size?) -> Dimension? {
            switch size {
            case .points(let p): return .points(p)
            case .percent(let p): return .percent(p)
            case .fill: return .percent(100)
            case .auto: return .undefined
            case nil: return nil
            }
        }
        if let d = limit(properties.size("minWidth")) { style.minWidth = d }
        if let d = limit(properties.size("maxWidth")) { style.maxWidth = d }
        if let d = limit(properties.size("minHeight")) { style.minHeight = d }
        if let d = limit(properties.size("maxHeight")) { style.maxHeight = d }
        var insets = (top: Float(0), leading: Float(0), bottom: Float(0), trailing: Float(0))
        if let padding = properties.padding() {
            style.padding = Edges()
            style.padding.top = .points(padding.top)
            style.padding.bottom = .points(padding.bottom)
            style.padding.start = .points(padding.leading)
            style.padding.end = .points(padding.trailing)
            insets = padding
        } else if let implicitPadding {
            insets = implicitPadding
        }
        let border = properties.number("borderWidth") ?? 0
        if border > 0 { style.border.all = .points(border) }
        if let grow = properties.number("flexGrow") {
            style.flexGrow = grow
            if grow > 0 {  // a share of the free space from zero, like `flex: N`, so equal weights give equal sizes
                style.flexShrink = 1
                style.flexBasis = .points(0)
            }
        }
        if properties.bool("hidden") == true {
            style.display = .none
            draft.hidden = true
        }
        let rtl = viewport.direction == .rtl
        draft.insets = (
            insets.top + border, (rtl ? insets.trailing : insets.leading) + border, insets.bottom + border,
            (rtl ? insets.leading : insets.trailing) + border
        )
    }

    /// A size on one axis; `fill` grows along the parent's axis and stretches across it.
    func set(_ size: ComponentProperties.Size, horizontal: Bool, in parent: Parent, _ style: inout Style) {
        let dimension: Dimension
        switch size {
        case .points(let p): dimension = .points(p)
        case .percent(let p): dimension = .percent(p)
        case .auto: dimension = .auto
        case .fill:
            guard case .pinned = parent.role else {
                fill(horizontal ? .horizontal : .vertical, in: parent, &style)
                return
            }
            dimension = .percent(100)  // the Pins container's content box
        }
        if horizontal { style.width = dimension } else { style.height = dimension }
    }

    func fill(_ axis: Axis, in parent: Parent, _ style: inout Style) {
        if case .overlay(let top, let leading, let bottom, let trailing) = parent.role {
            if axis == .horizontal {
                style.position.start = .points(leading)
                style.position.end = .points(trailing)
            } else {
                style.position.top = .points(top)
                style.position.bottom = .points(bottom)
            }
            return
        }
        if case .pinned = parent.role { return }  // a pinned view's pins say how big it is
        if parent.axis == axis {
            // Equal shares of the free space, as SwiftUI offers flexible views equal proposals.
            // (Where the parent's size is unbounded, Yoga sizes the item by its content instead.)
            style.flexGrow = 1
            style.flexShrink = 1
            style.flexBasis = .points(0)
        } else {
            style.alignSelf = .stretch
        }
    }

    /// Whether a stack takes all the space its parent offers along `axis`, as a SwiftUI stack does
    /// when something in it is flexible there: a Spacer on the stack's axis, a `fill` size, a
    /// `flexGrow`, an unsized shape, or a nested stack that is itself greedy.
    static func isGreedy(_ component: ResolvedComponent, along axis: Axis) -> Bool {
        let ownAxis: Axis? = switch component.kind {
        case .hStack: .horizontal
        case .vStack: .vertical
        case .text, .image, .zStack, .list, .rectangle, .circle, .spacer, .divider, .button, .scrollView, .tabBar, .tab,
            .navigation, .carousel, .pins:
            nil
        }
        return component.subviews.contains { child in
            let p = ComponentProperties(members: child.properties)
            if p.bool("hidden") == true { return false }
            if p.size(axis == .horizontal ? "width" : "height") == .fill { return true }
            switch child.kind {
            case .spacer: return ownAxis == axis
            case .rectangle, .circle: return p["width"] == nil && p["height"] == nil
            case .hStack, .vStack:
                if ownAxis == axis, let grow = p.number("flexGrow"), grow > 0 { return true }
                return isGreedy(child, along: axis)
            case .text, .image, .zStack, .list, .divider, .button, .scrollView, .tabBar, .tab, .navigation, .carousel, .pins:
                if ownAxis == axis, let grow = p.number("flexGrow"), grow > 0 { return true }
                return false
            }
        }
    }

    static func horizontal(_ alignment: String) -> Align {
        switch alignment {
        case "leading": .flexStart
        case "trailing": .flexEnd
        default: .center
        }
    }

    static func vertical(_ alignment: String) -> Align {
        switch alignment {
        case "top": .flexStart
        case "bottom": .flexEnd
        default: .center
        }
    }

    /// A ZStack's `alignment` as a column's justify-content (vertical) and align-items (horizontal).
    static func zAlignment(_ alignment: String) -> (justify: Justify, align: Align) {
        let lower = alignment.lowercased()
        let justify: Justify = lower.hasPrefix("top") ? .flexStart : lower.hasPrefix("bottom") ? .flexEnd : .center
        let align: Align = lower.hasSuffix("leading") ? .flexStart : lower.hasSuffix("trailing") ? .flexEnd : .center
        return (justify, align)
    }
}
