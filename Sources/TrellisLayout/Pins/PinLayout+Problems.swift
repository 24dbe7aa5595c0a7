extension PinLayout {
    /// The content-box size at which a layout is checked for ambiguity: a phone's. Any size would
    /// do, as long as no pin contradicts it: the check asks what the pins leave open, not where.
    static let checkedContainerSize = (width: 390.0, height: 844.0)

    /// What is wrong with this layout whatever size the container is given: constraints that
    /// mix directions or axes, required constraints that contradict each other, and views whose
    /// position or size the constraints leave open.
    ///
    /// - Parameter sizing: for each of `views`, its content and style sizes (only whether a view
    ///   has content on an axis matters here, not how big it is).
    /// - Returns: the problems in the order of the constraints, then of the views.
    public func problems(sizing: [PinViewSizing]) -> [PinProblem] {
        var problems: [PinProblem] = []
        for (position, pin) in constraints.enumerated() {
            if let problem = Self.attributeProblem(pin, at: position) { problems.append(problem) }
        }
        guard problems.isEmpty else { return problems }
        let free = PinSystem(layout: self, views: views, sizing: sizing, safeArea: PinInsets(), rightToLeft: false,
                             width: .unbounded, height: .unbounded)
        problems += free.unsatisfiable.map { .unsatisfiable(constraint: $0) }
        var checkable = self
        checkable.constraints = constraints.enumerated().compactMap { free.unsatisfiable.contains($0.offset) ? nil : $0.element }
        let sized = PinSystem(layout: checkable, views: views, sizing: sizing, safeArea: PinInsets(), rightToLeft: false,
                              width: .sample(Self.checkedContainerSize.width),
                              height: .sample(Self.checkedContainerSize.height))
        problems += sized.ambiguousViews(names: views).map { .ambiguous(view: $0.view, axis: $0.axis) }
        return problems
    }

    /// A pin that relates a reading-direction edge to a physical one, or attributes of different
    /// kinds: positions relate to positions on the same axis, sizes to sizes (on either axis: an
    /// aspect ratio).
    private static func attributeProblem(_ pin: PinConstraint, at position: Int) -> PinProblem? {
        guard let second = pin.second?.attribute else { return nil }
        let first = pin.first.attribute
        if first.isReadingDirection && second.isPhysicalHorizontal || first.isPhysicalHorizontal && second.isReadingDirection {
            return .mixedDirections(constraint: position)
        }
        if first.kind != second.kind { return .mixedAxes(constraint: position) }
        return nil
    }
}

extension PinAttribute {
    enum Kind { case horizontalPosition, verticalPosition, size }

    var kind: Kind {
        switch self {
        case .left, .right, .leading, .trailing, .centerX: .horizontalPosition
        case .top, .bottom, .centerY, .firstBaseline, .lastBaseline: .verticalPosition
        case .width, .height: .size
        }
    }

    var isReadingDirection: Bool { self == .leading || self == .trailing }
    var isPhysicalHorizontal: Bool { self == .left || self == .right }
}
