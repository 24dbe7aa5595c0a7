/// The axis a pin string lays views out along: `H:` (the default) or `V:`.
public enum PinAxis: Sendable, Hashable {
    case horizontal, vertical

    /// The attribute where a view starts along the axis: `leading` (horizontal) or `top` (vertical).
    ///
    /// Horizontal pins use `leading`/`trailing`, Auto Layout's default direction option, so a
    /// right-to-left layout mirrors them.
    public var startAttribute: PinAttribute { self == .horizontal ? .leading : .top }

    /// The attribute where a view ends along the axis: `trailing` (horizontal) or `bottom` (vertical).
    public var endAttribute: PinAttribute { self == .horizontal ? .trailing : .bottom }

    /// The view's extent along the axis: `width` (horizontal) or `height` (vertical); what a view
    /// predicate such as `[v(50)]` constrains.
    public var sizeAttribute: PinAttribute { self == .horizontal ? .width : .height }
}

/// An attribute of a view or of the container, named as in Auto Layout's `NSLayoutConstraint.Attribute`.
public enum PinAttribute: String, Sendable, Hashable, CaseIterable {
    case leading, trailing, left, right, top, bottom, width, height, centerX, centerY, firstBaseline, lastBaseline

    /// The attribute with this name (`"centerY"`, `"firstBaseline"`…), or nil when there is none.
    public init?(name: String) { self.init(rawValue: name) }

    /// The attribute's name as written in pin strings and screen documents.
    public var name: String { rawValue }

    /// Whether `alignAll` may use this attribute for a string laid out along `axis`: aligning views
    /// in a row uses a vertical attribute, in a column a horizontal one (as in Apple's
    /// `NSLayoutConstraint.FormatOptions` and Tack's `VerticalAlignment`/`HorizontalAlignment`).
    public func canAlign(along axis: PinAxis) -> Bool {
        switch self {
        case .top, .bottom, .centerY, .firstBaseline, .lastBaseline: axis == .horizontal
        case .leading, .trailing, .left, .right, .centerX: axis == .vertical
        case .width, .height: false
        }
    }
}

/// What a constraint's side refers to.
public enum PinItem: Sendable, Hashable {
    /// The Pins container's own edges, written `|`.
    case container
    /// The container's safe area, written `|>` at the start and `<|` at the end (MMMTackKit).
    case safeArea
    /// A child, by its id.
    case view(String)
}

/// One side of a constraint: an attribute of an item, e.g. `title.trailing`.
public struct PinAnchor: Sendable, Hashable {
    public var item: PinItem
    public var attribute: PinAttribute

    public init(_ item: PinItem, _ attribute: PinAttribute) {
        self.item = item
        self.attribute = attribute
    }
}

/// How a constraint's two sides compare.
public enum PinRelation: Sendable, Hashable {
    case equal, lessThanOrEqual, greaterThanOrEqual
}

/// A linear constraint, as Auto Layout writes it:
/// `first RELATION second * multiplier + constant`, or `first RELATION constant` when `second` is nil.
public struct PinConstraint: Sendable, Equatable {
    /// Auto Layout's required priority: a constraint that must hold.
    public static let requiredPriority = 1000.0

    public var first: PinAnchor
    public var relation: PinRelation
    /// nil for a constant size such as `[v(50)]`.
    public var second: PinAnchor?
    /// 1 unless written (`[v(==w.height*2)]`); meaningless when `second` is nil.
    public var multiplier: Double
    public var constant: Double
    /// 1…1000 on Auto Layout's scale; 1000 (``requiredPriority``) must hold, lower ones give way.
    public var priority: Double
    /// The 1-based column in the pin string of the token this constraint comes from (a gap's
    /// predicate, a bare `-`, a view's `[`, a view predicate), for errors found later by the solver.
    public var column: Int

    public init(
        _ first: PinAnchor, _ relation: PinRelation, _ second: PinAnchor? = nil, multiplier: Double = 1,
        constant: Double = 0, priority: Double = PinConstraint.requiredPriority, column: Int
    ) {
        self.first = first
        self.relation = relation
        self.second = second
        self.multiplier = multiplier
        self.constant = constant
        self.priority = priority
        self.column = column
    }
}

/// A view name mentioned in a pin string, where it was written.
public struct PinViewReference: Sendable, Hashable {
    /// The id as written; only `A-Z`, `a-z`, `0-9` and `_` can appear in a pin string.
    public var name: String
    /// 1-based column of the name's first character.
    public var column: Int

    public init(name: String, column: Int) {
        self.name = name
        self.column = column
    }
}
