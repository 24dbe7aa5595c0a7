import TrellisJSON
import TrellisTargeting

extension RouteTable {
    /// The table as the routes endpoint serves it: `{"routes": [...]}`, each route with `pattern`,
    /// its target key (`screen`, `native` or `external`, as written), `presentation` (an object;
    /// both absent for a route that only redirects), `parameters`
    /// (`{name: {"type", "in": "path"|"query", "required"}}`), and `requires`, `otherwise`,
    /// `redirects`, `title`, `description` when it has them (rules in their JSON form).
    public var jsonValue: JSONValue {
        .object([("routes", .array(routes.map(\.jsonValue)))])
    }
}

extension Route {
    /// One route of ``RouteTable/jsonValue``.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("pattern", .string(pattern))]
        if let title { members.append(("title", .string(title))) }
        if let description { members.append(("description", .string(description))) }
        if let target { members.append((target.key, .string(target.text))) }
        if let presentation { members.append(("presentation", presentation.jsonValue)) }
        members.append(("parameters", .object(parameters.map { ($0.name, $0.jsonValue) })))
        if let requires {
            members.append(("requires", requires.rule.jsonValue))
            members.append(("otherwise", .string(requires.otherwise.text)))
        }
        if !redirects.isEmpty { members.append(("redirects", .array(redirects.map(\.jsonValue)))) }
        return .object(members)
    }
}

extension RouteTarget {
    /// The target as written: a screen id or `{p}`, a handler name, a URL template.
    public var text: String {
        switch self {
        case .screen(let name): name.description
        case .native(let name): name
        case .external(let template): template.text
        }
    }
}

extension Presentation {
    /// `{"style": …}`, with `"tab"` as written for style `tab`.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("style", .string(style.rawValue))]
        if let tab { members.append(("tab", .string(tab.description))) }
        return .object(members)
    }
}

extension RouteParameter {
    /// `{"type": "int", "in": "path"|"query", "required": true}`.
    public var jsonValue: JSONValue {
        .object([("type", .string(type.description)), ("in", .string(inPath ? "path" : "query")), ("required", .bool(required))])
    }
}

extension RouteRedirect {
    /// `{"when"?: rule, "to": template}`, as written.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = []
        if let when { members.append(("when", when.jsonValue)) }
        members.append(("to", .string(to.text)))
        return .object(members)
    }
}
