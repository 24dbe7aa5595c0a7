import TrellisJSON
import TrellisRoutes
import TrellisScreens
import TrellisStore
import TrellisTargeting

/// Checks that the screens and the route table of one snapshot fit together, so that no button in
/// any screen leads nowhere:
/// - every screen a route opens exists;
/// - every `navigate` URL in every screen matches a route (with its required query parameters);
/// - every parameter a screen uses without a default is given, with a fitting type, by every route
///   that opens it.
///
/// Runs wherever a snapshot is built (start, reload, every publish), so a change that would break a
/// link is refused with the screen's or the table's path and line, and nothing changes.
package enum NavigationCheck {
    package struct TableSource {
        package let table: RouteTable
        package let source: String
        package let bytes: [UInt8]
    }

    package struct ScreenSource {
        package let screen: CheckedScreen
        /// `screens/home.json`, `screens/home revision 4`.
        package let source: String
        /// Read only to give a problem its lines.
        package let document: DocumentBytes
    }

    /// Every problem, by source; empty when the screens and the table agree (or there is no table).
    /// - Parameter screens: the screens whose links and parameters to check: all of them, or, when
    ///   only those changed since a snapshot that passed, the changed ones (a screen's links and
    ///   parameters concern it and the table only).
    /// - Parameter served: the snapshot's screen ids, which the table's routes may open; asked per
    ///   route (a catalogue of 10,000 screens is not made into a set for a publish), listed only
    ///   for a message.
    package static func errors(
        routes: TableSource?, screens: [ScreenSource], served: ServedScreens, targeting: TargetingConfiguration
    ) -> [DiagnosticsError] {
        guard let routes else { return [] }
        var errors: [DiagnosticsError] = []
        let missing = routes.table.screenReferences().filter { !served.contains($0.screen) }.map { reference in
            Diagnostic(
                path: reference.path, location: .unknown,
                message: "route \(reference.route.pattern) opens screen \"\(reference.screen)\", which does not exist; screens: \(Self.list(served.ids()))")
        }
        if !missing.isEmpty { errors.append(DiagnosticsError(source: routes.source, diagnostics: missing).locating(inDocument: routes.bytes)) }
        // Each screen on its own, on every core: a start or a table change checks all 10,000.
        let table = routes.table
        let targets = ParallelMap.map(screens.sorted(by: { $0.source < $1.source })) { ($0, $0.screen.links) }
        let urlProblems = problems(ofURLsIn: targets.map(\.1), table)
        let found = ParallelMap.map(targets) { source, links in
            let diagnostics = self.links(links, of: source.screen, table, urlProblems) + parameters(of: source.screen, table)
            return diagnostics.isEmpty ? nil : DiagnosticsError(source: source.source, diagnostics: diagnostics).locating(inDocument: source.document.bytes)
        }
        return errors + found.compactMap { $0 }
    }

    /// The screens a snapshot serves, as the check asks about them.
    package struct ServedScreens {
        package let contains: (String) -> Bool
        package let ids: () -> [String]
    }

    /// Screen ids for a message: all of a small catalogue, the first few of a large one.
    private static func list(_ ids: [String]) -> String {
        let sorted = ids.sorted()
        let shown = 20
        guard sorted.count > shown else { return sorted.joined(separator: ", ") }
        return sorted.prefix(shown).joined(separator: ", ") + " and \(sorted.count - shown) more"
    }

    /// Why each dead URL among `links` is dead (``RouteTable/linkProblem(_:)``); a URL that
    /// resolves is not in it. Each URL is matched once, however many screens link to it (a
    /// catalogue's screens share their tab bars and headers).
    private static func problems(ofURLsIn links: [[ScreenLink.Target]], _ table: RouteTable) -> [String: String] {
        var urls: Set<String> = []
        for case .url(let url) in links.joined() { urls.insert(url) }
        let distinct = Array(urls)
        return Dictionary(uniqueKeysWithValues: zip(distinct, ParallelMap.map(distinct) { table.linkProblem($0) }).compactMap { url, problem in
            problem.map { (url, $0) }
        })
    }

    /// A dead link is one the table cannot resolve for anybody: no route matches it, or it lacks a
    /// required query parameter. A link that is a whole `$param` is known only per request.
    /// - Parameter links: `screen`'s links; `urlProblems` holds the problem of each dead URL among them.
    private static func links(
        _ links: [ScreenLink.Target], of screen: CheckedScreen, _ table: RouteTable, _ urlProblems: [String: String]
    ) -> [Diagnostic] {
        let types = parameterTypes(of: screen, table)
        let problems = links.enumerated().compactMap { index, target -> (Int, String)? in
            let problem: String? =
                switch target {
                case .url(let url): urlProblems[url]
                case .template(let template, _): table.linkProblem(template: template, parameters: types)
                case .parameter: nil
                }
            return problem.map { (index, $0) }
        }
        guard !problems.isEmpty else { return [] }
        // A served screen keeps its links' targets, not their paths: the model, decoded again as
        // it was checked, lists the same links in the same order.
        let paths = (try? screen.decodeModel().get())?.links.map(\.path) ?? []
        return problems.map { index, problem in
            Diagnostic(path: paths.indices.contains(index) ? paths[index] : .root, location: .unknown, message: "dead link: \(problem)")
        }
    }

    /// The type of each parameter as the routes that open the screen declare it (the first route
    /// that declares it), for checking link templates with sample values.
    private static func parameterTypes(of screen: CheckedScreen, _ table: RouteTable) -> [String: ParameterType] {
        var types: [String: ParameterType] = [:]
        for route in table.routesOpening(screen: screen.id) {
            for parameter in route.parameters where types[parameter.name] == nil { types[parameter.name] = parameter.type }
        }
        return types
    }

    private static func parameters(of screen: CheckedScreen, _ table: RouteTable) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        let routes = table.routesOpening(screen: screen.id)
        for use in screen.parameters where !use.hasDefault {
            for route in routes {
                guard let given = route.parameters.first(where: { $0.name == use.name }), given.required else {
                    diagnostics.append(
                        Diagnostic(
                            path: use.path, location: .unknown,
                            message: "parameter \"\(use.name)\" is not always given by route \(route.pattern), which opens this screen; declare it there (required) or give the value a \"default\""))
                    continue
                }
                if let mismatch = mismatch(use.expects, given.type) {
                    diagnostics.append(
                        Diagnostic(path: use.path, location: .unknown, message: "parameter \"\(use.name)\" must be \(mismatch), but route \(route.pattern) declares it \(given.type)"))
                }
            }
        }
        return diagnostics
    }

    /// What a value needs that a route parameter's type cannot promise, or nil when it fits.
    private static func mismatch(_ expects: ParameterUse.Expectation, _ type: ParameterType) -> String? {
        // An enum fits when every choice does; the parameter type's own parser decides.
        let choices: [String]
        switch type {
        case .choice(let list): choices = list
        case .int: choices = ["1"]
        case .number: choices = ["1.5"]
        case .bool: choices = ["true"]
        default: choices = ["x"]
        }
        switch expects {
        case .number: return choices.allSatisfy { Double($0) != nil } ? nil : "a number"
        case .integer: return choices.allSatisfy { Int($0) != nil } ? nil : "an integer"
        case .bool: return choices.allSatisfy { $0 == "true" || $0 == "false" } ? nil : "true or false"
        default: return nil
        }
    }
}
