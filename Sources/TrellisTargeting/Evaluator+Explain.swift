extension Evaluator {
    /// Evaluates `expression` for the user the way ``evaluate(_:for:)`` does, recording why: a
    /// tree mirroring the expression (see ``RuleExplanation``). Its root's value is always what
    /// ``evaluate(_:for:)`` returns, and the expressions `all` and `any` skip are marked, not
    /// evaluated. This path allocates freely; the request path uses ``evaluate(_:for:)``.
    public func explain(_ expression: RuleExpression, for context: UserContext) -> RuleExplanation {
        switch expression {
        case .all(let list): return explainSequence(expression, list, stopsAt: false, context)
        case .any(let list): return explainSequence(expression, list, stopsAt: true, context)
        case .not(let inner):
            let child = explain(inner, for: context)
            return RuleExplanation(expression: expression, value: child.value.map { !$0 }, children: [child])
        case .named(let name):
            guard let definition = configuration.rules[name] else {
                return RuleExplanation(expression: expression, value: false, detail: .unknownRule)
            }
            let child = explain(definition, for: context)
            return RuleExplanation(expression: expression, value: child.value, children: [child])
        case .rollout(let key):
            let decision = rolloutDecision(key, for: context)
            return RuleExplanation(expression: expression, value: decision.admitted, detail: .rollout(decision))
        case .experiment(let key, let variant):
            let decision = variantDecision(of: key, for: context)
            return RuleExplanation(expression: expression, value: decision?.variant == variant, detail: .experiment(decision))
        case .condition(let condition):
            let text = context.text(of: condition.builtIn, named: condition.attribute)
            let readable = text.map { Self.reads($0, as: condition, context) } ?? false
            return RuleExplanation(
                expression: expression, value: Self.holds(condition, for: context),
                detail: .condition(attributeText: text, readable: readable))
        }
    }

    /// `all` (stops at the first false child) or `any` (stops at the first true one).
    private func explainSequence(
        _ expression: RuleExpression, _ list: [RuleExpression], stopsAt decisive: Bool, _ context: UserContext
    ) -> RuleExplanation {
        var children: [RuleExplanation] = []
        children.reserveCapacity(list.count)
        var decided = false
        for child in list {
            if decided {
                children.append(RuleExplanation(expression: child, value: nil))
                continue
            }
            let explanation = explain(child, for: context)
            decided = explanation.value == decisive
            children.append(explanation)
        }
        return RuleExplanation(expression: expression, value: decided ? decisive : !decisive, children: children)
    }

    /// Whether `text` reads as what the condition's operator compares: always for strings; for
    /// numbers, dates and versions, whether it parses (as ``holds(_:for:)`` parses it).
    static func reads(_ text: String, as condition: AttributeCondition, _ context: UserContext) -> Bool {
        switch condition.op.operandKind {
        case .string, .stringSet: true
        case .number: number(text) != nil
        case .date: date(of: condition, context) != nil
        case .version: version(of: condition, context) != nil
        }
    }
}
