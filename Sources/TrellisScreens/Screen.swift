import TrellisJSON
import TrellisTargeting

/// A screen as authored: an id, the schema version it is written against, and a tree of nodes.
public struct Screen: Sendable {
    public var id: String
    public var schemaVersion: Int
    public var title: String?
    public var root: Node
    /// Free-form data for the client (analytics names, cache hints), passed through untouched.
    public var metadata: [JSONMember]
    /// Every `$param` and `$format` placeholder in the tree, under every Rule branch, variant and
    /// fallback, in tree order (a component's properties, values, subviews, then fallback), as the
    /// decoder found them. Empty for most screens.
    public var parameters: [ParameterUse]
    /// Where every navigate action leads, in the same order, including those under every Rule
    /// branch, variant, component fallback, sequence and action fallback, as the decoder found them.
    public var links: [ScreenLink]
    /// Every `$string` in the tree, in the same order: what publishing checks against the tables.
    public var strings: [StringUse]
    /// The templates the screen uses (expanded into `root` when it was decoded), first use first.
    public var templates: [String]

    public init(
        id: String, schemaVersion: Int, title: String? = nil, root: Node, metadata: [JSONMember] = [],
        parameters: [ParameterUse] = [], links: [ScreenLink] = [], strings: [StringUse] = [], templates: [String] = []
    ) {
        self.id = id
        self.schemaVersion = schemaVersion
        self.title = title
        self.root = root
        self.metadata = metadata
        self.parameters = parameters
        self.links = links
        self.strings = strings
        self.templates = templates
    }

    /// Whether a request must give this screen parameters.
    public var usesParameters: Bool { !parameters.isEmpty }

    /// Whether the answer depends on the request's locale.
    public var usesStrings: Bool { !strings.isEmpty }

    /// Whether a request fills anything in (parameters, or strings in its locale); when not, its
    /// answer needs no substitution.
    public var needsSubstitution: Bool { usesParameters || usesStrings }

    /// The names of the parameters the screen uses, each once, first use first.
    public var parameterNames: [String] {
        var seen: Set<String> = []
        return parameters.compactMap { seen.insert($0.name).inserted ? $0.name : nil }
    }
}

/// One node of the authored tree: a component, or a decision that picks one for each user.
public indirect enum Node: Sendable {
    case component(Component)
    /// Shows `then` to users matching `rule`, else `otherwise` (or nothing).
    case rule(id: String?, rule: RuleExpression, then: Node, otherwise: Node?)
    /// Shows the variant the experiment assigns; a nil variant shows nothing.
    case experiment(id: String?, key: String, variants: [ExperimentVariant])
}

public struct ExperimentVariant: Sendable {
    public var name: String
    public var node: Node?
    public init(name: String, node: Node?) {
        self.name = name
        self.node = node
    }
}

/// A renderable component: DrivenUI's `type` / `properties` / `values` / `subviews`.
public struct Component: Sendable {
    /// What the component is, read from its `type` when the screen was decoded.
    public var kind: ComponentKind
    public var id: String?
    /// How it looks, checked against the type's specs; authored order is kept.
    public var properties: [JSONMember]
    /// What it shows (text, image source, titles).
    public var values: [JSONMember]
    public var subviews: [Node]
    /// What a client too old for `type` gets instead.
    public var fallback: Node?
    public var metadata: [JSONMember]
    /// Flexbox properties by their Yoga style names (`"flexDirection": "row"`), applied by the
    /// layout over what the component's type and properties give; checked when the screen loads.
    public var style: [JSONMember]
    /// A Pins container's pins; nil for every other component.
    public var pins: PinSpec?

    public init(
        kind: ComponentKind, id: String? = nil, properties: [JSONMember] = [], values: [JSONMember] = [],
        subviews: [Node] = [], fallback: Node? = nil, metadata: [JSONMember] = [], style: [JSONMember] = [],
        pins: PinSpec? = nil
    ) {
        self.kind = kind
        self.id = id
        self.properties = properties
        self.values = values
        self.subviews = subviews
        self.fallback = fallback
        self.metadata = metadata
        self.style = style
        self.pins = pins
    }

    /// The kind's name, as the document's `type` spells it (for encoding and for reports; what
    /// depends on the kind switches over ``kind``).
    public var type: String { kind.name }
}
