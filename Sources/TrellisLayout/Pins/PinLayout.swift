/// How a Pins container places its children: by linear constraints between their edges, as Auto
/// Layout does, instead of by flexbox. Set it as a node's `pinLayout`; the node's children are the
/// views, named in child order by `views`.
///
/// The constraints' `container` item is the container's content box (inside its padding and
/// border); `safeArea` is that box less `safeAreaInsets`. Children keep their own layout inside
/// the frames the constraints give them, so flexbox and pins nest freely.
public struct PinLayout: Sendable {
    /// The constraints, naming views by the names in `views` (a constraint naming a view that is
    /// not there, or a hidden one, is left out).
    public var constraints: [PinConstraint]
    /// The name of each child, in child order.
    public var views: [String]
    /// How far the safe area lies inside the container's border box on each edge, in points.
    public var safeAreaInsets: PinInsets

    public init(constraints: [PinConstraint], views: [String], safeAreaInsets: PinInsets = PinInsets()) {
        self.constraints = constraints
        self.views = views
        self.safeAreaInsets = safeAreaInsets
    }
}

/// Distances from a box's physical edges, in points.
public struct PinInsets: Equatable, Sendable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }
}

/// What a view brings to a pin system besides its pins: the size of its content, which it
/// defends and hugs at Auto Layout's priorities, and the sizes its own style fixes.
public struct PinViewSizing: Equatable, Sendable {
    /// The content's size; nil on an axis where the view has none (an empty box).
    public var intrinsicWidth: Double?
    public var intrinsicHeight: Double?
    /// The first line's baseline, from the view's top (nil: its bottom edge).
    public var baseline: Double?
    /// Sizes the view's style sets: required, as an explicit size constraint is in Auto Layout.
    public var width: PinSizeLimits
    public var height: PinSizeLimits
    /// Auto Layout's defaults for a label: content hugging 250, compression resistance 750.
    public var huggingPriority: Double = ConstraintPriority.defaultLow
    public var compressionResistancePriority: Double = ConstraintPriority.defaultHigh

    public init(intrinsicWidth: Double? = nil, intrinsicHeight: Double? = nil, baseline: Double? = nil,
                width: PinSizeLimits = PinSizeLimits(), height: PinSizeLimits = PinSizeLimits()) {
        self.intrinsicWidth = intrinsicWidth
        self.intrinsicHeight = intrinsicHeight
        self.baseline = baseline
        self.width = width
        self.height = height
    }
}

/// A size a style fixes on one axis: exact, or within bounds; each as points or as a fraction of
/// the container's content box.
public struct PinSizeLimits: Equatable, Sendable {
    public var exact: PinLength?
    public var minimum: PinLength?
    public var maximum: PinLength?

    public init(exact: PinLength? = nil, minimum: PinLength? = nil, maximum: PinLength? = nil) {
        self.exact = exact
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// Points, or a fraction of the container's content size on the same axis.
public enum PinLength: Equatable, Sendable {
    case points(Double)
    case fraction(Double)
}

/// What is wrong with a pin layout, found before any layout (``PinLayout/problems(sizing:)``).
public enum PinProblem: Equatable, Sendable {
    /// The required constraint at this index contradicts the required constraints before it.
    case unsatisfiable(constraint: Int)
    /// The constraint at this index relates a leading or trailing edge to a left or right edge,
    /// which means different things in right-to-left layouts (Auto Layout refuses it too).
    case mixedDirections(constraint: Int)
    /// The constraint at this index relates a horizontal attribute to a vertical one's position.
    case mixedAxes(constraint: Int)
    /// The constraints leave the view's position or size on this axis open.
    case ambiguous(view: String, axis: PinAxis)
}
