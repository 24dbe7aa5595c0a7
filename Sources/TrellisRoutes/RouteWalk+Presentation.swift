import TrellisJSON
import TrellisTargeting

extension RouteWalk {
    /// A screen or tab id, or `{p}` for an enum path parameter `p` whose choices are all ids.
    func name(_ text: String, at path: JSONPath, _ value: JSONValue, kind: String, _ scope: Scope) -> RouteName? {
        guard text.hasPrefix("{"), text.hasSuffix("}"), text.count >= 2 else {
            guard RuleExpression.isIdentifier(text) else {
                collector.report("invalid \(kind) \"\(text)\": use 1 to 64 of a-z, A-Z, 0-9, '_', '-', '.', not only dots", at: path, value)
                return nil
            }
            return .fixed(text)
        }
        let parameterName = String(text.dropFirst().dropLast())
        guard let parameters = scope.parameters else { return .parameter(parameterName) }
        guard let parameter = parameters.first(where: { $0.name == parameterName }), parameter.inPath,
            case .choice(let choices) = parameter.type
        else {
            collector.report(
                "\(text) must name a path parameter with choices, such as :\(parameterName)(home|profile)", at: path, value)
            return nil
        }
        for choice in choices where !RuleExpression.isIdentifier(choice) {
            collector.report("choice \"\(choice)\" of \(text) is not a valid \(kind)", at: path, value)
        }
        return .parameter(parameterName)
    }

    /// `presentation`, or its default: `push` for a screen or a handler, `external` for a web page.
    func presentation(_ object: JSONObjectReader, at path: JSONPath, target: RouteTarget?, _ scope: Scope) -> Presentation? {
        let hasTarget = ["screen", "native", "external"].contains(where: object.contains)
        guard let value = object.value("presentation") else {
            guard let target else { return nil }
            if case .external = target { return Presentation(style: .external) }
            return Presentation(style: .push)
        }
        let keyPath = path.appending("presentation")
        if object.contains("external") {
            collector.report("an external target always opens in the browser; remove \"presentation\"", at: keyPath, value)
            return nil
        }
        if !hasTarget {
            collector.report("a route without a target has no presentation", at: keyPath, value)
            return nil
        }
        if let text = value.stringValue { return style(text, at: keyPath, value, tabGiven: false).map { Presentation(style: $0) } }
        guard let presentation = collector.object(value, at: keyPath, allowedKeys: ["style", "tab"]),
            let styleText = presentation.string("style", required: true), let styleValue = presentation.value("style"),
            let style = style(styleText, at: keyPath.appending("style"), styleValue, tabGiven: true)
        else { return nil }
        let tabValue = presentation.value("tab")
        guard style == .tab else {
            if let tabValue { collector.report("only style \"tab\" takes a \"tab\"", at: keyPath.appending("tab"), tabValue) }
            return Presentation(style: style)
        }
        guard let tabValue else {
            collector.report("style \"tab\" needs \"tab\": a tab id or {p}", at: keyPath, value)
            return nil
        }
        guard let tabText = string(tabValue, at: keyPath.appending("tab")) else { return nil }
        return name(tabText, at: keyPath.appending("tab"), tabValue, kind: "tab id", scope).map { Presentation(style: .tab, tab: $0) }
    }

    private func style(_ text: String, at path: JSONPath, _ value: JSONValue, tabGiven: Bool) -> Presentation.Style? {
        switch Presentation.Style(rawValue: text) {
        case .external?:
            collector.report("style \"external\" is implied by an \"external\" target and given to no other", at: path, value)
        case .tab? where !tabGiven:
            collector.report("style \"tab\" needs the tab: write {\"style\": \"tab\", \"tab\": \"…\"}", at: path, value)
        case let style?:
            return style
        case nil:
            collector.report(
                "unknown presentation \"\(text)\"; expected push, modal, sheet, fullScreen, replace or {\"style\": \"tab\", \"tab\": …}",
                at: path, value)
        }
        return nil
    }
}
