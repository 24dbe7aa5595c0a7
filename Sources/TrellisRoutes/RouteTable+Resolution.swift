import TrellisTargeting

extension RouteTable {
    /// Where `url` leads for the user `context`. Pure: no I/O, no clock; the server wraps it in HTTP.
    ///
    /// 1. Parse the URL (``AppURL``).
    /// 2. Take the most specific matching route (``RoutePattern`` explains precedence); none is
    ///    ``RouteFailure/noMatch(url:closest:after:)`` with the closest patterns.
    /// 3. Check the declared query parameters: required ones present, typed ones of their type
    ///    (``RouteFailure/badParameter(url:route:name:reason:after:)``).
    /// 4. If the route `requires` a rule the user does not meet, hop to `otherwise`.
    /// 5. Else if a `redirects` entry applies (the first whose `when` holds, or has none), hop to its `to`.
    /// 6. Else the route's target is the answer.
    ///
    /// A hop expands the template with this URL's values and resolves the result from step 1.
    /// More than ``RouteLimits/maximumHops`` hops is ``RouteFailure/tooManyRedirects(_:)``; a hop
    /// to a URL already visited is ``RouteFailure/loop(_:)``, with the URLs in order.
    public func resolve(_ url: String, context: UserContext, evaluator: Evaluator) -> Result<RouteResolution, RouteFailure> {
        var visited: [String] = []
        var hops: [Redirect] = []
        var current = url
        while true {
            visited.append(current)
            let match: Match
            switch self.match(current, after: hops) {
            case .success(let m): match = m
            case .failure(let failure): return .failure(failure)
            }
            guard let (next, because) = Self.hop(match, context, evaluator) else { return .success(Self.resolution(match, hops)) }
            if visited.contains(next) { return .failure(.loop(visited + [next])) }
            if hops.count == RouteLimits.maximumHops { return .failure(.tooManyRedirects(visited + [next])) }
            hops.append(Redirect(from: current, to: next, route: match.route.pattern, because: because))
            current = next
        }
    }

    /// Steps 4 and 5: where the matched route sends this user, or nil to open its target.
    private static func hop(_ match: Match, _ context: UserContext, _ evaluator: Evaluator) -> (String, RedirectReason)? {
        if let requires = match.route.requires, !evaluator.evaluate(requires.rule, for: context) {
            return (match.expand(requires.otherwise), .requires(requires.rule))
        }
        for redirect in match.route.redirects {
            guard let when = redirect.when else { return (match.expand(redirect.to), .always) }
            if evaluator.evaluate(when, for: context) { return (match.expand(redirect.to), .when(when)) }
        }
        return nil
    }

    private static func resolution(_ match: Match, _ hops: [Redirect]) -> RouteResolution {
        let route = match.route
        guard let target = route.target, let presentation = route.presentation else {
            // The decoder lets a route go without a target only when a redirect always applies.
            preconditionFailure("route \(route.pattern) has no target and did not redirect")
        }
        let resolved: ResolvedTarget
        switch target {
        case .screen(let name): resolved = .screen(match.text(name))
        case .native(let name): resolved = .native(name)
        case .external(let template): resolved = .external(match.expand(template))
        }
        let externalURL: String? = if case .external(let url) = resolved { url } else { nil }
        return RouteResolution(
            url: match.url.text, route: route.pattern, target: resolved,
            parameters: match.parameters.map { (name: $0.name, value: $0.value) },
            presentation: ResolvedPresentation(style: presentation.style, tab: presentation.tab.map(match.text), url: externalURL),
            redirects: hops)
    }
}
