import TrellisJSON

extension RouteTable {
    /// The checks that need the whole table: ambiguous patterns, hops that lead nowhere, and
    /// redirects that fail for everyone.
    func checkAcrossRoutes(_ collector: DiagnosticsCollector) {
        checkAmbiguity(collector)
        for route in routes { checkHops(of: route, collector) }
        checkRedirectsForEveryone(collector)
    }

    /// Where `path` is in the decoded document, for a diagnostic's line.
    func location(of path: JSONPath) -> SourceLocation {
        document?.value(at: path)?.location ?? .unknown
    }

    /// Two patterns equal in precedence that match one URL: which one wins would be file order.
    private func checkAmbiguity(_ collector: DiagnosticsCollector) {
        for (j, later) in routes.enumerated() {
            for earlier in routes[..<j] {
                guard let url = earlier.parsedPattern.ambiguousURL(with: later.parsedPattern) else { continue }
                let path = later.path.appending("pattern")
                collector.report(
                    "\(earlier.pattern) at \(earlier.path) and \(later.pattern) at \(later.path) both match \(url) with equal precedence",
                    at: path, location(of: path))
            }
        }
    }

    /// Each `otherwise` and `to`, with sample values, must reach a route whose required query
    /// parameters it gives; each `external`, with sample values, must be a URL.
    private func checkHops(of route: Route, _ collector: DiagnosticsCollector) {
        var hops: [(String, URLTemplate, JSONPath)] = []
        if let requires = route.requires { hops.append(("otherwise", requires.otherwise, route.path.appending("otherwise"))) }
        for redirect in route.redirects { hops.append(("to", redirect.to, redirect.path.appending("to"))) }
        for (key, template, path) in hops {
            let expansions = Self.sampleExpansions(of: template, route.parameters, url: Self.sampleURL(of: route))
            if let problem = expansions.lazy.compactMap({ self.linkProblem($0) }).first {
                collector.report("\(key) \(JSONWriter.quoted(template.text)) leads nowhere: \(problem)", at: path, location(of: path))
            }
        }
        if case .external(let template) = route.target {
            let path = route.path.appending("external")
            for url in Self.sampleExpansions(of: template, route.parameters, url: Self.sampleURL(of: route)) {
                do throws(AppURLError) {
                    _ = try AppURL(parsing: url)
                } catch {
                    collector.report("external \(JSONWriter.quoted(template.text)) with sample values is not a URL: \(error)", at: path, location(of: path))
                    break
                }
            }
        }
    }

    /// Routes whose first redirect has no `when` and no guard send everyone on: following them
    /// from each route's sample URLs must neither come back to a URL nor take more than
    /// ``RouteLimits/maximumHops`` hops. Guards and conditional redirects may loop only for some
    /// users; resolution reports those (``RouteFailure/loop(_:)``). Each loop is reported once, at
    /// the redirect of its first route in file order.
    private func checkRedirectsForEveryone(_ collector: DiagnosticsCollector) {
        var reportedLoops: Set<Set<JSONPath>> = []
        for route in routes where Self.redirectForEveryone(route) != nil {
            for start in Self.sampleURLs(of: route) {
                var visited = [start]
                var redirecting: [Route] = []
                var current = start
                while case .success(let match) = self.match(current, after: []), let redirect = Self.redirectForEveryone(match.route) {
                    redirecting.append(match.route)
                    let next = match.expand(redirect.to)
                    if let repeated = visited.firstIndex(of: next) {
                        let loop = Array(redirecting[repeated...])
                        if reportedLoops.insert(Set(loop.map(\.path))).inserted, let first = routes.first(where: { r in loop.contains { $0.path == r.path } }) {
                            let path = first.redirects[0].path
                            collector.report(
                                "redirects without \"when\" loop for everyone: " + (visited[repeated...] + [next]).joined(separator: " → "),
                                at: path, location(of: path))
                        }
                        break
                    }
                    visited.append(next)
                    if visited.count > RouteLimits.maximumHops + 1 {
                        let path = route.redirects[0].path
                        collector.report(
                            "redirects without \"when\" go on for more than \(RouteLimits.maximumHops) hops for everyone: "
                                + visited.joined(separator: " → "), at: path, location(of: path))
                        break
                    }
                    current = next
                }
            }
        }
    }

    /// The redirect `route` sends every user through, if any: its first, when it has no `when`
    /// and the route has no guard.
    private static func redirectForEveryone(_ route: Route) -> RouteRedirect? {
        guard route.requires == nil, let first = route.redirects.first, first.when == nil else { return nil }
        return first
    }

    /// The route's pattern with sample values, and its required query parameters.
    static func sampleURL(of route: Route) -> String {
        let query = route.parameters.filter { !$0.inPath && $0.required }
            .map { "\($0.name)=\(PercentEncoding.encode(ParameterType.sample(for: $0.type)))" }
        return route.parsedPattern.sampleURL() + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// ``sampleURL(of:)``, and one URL more for each other choice of each enum path parameter.
    static func sampleURLs(of route: Route) -> [String] {
        var urls = [sampleURL(of: route)]
        for parameter in route.parameters where parameter.inPath {
            guard case .choice(let choices) = parameter.type else { continue }
            for choice in choices.dropFirst() {
                urls.append(route.parsedPattern.sampleURL { $0 == parameter.name ? choice : nil })
            }
        }
        return urls
    }

    /// `template` with sample values: first each placeholder's ``ParameterType/sample(for:)``;
    /// then each other choice of each enum placeholder; then, if it uses optional parameters,
    /// without them. `{url}` is `url`.
    static func sampleExpansions(of template: URLTemplate, _ parameters: [RouteParameter], url: String) -> [String] {
        let used = parameters.filter { template.placeholders.contains($0.name) }
        func expand(_ chosen: (RouteParameter) -> String?) -> String {
            template.expand { name in
                if name == URLTemplate.urlPlaceholder { return (url, false) }
                guard let parameter = used.first(where: { $0.name == name }), let text = chosen(parameter) else { return nil }
                return (text, parameter.type == .wildcard)
            }
        }
        var expansions = [expand { ParameterType.sample(for: $0.type) }]
        for parameter in used {
            guard case .choice(let choices) = parameter.type else { continue }
            for choice in choices.dropFirst() {
                expansions.append(expand { $0.name == parameter.name ? choice : ParameterType.sample(for: $0.type) })
            }
        }
        if used.contains(where: { !$0.required }) {
            expansions.append(expand { $0.required ? ParameterType.sample(for: $0.type) : nil })
        }
        return expansions
    }
}
