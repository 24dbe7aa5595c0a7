/// A property or value a component type accepts, with the schema version it appeared in.
public struct PropertySpec: Sendable {
    public var type: PropertyType
    public let introduced: Int
    public var required: Bool

    public init(_ type: PropertyType, since introduced: Int = 1, required: Bool = false) {
        self.type = type
        self.introduced = introduced
        self.required = required
    }
}

/// A kind of component a client can render: the unit of the schema vocabulary. A class: the
/// decoder looks one up for every component, and a copy of a struct of a dozen references would
/// retain each — on every core at once, the same counters of the same shared vocabulary.
public final class ComponentType: Sendable {
    public enum Children: Sendable, Equatable {
        case none
        /// Any number of subviews.
        case many
        /// Exactly one subview (wrappers such as Navigation and Tab).
        case one
    }

    /// What the type is: what the layout, the previews and the client formats switch over.
    public let kind: ComponentKind
    /// The kind's name, as a screen's `type` spells it.
    public var name: String { kind.name }
    /// The schema version this type appeared in; older clients get its fallback.
    public let introduced: Int
    public let children: Children
    /// When non-nil, only these types may appear directly under this one.
    public let allowedChildren: Set<ComponentKind>?
    public let properties: [String: PropertySpec]
    public let values: [String: PropertySpec]
    /// The names of the required properties and values, sorted: what every component of the type is
    /// checked for, found once rather than in every component's dozens of specs.
    public let requiredProperties: [String]
    public let requiredValues: [String]
    /// `properties` and `values` as the decoder looks every member of every component up in them.
    let propertyTable: NameTable<PropertySpec>
    let valueTable: NameTable<PropertySpec>
    /// Exactly one of these values must be present (e.g. an image's source).
    public let oneValueOf: [String]
    /// The type that stands in for this one on clients too old for it, keeping the subviews.
    public let defaultFallback: ComponentKind?

    init(
        kind: ComponentKind, introduced: Int, children: Children, allowedChildren: Set<ComponentKind>?,
        properties: [String: PropertySpec], values: [String: PropertySpec], oneValueOf: [String], defaultFallback: ComponentKind?
    ) {
        self.kind = kind
        self.introduced = introduced
        self.children = children
        self.allowedChildren = allowedChildren
        self.properties = properties
        self.values = values
        requiredProperties = properties.filter(\.value.required).keys.sorted()
        requiredValues = values.filter(\.value.required).keys.sorted()
        propertyTable = NameTable(properties)
        valueTable = NameTable(values)
        self.oneValueOf = oneValueOf
        self.defaultFallback = defaultFallback
    }
}

/// The component vocabulary, keyed by `type`. Schema version 1 is the DrivenUI set; version 2 adds
/// buttons, actions, scrolling, tab bars, navigation and carousels; version 3 adds the action kinds
/// back, reload, share, copy and sequence (``ActionKind``) and the Pins container.
public struct ComponentRegistry: Sendable {
    public static let latestSchemaVersion = 3

    public let types: [String: ComponentType]
    /// `types`, as the decoder looks up the type of every component.
    private let table: NameTable<ComponentType>

    public init(_ types: [ComponentType]) {
        self.types = Dictionary(types.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        table = NameTable(self.types)
    }

    /// The type a screen's `type` names; nil for a name the registry does not know.
    public subscript(name: String) -> ComponentType? { table[name] }

    /// The type of a kind; nil when the registry leaves the kind out.
    public subscript(kind: ComponentKind) -> ComponentType? { table[kind.name] }

    /// Properties every view accepts: box decoration and size.
    static let commonProperties: [String: PropertySpec] = [
        "padding": PropertySpec(.insets),
        "backgroundColor": PropertySpec(.color),
        "foregroundColor": PropertySpec(.color),
        "cornerRadius": PropertySpec(PropertyType.nonNegative),
        "borderWidth": PropertySpec(PropertyType.nonNegative),
        "borderColor": PropertySpec(.color),
        "opacity": PropertySpec(.number(0...1)),
        "width": PropertySpec(.dimension),
        "height": PropertySpec(.dimension),
        "minWidth": PropertySpec(.dimension),
        "maxWidth": PropertySpec(.dimension),
        "minHeight": PropertySpec(.dimension),
        "maxHeight": PropertySpec(.dimension),
        "flexGrow": PropertySpec(PropertyType.nonNegative),
        "accessibilityLabel": PropertySpec(.string),
        "hidden": PropertySpec(.bool),
        "action": PropertySpec(.action, since: 2),
        // On the root: lay it out under the status bar and the home indicator too (the frames of
        // a Pins container's `|>-` and `-<|` pins then keep clear of them).
        "ignoresSafeArea": PropertySpec(.bool, since: 3),
    ]

    static let textStyles = [
        "largeTitle", "title", "title2", "title3", "headline", "body", "callout", "subheadline",
        "footnote", "caption", "caption2",
    ]
    /// Font weights by name, with their numeric weight (CSS / OpenType `usWeightClass`).
    public static let fontWeights: [String: Int] = [
        "ultraLight": 100, "thin": 200, "light": 300, "regular": 400, "medium": 500, "semibold": 600, "bold": 700,
        "heavy": 800, "black": 900,
    ]
    static let weights = fontWeights.sorted { $0.value < $1.value }.map(\.key)
    static let horizontalAlignments = ["leading", "center", "trailing"]
    static let verticalAlignments = ["top", "center", "bottom"]
    static let zAlignments = [
        "topLeading", "top", "topTrailing", "leading", "center", "trailing", "bottomLeading", "bottom", "bottomTrailing",
    ]

    private static func type(
        _ kind: ComponentKind, since introduced: Int = 1, children: ComponentType.Children = .none,
        allowedChildren: Set<ComponentKind>? = nil, properties: [String: PropertySpec] = [:],
        values: [String: PropertySpec] = [:], oneValueOf: [String] = [], defaultFallback: ComponentKind? = nil
    ) -> ComponentType {
        ComponentType(
            kind: kind, introduced: introduced, children: children, allowedChildren: allowedChildren,
            properties: commonProperties.merging(properties) { $1 }, values: values, oneValueOf: oneValueOf,
            defaultFallback: defaultFallback)
    }

    /// The vocabulary Trellis ships: one type for every kind.
    public static let standard = ComponentRegistry(ComponentKind.allCases.map(standardType))

    /// The type Trellis ships for `kind`.
    private static func standardType(_ kind: ComponentKind) -> ComponentType {
        switch kind {
        case .text:
            type(
                kind,
                properties: [
                    "font": PropertySpec(.oneOf(textStyles)), "fontSize": PropertySpec(.number(1...512)),
                    "weight": PropertySpec(.oneOf(weights)), "alignment": PropertySpec(.oneOf(horizontalAlignments)),
                    "lineLimit": PropertySpec(.integer(1...1000)), "lineHeight": PropertySpec(.number(0.5...4)),
                ],
                values: ["text": PropertySpec(.string, required: true)])
        case .image:
            type(
                kind,
                properties: [
                    "contentMode": PropertySpec(.oneOf(["fit", "fill"])), "aspectRatio": PropertySpec(.number(0.01...100)),
                    // Ornament only: screen readers skip it, so it needs no accessibilityLabel (TrellisLint's
                    // `label` rule). Schema version 3: an older client ignores it as an unknown property.
                    "decorative": PropertySpec(.bool, since: 3),
                ],
                values: [
                    "imageUrl": PropertySpec(.url), "systemIconName": PropertySpec(.nonEmptyString),
                    "localImageName": PropertySpec(.nonEmptyString),
                ],
                oneValueOf: ["imageUrl", "systemIconName", "localImageName"])
        case .hStack:
            type(
                kind, children: .many,
                properties: [
                    "spacing": PropertySpec(PropertyType.nonNegative), "verticalAlignment": PropertySpec(.oneOf(verticalAlignments)),
                ])
        case .vStack:
            type(
                kind, children: .many,
                properties: [
                    "spacing": PropertySpec(PropertyType.nonNegative),
                    "horizontalAlignment": PropertySpec(.oneOf(horizontalAlignments)),
                ])
        case .zStack:
            type(kind, children: .many, properties: ["alignment": PropertySpec(.oneOf(zAlignments))])
        case .list:
            type(
                kind, children: .many,
                properties: [
                    "spacing": PropertySpec(PropertyType.nonNegative), "separators": PropertySpec(.bool),
                    "style": PropertySpec(.oneOf(["plain", "grouped", "inset"])),
                ])
        case .rectangle:
            type(kind)
        case .circle:
            type(kind)
        case .spacer:
            type(kind, properties: ["minLength": PropertySpec(PropertyType.nonNegative)])
        case .divider:
            type(kind, properties: ["thickness": PropertySpec(.number(0.1...100))])
        case .button:
            type(
                kind, since: 2,
                properties: ["style": PropertySpec(.oneOf(["primary", "secondary", "plain", "destructive"]))],
                values: ["title": PropertySpec(.nonEmptyString, required: true)])
        case .scrollView:
            type(
                kind, since: 2, children: .many,
                properties: ["axis": PropertySpec(.oneOf(["vertical", "horizontal"])), "spacing": PropertySpec(PropertyType.nonNegative)],
                defaultFallback: .vStack)
        case .tabBar:
            type(
                kind, since: 2, children: .many, allowedChildren: [.tab],
                properties: ["selectedIndex": PropertySpec(.integer(0...20)), "tintColor": PropertySpec(.color)],
                defaultFallback: .vStack)
        case .tab:
            type(
                kind, since: 2, children: .one,
                values: ["title": PropertySpec(.nonEmptyString, required: true), "icon": PropertySpec(.nonEmptyString)],
                defaultFallback: .vStack)
        case .navigation:
            type(
                kind, since: 2, children: .one,
                properties: ["titleDisplayMode": PropertySpec(.oneOf(["large", "inline"]))],
                values: ["title": PropertySpec(.string, required: true)],
                defaultFallback: .vStack)
        case .carousel:
            type(
                kind, since: 2, children: .many,
                properties: [
                    "spacing": PropertySpec(PropertyType.nonNegative), "itemWidth": PropertySpec(.dimension),
                    "pageIndicator": PropertySpec(.bool), "autoScrollSeconds": PropertySpec(.number(0...600)),
                ],
                defaultFallback: .hStack)
        case .pins:
            // Places its subviews by pin strings (`pins`, `align`, `metrics`: ``PinSpec``) instead of
            // stacking them; a client too old for it gets a VStack of the same subviews.
            type(kind, since: 3, children: .many, defaultFallback: .vStack)
        }
    }
}

/// Values by name, for the fixed vocabularies the decoder looks every member of a screen up in:
/// a name is placed by its length and its first byte and then compared, where a dictionary
/// hashes it whole. (Its last byte spread names better but cost more to read than the few
/// comparisons it saved.)
struct NameTable<Value: Sendable>: Sendable {
    private let names: [String?]
    private let values: [Value?]
    private let mask: Int

    init(_ entries: [String: Value]) {
        var size = 8
        while size < entries.count * 4 { size *= 2 }
        var names = [String?](repeating: nil, count: size)
        var values = [Value?](repeating: nil, count: size)
        for (name, value) in entries {
            var slot = Self.slot(of: name, mask: size - 1)
            while names[slot] != nil { slot = (slot + 1) & (size - 1) }
            names[slot] = name
            values[slot] = value
        }
        self.names = names
        self.values = values
        mask = size - 1
    }

    subscript(name: String) -> Value? {
        var slot = Self.slot(of: name, mask: mask)
        while let candidate = names[slot] {
            if candidate.utf8.count == name.utf8.count && candidate == name { return values[slot] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private static func slot(of name: String, mask: Int) -> Int {
        let utf8 = name.utf8
        guard let first = utf8.first else { return 0 }
        return (utf8.count &* 31 &+ Int(first) &* 7) & mask
    }
}
