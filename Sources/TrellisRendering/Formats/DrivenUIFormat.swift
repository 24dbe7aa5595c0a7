import TrellisJSON
import TrellisLayout
import TrellisScreens

/// The body a DrivenUI 0.1.1 client decodes: the root component itself, nothing around it
/// (its README decodes the whole body with `JSONDecoder().decode(DrivenComponent.self, from: body)`).
///
/// DrivenUI's decoder refuses the **whole** body at the first value it cannot decode, and its
/// renderer misdraws quietly (black for `#` colours, "Please Add Subview" for a container without
/// `subviews`), so every member written here is one DrivenUI declares, of the type it declares:
/// types of its `ViewType` only, integers for `padding`/`spacing`/`borderWidth`, numbers for
/// `width`/`height`/`minLength`, `RRGGBB` colours, its eight fonts. What is kept, converted and lost
/// is listed in docs/clients.md; the client's facts are in the DrivenUI 0.1.1 facts file the tests mirror.
///
/// The envelope (screen id, revision, assignments, replacements) has no place in the body: it goes
/// into response headers, ``headers(_:revision:)``.
public enum DrivenUIFormat {
    public static let mediaType = "application/vnd.drivenui+json"

    /// How DrivenUI draws one of its `ViewType`s.
    struct ViewType {
        /// Subviews are written, always: DrivenUI draws "Please Add Subview" into a container
        /// whose `subviews` is absent.
        var isContainer = false
        /// `spacing` is always written: SwiftUI's default spacing is not Trellis's 0.
        var isSpaced = false
        /// `font` and `fontWeight` are written for the text properties.
        var hasFont = false
    }

    /// DrivenUI's `ViewType` for `kind`, or nil when it has none: an unknown type string makes
    /// its decoder refuse the whole body.
    static func viewType(_ kind: ComponentKind) -> ViewType? {
        switch kind {
        case .text: ViewType(hasFont: true)
        case .image, .rectangle, .circle, .spacer, .divider: ViewType()
        case .zStack: ViewType(isContainer: true)
        case .hStack, .vStack, .list: ViewType(isContainer: true, isSpaced: true)
        case .button, .scrollView, .tabBar, .tab, .navigation, .carousel, .pins: nil
        }
    }

    /// The names of DrivenUI's `ViewType`s: the only types a body holds.
    static let viewTypes: Set<String> = Set(ComponentKind.allCases.filter { viewType($0) != nil }.map(\.name))

    /// What a screen that resolved to nothing is sent as: a body of `null` fails DrivenUI's decoder.
    public static let emptyBody: JSONValue = .object([("type", .string(ComponentKind.vStack.name)), ("subviews", .array([]))])

    /// The DrivenUI body of a resolved screen.
    ///
    /// - Parameters:
    ///   - resolved: the screen resolved for the client (for schema version 1: every newer type has
    ///     already taken its fallback; a type DrivenUI lacks that is still here takes its registered
    ///     default fallback, or is left out with its subtree).
    ///   - frames: the same screen laid out for the client's viewport (`ScreenLayout.layOut(resolved)`),
    ///     whose computed sizes stand in for `"fill"`, `"N%"` and `"auto"`; without them those sizes are dropped.
    ///   - registry: the vocabulary the screen was resolved with.
    /// - Returns: a component object; ``emptyBody`` when nothing is shown.
    public static func body(
        _ resolved: ResolvedScreen, frames: ScreenFrames? = nil, registry: ComponentRegistry = .standard
    ) -> JSONValue {
        guard let root = resolved.root else { return emptyBody }
        return node(root, laidOut: frames?.root, registry: registry) ?? emptyBody
    }

    /// One component, or nil when it is hidden, of a type DrivenUI cannot draw, or an Image without a source.
    static func node(_ component: ResolvedComponent, laidOut: LaidOutComponent?, registry: ComponentRegistry) -> JSONValue? {
        let properties = ComponentProperties(members: component.properties)
        guard properties.bool("hidden") != true, let (kind, type) = drawn(component.kind, registry),
            let values = self.values(of: kind, ComponentProperties(members: component.values))
        else { return nil }
        // Frames belong to this component only if the layout walked the same tree.
        let laidOut = laidOut.flatMap { $0.component.kind == component.kind ? $0 : nil }

        var converted = Converted(properties, type: type, frame: laidOut?.frame)
        var subviews: [JSONValue]?
        if type.isContainer {
            let laidOutSubviews = laidOut?.subviews.count == component.subviews.count ? laidOut?.subviews : nil
            subviews = component.subviews.enumerated().compactMap { index, child in
                node(child, laidOut: laidOutSubviews?[index], registry: registry)
            }
        }
        guard let padding = properties.padding(), !Converted.isUniform(padding) else {
            if let padding = properties.padding() { converted.members["padding"] = .number(Converted.integer(padding.top)) }
            return object(kind: kind, converted.members, values: values, subviews: subviews)
        }
        return wrapped(kind: kind, converted, values: values, subviews: subviews, padding: padding)
    }

    /// The kind drawn for `kind`, with its view type: itself, or its registered default fallback
    /// when DrivenUI has that (ScrollView, TabBar, Tab, Navigation → VStack; Carousel → HStack), else nil.
    static func drawn(_ kind: ComponentKind, _ registry: ComponentRegistry) -> (ComponentKind, ViewType)? {
        if let type = viewType(kind) { return (kind, type) }
        guard let fallback = registry[kind]?.defaultFallback, let type = viewType(fallback) else { return nil }
        return (fallback, type)
    }

    /// `values` as DrivenUI declares them, strings only: a Text's `text`, an Image's one source;
    /// nil for an Image without one (drawn as "Image value could not read", so left out).
    static func values(of kind: ComponentKind, _ values: ComponentProperties) -> [(String, JSONValue)]? {
        switch kind {
        case .text:
            return values.string("text").map { [("text", .string($0))] } ?? []
        case .image:
            for key in ["imageUrl", "systemIconName", "localImageName"] {
                if let source = values.string(key), !source.isEmpty { return [(key, .string(source))] }
            }
            return nil
        case .hStack, .vStack, .zStack, .list, .rectangle, .circle, .spacer, .divider, .button, .scrollView, .tabBar, .tab,
            .navigation, .carousel, .pins:
            return []
        }
    }

    /// Non-uniform padding, drawn with what DrivenUI has: the smallest edge (rounded down) stays the
    /// component's `padding`, and each edge's remainder is a fixed-size Spacer in a stack of spacing
    /// 0 around it (`HStack [leading, component, trailing]` inside `VStack [top, …, bottom]`). The
    /// outermost stack takes the box: background, border and frame, so they cover the padding as in
    /// Trellis; the component keeps its content properties and, when the frame is known, the
    /// frame less the spacers.
    static func wrapped(
        kind: ComponentKind, _ converted: Converted, values: [(String, JSONValue)], subviews: [JSONValue]?,
        padding: (top: Float, leading: Float, bottom: Float, trailing: Float)
    ) -> JSONValue {
        let kept = min(padding.top, padding.leading, padding.bottom, padding.trailing).rounded(.down)
        let top = padding.top - kept, leading = padding.leading - kept
        let bottom = padding.bottom - kept, trailing = padding.trailing - kept
        var inner = converted.members.filter { !Converted.boxKeys.contains($0.key) }
        if kept > 0 { inner["padding"] = .number(Converted.integer(kept)) }
        if let width = converted.members["width"]?.numberValue {
            inner["width"] = .number(Converted.points(max(0, Float(width) - leading - trailing)))
        }
        if let height = converted.members["height"]?.numberValue {
            inner["height"] = .number(Converted.points(max(0, Float(height) - top - bottom)))
        }
        var wrapper = object(kind: kind, inner, values: values, subviews: subviews)
        var box = converted.members.filter { Converted.boxKeys.contains($0.key) }
        if leading > 0 || trailing > 0 {
            let row = [spacer(width: leading, height: 0), wrapper, spacer(width: trailing, height: 0)].compactMap { $0 }
            var own: [String: JSONValue] = ["spacing": .number(0)]
            if top == 0 && bottom == 0 { own.merge(box) { $1 }; box = [:] }
            wrapper = object(kind: .hStack, own, values: [], subviews: row)
        }
        if top > 0 || bottom > 0 {
            let column = [spacer(width: 0, height: top), wrapper, spacer(width: 0, height: bottom)].compactMap { $0 }
            wrapper = object(kind: .vStack, box.merging(["spacing": .number(0)]) { $1 }, values: [], subviews: column)
        }
        return wrapper
    }

    /// A Spacer of exactly `width` × `height` (both fixed, so it neither grows nor takes the
    /// stack's minimum spacer length), or nil when it would be empty along the stack.
    static func spacer(width: Float, height: Float) -> JSONValue? {
        guard width > 0 || height > 0 else { return nil }
        let properties: [String: JSONValue] = [
            "width": .number(Converted.points(width)), "height": .number(Converted.points(height)), "minLength": .number(0),
        ]
        return object(kind: .spacer, properties, values: [], subviews: nil)
    }

    /// `{"type", "values"?, "properties"?, "subviews"?}`, properties in DrivenUI's declaration order.
    static func object(
        kind: ComponentKind, _ properties: [String: JSONValue], values: [(String, JSONValue)], subviews: [JSONValue]?
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string(kind.name))]
        if !values.isEmpty { members.append(("values", .object(values))) }
        let ordered = Converted.declarationOrder.compactMap { key in properties[key].map { (key, $0) } }
        if !ordered.isEmpty { members.append(("properties", .object(ordered))) }
        if let subviews { members.append(("subviews", .array(subviews))) }
        return .object(members)
    }
}
