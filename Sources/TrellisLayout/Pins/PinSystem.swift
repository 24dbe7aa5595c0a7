/// The space a container's parent gives it on one axis, for its content box.
enum PinContainerSize {
    /// Exactly this size (the parent decided).
    case exactly(Double)
    /// As small as the pins allow, up to this size.
    case atMost(Double)
    /// As small as the pins allow.
    case unbounded
    /// A size to check a layout at: preferred just below required, so that no pin is reported as
    /// contradicting a size the container may never have.
    case sample(Double)
}

/// One view's variables: its frame in the container's content box.
struct PinFrameVariables {
    let x: ConstraintVariable
    let y: ConstraintVariable
    let width: ConstraintVariable
    let height: ConstraintVariable
}

/// A Pins container's constraint system: a solver holding a frame for each view and a size for
/// the container's content box, the pins between them, and what each view's content asks for.
///
/// Built in this order, so that when required constraints contradict each other the later one,
/// the pin, is the one left out: the container's size, each view's own sizes, the pins, and last
/// the content sizes (which are never required).
struct PinSystem {
    private(set) var solver = ConstraintSolver()
    let isRightToLeft: Bool
    let containerWidth: ConstraintVariable
    let containerHeight: ConstraintVariable
    private(set) var frames: [PinFrameVariables] = []
    private(set) var sizing: [PinViewSizing]
    /// The indexes of the required constraints that could not be satisfied, in order.
    private(set) var unsatisfiable: [Int] = []
    /// Each view's content-size constraints per axis, replaced when its content is measured anew.
    private var contentConstraints: [(width: [ConstraintHandle], height: [ConstraintHandle])] = []
    private let index: [String: Int]
    private let safeArea: PinInsets

    /// - Parameters:
    ///   - views: the names of the views present, in child order (a hidden view is left out).
    ///   - sizing: for each of `views`, its content and style sizes.
    ///   - safeArea: how far the safe area lies inside the content box on each physical edge.
    init(layout: PinLayout, views: [String], sizing: [PinViewSizing], safeArea: PinInsets, rightToLeft: Bool,
         width: PinContainerSize, height: PinContainerSize) {
        self.isRightToLeft = rightToLeft
        self.sizing = sizing
        self.safeArea = safeArea
        var index: [String: Int] = [:]
        for (position, name) in views.enumerated() where index[name] == nil { index[name] = position }
        self.index = index
        containerWidth = solver.makeVariable()
        containerHeight = solver.makeVariable()
        addContainerSize(containerWidth, width)
        addContainerSize(containerHeight, height)
        for _ in views {
            frames.append(PinFrameVariables(x: solver.makeVariable(), y: solver.makeVariable(),
                                            width: solver.makeVariable(), height: solver.makeVariable()))
        }
        for (view, frame) in frames.enumerated() {
            // A view with content defends its size at 750; an empty one at least is never negative.
            if sizing[view].intrinsicWidth == nil { addRequired(LinearExpression(frame.width), .greaterThanOrEqual) }
            if sizing[view].intrinsicHeight == nil { addRequired(LinearExpression(frame.height), .greaterThanOrEqual) }
            addStyleSize(sizing[view].width, frame.width, containerWidth)
            addStyleSize(sizing[view].height, frame.height, containerHeight)
        }
        for (position, pin) in layout.constraints.enumerated() {
            guard let expression = expression(of: pin) else { continue }
            let relation = Self.relation(pin.relation)
            let priority = min(max(pin.priority, 1), ConstraintPriority.required)
            do {
                try solver.add(LinearConstraint(expression, relation, priority: priority))
            } catch {
                unsatisfiable.append(position)
            }
        }
        for view in frames.indices {
            let width = addContentSize(sizing[view].intrinsicWidth, frames[view].width, sizing[view])
            let height = addContentSize(sizing[view].intrinsicHeight, frames[view].height, sizing[view])
            contentConstraints.append((width, height))
        }
    }

    /// The frame of the view at `view` (content-box coordinates) and the content box's size.
    func frame(_ view: Int) -> (x: Double, y: Double, width: Double, height: Double) {
        let f = frames[view]
        return (solver.value(of: f.x), solver.value(of: f.y), solver.value(of: f.width), solver.value(of: f.height))
    }

    var containerSize: (width: Double, height: Double) {
        (solver.value(of: containerWidth), solver.value(of: containerHeight))
    }

    /// Replaces the view's content height (a text measured again at the width it was given).
    mutating func setIntrinsicHeight(_ height: Double, of view: Int) {
        for handle in contentConstraints[view].height { try? solver.remove(handle) }
        sizing[view].intrinsicHeight = height
        contentConstraints[view].height = addContentSize(height, frames[view].height, sizing[view])
    }

    /// The views whose position or size on an axis the constraints leave open.
    func ambiguousViews(names: [String]) -> [(view: String, axis: PinAxis)] {
        var variables: [ConstraintVariable] = []
        for frame in frames { variables += [frame.x, frame.width, frame.y, frame.height] }
        let open = Set(solver.undeterminedVariables(among: variables))
        var result: [(view: String, axis: PinAxis)] = []
        for (view, frame) in frames.enumerated() {
            if open.contains(frame.x) || open.contains(frame.width) { result.append((names[view], .horizontal)) }
            if open.contains(frame.y) || open.contains(frame.height) { result.append((names[view], .vertical)) }
        }
        return result
    }

    // MARK: Building

    private mutating func addContainerSize(_ variable: ConstraintVariable, _ size: PinContainerSize) {
        let size0 = LinearExpression(variable)
        addRequired(size0, .greaterThanOrEqual)
        switch size {
        case .exactly(let value):
            addRequired(size0 - value, .equal)
        case .atMost(let value):
            addRequired(size0 - value, .lessThanOrEqual)
            add(size0, .equal, priority: ConstraintPriority.fittingSizeLevel)
        case .unbounded:
            add(size0, .equal, priority: ConstraintPriority.fittingSizeLevel)
        case .sample(let value):
            add(size0 - value, .equal, priority: ConstraintPriority.required - 1)
        }
    }

    private mutating func addStyleSize(_ limits: PinSizeLimits, _ size: ConstraintVariable, _ container: ConstraintVariable) {
        func length(_ length: PinLength) -> LinearExpression {
            switch length {
            case .points(let points): LinearExpression(constant: points)
            case .fraction(let fraction): LinearExpression(container) * fraction
            }
        }
        let size0 = LinearExpression(size)
        if let exact = limits.exact { addRequired(size0 - length(exact), .equal) }
        if let minimum = limits.minimum { addRequired(size0 - length(minimum), .greaterThanOrEqual) }
        if let maximum = limits.maximum { addRequired(size0 - length(maximum), .lessThanOrEqual) }
    }

    /// Compression resistance (not smaller than the content) and hugging (not larger).
    private mutating func addContentSize(_ content: Double?, _ size: ConstraintVariable, _ sizing: PinViewSizing) -> [ConstraintHandle] {
        guard let content, content.isFinite else { return [] }
        let difference = LinearExpression(size) - content
        return [add(difference, .greaterThanOrEqual, priority: sizing.compressionResistancePriority),
                add(difference, .lessThanOrEqual, priority: sizing.huggingPriority)].compactMap { $0 }
    }

    /// A required constraint the system itself needs; one that fails (a style's size the pins
    /// contradict) is left out, as Auto Layout breaks a constraint rather than give no layout.
    private mutating func addRequired(_ expression: LinearExpression, _ relation: ConstraintRelation) {
        add(expression, relation, priority: ConstraintPriority.required)
    }

    @discardableResult
    private mutating func add(_ expression: LinearExpression, _ relation: ConstraintRelation, priority: Double) -> ConstraintHandle? {
        try? solver.add(LinearConstraint(expression, relation, priority: priority))
    }

    static func relation(_ relation: PinRelation) -> ConstraintRelation {
        switch relation {
        case .equal: .equal
        case .lessThanOrEqual: .lessThanOrEqual
        case .greaterThanOrEqual: .greaterThanOrEqual
        }
    }

    // MARK: Anchors

    /// `first - (second × multiplier + constant)`, or nil when the pin names a view not present.
    private func expression(of pin: PinConstraint) -> LinearExpression? {
        var terms: [(ConstraintVariable, Double)] = []
        terms.reserveCapacity(6)
        guard var constant = addValue(of: pin.first, times: 1, to: &terms) else { return nil }
        constant -= pin.constant
        if let anchor = pin.second {
            guard let second = addValue(of: anchor, times: -pin.multiplier, to: &terms) else { return nil }
            constant += second
        }
        return LinearExpression(terms, constant: constant)
    }

    /// Appends `factor ×` an anchor's value, in content-box coordinates, to `terms` and returns
    /// `factor ×` its constant part; nil for a view not present. Leading and trailing are measured
    /// in the reading direction, as Auto Layout measures them: in right-to-left layouts from the
    /// right edge leftwards, so that `leading + 16` is 16 points further in whichever the direction.
    private func addValue(of anchor: PinAnchor, times factor: Double,
                          to terms: inout [(ConstraintVariable, Double)]) -> Double? {
        // The box as origin + size: each is a variable, a constant, or (the safe area's size) both.
        let x: (ConstraintVariable?, Double), y: (ConstraintVariable?, Double)
        let width: (ConstraintVariable?, Double), height: (ConstraintVariable?, Double)
        var baseline: (first: Double, descent: Double) = (0, 0)
        switch anchor.item {
        case .container:
            (x, y, width, height) = ((nil, 0), (nil, 0), (containerWidth, 0), (containerHeight, 0))
        case .safeArea:
            (x, y) = ((nil, safeArea.left), (nil, safeArea.top))
            width = (containerWidth, -(safeArea.left + safeArea.right))
            height = (containerHeight, -(safeArea.top + safeArea.bottom))
        case .view(let name):
            guard let view = index[name] else { return nil }
            let f = frames[view]
            (x, y, width, height) = ((f.x, 0), (f.y, 0), (f.width, 0), (f.height, 0))
            let content = sizing[view].intrinsicHeight ?? 0
            let first = sizing[view].baseline ?? content
            baseline = (first, max(0, content - first))
        }
        var constant = 0.0
        func add(_ part: (ConstraintVariable?, Double), _ coefficient: Double) {
            if let variable = part.0 { terms.append((variable, coefficient * factor)) }
            constant += part.1 * coefficient * factor
        }
        switch anchor.attribute {
        case .left: add(x, 1)
        case .right: add(x, 1); add(width, 1)
        case .leading, .trailing:
            // Physical left edge (leading in LTR, trailing in RTL) or right edge; in RTL, W − edge.
            let isLeftEdge = (anchor.attribute == .leading) != isRightToLeft
            if isRightToLeft { terms.append((containerWidth, factor)) }
            let sign = isRightToLeft ? -1.0 : 1.0
            add(x, sign)
            if !isLeftEdge { add(width, sign) }
        case .centerX: add(x, 1); add(width, 0.5)
        case .width: add(width, 1)
        case .top: add(y, 1)
        case .bottom: add(y, 1); add(height, 1)
        case .centerY: add(y, 1); add(height, 0.5)
        case .height: add(height, 1)
        case .firstBaseline: add(y, 1); constant += baseline.first * factor
        case .lastBaseline: add(y, 1); add(height, 1); constant -= baseline.descent * factor
        }
        return constant
    }
}
