import TrellisJSON
import TrellisTargeting

/// One entry of the route table: a URL pattern and what opening a matching URL does.
public struct Route: Sendable {
    /// The pattern as written, such as `app://product/:id(int)`.
    public var pattern: String { parsedPattern.text }
    public let parsedPattern: RoutePattern
    /// Where the route is in `Config/routes.json`, such as `$.routes[3]`.
    public let path: JSONPath
    /// Path parameters in pattern order, then query parameters in the order declared.
    public let parameters: [RouteParameter]
    /// What the route opens; nil for a route that only redirects (it has a redirect without `when`).
    public let target: RouteTarget?
    /// How the target is shown: nil exactly when ``target`` is.
    public let presentation: Presentation?
    /// Who may open the target, and where everyone else goes.
    public let requires: RouteGuard?
    /// Checked in order after ``requires``; the first that applies is taken.
    public let redirects: [RouteRedirect]
    /// For people; Trellis does not read them.
    public let title: String?
    public let description: String?

    /// The keys a route object may have.
    static let keys: Set<String> = [
        "pattern", "screen", "native", "external", "presentation", "query", "requires", "otherwise", "redirects",
        "title", "description",
    ]

    /// The parameter called `name`, or nil.
    public func parameter(_ name: String) -> RouteParameter? { parameters.first { $0.name == name } }
}

/// A parameter a route declares: in its pattern (`:id(int)`, `*path`) or in its `query`.
public struct RouteParameter: Sendable, Equatable {
    public let name: String
    public let type: ParameterType
    /// Path parameters are always required (a wildcard may be empty); query parameters unless
    /// their type ends with `?`.
    public let required: Bool
    /// True for a path parameter, false for a query parameter.
    public let inPath: Bool

    /// Whether `name` can name a parameter or a placeholder: 1–64 of `a-z A-Z 0-9 _ - .`, as rule
    /// names. (A parameter may not be called `url`; the decoder says so.)
    static func isName(_ name: String) -> Bool { RuleExpression.isIdentifier(name) }

    /// What is wrong with `name` as a parameter name, for messages.
    static func nameRule(_ name: String) -> String {
        "invalid name \"\(name)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots"
    }
}

/// A screen id or a tab id: fixed, or `{p}`, taken from the enum path parameter `p`, so each of its
/// choices is a possible id.
public enum RouteName: Sendable, Equatable, CustomStringConvertible {
    case fixed(String)
    case parameter(String)

    /// As written: `product`, `{tab}`.
    public var description: String {
        switch self {
        case .fixed(let name): name
        case .parameter(let name): "{\(name)}"
        }
    }
}

/// What a route opens.
public enum RouteTarget: Sendable, Equatable {
    /// A server-driven screen.
    case screen(RouteName)
    /// A handler the app implements, such as `cart.add`.
    case native(String)
    /// A web page opened in the browser.
    case external(URLTemplate)

    /// The key the target is written under: `screen`, `native` or `external`.
    public var key: String {
        switch self {
        case .screen: "screen"
        case .native: "native"
        case .external: "external"
        }
    }
}

/// How a target is shown.
public struct Presentation: Sendable, Equatable {
    public enum Style: String, Sendable, CaseIterable {
        /// Pushed on the current stack; the default.
        case push, modal, sheet, fullScreen
        /// The stack reset to the target.
        case replace
        /// A tab selected, named by ``Presentation/tab``.
        case tab
        /// Opened in the browser; the style of every `external` target and of no other.
        case external
    }

    public let style: Style
    /// The tab for style ``Style/tab``; nil otherwise.
    public let tab: RouteName?

    public init(style: Style, tab: RouteName? = nil) {
        self.style = style
        self.tab = tab
    }
}

/// `requires` and `otherwise`: users for whom the rule is false are sent to `otherwise`.
public struct RouteGuard: Sendable {
    public let rule: RuleExpression
    public let otherwise: URLTemplate
}

/// One `redirects` entry: when `when` holds (always when it is nil), go to `to`.
public struct RouteRedirect: Sendable {
    public let when: RuleExpression?
    public let to: URLTemplate
    /// Where the entry is, such as `$.routes[4].redirects[0]`.
    public let path: JSONPath
}
