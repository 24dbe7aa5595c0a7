import TrellisJSON
import TrellisScreens

/// The authored JSON path of each component of a resolved screen, in a tree of the resolved
/// tree's shape: a Rule or Experiment node is gone from the resolved tree, and the subviews after
/// a branch that shows nothing move up, so a resolved path is not where an author finds the
/// component. Made by walking the authored screen with the outcomes it was resolved with, as
/// ``ScreenResolver/resolve(_:outcomes:clientSchemaVersion:)`` walks it.
public struct AuthoredPaths: Sendable {
    public var path: JSONPath
    public var subviews: [AuthoredPaths]

    public init(path: JSONPath, subviews: [AuthoredPaths] = []) {
        self.path = path
        self.subviews = subviews
    }

    /// The paths of `screen` resolved with `outcomes` for a client of `clientSchemaVersion`.
    public init?(_ screen: Screen, outcomes: Outcomes, clientSchemaVersion: Int, registry: ComponentRegistry = .standard) {
        var walk = PathWalk(registry: registry, schemaVersion: clientSchemaVersion, outcomes: outcomes.bytes)
        guard let paths = walk.paths(screen.root, at: JSONPath.root.appending("root")) else { return nil }
        self = paths
    }
}

/// One of the screens a user can be shown: the screen resolved with one combination of its
/// decisions' outcomes, and where each of its components is in the document.
public struct ReachableScreen: Sendable {
    public var screen: ResolvedScreen
    public var paths: AuthoredPaths?
    public var outcomes: Outcomes
}

extension Screen {
    /// Every combination of its Rules' and Experiments' outcomes some user can get, resolved for a
    /// client of the screen's own schema version: a Rule shows its `child` or its `else`, an
    /// Experiment each of its variants; a decision inside a branch not shown is not varied. At most
    /// `limit` combinations, the first in tree order (a screen of a dozen independent decisions has
    /// thousands; the shipped home screen has 16).
    public func reachableScreens(resolver: ScreenResolver = ScreenResolver(), limit: Int = 256) -> [ReachableScreen] {
        let decisions = resolver.decisions(of: self)
        let points = decisions.points
        let rolloutBytes = [UInt8](repeating: 0, count: decisions.count - points.count)
        var vectors: [[UInt8]] = []
        func choose(_ bytes: [UInt8]) {
            guard vectors.count < limit else { return }
            guard bytes.count < points.count else { return vectors.append(bytes) }
            let padded = bytes + [UInt8](repeating: 0, count: points.count - bytes.count) + rolloutBytes
            guard decisions.reachability(of: Outcomes(padded))[bytes.count] else { return choose(bytes + [0]) }
            switch points[bytes.count].kind {
            case .rule: for outcome: UInt8 in [1, 0] { choose(bytes + [outcome]) }
            case .experiment(_, let variants):
                for index in variants.indices.prefix(Int(Outcomes.none)) { choose(bytes + [UInt8(index)]) }
            }
        }
        choose([])
        return vectors.map { bytes in
            let outcomes = Outcomes(bytes + rolloutBytes)
            let resolved = resolver.resolve(self, decisions: decisions, outcomes: outcomes, clientSchemaVersion: schemaVersion)
            let paths = AuthoredPaths(self, outcomes: outcomes, clientSchemaVersion: schemaVersion, registry: resolver.registry)
            return ReachableScreen(screen: resolved, paths: paths, outcomes: outcomes)
        }
    }

    /// A value for each parameter the screen takes, of the kind each place expects: what a lint
    /// lays a screen that needs its route's parameters out with.
    public var sampleParameters: [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        for use in parameters where values[use.name] == nil {
            switch use.expects {
            case .url: values[use.name] = .string("https://example.com/\(use.name)")
            case .number, .integer: values[use.name] = .number(1)
            case .bool: values[use.name] = .bool(true)
            case .text, .value: values[use.name] = .string(use.name)
            }
        }
        return values
    }
}

/// ``ScreenResolver``'s walk, keeping paths instead of components: the same branches taken, the
/// same cursor over the outcomes, the same fallbacks for a client too old for a type.
private struct PathWalk {
    let registry: ComponentRegistry
    let schemaVersion: Int
    let outcomes: [UInt8]
    var cursor = 0

    mutating func paths(_ node: Node, at path: JSONPath) -> AuthoredPaths? {
        switch node {
        case .component(let component):
            return paths(component, at: path)
        case .rule(_, _, let then, let otherwise):
            let taken = outcomes[cursor] != 0
            cursor += 1
            if taken {
                let shown = paths(then, at: path.appending("child"))
                skip(otherwise)
                return shown
            }
            skip(then)
            return otherwise.flatMap { paths($0, at: path.appending("else")) }
        case .experiment(_, _, let variants):
            let chosen = outcomes[cursor] == Outcomes.none ? -1 : Int(outcomes[cursor])
            cursor += 1
            var shown: AuthoredPaths?
            for (index, variant) in variants.enumerated() {
                if index == chosen, let node = variant.node {
                    shown = paths(node, at: path.appending("variants").appending(variant.name))
                } else {
                    skip(variant.node)
                }
            }
            return shown
        }
    }

    private mutating func paths(_ component: Component, at path: JSONPath) -> AuthoredPaths? {
        guard let type = registry[component.kind], type.introduced > schemaVersion else {
            let subviews = subviewPaths(component.subviews, at: path)
            skip(component.fallback)
            return AuthoredPaths(path: path, subviews: subviews)
        }
        if let fallback = component.fallback {
            for child in component.subviews { skip(child) }
            return paths(fallback, at: path.appending("fallback"))
        }
        var stand = type
        var steps = 0
        while stand.introduced > schemaVersion {
            steps += 1
            guard let kind = stand.defaultFallback, let next = registry[kind], steps <= registry.types.count else {
                for child in component.subviews { skip(child) }
                return nil
            }
            stand = next
        }
        guard stand.children != .none else {
            for child in component.subviews { skip(child) }
            return AuthoredPaths(path: path)
        }
        return AuthoredPaths(path: path, subviews: subviewPaths(component.subviews, at: path))
    }

    private mutating func subviewPaths(_ subviews: [Node], at path: JSONPath) -> [AuthoredPaths] {
        subviews.enumerated().compactMap { paths($1, at: path.appending("subviews").appending($0)) }
    }

    private mutating func skip(_ node: Node?) {
        guard let node else { return }
        cursor += ResolveWalk.pointCount(node)
    }
}
