import TrellisJSON
import TrellisScreens

/// The document Matrioska's `JSONFactory` builds a view-controller tree from:
/// `{"structure": {"type", "meta", "children"}}`.
///
/// Matrioska drops a node whose type the app did not register, and a tabbar child without
/// `title` and `icon_name`, silently, with their subtrees; so stacks and tab bars are written in its
/// built-in forms and every other type under its own name, for a builder the app registers (docs/clients.md).
/// Rules, experiments and fallbacks stay on the server: the document holds what won, never a `rule`.
///
/// Each node's `meta` is one object: `id`, then the component's properties and values with their
/// keys in snake_case (`backgroundColor` → `background_color`; values nested inside, such as an
/// action or a padding object, are written as in the resolved format), colours as `0xRRGGBB`,
/// and the author's `metadata` under `metadata`.
public enum MatrioskaFormat {
    public static let mediaType = "application/vnd.matrioska+json"

    /// The icon a Tab without one is sent with: Matrioska drops a tab without `icon_name`.
    /// An SF Symbol name, as the samples' icons are.
    public static let defaultIconName = "circle"

    /// What a screen that resolved to nothing is sent as: Matrioska throws without a `structure`.
    public static let emptyStructure: JSONValue = stack(orientation: "vertical", meta: [], children: [])

    /// The Matrioska document of a resolved screen (resolved for any schema version: TabBar and Tab
    /// need version 2). Hidden components (`hidden: true`) are left out, as Trellis lays them out.
    public static func document(_ resolved: ResolvedScreen, registry: ComponentRegistry = .standard) -> JSONValue {
        let root = resolved.root.flatMap { node($0, registry: registry) } ?? emptyStructure
        return .object([("structure", root)])
    }

    /// The envelope, as response headers: the same as DrivenUI's (``DrivenUIFormat/headers(_:revision:)``),
    /// since Matrioska's document has no place for it either.
    public static func headers(_ resolved: ResolvedScreen, revision: Int) -> [(name: String, value: String)] {
        DrivenUIFormat.headers(resolved, revision: revision)
    }

    /// One component, or nil when it is hidden.
    static func node(_ component: ResolvedComponent, registry: ComponentRegistry, inTabBar: Bool = false) -> JSONValue? {
        let properties = ComponentProperties(members: component.properties)
        guard properties.bool("hidden") != true else { return nil }
        var meta: [(String, JSONValue)] = component.id.map { [("id", .string($0))] } ?? []
        func children(inTabBar: Bool = false) -> [JSONValue] {
            component.subviews.compactMap { node($0, registry: registry, inTabBar: inTabBar) }
        }
        func stack(orientation: String) -> JSONValue {
            // `spacing` always: Matrioska's default is 10, Trellis's 0.
            meta.append(("spacing", .number(properties.number("spacing").map(Double.init) ?? 0)))
            meta += self.meta(component, registry: registry).filter { $0.0 != "spacing" }
            if properties.size("width") == .fill || properties.size("width") == .percent(100) {
                meta.append(("preserve_parent_width", .bool(true)))
            }
            return Self.stack(orientation: orientation, meta: meta, children: children())
        }

        switch component.kind {
        case .hStack:
            return stack(orientation: "horizontal")
        case .vStack:
            return stack(orientation: "vertical")
        case .tabBar:
            // Clamped as the layout clamps it, then counted among the tabs sent (hidden ones are left out).
            let selected = min(max(0, Int(properties.number("selectedIndex") ?? 0)), max(0, component.subviews.count - 1))
            meta.append(("selected_index", .number(selectedIndex(component.subviews, selected: selected))))
            meta += self.meta(component, registry: registry).filter { $0.0 != "selected_index" }
            return object(type: "tabbar", meta: meta, children: children(inTabBar: true))
        case .text, .image, .zStack, .list, .rectangle, .circle, .spacer, .divider, .button, .scrollView, .tab, .navigation,
            .carousel, .pins:
            // Under its own name, for a builder the app registers.
            meta += self.meta(component, registry: registry)
            // A Pins container's strings, for an app whose Pins builder runs Auto Layout itself.
            if let pins = component.pins { meta += pins.members }
            if inTabBar { meta = tabMeta(meta, component) }
            let hasChildren = registry[component.kind]?.children ?? .none != .none
            return object(type: component.kind.name, meta: meta, children: hasChildren ? children() : nil)
        }
    }

    /// The selected tab's position among the tabs that are sent; 0 when it is itself hidden.
    static func selectedIndex(_ tabs: [ResolvedComponent], selected: Int) -> Int {
        guard selected < tabs.count else { return 0 }
        let isHidden = { (tab: ResolvedComponent) in ComponentProperties(members: tab.properties).bool("hidden") == true }
        if isHidden(tabs[selected]) { return 0 }
        return tabs.prefix(selected).filter { !isHidden($0) }.count
    }

    /// A tabbar child's meta with `title` and `icon_name`, which Matrioska requires: the Tab's
    /// `icon` becomes `icon_name` (``defaultIconName`` without one); a child without a title (only a
    /// Tab has one) is titled by its id, else its type.
    static func tabMeta(_ meta: [(String, JSONValue)], _ component: ResolvedComponent) -> [(String, JSONValue)] {
        var meta = meta.map { $0.0 == "icon" ? ("icon_name", $0.1) : $0 }
        if !meta.contains(where: { $0.0 == "title" && $0.1.stringValue != nil }) {
            meta.append(("title", .string(component.id ?? component.kind.name)))
        }
        if !meta.contains(where: { $0.0 == "icon_name" && $0.1.stringValue != nil }) {
            meta.append(("icon_name", .string(defaultIconName)))
        }
        return meta
    }

    /// Properties (less `hidden`), then values, keys in snake_case, colours as `0xRRGGBB`; then `metadata`.
    static func meta(_ component: ResolvedComponent, registry: ComponentRegistry) -> [(String, JSONValue)] {
        let type = registry[component.kind]
        var meta: [(String, JSONValue)] = []
        for member in component.properties where member.key != "hidden" {
            let key = snakeCase(member.key)
            guard case .color = type?.properties[member.key]?.type, let text = member.value.stringValue else {
                meta.append((key, member.value))
                continue
            }
            guard let color = HexColor(text), !color.isClear else { continue }  // clear: no colour at all
            meta.append((key, .string("0x" + color.rrggbb)))
            if color.alpha != 255 {
                // Matrioska reads `0xRRGGBB` only; the alpha an app's own builders may use, 0…1.
                meta.append((key + "_alpha", .number((Double(color.alpha) / 255 * 1000).rounded() / 1000)))
            }
        }
        meta += component.values.map { (snakeCase($0.key), $0.value) }
        if !component.metadata.isEmpty { meta.append(("metadata", JSONValue(.object(component.metadata)))) }
        return meta
    }

    /// `backgroundColor` → `background_color`, `imageUrl` → `image_url`.
    static func snakeCase(_ key: String) -> String {
        var out = ""
        for c in key {
            if c.isUppercase {
                if !out.isEmpty { out.append("_") }
                out += c.lowercased()
            } else {
                out.append(c)
            }
        }
        return out
    }

    static func stack(orientation: String, meta: [(String, JSONValue)], children: [JSONValue]) -> JSONValue {
        var meta = meta
        let at = meta.first?.0 == "id" ? 1 : 0
        meta.insert(("orientation", .string(orientation)), at: at)
        if !meta.contains(where: { $0.0 == "spacing" }) { meta.insert(("spacing", .number(0)), at: at + 1) }
        return object(type: "stack", meta: meta, children: children)
    }

    /// `{"type", "meta", "children"?}`; `children` on every node that may have them, even when empty.
    static func object(type: String, meta: [(String, JSONValue)], children: [JSONValue]?) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string(type)), ("meta", .object(meta))]
        if let children { members.append(("children", .array(children))) }
        return .object(members)
    }
}
