/// One pin string of a Pins container, parsed into constraints: Auto Layout's Visual Format
/// Language (VFL) with MMMTackKit's additions and one Trellis extension.
///
/// ```
/// H:|-16-[title]-(>=8)-[badge]-16-|
/// V:|>-(20)-[title]-8-[body]-(>==20)-<|
/// H:[badge(==badge.height)]
/// ```
///
/// ## Grammar
///
/// Literals are quoted; `[ ]` is optional, `{ }` is zero or more, `|` separates alternatives. No
/// whitespace is allowed anywhere (as in Apple's examples); the string is ASCII.
///
/// ```
/// pinString      = [ orientation ":" ] [ startEdge connection ] view { connection view } [ connection endEdge ]
/// orientation    = "H" | "V"                         (default "H")
/// startEdge      = "|" | "|>"                        ("|>": the container's safe area)
/// endEdge        = "|" | "<|"                        ("<|": the container's safe area)
/// view           = "[" name [ "(" sizePredicate { "," sizePredicate } ")" ] "]"
/// connection     = ""                                (flush: gap 0)
///                | "-"                               (standard spacing)
///                | "-" gap "-"
/// gap            = positiveNumber | metricName | "(" gapPredicate { "," gapPredicate } ")"
/// gapPredicate   = [ relation ] constant [ priority ]
/// sizePredicate  = [ relation ] ( constant | viewSize ) [ priority ]
/// viewSize       = name [ "." ( "width" | "height" ) ] [ "*" multiplier ]
/// relation       = "==" | ">=" | "<=" | ">=="        (default "=="; ">==" is a double pin)
/// priority       = ( "@" | "^" ) ( number | metricName )     (1…1000)
/// constant       = number | metricName
/// multiplier     = positiveNumber | metricName       (greater than 0)
/// number         = [ "-" | "+" ] positiveNumber
/// positiveNumber = digit { digit } [ "." digit { digit } ]
/// name           = ( letter | "_" ) { letter | digit | "_" }     (a C identifier, Apple's rule)
/// metricName     = name
/// ```
///
/// Sources: Apple's "Visual Format Language" appendix of the Auto Layout Guide (the grammar,
/// `H:`/`V:`, `|`, `-`, predicates, `@`); MMMTackKit (`|>`/`<|` safe-area edges, the `>==`
/// double pin, `^` for priorities, `alignAll`); Trellis (`viewSize`'s `.width`/`.height` and
/// `*multiplier`, which Apple's VFL cannot express: its guide names aspect ratios as the example).
///
/// ## Semantics
///
/// - A connection between item `A` and the item `B` after it constrains `B`'s start to `A`'s end:
///   `[a]-8-[b]` is `b.leading == a.trailing + 8`, `[b]-8-|` is `container.trailing == b.trailing + 8`,
///   `|-8-[a]` is `a.leading == container.leading + 8` (Apple's and Tack's orientation, so that a
///   `>=` gap means "at least"). Horizontal strings use `leading`/`trailing`, vertical ones `top`/`bottom`.
/// - `|>` and `<|` give the same constraints as `|` with ``PinItem/safeArea`` as the other item.
/// - A bare `-` is ``standardSpacing`` (8) between two views and ``standardEdgeSpacing`` (20)
///   between a view and an edge; flush items (`[a][b]`, `|[a]`) get a gap of 0.
/// - A gap or view predicate list yields one constraint per predicate, in order; a view predicate
///   constrains the view's width (`H`) or height (`V`): `[v(50)]` is `v.width == 50`,
///   `[v(==w)]` is `v.width == w.width`, `[v(==w.height*2)]` is `v.width == w.height * 2`.
/// - A double pin `>==N` yields `>= N` at priority 1000 and `== N` at the written priority, or at
///   ``doublePinPriority`` (249, Tack's `.defaultLow - 1`) when none is written: it prefers N but may grow.
/// - A name in a gap, a constant or a priority is looked up in `metrics`. In a view predicate, a
///   bare name found in `metrics` is a constant, any other name is a view (Apple's rule).
/// - View names are C identifiers. Trellis ids may also contain `-` and `.`, which the grammar
///   uses for gaps and attributes, so such a child cannot be named in a pin string; the parser
///   says so when a name stops at one of them.
/// - Whitespace is an error, and so is a view or metric name the caller does not know (checked by
///   the caller with ``viewReferences``, by the parser for metrics).
/// - Constraints come out in reading order: a connection's when the item after it is named, then
///   that view's predicates; `alignAll` constraints last.
public struct VisualFormat: Sendable, Equatable {
    /// The gap a bare `-` gives between two views (Apple's historical standard spacing).
    public static let standardSpacing = 8.0
    /// The gap a bare `-` gives between a view and the container or safe-area edge (Apple's historical value).
    public static let standardEdgeSpacing = 20.0
    /// The priority of the `==` half of a double pin `>==N` written without one: MMMTackKit's
    /// `UILayoutPriority.defaultLow - 1`, just below the priority at which content resists resizing.
    public static let doublePinPriority = 249.0

    /// The axis: `H:` (or none) is horizontal, `V:` vertical.
    public var axis: PinAxis
    /// The constraints, in the order described under Semantics.
    public var constraints: [PinConstraint]
    /// Every view name the string mentions, in order, with the column of each mention: the caller,
    /// who knows the container's children, reports unknown and duplicated views.
    public var viewReferences: [PinViewReference]

    /// Parses a pin string.
    /// - Parameters:
    ///   - text: the pin string, at most ``Limits/maximumLength`` characters.
    ///   - metrics: the values of metric names used in gaps, predicates and priorities.
    /// - Throws: `VisualFormatError` at the first wrong character.
    public static func parse(_ text: String, metrics: [String: Double] = [:]) throws(VisualFormatError) -> VisualFormat {
        try parse(text, metrics: metrics, alignAll: nil)
    }

    /// Parses a pin string and aligns its views, as MMMTackKit's `Tack.H(_:alignAll:)` and
    /// `Tack.V(_:alignAll:)` (and Apple's `alignAll…` format options) do: each view's `alignAll`
    /// attribute equals the next view's. Neither Apple nor Tack writes this inside the string, so
    /// neither does Trellis: it is an argument here.
    /// - Parameters:
    ///   - alignAll: for a horizontal string `top`, `bottom`, `centerY`, `firstBaseline` or
    ///     `lastBaseline`; for a vertical one `leading`, `trailing`, `left`, `right` or `centerX`.
    /// - Throws: `VisualFormatError` at the first wrong character, or at column 1 when `alignAll`
    ///   does not fit the string's axis.
    public static func parse(
        _ text: String, metrics: [String: Double] = [:], alignAll: PinAttribute?
    ) throws(VisualFormatError) -> VisualFormat {
        var parser = try VisualFormatParser(text, metrics: metrics)
        let chain = try parser.parseChain()
        if let alignAll, !alignAll.canAlign(along: chain.axis) {
            throw VisualFormatError(column: 1, message: alignAllMismatch(alignAll, chain.axis))
        }
        return VisualFormat(
            axis: chain.axis, constraints: chain.constraints(alignAll: alignAll), viewReferences: parser.viewReferences)
    }

    private static func alignAllMismatch(_ attribute: PinAttribute, _ axis: PinAxis) -> String {
        let fitting = PinAttribute.allCases.filter { $0.canAlign(along: axis) }.map(\.name).joined(separator: ", ")
        let direction = axis == .horizontal ? "horizontal" : "vertical"
        return "alignAll \(attribute.name) cannot align the views of a \(direction) pin string; use one of \(fitting)"
    }
}

/// Why a pin string was rejected, and where.
public struct VisualFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based column, in characters, of the first wrong character; one past the end when the
    /// string stops too early.
    public var column: Int
    /// What was expected or what is wrong, e.g. `expected "]" after the view name`.
    public var message: String

    public init(column: Int, message: String) {
        self.column = column
        self.message = message
    }

    public var description: String { "column \(column): \(message)" }
}

extension VisualFormat {
    /// Bounds on the work one pin string can cause; screen documents come from outside.
    public enum Limits {
        /// Characters in a pin string.
        public static let maximumLength = 1_000
        /// Views (`[…]`) in a pin string.
        public static let maximumViews = 64
        /// Predicates in one parenthesised list, of a gap or of a view.
        public static let maximumPredicates = 8
        /// Characters in a view or metric name (a Trellis id has at most 64).
        public static let maximumNameLength = 64
        /// Digits in a number, integer and fraction together: keeps every number exact in a
        /// `Double` before its one division by a power of ten.
        public static let maximumDigits = 12
        /// The smallest and largest priority, Auto Layout's scale.
        public static let priorities: ClosedRange<Double> = 1...1000
    }
}
