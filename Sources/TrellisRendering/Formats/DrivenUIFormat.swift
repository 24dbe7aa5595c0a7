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

    /// DrivenUI's `ViewType`: an unknown type string makes its decoder refuse the whole body.
    static let viewTypes: Set<String> = [
        "Image", "Text", "HStack", "VStack", "ZStack", "Rectangle", "Circle", "Spacer", "Divider", "List",
    ]
    /// Containers DrivenUI draws "Please Add Subview" into when `subviews` is absent.
    static let containers: Set<String> = ["HStack", "VStack", "ZStack", "List"]
    /// Stacks whose `spacing` is always written: SwiftUI's default spacing is not Trellis's 0.
    static let spacedTypes: Set<String> = ["HStack", "VStack", "List"]

    /// What a screen that resolved to nothing is sent as: a body of `null` fails DrivenUI's decoder.
    public static let emptyBody: JSONValue = .object([("type", .string("VStack")), ("subviews", .array([]))])

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
        guard properties.bool("hidden") != true, let type = viewType(of: component.type, registry) else { return nil }
        let values = self.values(of: type, ComponentProperties(members: component.values))
        if type == "Image" && values.isEmpty { return nil }  // drawn as "Image value could not read"
        // Frames belong to this component only if the layout walked the same tree.
        let laidOut = laidOut.flatMap { $0.component.type == component.type ? $0 : nil }

        var converted = Converted(properties, type: type, frame: laidOut?.frame)
        var subviews: [JSONValue]?
        if containers.contains(type) {
            let laidOutSubviews = laidOut?.subviews.count == component.subviews.count ? laidOut?.subviews : nil
            subviews = component.subviews.enumerated().compactMap { index, child in
                node(child, laidOut: laidOutSubviews?[index], registry: registry)
            }
        }
        guard let padding = properties.padding(), !Converted.isUniform(padding) else {
            if let padding = properties.padding() { converted.members["padding"] = .number(Converted.integer(padding.top)) }
            return object(type: type, converted.members, values: values, subviews: subviews)
        }
        return wrapped(type: type, converted, values: values, subviews: subviews, padding: padding)
    }

    /// The type drawn for `type`: itself, or its registered default fallback when DrivenUI has that
    /// (ScrollView, TabBar, Tab, Navigation → VStack; Carousel → HStack), else nil.
    static func viewType(of type: String, _ registry: ComponentRegistry) -> String? {
        if viewTypes.contains(type) { return type }
        guard let fallback = registry[type]?.defaultFallback, viewTypes.contains(fallback) else { return nil }
        return fallback
    }

    /// `values` as DrivenUI declares them, strings only: a Text's `text`, an Image's one source.
    static func values(of type: String, _ values: ComponentProperties) -> [(String, JSONValue)] {
        switch type {
        case "Text":
            return values.string("text").map { [("text", .string($0))] } ?? []
        case "Image":
            for key in ["imageUrl", "systemIconName", "localImageName"] {
                if let source = values.string(key), !source.isEmpty { return [(key, .string(source))] }
            }
            return []
        default:
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
        type: String, _ converted: Converted, values: [(String, JSONValue)], subviews: [JSONValue]?,
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
        var wrapper = object(type: type, inner, values: values, subviews: subviews)
        var box = converted.members.filter { Converted.boxKeys.contains($0.key) }
        if leading > 0 || trailing > 0 {
            let row = [spacer(width: leading, height: 0), wrapper, spacer(width: trailing, height: 0)].compactMap { $0 }
            var own: [String: JSONValue] = ["spacing": .number(0)]
            if top == 0 && bottom == 0 { own.merge(box) { $1 }; box = [:] }
            wrapper = object(type: "HStack", own, values: [], subviews: row)
        }
        if top > 0 || bottom > 0 {
            let column = [spacer(width: 0, height: top), wrapper, spacer(width: 0, height: bottom)].compactMap { $0 }
            wrapper = object(type: "VStack", box.merging(["spacing": .number(0)]) { $1 }, values: [], subviews: column)
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
        return object(type: "Spacer", properties, values: [], subviews: nil)
    }

    /// `{"type", "values"?, "properties"?, "subviews"?}`, properties in DrivenUI's declaration order.
    static func object(
        type: String, _ properties: [String: JSONValue], values: [(String, JSONValue)], subviews: [JSONValue]?
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string(type))]
        if !values.isEmpty { members.append(("values", .object(values))) }
        let ordered = Converted.declarationOrder.compactMap { key in properties[key].map { (key, $0) } }
        if !ordered.isEmpty { members.append(("properties", .object(ordered))) }
        if let subviews { members.append(("subviews", .array(subviews))) }
        return .object(members)
    }
}
