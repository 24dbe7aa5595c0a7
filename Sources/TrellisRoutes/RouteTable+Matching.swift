import TrellisJSON

/// A parameter's value in one URL: its text (for templates) and typed value (for the answer).
struct BoundParameter {
    let name: String
    let text: String
    let value: JSONValue
    /// A wildcard's `/` stays `/` when substituted into a URL.
    let keepsSlash: Bool
}

/// A URL, the route it matched, and its parameters.
struct Match {
    let url: AppURL
    let route: Route
    let parameters: [BoundParameter]

    /// `template` with this match's values: `{url}` is the URL, `{p}` the parameter `p` (nothing
    /// for an optional one the URL does not give), each percent-encoded.
    func expand(_ template: URLTemplate) -> String {
        template.expand { name in
            if name == URLTemplate.urlPlaceholder { return (url.text, false) }
            return parameters.first { $0.name == name }.map { ($0.text, $0.keepsSlash) }
        }
    }

    /// The text of the parameter `name` (for `{p}` screens and tabs, which take it raw).
    func text(_ name: RouteName) -> String {
        switch name {
        case .fixed(let id): id
        case .parameter(let p): parameters.first { $0.name == p }?.text ?? ""
        }
    }
}

extension RouteTable {
    /// Parses `text`, finds its route and binds its parameters: steps 1 to 3 of resolution.
    func match(_ text: String, after hops: [Redirect]) -> Result<Match, RouteFailure> {
        let url: AppURL
        do throws(AppURLError) {
            url = try AppURL(parsing: text)
        } catch {
            return .failure(.unparsable(error, after: hops))
        }
        guard let route = bestRoute(for: url) else {
            return .failure(.noMatch(url: text, closest: closestPatterns(to: url), after: hops))
        }
        return bind(route, url).mapError { problem in
            .badParameter(url: text, route: route.pattern, name: problem.name, reason: problem.reason, after: hops)
        }
    }

    /// The most specific route matching `url` (``RoutePattern`` explains precedence), or nil. A
    /// scan of the table that allocates nothing.
    func bestRoute(for url: AppURL) -> Route? {
        var best: Int?
        for i in routes.indices where routes[i].parsedPattern.matches(url) {
            if let b = best, !routes[i].parsedPattern.outranks(routes[b].parsedPattern) { continue }
            best = i
        }
        return best.map { routes[$0] }
    }

    /// The route's parameters in `url`: path parameters in pattern order, then query parameters
    /// in URL order (declared ones typed, others strings); or the first problem with a declared
    /// query parameter, in declaration order.
    func bind(_ route: Route, _ url: AppURL) -> Result<Match, ParameterProblem> {
        var bound: [BoundParameter] = []
        for (i, segment) in route.parsedPattern.segments.enumerated() {
            switch segment {
            case .literal: continue
            case .parameter(let name, let type):
                let text = url.segments[i]
                bound.append(BoundParameter(name: name, text: text, value: type.value(of: text) ?? .string(text), keepsSlash: false))
            case .wildcard(let name):
                let rest = url.segments[i...].joined(separator: "/")
                bound.append(BoundParameter(name: name, text: rest, value: .string(rest), keepsSlash: true))
            }
        }
        for parameter in route.parameters where !parameter.inPath {
            guard let text = url.queryValue(parameter.name) else {
                if parameter.required { return .failure(ParameterProblem(name: parameter.name, reason: "required, but missing")) }
                continue
            }
            if let problem = parameter.type.problem(with: text) { return .failure(ParameterProblem(name: parameter.name, reason: problem)) }
        }
        for item in url.query {
            let declared = route.parameter(item.name)
            if declared?.inPath == true {
                return .failure(ParameterProblem(name: item.name, reason: "is a path parameter of this route; it cannot also be given in the query"))
            }
            let value = declared?.type.value(of: item.value) ?? .string(item.value)
            bound.append(BoundParameter(name: item.name, text: item.value, value: value, keepsSlash: false))
        }
        return .success(Match(url: url, route: route, parameters: bound))
    }

    /// Up to ``RouteLimits/closestPatterns`` patterns of the URL's scheme that nearly match it:
    /// those whose first segment fits, or that are a few edits away (static text by Levenshtein
    /// distance; a parameter whose value does not fit, or a missing or extra segment, by its
    /// length; at most a quarter of the URL's path, and at least 2). Most leading segments that fit come
    /// first, then fewest edits, then file order.
    func closestPatterns(to url: AppURL) -> [String] {
        let pathLength = url.segments.reduce(0) { $0 + $1.utf8.count }
        let limit = max(2, pathLength / 4)
        let scored = routes.enumerated().compactMap { index, route -> (leading: Int, distance: Int, index: Int)? in
            guard route.parsedPattern.scheme == url.scheme else { return nil }
            let (distance, leading) = Self.nearness(route.parsedPattern, url)
            return leading > 0 || distance <= limit ? (leading, distance, index) : nil
        }
        return scored.sorted { (-$0.leading, $0.distance, $0.index) < (-$1.leading, $1.distance, $1.index) }
            .prefix(RouteLimits.closestPatterns).map { routes[$0.index].pattern }
    }

    /// How many edits `url`'s path is from fitting `pattern`, and how many leading segments fit.
    private static func nearness(_ pattern: RoutePattern, _ url: AppURL) -> (distance: Int, leading: Int) {
        var distance = 0
        var leading = 0
        var stillLeading = true
        for i in 0..<max(pattern.segments.count, url.segments.count) {
            let segment = i < pattern.segments.count ? pattern.segments[i] : nil
            if case .wildcard? = segment { return (distance, leading) }
            let text = i < url.segments.count ? url.segments[i] : nil
            let cost: Int
            switch (segment, text) {
            case (.literal(let literal)?, let text?): cost = editDistance(literal, text)
            case (let segment?, let text?): cost = segment.accepts(text) ? 0 : 1
            case (.literal(let literal)?, nil): cost = literal.utf8.count
            case (_?, nil): cost = 1
            case (nil, let text?): cost = text.utf8.count
            case (nil, nil): cost = 0
            }
            stillLeading = stillLeading && cost == 0
            if stillLeading { leading += 1 }
            distance += cost
        }
        return (distance, leading)
    }

    /// Levenshtein distance over UTF-8 bytes.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

/// A declared query parameter that is missing or not of its type.
struct ParameterProblem: Error {
    let name: String
    let reason: String
}
