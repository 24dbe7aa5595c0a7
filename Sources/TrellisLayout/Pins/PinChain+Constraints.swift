/// Turning a parsed chain into constraints (the Semantics section of ``VisualFormat``).
extension PinChain {
    /// The chain's constraints in reading order, then the `alignAll` ones.
    func constraints(alignAll: PinAttribute?) -> [PinConstraint] {
        var result = sizeConstraints(of: items.first)
        for ((previous, next), connection) in zip(zip(items, items.dropFirst()), connections) {
            result += connectionConstraints(connection, from: previous, to: next)
            result += sizeConstraints(of: next)
        }
        if let alignAll { result += alignmentConstraints(alignAll) }
        return result
    }

    /// `next.start RELATION previous.end + gap`: the later item first, as Apple and Tack write it.
    private func connectionConstraints(
        _ connection: ChainConnection, from previous: ChainItem, to next: ChainItem
    ) -> [PinConstraint] {
        let first = next.anchorFacingPrevious(axis)
        let second = previous.anchorFacingNext(axis)
        switch connection {
        case .flush(let column):
            return [PinConstraint(first, .equal, second, column: column)]
        case .standard(let column):
            let spacing = previous.isView && next.isView ? VisualFormat.standardSpacing : VisualFormat.standardEdgeSpacing
            return [PinConstraint(first, .equal, second, constant: spacing, column: column)]
        case .gap(let predicates):
            return predicates.flatMap { predicate in
                Self.expand(predicate, PinConstraint(first, .equal, second, constant: predicate.object, column: predicate.column))
            }
        }
    }

    /// A view's predicates on its width (horizontal) or height (vertical).
    private func sizeConstraints(of item: ChainItem?) -> [PinConstraint] {
        guard case .view(let name, _, let predicates)? = item else { return [] }
        let size = PinAnchor(.view(name), axis.sizeAttribute)
        return predicates.flatMap { predicate in
            let constraint = switch predicate.object {
            case .constant(let value):
                PinConstraint(size, .equal, constant: value, column: predicate.column)
            case .view(let other, let attribute, let multiplier):
                PinConstraint(
                    size, .equal, PinAnchor(.view(other), attribute ?? axis.sizeAttribute), multiplier: multiplier,
                    column: predicate.column)
            }
            return Self.expand(predicate, constraint)
        }
    }

    /// Gives `constraint` the predicate's relation and priority; a double pin becomes two constraints.
    private static func expand<Object>(_ predicate: WrittenPredicate<Object>, _ constraint: PinConstraint) -> [PinConstraint] {
        var atLeast = constraint
        atLeast.priority = PinConstraint.requiredPriority
        switch predicate.relation {
        case .single(let relation):
            atLeast.relation = relation
            atLeast.priority = predicate.priority ?? PinConstraint.requiredPriority
            return [atLeast]
        case .doublePin:
            atLeast.relation = .greaterThanOrEqual
            var preferred = constraint
            preferred.relation = .equal
            preferred.priority = predicate.priority ?? VisualFormat.doublePinPriority
            return [atLeast, preferred]
        }
    }

    /// Each view's `attribute` equals the next one's, as in MMMTackKit's `resolved(_:alignment:)`;
    /// a view written twice in a row is not aligned with itself.
    private func alignmentConstraints(_ attribute: PinAttribute) -> [PinConstraint] {
        let views: [(name: String, column: Int)] = items.compactMap { item in
            guard case .view(let name, let column, _) = item else { return nil }
            return (name, column)
        }
        return zip(views, views.dropFirst()).compactMap { view, next in
            guard view.name != next.name else { return nil }
            return PinConstraint(
                PinAnchor(.view(view.name), attribute), .equal, PinAnchor(.view(next.name), attribute), column: next.column)
        }
    }
}

extension ChainItem {
    fileprivate var isView: Bool {
        if case .view = self { return true }
        return false
    }

    /// Where a gap before this item ends: a view's start, or the end edge's end.
    fileprivate func anchorFacingPrevious(_ axis: PinAxis) -> PinAnchor {
        switch self {
        case .view(let name, _, _): PinAnchor(.view(name), axis.startAttribute)
        case .edge(let item, _): PinAnchor(item, axis.endAttribute)
        }
    }

    /// Where a gap after this item starts: a view's end, or the start edge's start.
    fileprivate func anchorFacingNext(_ axis: PinAxis) -> PinAnchor {
        switch self {
        case .view(let name, _, _): PinAnchor(.view(name), axis.endAttribute)
        case .edge(let item, _): PinAnchor(item, axis.startAttribute)
        }
    }
}
