import TrellisHTTP
import TrellisJSON
import TrellisTargeting

/// `/admin/rules`: the named rules in force; define or redefine one, retire one, hand one back to
/// targeting.json. A rule is checked with every rule, screen and route that refers to it, in the
/// same build as any change: a rule that does not parse is 422 with the line and column of each
/// mistake, a cycle between rules 422, retiring a rule something still uses 409 naming where.
extension AdminEndpoints {
    func registerRules(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/rules") { request, _, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            return Self.resource(.object([("rules", .array(snapshot.targeting.rules.keys.sorted().map { Self.rule($0, in: snapshot) }))]))
        }
        routes.add(.get, "/admin/rules/{name}") { request, parameters, context, actor throws(Problem) in
            let snapshot = state.published.snapshot
            let name = parameters["name"] ?? ""
            guard snapshot.targeting.rules[name] != nil else { throw Self.notFound("rule", name, known: snapshot.targeting.rules.keys) }
            let value = Self.rule(name, in: snapshot)
            return Self.resource(value, etag: Self.etag(of: value))
        }
        routes.add(.put, "/admin/rules/{name}", replying: { request, parameters, context, actor throws(Problem) in
            try defineRule(parameters["name"] ?? "", request, context, actor)
        })
        routes.add(.delete, "/admin/rules/{name}", replying: { request, parameters, context, actor throws(Problem) in
            let name = parameters["name"] ?? ""
            return write(request, context, actor) { snapshot, actor throws(Problem) in
                let before = try ruleInForce(name, request, snapshot)
                return planRetirement(.rule(RuleValue(form: .retired)), key: name, before: before.jsonValue, in: snapshot, actor: actor)
            }
        })
        routes.add(.post, "/admin/rules/{name}/reset", replying: { request, parameters, context, actor throws(Problem) in
            let name = parameters["name"] ?? ""
            try Self.checkMediaType(request)
            return write(request, context, actor) { snapshot, actor throws(Problem) in
                try planEntryReset(
                    .rule(nil), key: name, in: snapshot, request: request, actor: actor, inForce: snapshot.targeting.rules[name]?.jsonValue,
                    configured: snapshot.baselineTargeting.rules[name]?.jsonValue, etag: Self.etag(of: Self.rule(name, in: snapshot))
                ) { Self.rule(name, in: $0) }
            }
        })
    }

    /// `PUT /admin/rules/{name}`: the body is the rule's expression, as targeting.json writes it
    /// under `rules`; 201 for a new name.
    private func defineRule(_ name: String, _ request: HTTPRequest, _ context: HTTPRequestContext, _ actor: String) throws(Problem) -> HTTPReply {
        guard RuleExpression.isIdentifier(name) else {
            throw Problem(.badRequest, "invalid rule name \"\(name)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.'")
        }
        let expression = try Self.expression(request)
        return write(request, context, actor) { snapshot, actor throws(Problem) in
            let existing = snapshot.targeting.rules[name]
            if existing != nil { try checkPrecondition(request, etag: Self.etag(of: Self.rule(name, in: snapshot))) }
            let audit = targetingAudit(
                existing == nil ? "rule.create" : "rule.update", "rules/\(name)", actor: actor, before: existing?.jsonValue,
                after: expression.jsonValue)
            return planTargeting(
                [TargetingWrite(key: name, value: .rule(RuleValue(form: .defined(expression))))], in: snapshot, actor: actor,
                audit: [audit], status: existing == nil ? .created : .ok
            ) { Self.rule(name, in: $0) }
        }
    }

    /// The body as a rule expression; 400 for malformed JSON, 422 for an expression that does not
    /// parse, each mistake with its line and column.
    static func expression(_ request: HTTPRequest) throws(Problem) -> RuleExpression {
        let document = try jsonBody(request)
        let collector = DiagnosticsCollector()
        guard let expression = RuleExpression.decode(document, at: .root, collector), collector.isEmpty else {
            throw Problem.invalid("the body is not a rule expression; nothing changed", collector.diagnostics, source: "body", status: .unprocessableContent)
        }
        return expression
    }

    /// Rule `name` as in force, once `If-Match` (if any) names its current version.
    private func ruleInForce(_ name: String, _ request: HTTPRequest, _ snapshot: Snapshot) throws(Problem) -> RuleExpression {
        guard let rule = snapshot.targeting.rules[name] else { throw Self.notFound("rule", name, known: snapshot.targeting.rules.keys) }
        try checkPrecondition(request, etag: Self.etag(of: Self.rule(name, in: snapshot)))
        return rule
    }

    /// A rule as ops see it: its expression and where it comes from.
    static func rule(_ name: String, in snapshot: Snapshot) -> JSONValue {
        guard let rule = snapshot.targeting.rules[name] else { return .null }
        var members: [(String, JSONValue)] = [("name", .string(name)), ("rule", rule.jsonValue)]
        members += provenance(snapshot.runtime.rules[name]?.document)
        if snapshot.runtime.hasOverride(kind: RuleValue.kind, key: name), let configured = snapshot.baselineTargeting.rules[name] {
            members.append(("config", configured.jsonValue))
        }
        return .object(members)
    }

    /// The change that hands `key` back to the configuration's entry (`configured`); 404 when it
    /// is not in force and the configuration has none, 409 when the configuration's is in force already.
    func planEntryReset(
        _ reset: PlannedSettings, key: String, in snapshot: Snapshot, request: HTTPRequest, actor: String, inForce: JSONValue?,
        configured: JSONValue?, etag: String, render: @escaping @Sendable (Snapshot) -> JSONValue
    ) throws(Problem) -> Plan {
        let kind = reset.kind
        guard inForce != nil || configured != nil else { throw Problem(.notFound, "no \(kind) \"\(key)\" in force or in targeting.json") }
        if inForce != nil { try checkPrecondition(request, etag: etag) }
        guard snapshot.runtime.hasOverride(kind: kind, key: key), let configured else {
            let reason = configured == nil ? "targeting.json has no \(kind) \"\(key)\" to hand it back to" : "the configuration's value is in force already"
            throw Problem(.conflict, "\(kind) \(key) has no runtime value to reset: \(reason)")
        }
        let audit = targetingAudit("\(kind).reset", "\(kind)s/\(key)", actor: actor, before: inForce, after: configured)
        return planTargeting([TargetingWrite(key: key, value: reset)], in: snapshot, actor: actor, audit: [audit], render: render)
    }
}
