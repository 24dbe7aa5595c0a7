/// Every kind of component Trellis knows, each named once: the raw value is the `type` a screen
/// spells it with. The decoder reads a component's kind once, when the screen is checked (an
/// unknown `type` is refused there, with its JSON path); from then on, the registry, the layout,
/// the previews and the client formats switch over the kind with no `default:`, so a new case
/// does not compile until each of them says what the kind is (`scripts/check-component-kinds`
/// lists those places; docs/screens.md, "Adding a component kind").
public enum ComponentKind: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    case text = "Text"
    case image = "Image"
    case hStack = "HStack"
    case vStack = "VStack"
    case zStack = "ZStack"
    case list = "List"
    case rectangle = "Rectangle"
    case circle = "Circle"
    case spacer = "Spacer"
    case divider = "Divider"
    case button = "Button"
    case scrollView = "ScrollView"
    case tabBar = "TabBar"
    case tab = "Tab"
    case navigation = "Navigation"
    case carousel = "Carousel"
    case pins = "Pins"

    /// The name a screen's `type` spells the kind with (`HStack`).
    public var name: String { rawValue }

    /// The name, so that interpolating a kind into a message or a document writes what authors write.
    public var description: String { rawValue }
}
