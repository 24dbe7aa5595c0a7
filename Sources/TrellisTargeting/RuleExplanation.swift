import TrellisJSON

/// Why a rule expression has the value it has for one user: a tree shaped like the expression,
/// built by ``Evaluator/explain(_:for:)`` for `GET /admin/explain`.
///
/// Each node holds its expression as authored, its value, and why: `all`, `any` and `not` through
/// their children, a named rule through the explanation of its definition (its one child), a
/// rollout or experiment test through the ``RolloutDecision`` or ``VariantDecision``, a condition
/// through the attribute's text. Evaluation is honest about short-circuiting: the expressions after
/// the one that decided an `all` (the first false) or an `any` (the first true) are children with
/// no value, because the request path never evaluates them either.
public struct RuleExplanation: Sendable, Equatable {
    /// The expression this node explains.
    public var expression: RuleExpression
    /// Its value for the user; nil when it was not evaluated (an earlier sibling decided the
    /// enclosing `all` or `any`).
    public var value: Bool?
    /// `all` / `any`: one per expression, in order (the skipped ones without a value); `not`:
    /// one; a defined named rule: its definition's explanation; leaves and skipped nodes: none.
    public var children: [RuleExplanation]
    /// What decided a leaf; nil for `all`, `any`, `not`, defined named rules and skipped nodes.
    public var detail: Detail?

    /// The facts behind a leaf.
    public enum Detail: Sendable, Equatable {
        /// `{"rollout": k}`: the decision, reason `unknown` when `k` is not defined.
        case rollout(RolloutDecision)
        /// `{"experiment": k, "variant": v}`: the decision; nil when `k` is not defined.
        case experiment(VariantDecision?)
        /// An attribute condition: the attribute's text (nil when the context lacks it) and whether
        /// that text reads as the operator needs (a number, a date, a version).
        case condition(attributeText: String?, readable: Bool)
        /// `{"rule": n}` where `n` is not defined (false).
        case unknownRule
    }

    public init(expression: RuleExpression, value: Bool?, children: [RuleExplanation] = [], detail: Detail? = nil) {
        self.expression = expression
        self.value = value
        self.children = children
        self.detail = detail
    }

    /// Whether the node was evaluated.
    public var isEvaluated: Bool { value != nil }

    /// One sentence saying why the node has its value.
    public var summary: String {
        guard let value else { return "not evaluated: an earlier expression already decided the enclosing all or any" }
        let evaluated = children.filter(\.isEvaluated).count, skipped = children.count - evaluated
        let rest =
            skipped == 0 ? "" : "; \(skipped) expression\(skipped == 1 ? "" : "s") after it \(skipped == 1 ? "was" : "were") not evaluated"
        switch expression {
        case .all(let list):
            return value ? "all \(list.count) are true" : "expression \(evaluated) of \(list.count) is false\(rest)"
        case .any(let list):
            return value ? "expression \(evaluated) of \(list.count) is true\(rest)" : "none of the \(list.count) is true"
        case .not: return "the expression inside is \(!value)"
        case .named(let name):
            return detail == .unknownRule ? "no rule \"\(name)\" is defined: false" : "the definition of rule \"\(name)\" is \(value)"
        case .rollout, .experiment, .condition:
            return leafSummary(value)
        }
    }

    private func leafSummary(_ value: Bool) -> String {
        switch (detail, expression) {
        case (.rollout(let decision), _): return decision.summary
        case (.experiment(let decision?), .experiment(_, let wanted)):
            return value ? decision.summary : "\(decision.summary), not \(JSONWriter.quoted(wanted))"
        case (.experiment(nil), .experiment(let key, _)): return "no experiment \"\(key)\" is defined: false"
        case (.condition(nil, _), .condition(let c)):
            return "the context has no \(c.attribute): a condition on a missing attribute is false"
        case (.condition(let text?, false), .condition(let c)):
            return "\(c.attribute) is \(JSONWriter.quoted(text)), which is not \(c.op.operandKind.noun): false"
        case (.condition(let text?, true), .condition(let c)):
            return "\(c.attribute) is \(JSONWriter.quoted(text))"
        default: return "\(value)"
        }
    }

    /// The explanation as JSON a person can read in curl output:
    ///
    /// ```json
    /// {"expression": {"rollout": "gold-banner"}, "value": false,
    ///  "why": "position 36.42 is not below 25: the user is admitted from 36.43 (bucket 37)",
    ///  "rollout": {"admitted": false, "reason": "bucket", …}}
    /// ```
    ///
    /// Every node has `expression` (as authored), then `value` — or `"evaluated": false` for a
    /// skipped one — and `why`; leaves add `rollout` (``RolloutDecision/jsonValue``), `experiment`
    /// (``VariantDecision/jsonValue``, `null` when unknown) — both without their `why`, which is the
    /// node's — or `actual` (the attribute's text, `null` when missing); `all`, `any`, `not` and
    /// named rules add `children`.
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("expression", expression.jsonValue)]
        members.append(value.map { ("value", .bool($0)) } ?? ("evaluated", .bool(false)))
        members.append(("why", .string(summary)))
        // A leaf's `why` is its decision's summary already; the decision is shown without it.
        func withoutWhy(_ decision: JSONValue) -> JSONValue {
            JSONValue(.object((decision.objectValue ?? []).filter { $0.key != "why" }))
        }
        switch detail {
        case .rollout(let decision): members.append(("rollout", withoutWhy(decision.jsonValue)))
        case .experiment(let decision): members.append(("experiment", decision.map { withoutWhy($0.jsonValue) } ?? .null))
        case .condition(let text, _): members.append(("actual", text.map { .string($0) } ?? .null))
        case .unknownRule, nil: break
        }
        if !children.isEmpty { members.append(("children", .array(children.map(\.jsonValue)))) }
        return .object(members)
    }
}

extension AttributeCondition.OperandKind {
    /// How the summary names what the attribute's text must read as.
    fileprivate var noun: String {
        switch self {
        case .string, .stringSet: "text"
        case .number: "a number"
        case .date: "a date"
        case .version: "a version"
        }
    }
}
