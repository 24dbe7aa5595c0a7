import TrellisJSON
import TrellisTargeting

/// A place in a screen where users can see different things: a Rule node or an Experiment node.
public struct DecisionPoint: Sendable {
    public enum Kind: Sendable {
        /// Outcome 1 shows `child`, 0 shows `else` (or nothing).
        case rule(RuleExpression)
        /// Outcome *i* shows `variants[i]`; ``Outcomes/none`` shows nothing (so only the first
        /// 255 variants of a node can be shown; an experiment has at most 100).
        case experiment(key: String, variants: [String])
    }

    public var kind: Kind
    public var id: String?
    /// Where the node is in the authored screen.
    public var path: JSONPath
}

/// The decision points of one screen, in tree order, and the rollouts they name. Depends only on
/// the screen, so it can be computed once per revision. A class: every request reads its screen's,
/// and a copy of a struct retained each of its arrays, in cold memory at thousands of screens.
public final class ScreenDecisions: Sendable {
    /// Every Rule and Experiment node, in pre-order: a node before its children; a component's
    /// subviews, then its fallback; a Rule's `child`, then `else`; an Experiment's variants in
    /// written order.
    public let points: [DecisionPoint]
    /// Every rollout the points' expressions name directly (not through named rules), first use
    /// first. Their in/out is part of the outcomes so the answer can report it for exposure logging.
    public let rollouts: [String]
    /// What a request's outcomes are decided from: the points' guards and rules, laid flat. A
    /// value, for a screen's entry to keep a copy of: a request then reads it where it reads the
    /// entry (``ScreenResolver/outcomes(of:for:evaluator:)-(DecisionTable,_,_)``), not from this object.
    public let table: DecisionTable

    /// The length of an ``Outcomes`` vector for this screen.
    public var count: Int { points.count + rollouts.count }

    init(points: [DecisionPoint], rollouts: [String], table: DecisionTable) {
        self.points = points
        self.rollouts = rollouts
        self.table = table
    }

    /// A screen's without Rules and Experiments: one for all of them.
    static let none = ScreenDecisions(
        points: [], rollouts: [], table: DecisionTable(points: [], rules: FlatRules(), rolloutPoints: [], rolloutNames: []))
}

/// What ``ScreenResolver/outcomes(of:for:evaluator:)`` reads of a screen's decisions, in four
/// contiguous arrays: the points' rules (``FlatRules``'s three), kept as expressions for
/// everything else, are a box per node, and at thousands of screens a request found most of them
/// in cold memory; and the points' guards with the points naming each rollout, in one array of
/// words (each array was a line from memory of its own).
public struct DecisionTable: Sendable {
    struct Point: Sendable {
        /// The nearest enclosing point, and the outcome of it that shows this one; -1 for none.
        let guardPoint: Int32
        let guardOutcome: Int32
        /// A Rule: where its expression starts in `rules`. An Experiment: the index of its key in
        /// `rules`' names, its variants' names following.
        let start: UInt32
        /// An Experiment's number of variants; ``rule`` for a Rule.
        let variants: UInt32
        static let rule = UInt32.max

        /// Whether a user reaches the point, given whether each point before it is reached
        /// (`shown`) and their outcomes.
        func isReached(_ shown: [Bool], _ outcomes: [UInt8]) -> Bool {
            guardPoint < 0 || (shown[Int(guardPoint)] && ScreenResolver.shows(outcomes[Int(guardPoint)], Int(guardOutcome)))
        }
    }

    /// Each point's four words (``Point``'s fields in order), then for each rollout of
    /// ``ScreenDecisions/rollouts`` the end of its run and the index of its name in `rules`, then
    /// the runs: the points that name each rollout, one run after another.
    private let words: [UInt32]
    let pointCount: Int
    let rolloutCount: Int
    let rules: FlatRules

    /// - Parameter rolloutPoints: for each rollout, the points that name it.
    /// - Parameter rolloutNames: for each rollout, the index of its name in `rules`' names.
    init(points: [Point], rules: FlatRules, rolloutPoints: [[Int]], rolloutNames: [Int]) {
        var words: [UInt32] = []
        words.reserveCapacity(4 * points.count + 2 * rolloutPoints.count + rolloutPoints.reduce(0) { $0 + $1.count })
        // Appended a word at a time: a start builds a table for every screen it checks, and an
        // array literal per point was an allocation each.
        for point in points {
            words.append(UInt32(bitPattern: point.guardPoint))
            words.append(UInt32(bitPattern: point.guardOutcome))
            words.append(point.start)
            words.append(point.variants)
        }
        var end = 0
        for (users, name) in zip(rolloutPoints, rolloutNames) {
            end += users.count
            words.append(UInt32(end))
            words.append(UInt32(name))
        }
        for users in rolloutPoints {
            for point in users { words.append(UInt32(point)) }
        }
        self.words = words
        pointCount = points.count
        rolloutCount = rolloutPoints.count
        self.rules = rules
    }

    /// Reads every line of the table's buffers (its words, the rules' code, names and conditions),
    /// one load after another: for a screen nobody asked for lately each is a line from memory,
    /// and issued together they arrive in about the time of one, where evaluation reaching them one
    /// by one waited for each in turn. A feed's rules are some sixteen lines; reading only the
    /// first line of each buffer first left most of them to that wait. Returns a sum of what it
    /// read, for the caller to use: a result nobody reads would not be loaded.
    func warm() -> Int { words.withUnsafeBytes(FlatRules.everyLine) &+ rules.warm() }

    /// The points in tree order.
    var points: some RandomAccessCollection<Point> { (0..<pointCount).lazy.map { point(at: $0) } }

    func point(at index: Int) -> Point {
        let base = 4 * index
        return Point(
            guardPoint: Int32(bitPattern: words[base]), guardOutcome: Int32(bitPattern: words[base + 1]), start: words[base + 2],
            variants: words[base + 3])
    }

    /// Whether any of the points naming rollout `index` is shown, and the index of the rollout's
    /// name in `rules`' names.
    func rollout(_ index: Int, namedBy shown: [Bool]) -> (shown: Bool, name: Int) {
        let entry = 4 * pointCount + 2 * index
        let runs = 4 * pointCount + 2 * rolloutCount
        let start = index == 0 ? 0 : Int(words[entry - 2])
        var isShown = false
        for run in (runs + start)..<(runs + Int(words[entry])) where shown[Int(words[run])] {
            isShown = true
            break
        }
        return (isShown, Int(words[entry + 1]))
    }
}

/// The outcome of every decision of one screen for one user: one byte per decision point (a Rule:
/// 0 or 1; an Experiment: the index of the variant shown, or ``none``), then one per rollout of
/// ``ScreenDecisions/rollouts`` (0 or 1). Two users with equal outcomes get byte-identical answers,
/// so this is the cache key (with the screen, its revision and the client's schema version).
public struct Outcomes: Hashable, Sendable, CustomStringConvertible {
    public var bytes: [UInt8]
    /// An Experiment outcome that shows nothing and assigns nothing (an unknown experiment).
    public static let none: UInt8 = 0xFF

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// `1.0.3.1`, for logs.
    public var description: String { bytes.map(String.init).joined(separator: ".") }
}

/// Turns an authored screen into what one client receives, in the three steps the request
/// pipeline caches between (DESIGN.md, "The request pipeline"):
///
/// 1. ``decisions(of:)`` — once per screen revision;
/// 2. ``outcomes(of:for:evaluator:)`` — per request: a few hashes and rule evaluations;
/// 3. ``resolve(_:outcomes:clientSchemaVersion:)`` — on a cache miss only. It is a pure function of
///    its arguments: equal outcomes and schema version give an equal answer.
public struct ScreenResolver: Sendable {
    public let registry: ComponentRegistry

    public init(registry: ComponentRegistry = .standard) { self.registry = registry }

    /// The screen's decision points and the rollouts they name.
    public func decisions(of screen: Screen) -> ScreenDecisions {
        var walk = DecisionWalk()
        walk.visit(screen.root, guarded: nil)
        guard !walk.points.isEmpty else { return .none }
        // Held for the screen's life (CheckedScreen): without the walk's growth room.
        return ScreenDecisions(points: walk.points.exactlySized(), rollouts: walk.rollouts.exactlySized(), table: walk.table())
    }

    /// Evaluates the decisions for one user. An Experiment node shows the variant the
    /// configuration assigns; when the node has no variant of that name, the experiment's default
    /// variant; when it has neither (or the experiment is unknown), nothing (``Outcomes/none``).
    ///
    /// A point inside a branch that its enclosing Rule or Experiment does not show is not
    /// evaluated and reads 0, and so does a rollout that only such points name: users who differ
    /// only there get equal outcomes, hence one cache entry.
    public func outcomes(of decisions: ScreenDecisions, for context: UserContext, evaluator: Evaluator) -> Outcomes {
        outcomes(of: decisions.table, for: context, evaluator: evaluator)
    }

    /// The same, from the decisions' table (``ScreenDecisions/table``).
    /// Borrowed, not copied: a copy retains each of the table's four buffers, and a retain of a
    /// line from memory waits for it before anything after it may load — the buffers would arrive
    /// one after another, not together (``DecisionTable/warm()``).
    public func outcomes(of table: borrowing DecisionTable, for context: UserContext, evaluator: Evaluator) -> Outcomes {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(table.pointCount + table.rolloutCount)
        guard table.warm() >= 0 else { preconditionFailure("a sum of bytes is never negative") }
        var shown: [Bool] = []
        shown.reserveCapacity(table.pointCount)
        var memo = EvaluationMemo()
        for index in 0..<table.pointCount {
            let point = table.point(at: index)
            let reachable = point.isReached(shown, bytes)
            shown.append(reachable)
            guard reachable else {
                bytes.append(0)
                continue
            }
            guard point.variants != DecisionTable.Point.rule else {
                bytes.append(evaluator.evaluate(table.rules, at: Int(point.start), for: context, memo: &memo) ? 1 : 0)
                continue
            }
            let key = table.rules.name(at: Int(point.start))
            let variants = table.rules.names(in: Int(point.start) + 1..<Int(point.start) + 1 + Int(point.variants))
            let assigned = evaluator.variant(of: key, for: context)
            // The default variant is looked up only when the assigned one is not in this screen.
            let found = assigned.flatMap { variants.firstIndex(of: $0) }
                ?? (evaluator.configuration.experiments[key]?.defaultVariant).flatMap { variants.firstIndex(of: $0) }
            let position = found.map { $0 - variants.startIndex }
            bytes.append(position.flatMap { $0 < Int(Outcomes.none) ? UInt8($0) : nil } ?? Outcomes.none)
        }
        for index in 0..<table.rolloutCount {
            let rollout = table.rollout(index, namedBy: shown)
            let isIn = rollout.shown && memo.isInRollout(named: rollout.name) { evaluator.isInRollout(table.rules.name(at: rollout.name), for: context) }
            bytes.append(isIn ? 1 : 0)
        }
        return Outcomes(bytes)
    }

    /// Whether the outcome byte of a decision point shows its branch number `branch`.
    static func shows(_ outcome: UInt8, _ branch: Int) -> Bool {
        outcome != Outcomes.none && Int(outcome) == branch
    }

    /// The screen as a client of `clientSchemaVersion` sees it, given the outcome of every decision.
    ///
    /// - Rule nodes become their `child` (outcome 1) or `else` (outcome 0; nothing without `else`).
    /// - Experiment nodes become the variant at the outcome's index (nothing for a `null` variant
    ///   or ``Outcomes/none``).
    /// - A component whose type is newer than `clientSchemaVersion` becomes its resolved
    ///   `fallback`; without one, its type's `defaultFallback` (the first in the chain the client
    ///   can render), keeping id, subviews and metadata and only the properties and values that type
    ///   knows; without that, it is dropped with its subviews. Each is listed in ``ResolvedScreen/replaced``.
    /// - Properties and values newer than `clientSchemaVersion` are dropped.
    /// - An action of a kind newer than `clientSchemaVersion` becomes its resolved `fallback`, else
    ///   its kind's default (``ResolveWalk/defaultAction(_:_:at:)``), else it is removed; each is listed in
    ///   ``ResolvedScreen/replaced``. No `fallback` key of an action is left.
    /// - `$param` and `$format` objects are left as they are: ``ResolvedScreen/substituting(_:registry:)`` fills them in.
    /// - Precondition: `outcomes` has one byte per decision of `screen` (``ScreenDecisions/count``).
    public func resolve(_ screen: Screen, outcomes: Outcomes, clientSchemaVersion: Int) -> ResolvedScreen {
        resolve(screen, decisions: decisions(of: screen), outcomes: outcomes, clientSchemaVersion: clientSchemaVersion)
    }

    /// The same, with the screen's decisions found once beforehand (``decisions(of:)`` of this screen).
    public func resolve(
        _ screen: Screen, decisions: ScreenDecisions, outcomes: Outcomes, clientSchemaVersion: Int
    ) -> ResolvedScreen {
        precondition(outcomes.bytes.count == decisions.count, "outcomes for \(outcomes.bytes.count) decisions, the screen has \(decisions.count)")
        var walk = ResolveWalk(
            registry: registry, schemaVersion: clientSchemaVersion, outcomes: outcomes.bytes,
            rolloutOffsets: Dictionary(uniqueKeysWithValues: decisions.rollouts.enumerated().map { ($1, decisions.points.count + $0) }))
        let root = walk.resolve(screen.root, at: JSONPath.root.appending("root"))
        return ResolvedScreen(
            id: screen.id, schemaVersion: min(clientSchemaVersion, screen.schemaVersion), title: screen.title,
            metadata: screen.metadata, root: root,
            assignments: ResolvedScreen.Assignments(experiments: walk.experiments, rollouts: walk.rollouts),
            replaced: walk.replaced, needsSubstitution: screen.needsSubstitution)
    }
}

/// One resolution: walks the tree in the order of ``ScreenResolver/decisions(of:)``, so the
/// cursor always points at the outcome of the next decision point. Package: an encoding plan
/// (TrellisAnswers) resolves each part without decisions by this same walk, so that its bytes are
/// the resolver's.
package struct ResolveWalk {
    let registry: ComponentRegistry
    let schemaVersion: Int
    let outcomes: [UInt8]
    let rolloutOffsets: [String: Int]
    var cursor = 0
    var experiments: [ResolvedScreen.Assignments.Pair<String>] = []
    var rollouts: [ResolvedScreen.Assignments.Pair<Bool>] = []
    package var replaced: [ResolvedScreen.Replacement] = []

    package mutating func resolve(_ node: Node, at path: JSONPath) -> ResolvedComponent? {
        switch node {
        case .component(let component):
            return resolve(component, at: path)
        case .rule(_, let rule, let then, let otherwise):
            let taken = outcomes[cursor] != 0
            cursor += 1
            for case (.rollout(let key), _) in rule.references(at: path) where !rollouts.contains(where: { $0.key == key }) {
                rollouts.append(.init(key, outcomes[rolloutOffsets[key]!] != 0))
            }
            if taken {
                let shown = resolve(then, at: path.appending("child"))
                skip(otherwise)
                return shown
            }
            skip(then)
            return otherwise.flatMap { resolve($0, at: path.appending("else")) }
        case .experiment(_, let key, let variants):
            let chosen = outcomes[cursor] == Outcomes.none ? -1 : Int(outcomes[cursor])
            cursor += 1
            if variants.indices.contains(chosen), !experiments.contains(where: { $0.key == key }) {
                experiments.append(.init(key, variants[chosen].name))
            }
            var shown: ResolvedComponent?
            for (index, variant) in variants.enumerated() {
                if index == chosen, let node = variant.node {
                    shown = resolve(node, at: path.appending("variants").appending(variant.name))
                } else {
                    skip(variant.node)
                }
            }
            return shown
        }
    }

    private mutating func resolve(_ component: Component, at path: JSONPath) -> ResolvedComponent? {
        let registered = registry[component.kind]
        guard let type = registered, type.introduced > schemaVersion else {
            // Renderable (or left out of this registry, which the decoder never lets through).
            // Members before subviews, so `replaced` stays in tree order.
            let properties = known(component.properties, registered?.properties) { path.appending("properties") }
            let values = known(component.values, registered?.values) { path.appending("values") }
            let subviews = resolveSubviews(component.subviews, at: path)
            skip(component.fallback)
            return ResolvedComponent(
                kind: component.kind, id: component.id, properties: properties, values: values, subviews: subviews,
                metadata: component.metadata, style: component.style, pins: component.pins)
        }
        if let fallback = component.fallback {
            for child in component.subviews { skip(child) }
            let position = replaced.count  // this entry goes before those of the fallback's own subtree
            let shown = resolve(fallback, at: path.appending("fallback"))
            replaced.insert(.init(id: component.id, path: path, type: type.name, how: .fallback, replacement: shown?.type), at: position)
            return shown
        }
        guard let stand = defaultFallback(of: type) else {
            for child in component.subviews { skip(child) }
            replaced.append(.init(id: component.id, path: path, type: type.name, how: .dropped, replacement: nil))
            return nil
        }
        // Recorded before the subviews, so the list stays in tree order.
        replaced.append(.init(id: component.id, path: path, type: type.name, how: .defaultFallback, replacement: stand.name))
        let properties = known(component.properties, stand.properties) { path.appending("properties") }
        let values = known(component.values, stand.values) { path.appending("values") }
        let subviews: [ResolvedComponent]
        if stand.children == .none {
            for child in component.subviews { skip(child) }
            subviews = []
        } else {
            subviews = resolveSubviews(component.subviews, at: path)
        }
        return ResolvedComponent(
            kind: stand.kind, id: component.id, properties: properties, values: values, subviews: subviews,
            metadata: component.metadata, style: component.style)
    }

    private mutating func resolveSubviews(_ subviews: [Node], at path: JSONPath) -> [ResolvedComponent] {
        subviews.enumerated().compactMap { resolve($1, at: path.appending("subviews").appending($0)) }
    }

    /// The first type along the default-fallback chain the client can render.
    private func defaultFallback(of type: ComponentType) -> ComponentType? {
        var current = type
        var steps = 0
        while let kind = current.defaultFallback, let next = registry[kind], steps < registry.types.count {
            if next.introduced <= schemaVersion { return next }
            current = next
            steps += 1
        }
        return nil
    }

    /// The members `specs` knows and the client's schema version has, each action resolved for
    /// that version (``resolveAction(_:at:)``); an action that resolves to nothing is left out.
    /// - Parameter path: the authored path of the `properties` or `values` object.
    private mutating func known(_ members: [JSONMember], _ specs: [String: PropertySpec]?, at path: () -> JSONPath) -> [JSONMember] {
        guard let specs else { return members }
        // Nil while every member so far is kept as written: most components keep them all, and
        // then share the authored array instead of copying it.
        var kept: [JSONMember]?
        for (index, member) in members.enumerated() {
            guard let spec = specs[member.key], spec.introduced <= schemaVersion else {
                if kept == nil { kept = Array(members[..<index]) }
                continue
            }
            guard case .action = spec.type else {
                kept?.append(member)
                continue
            }
            if kept == nil { kept = Array(members[..<index]) }
            if let action = resolveAction(member.value, at: path().appending(member.key)) {
                kept?.append(JSONMember(key: member.key, keyLocation: member.keyLocation, value: action))
            }
        }
        return kept ?? members
    }

    /// Moves the cursor past every decision point inside `node`, which is not shown.
    private mutating func skip(_ node: Node?) {
        guard let node else { return }
        cursor += Self.pointCount(node)
    }

    package static func pointCount(_ node: Node) -> Int {
        switch node {
        case .component(let c): c.subviews.reduce(0) { $0 + pointCount($1) } + (c.fallback.map(pointCount) ?? 0)
        case .rule(_, _, let then, let otherwise): 1 + pointCount(then) + (otherwise.map(pointCount) ?? 0)
        case .experiment(_, _, let variants): 1 + variants.reduce(0) { $0 + ($1.node.map(pointCount) ?? 0) }
        }
    }
}

extension ResolveWalk {
    /// A walk that takes no decision: what a plan resolves a part without decision points with.
    package init(registry: ComponentRegistry, schemaVersion: Int) {
        self.init(registry: registry, schemaVersion: schemaVersion, outcomes: [], rolloutOffsets: [:])
    }
}

/// One pass of ``ScreenResolver/decisions(of:)`` over a screen's tree, in pre-order.
private struct DecisionWalk {
    var points: [DecisionPoint] = []
    var guards: [(point: Int, outcome: Int)?] = []
    var rollouts: [String] = []
    var rolloutPoints: [[Int]] = []
    /// The way from the document to the node being visited. A path is made of it only at a
    /// decision point (packed: it is kept as long as the screen is served): most nodes are
    /// components, which need none, and a start walks every node of every screen.
    private var trail: [JSONPath.Component] = [.key("root")]

    /// The points' guards and rules, and the points naming each rollout, laid flat.
    func table() -> DecisionTable {
        var rules = FlatRules()
        let flat = zip(points, guards).map { point, guarded in
            let start: Int
            var variantCount = DecisionTable.Point.rule
            switch point.kind {
            case .rule(let expression):
                start = rules.append(expression)
            case .experiment(let key, let variants):
                start = rules.append(name: key)
                variants.forEach { rules.append(name: $0) }
                variantCount = UInt32(variants.count)
            }
            return DecisionTable.Point(
                guardPoint: Int32(guarded?.point ?? -1), guardOutcome: Int32(guarded?.outcome ?? 0), start: UInt32(start), variants: variantCount)
        }
        // Each rollout is named by a `.rollout` leaf of a point's rule, so its name is among the
        // rules' already (and would be added if it ever were not).
        let names = rollouts.map { rules.index(ofName: $0) }
        return DecisionTable(points: flat, rules: rules.exactlySized(), rolloutPoints: rolloutPoints, rolloutNames: names)
    }

    mutating func visit(_ node: Node, guarded: (point: Int, outcome: Int)?) {
        switch node {
        case .component(let c):
            // Only these two, read at once: the optimizer then copies them alone, not the whole component.
            let (subviews, fallback) = (c.subviews, c.fallback)
            if !subviews.isEmpty {
                trail.append(.key("subviews"))
                for (i, child) in subviews.enumerated() {
                    trail.append(.index(i))
                    visit(child, guarded: guarded)
                    trail.removeLast()
                }
                trail.removeLast()
            }
            if let fallback { visit(fallback, under: .key("fallback"), guarded: guarded) }
        case .rule(let id, let rule, let then, let otherwise):
            let path = JSONPath(packing: trail)
            let index = points.count
            points.append(DecisionPoint(kind: .rule(rule), id: id, path: path))
            guards.append(guarded)
            for case (.rollout(let key), _) in rule.references(at: path) {
                if let k = rollouts.firstIndex(of: key) {
                    if rolloutPoints[k].last != index { rolloutPoints[k].append(index) }
                } else {
                    rollouts.append(key)
                    rolloutPoints.append([index])
                }
            }
            visit(then, under: .key("child"), guarded: (index, 1))
            if let otherwise { visit(otherwise, under: .key("else"), guarded: (index, 0)) }
        case .experiment(let id, let key, let variants):
            let index = points.count
            points.append(DecisionPoint(kind: .experiment(key: key, variants: variants.map(\.name)), id: id, path: JSONPath(packing: trail)))
            guards.append(guarded)
            trail.append(.key("variants"))
            for (i, variant) in variants.enumerated() {
                if let child = variant.node { visit(child, under: .key(variant.name), guarded: (index, i)) }
            }
            trail.removeLast()
        }
    }

    private mutating func visit(_ node: Node, under component: JSONPath.Component, guarded: (point: Int, outcome: Int)?) {
        trail.append(component)
        visit(node, guarded: guarded)
        trail.removeLast()
    }
}
