import TrellisJSON

/// The app's route table, `Config/routes.json`: which URL opens which screen, native handler or
/// web page, how, for whom, and where it redirects.
///
/// Decode it with ``decode(_:source:)``, which refuses every mistake it can see without a user:
/// grammar, ambiguous patterns, templates that lead nowhere, loops of unconditional redirects.
/// Resolve a URL for one user with ``resolve(_:context:evaluator:)``. Immutable and `Sendable`:
/// one per snapshot.
public struct RouteTable: Sendable {
    /// The routes in file order.
    public let routes: [Route]
    /// The decoded document, so that checks made later (``checkReferences(in:)``) can name lines.
    let document: JSONValue?
    /// For each screen id a route can open, the indices of those routes in file order: the
    /// navigation check asks for every screen of a catalogue, twice.
    private let routesByScreen: [String: [Int]]

    init(routes: [Route], document: JSONValue?) {
        self.routes = routes
        self.document = document
        var index: [String: [Int]] = [:]
        for (i, route) in routes.enumerated() {
            for screen in route.screenIDs where index[screen]?.last != i { index[screen, default: []].append(i) }
        }
        routesByScreen = index
    }

    /// A table without routes: every URL is `.noMatch`.
    public static let empty = RouteTable(routes: [], document: nil)

    /// Routes whose target is the screen `screen` (directly or as a choice of `{p}`), in file order.
    public func routesOpening(screen: String) -> [Route] {
        routesByScreen[screen]?.map { routes[$0] } ?? []
    }

    /// Every screen id a route can open, with the route and the path of its `screen` key; a
    /// `{p}` screen gives one entry per choice of `p`.
    public func screenReferences() -> [(screen: String, route: Route, path: JSONPath)] {
        routes.flatMap { route in route.screenIDs.map { (screen: $0, route: route, path: route.path.appending("screen")) } }
    }
}

extension Route {
    /// The screen ids this route can open: none, one, or each choice of a `{p}` screen.
    var screenIDs: [String] {
        guard case .screen(let name) = target else { return [] }
        return names(name)
    }

    /// The ids `name` stands for: itself when fixed, the choices of its parameter otherwise.
    func names(_ name: RouteName) -> [String] {
        switch name {
        case .fixed(let id): return [id]
        case .parameter(let p):
            guard case .choice(let choices)? = parameter(p)?.type else { return [] }
            return choices
        }
    }
}
