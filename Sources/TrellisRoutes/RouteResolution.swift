import TrellisJSON
import TrellisTargeting

/// Where a URL leads for one user: the final URL, its route and target, typed parameters, how to
/// present it, and each redirect taken on the way.
public struct RouteResolution: Sendable {
    /// The URL that was finally matched (the requested one when nothing redirected).
    public let url: String
    /// The pattern of the route that matched it, as written.
    public let route: String
    public let target: ResolvedTarget
    /// Path parameters in pattern order, then query parameters in URL order; declared ones typed
    /// (``ParameterType/value(of:)``), undeclared ones as strings.
    public let parameters: [(name: String, value: JSONValue)]
    public let presentation: ResolvedPresentation
    /// The hops taken, first to last; empty when the requested URL resolved directly.
    public let redirects: [Redirect]

    /// The answer of the route resolution endpoint:
    /// `{"url", "route", "screen"|"native"|"external", "params", "presentation", "redirects"}`.
    public var jsonValue: JSONValue {
        .object([
            ("url", .string(url)),
            ("route", .string(route)),
            (target.key, .string(target.value)),
            ("params", .object(parameters.map { ($0.name, $0.value) })),
            ("presentation", presentation.jsonValue),
            ("redirects", .array(redirects.map(\.jsonValue))),
        ])
    }
}

/// A target with its placeholders filled in.
public enum ResolvedTarget: Sendable, Equatable {
    case screen(String)
    case native(String)
    /// The web page's URL, substituted.
    case external(String)

    /// `screen`, `native` or `external`.
    public var key: String {
        switch self {
        case .screen: "screen"
        case .native: "native"
        case .external: "external"
        }
    }

    /// The screen id, the handler name or the page's URL.
    public var value: String {
        switch self {
        case .screen(let id): id
        case .native(let name): name
        case .external(let url): url
        }
    }
}

/// How to show a resolved target: the style, the tab (style `tab`) and the page (style `external`).
public struct ResolvedPresentation: Sendable, Equatable {
    public let style: Presentation.Style
    public let tab: String?
    public let url: String?

    /// `{"style": …[, "tab": …][, "url": …]}`.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("style", .string(style.rawValue))]
        if let tab { members.append(("tab", .string(tab))) }
        if let url { members.append(("url", .string(url))) }
        return .object(members)
    }
}

/// One hop of a resolution: `from` was sent to `to` by the route `route`, `because` of what.
public struct Redirect: Sendable, Equatable, CustomStringConvertible {
    public let from: String
    public let to: String
    /// The pattern of the route that redirected, as written.
    public let route: String
    public let because: RedirectReason

    public init(from: String, to: String, route: String, because: RedirectReason) {
        self.from = from
        self.to = to
        self.route = route
        self.because = because
    }

    /// `{"from", "to", "route", "because"}`, `because` as its text.
    public var jsonValue: JSONValue {
        .object([("from", .string(from)), ("to", .string(to)), ("route", .string(route)), ("because", .string(because.description))])
    }

    /// *app://checkout → app://login?next=… by app://checkout (requires {"rule":"signed_in"})*.
    public var description: String { "\(from) → \(to) by \(route) (\(because))" }
}

/// Why a route redirected.
public enum RedirectReason: Sendable, Equatable, CustomStringConvertible {
    /// The guard's rule was false: `requires {"rule":"signed_in"}`.
    case requires(RuleExpression)
    /// A `redirects` entry's rule was true: `when {"rollout":"checkout-v2"}`.
    case when(RuleExpression)
    /// A `redirects` entry without `when`: `always`.
    case always

    /// The rule in its JSON form (compact), after `requires` or `when`; or `always`.
    public var description: String {
        switch self {
        case .requires(let rule): "requires " + JSONWriter.string(rule.jsonValue)
        case .when(let rule): "when " + JSONWriter.string(rule.jsonValue)
        case .always: "always"
        }
    }
}

/// Why a URL did not resolve. Each case carries what a problem+json answer names; ``description``
/// is its detail. `after` is the hops taken before the URL that failed (empty for the requested one).
public enum RouteFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL (requested, or made by a hop) is not a URL.
    case unparsable(AppURLError, after: [Redirect])
    /// No route matches `url`; `closest` are up to ``RouteLimits/closestPatterns`` patterns that
    /// nearly do, closest first.
    case noMatch(url: String, closest: [String], after: [Redirect])
    /// The route `route` matched, but its query parameter `name` is missing or not of its type.
    case badParameter(url: String, route: String, name: String, reason: String, after: [Redirect])
    /// More than ``RouteLimits/maximumHops`` hops: every URL visited, the requested one first.
    case tooManyRedirects([String])
    /// A hop led back to a URL already visited: the URLs, the repeated one first and last.
    case loop([String])

    public var description: String {
        switch self {
        case .unparsable(let error, let after): return error.description + Self.reached(after)
        case .noMatch(let url, let closest, let after):
            return "no route matches \(JSONWriter.quoted(url))" + (closest.isEmpty ? "" : "; closest: " + closest.joined(separator: ", "))
                + Self.reached(after)
        case .badParameter(let url, let route, let name, let reason, let after):
            return "\(url) (route \(route)): query parameter \"\(name)\": \(reason)" + Self.reached(after)
        case .tooManyRedirects(let chain):
            return "more than \(RouteLimits.maximumHops) redirects: " + chain.joined(separator: " → ")
        case .loop(let chain):
            return "redirect loop: " + chain.joined(separator: " → ")
        }
    }

    /// The hops taken before the failure, as the failure's context.
    public var after: [Redirect] {
        switch self {
        case .unparsable(_, let after), .noMatch(_, _, let after), .badParameter(_, _, _, _, let after): after
        case .tooManyRedirects, .loop: []
        }
    }

    private static func reached(_ after: [Redirect]) -> String {
        guard let last = after.last else { return "" }
        return "; reached from \(last.from) by \(last.route) (\(last.because))"
    }
}
