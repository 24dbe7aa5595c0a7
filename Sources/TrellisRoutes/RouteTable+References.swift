import TrellisJSON
import TrellisTargeting

extension RouteTable {
    /// Every rule, rollout and experiment (and variant) named by a `requires` or a `when` that
    /// `configuration` does not define, at its path in the table, with its line when the table was
    /// decoded from a document.
    public func checkReferences(in configuration: TargetingConfiguration) -> [Diagnostic] {
        let collector = DiagnosticsCollector()
        for route in routes {
            if let requires = route.requires {
                configuration.checkReferences(in: requires.rule, at: route.path.appending("requires"), collector, locate: location(of:))
            }
            for redirect in route.redirects {
                guard let when = redirect.when else { continue }
                configuration.checkReferences(in: when, at: redirect.path.appending("when"), collector, locate: location(of:))
            }
        }
        return collector.diagnostics
    }

    /// Why `url` is a dead link, or nil when it parses, matches a route and gives that route's
    /// required query parameters, each of its type. Redirects and guards are not followed: they
    /// depend on the user. *no route matches "app://prodcut/42"; closest: app://product/:id(int)*.
    public func linkProblem(_ url: String) -> String? {
        switch match(url, after: []) {
        case .success: nil
        case .failure(let failure): failure.description
        }
    }

    /// ``linkProblem(_:)`` for a URL template such as `app://product/{id}`, whose placeholders
    /// are `parameters` (name → type): checked with sample values (``ParameterType/sample(for:)``,
    /// and each choice of an enum). A placeholder `parameters` does not name is a problem.
    public func linkProblem(template: String, parameters: [String: ParameterType]) -> String? {
        let parsed: URLTemplate
        do throws(RouteSyntaxError) {
            parsed = try URLTemplate(parsing: template)
        } catch {
            return error.reason
        }
        if let unknown = parsed.placeholders.first(where: { parameters[$0] == nil }) {
            let known = parameters.keys.sorted().map { "{\($0)}" }.joined(separator: ", ")
            return "unknown placeholder {\(unknown)} in \(JSONWriter.quoted(template))" + (known.isEmpty ? "" : "; known: \(known)")
        }
        let declared = parameters.sorted { $0.key < $1.key }.map {
            RouteParameter(name: $0.key, type: $0.value, required: true, inPath: false)
        }
        return Self.sampleExpansions(of: parsed, declared, url: "").lazy.compactMap { self.linkProblem($0) }.first
    }
}

extension RouteTable {
    /// Every rule, rollout and experiment a `requires` or a `when` names, with where.
    public func targetingReferences() -> [(reference: TargetingReference, path: JSONPath)] {
        var found: [(reference: TargetingReference, path: JSONPath)] = []
        for route in routes {
            if let requires = route.requires { found += requires.rule.references(at: route.path.appending("requires")) }
            for redirect in route.redirects {
                if let when = redirect.when { found += when.references(at: redirect.path.appending("when")) }
            }
        }
        return found
    }
}
