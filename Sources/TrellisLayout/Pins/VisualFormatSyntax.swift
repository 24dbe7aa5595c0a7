/// A pin string as written, before it becomes constraints: items (edges and views) alternating
/// with the connections between them. Metric names are already resolved to numbers.
struct PinChain: Sendable {
    var axis: PinAxis
    var items: [ChainItem]
    /// `connections[i]` lies between `items[i]` and `items[i + 1]`.
    var connections: [ChainConnection]
}

/// An edge or a view of a chain.
enum ChainItem: Sendable {
    /// `|` / `|>` at the start or `|` / `<|` at the end; `column` is its first character's.
    case edge(PinItem, column: Int)
    /// `[name(predicates)]`; `column` is the `[`'s.
    case view(name: String, column: Int, predicates: [WrittenPredicate<SizeObject>])
}

/// What lies between two items.
enum ChainConnection: Sendable {
    /// Nothing: `[a][b]`, gap 0; `column` is the next item's first character's.
    case flush(column: Int)
    /// A bare `-`: the standard spacing; `column` is the `-`'s.
    case standard(column: Int)
    /// `-8-`, `-pad-` or `-(>=8,<=20@750)-`: one predicate per constraint, each a gap in points.
    case gap([WrittenPredicate<Double>])
}

/// A relation as written: Auto Layout's three, or MMMTackKit's double pin `>==`.
enum WrittenRelation: Sendable, Equatable {
    case single(PinRelation)
    /// `>= N` required plus `== N` at the written priority or ``VisualFormat/doublePinPriority``.
    case doublePin
}

/// One predicate: `[relation] object [priority]`. `Object` is a gap (`Double`) or a view size (`SizeObject`).
struct WrittenPredicate<Object: Sendable>: Sendable {
    var relation: WrittenRelation
    var object: Object
    /// nil when not written: required, or the double pin's default for its `==` half.
    var priority: Double?
    /// The predicate's first character.
    var column: Int
}

/// What a view's size is compared with.
enum SizeObject: Sendable, Equatable {
    /// `[v(50)]`, `[v(>=pad)]`.
    case constant(Double)
    /// `[v(==w)]`, `[v(==w.height*2)]`; `attribute` nil means the axis's own size attribute.
    case view(name: String, attribute: PinAttribute?, multiplier: Double)
}
