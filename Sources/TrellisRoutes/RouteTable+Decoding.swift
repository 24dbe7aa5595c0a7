import TrellisJSON
import TrellisTargeting

extension RouteTable {
    /// Parses and checks a route table such as `Config/routes.json`:
    ///
    /// ```json
    /// { "routes": [
    ///   { "pattern": "app://product/:id(int)", "screen": "product", "query": {"ref": "string?"} },
    ///   { "pattern": "app://checkout", "screen": "checkout", "requires": {"rule": "signed_in"},
    ///     "otherwise": "app://login?next={url}" },
    ///   { "pattern": "app://old-deals", "redirects": [ {"to": "app://deals"} ] } ] }
    /// ```
    ///
    /// - Returns: the table, or every mistake with its path and line: unknown keys; a pattern's
    ///   grammar (``RoutePattern``); types and names of parameters, `url` among them, and a name
    ///   declared twice; not exactly one target (none is allowed with a redirect without `when`,
    ///   which makes a target unreachable); a screen, tab or handler that is not an id; `{p}` that
    ///   is not an enum path parameter; a presentation that is unknown, lacks its tab, or is given
    ///   to an external target or a route without one; `requires` without `otherwise` or the
    ///   reverse; redirects after one without `when`; placeholders that name no parameter; two
    ///   patterns with equal precedence that match one URL; an `otherwise` or `to` that, with
    ///   sample values, matches no route or misses its required query parameters; and redirects
    ///   without `when` that loop, or go on for more than ``RouteLimits/maximumHops``, for everyone.
    ///   Rules are checked against a targeting configuration by ``checkReferences(in:)``.
    public static func decode(_ bytes: [UInt8], source: String) -> Result<RouteTable, DiagnosticsError> {
        DiagnosticsCollector.decode(bytes, source: source) { document, collector in decodeDocument(document, collector) }
    }

    /// Checks an already parsed document, as ``decode(_:source:)`` does after parsing.
    public static func decode(_ document: JSONValue, source: String) -> Result<RouteTable, DiagnosticsError> {
        DiagnosticsCollector.decode(source: source) { collector in decodeDocument(document, collector) }
    }

    private static func decodeDocument(_ document: JSONValue, _ collector: DiagnosticsCollector) -> RouteTable? {
        guard let object = collector.object(document, at: .root, allowedKeys: ["routes"]),
            let list = object.array("routes", required: true)
        else { return nil }
        let listPath = JSONPath.root.appending("routes")
        guard list.count <= RouteLimits.maximumRoutes else {
            object.report("more than \(RouteLimits.maximumRoutes) routes (\(list.count))", atMember: "routes")
            return nil
        }
        let walk = RouteWalk(collector: collector)
        let routes = list.enumerated().map { walk.route($1, at: listPath.appending($0)) }
        let decoded = routes.compactMap { $0 }
        // Checks across routes need them all; a route that failed to decode is not also "missing".
        guard decoded.count == routes.count else { return nil }
        let table = RouteTable(routes: decoded, document: document)
        table.checkAcrossRoutes(collector)
        return table
    }
}

/// One pass over the routes of one document, reporting into `collector`.
struct RouteWalk {
    let collector: DiagnosticsCollector

    /// One route, or nil after reporting every mistake in it.
    func route(_ value: JSONValue, at path: JSONPath) -> Route? {
        guard let object = collector.object(value, at: path, allowedKeys: Route.keys) else { return nil }
        let before = collector.diagnostics.count
        let pattern = object.value("pattern", required: true).flatMap { self.pattern($0, at: path.appending("pattern")) }
        let query = object.value("query").flatMap { self.query($0, at: path.appending("query")) }
        // Without its pattern the route's parameters are unknown: placeholders go unchecked.
        let parameters = pattern.map { self.parameters($0, query ?? [], object, at: path) }
        let scope = Scope(parameters: parameters)
        let redirects = object.value("redirects").flatMap { self.redirects($0, at: path.appending("redirects"), scope) }
        let alwaysIndex = redirects?.firstIndex { $0.when == nil }
        let target = self.target(object, at: path, scope, alwaysIndex: alwaysIndex)
        let presentation = self.presentation(object, at: path, target: target, scope)
        let requires = self.requires(object, at: path, scope)
        let title = object.string("title")
        let description = object.string("description")
        guard collector.diagnostics.count == before, let pattern, let parameters else { return nil }
        return Route(
            parsedPattern: pattern, path: path, parameters: parameters, target: target, presentation: presentation,
            requires: requires, redirects: redirects ?? [], title: title, description: description)
    }

    private func pattern(_ value: JSONValue, at path: JSONPath) -> RoutePattern? {
        guard let text = string(value, at: path) else { return nil }
        do throws(RouteSyntaxError) {
            return try RoutePattern(parsing: text)
        } catch {
            collector.report("invalid pattern \(JSONWriter.quoted(text)): \(error.reason)", at: path, value)
            return nil
        }
    }

    /// `query`: name → type spelling, `?` at the end for an optional one.
    private func query(_ value: JSONValue, at path: JSONPath) -> [RouteParameter]? {
        guard let members = value.objectValue else {
            collector.report("expected an object of name → type such as {\"ref\": \"string?\"}, found \(value.typeName)", at: path, value)
            return nil
        }
        var parameters: [RouteParameter] = []
        for member in members {
            let memberPath = path.appending(member.key)
            guard RouteParameter.isName(member.key) else {
                collector.report(RouteParameter.nameRule(member.key), at: memberPath, member.keyLocation)
                continue
            }
            guard let spelling = member.value.stringValue else {
                collector.report("expected a type such as \"int\" or \"string?\", found \(member.value.typeName)", at: memberPath, member.value)
                continue
            }
            let optional = spelling.hasSuffix("?")
            do throws(RouteSyntaxError) {
                let type = try ParameterType.parse(spelling: String(optional ? spelling.dropLast() : spelling[...]))
                parameters.append(RouteParameter(name: member.key, type: type, required: !optional, inPath: false))
            } catch {
                collector.report(error.reason, at: memberPath, member.value)
            }
        }
        return parameters.count == members.count ? parameters : nil
    }

    /// The path parameters, then `query`; reports `url` and names declared twice.
    private func parameters(
        _ pattern: RoutePattern, _ query: [RouteParameter], _ object: JSONObjectReader, at path: JSONPath
    ) -> [RouteParameter] {
        var parameters: [RouteParameter] = pattern.segments.compactMap { segment in
            switch segment {
            case .literal: nil
            case .parameter(let name, let type): RouteParameter(name: name, type: type, required: true, inPath: true)
            case .wildcard(let name): RouteParameter(name: name, type: .wildcard, required: true, inPath: true)
            }
        }
        parameters += query
        for (i, parameter) in parameters.enumerated() {
            let where_ = parameter.inPath ? path.appending("pattern") : path.appending("query").appending(parameter.name)
            let location = (parameter.inPath ? object.value("pattern") : object.value("query")?[parameter.name])?.location ?? object.location
            if parameter.name == URLTemplate.urlPlaceholder {
                collector.report("\"url\" is reserved for the URL being resolved ({url}); choose another name", at: where_, location)
            } else if let first = parameters[..<i].first(where: { $0.name == parameter.name }) {
                let places = first.inPath == parameter.inPath ? (parameter.inPath ? "in the pattern" : "in query") : "in the pattern and in query"
                collector.report("parameter \"\(parameter.name)\" is declared twice (\(places))", at: where_, location)
            }
        }
        return parameters
    }

    /// Exactly one of `screen`, `native`, `external`; none only when a redirect always applies.
    private func target(_ object: JSONObjectReader, at path: JSONPath, _ scope: Scope, alwaysIndex: Int?) -> RouteTarget? {
        let keys = ["screen", "native", "external"].filter(object.contains)
        guard keys.count <= 1 else {
            collector.report("a route has one target; found \(keys.joined(separator: " and "))", at: path, object.location)
            return nil
        }
        guard let key = keys.first else {
            if alwaysIndex == nil {
                collector.report(
                    "missing a target: \"screen\", \"native\" or \"external\" (only a route with a redirect without \"when\" has none)",
                    at: path, object.location)
            }
            return nil
        }
        let keyPath = path.appending(key)
        let value = object.value(key)!
        if let alwaysIndex {
            collector.report("\"\(key)\" is never opened: redirects[\(alwaysIndex)] has no \"when\" and applies to everyone", at: keyPath, value)
        }
        guard let text = string(value, at: keyPath) else { return nil }
        switch key {
        case "screen": return name(text, at: keyPath, value, kind: "screen id", scope).map(RouteTarget.screen)
        case "native":
            guard RuleExpression.isIdentifier(text) else {
                collector.report("invalid handler name \"\(text)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots", at: keyPath, value)
                return nil
            }
            return .native(text)
        default:
            guard text.lowercased().hasPrefix("https://") || text.lowercased().hasPrefix("http://") else {
                collector.report("an external URL starts with https:// or http://, found \(JSONWriter.quoted(text))", at: keyPath, value)
                return nil
            }
            return template(value, at: keyPath, scope).map(RouteTarget.external)
        }
    }

    /// `requires` and `otherwise`, both or neither.
    private func requires(_ object: JSONObjectReader, at path: JSONPath, _ scope: Scope) -> RouteGuard? {
        let rule = object.value("requires").flatMap { RuleExpression.decode($0, at: path.appending("requires"), collector) }
        let otherwise = object.value("otherwise").flatMap { template($0, at: path.appending("otherwise"), scope) }
        switch (object.value("requires"), object.value("otherwise")) {
        case (let value?, nil):
            collector.report("\"requires\" needs \"otherwise\": where users the rule refuses are sent", at: path.appending("requires"), value)
        case (nil, let value?):
            collector.report("\"otherwise\" needs \"requires\": the rule users must meet", at: path.appending("otherwise"), value)
        default: break
        }
        guard let rule, let otherwise else { return nil }
        return RouteGuard(rule: rule, otherwise: otherwise)
    }

    /// `redirects`: entries `{"when"?: rule, "to": template}`; none may follow one without `when`.
    private func redirects(_ value: JSONValue, at path: JSONPath, _ scope: Scope) -> [RouteRedirect]? {
        guard let list = value.arrayValue else {
            collector.report("expected an array of {\"when\", \"to\"}, found \(value.typeName)", at: path, value)
            return nil
        }
        var redirects: [RouteRedirect] = []
        var alwaysIndex: Int?
        for (i, entry) in list.enumerated() {
            let entryPath = path.appending(i)
            guard let object = collector.object(entry, at: entryPath, allowedKeys: ["when", "to"]) else { continue }
            if let alwaysIndex {
                collector.report("unreachable: redirects[\(alwaysIndex)] has no \"when\" and applies to everyone", at: entryPath, entry)
            } else if !object.contains("when") {
                alwaysIndex = i
            }
            let when = object.value("when").flatMap { RuleExpression.decode($0, at: entryPath.appending("when"), collector) }
            let to = object.value("to", required: true).flatMap { template($0, at: entryPath.appending("to"), scope) }
            guard let to, when != nil || !object.contains("when") else { continue }
            redirects.append(RouteRedirect(when: when, to: to, path: entryPath))
        }
        return redirects.count == list.count ? redirects : nil
    }

    /// A URL template whose placeholders are `url` or parameters of the route.
    private func template(_ value: JSONValue, at path: JSONPath, _ scope: Scope) -> URLTemplate? {
        guard let text = string(value, at: path) else { return nil }
        let template: URLTemplate
        do throws(RouteSyntaxError) {
            template = try URLTemplate(parsing: text)
        } catch {
            collector.report(error.reason, at: path, value)
            return nil
        }
        guard let parameters = scope.parameters else { return template }
        var reported: Set<String> = []
        for name in template.placeholders
        where name != URLTemplate.urlPlaceholder && !parameters.contains(where: { $0.name == name }) && reported.insert(name).inserted {
            let known = parameters.isEmpty ? "the route has no parameters" : "the route's parameters: " + parameters.map(\.name).joined(separator: ", ")
            collector.report("unknown placeholder {\(name)}; \(known) ({url} is the URL being resolved)", at: path, value)
        }
        return reported.isEmpty ? template : nil
    }

    func string(_ value: JSONValue, at path: JSONPath) -> String? {
        guard let text = value.stringValue else {
            collector.report("expected a string, found \(value.typeName)", at: path, value)
            return nil
        }
        return text
    }

    /// What templates and `{p}` names may refer to: nil when the pattern did not decode.
    struct Scope {
        let parameters: [RouteParameter]?
    }
}
