import TrellisJSON

extension ResolveWalk {
    /// The action as a client of `schemaVersion` performs it, or nil when it performs none.
    ///
    /// A kind the client knows is kept, without its `fallback` (a sequence's actions each resolved
    /// the same way; a sequence left with none disappears). A newer kind becomes its resolved
    /// `fallback`, else its kind's default (``defaultAction(_:_:at:)``), else nothing. Each
    /// replacement is recorded at the action's authored path.
    mutating func resolveAction(_ value: JSONValue, at path: JSONPath) -> JSONValue? {
        guard let name = value["type"]?.stringValue, let kind = ActionKind.all[name] else { return value }
        if kind.introduced <= schemaVersion { return kept(value, kind, at: path) }
        let position = replaced.count  // this entry goes before those of what stands in for it
        if let fallback = value["fallback"] {
            let shown = resolveAction(fallback, at: path.appending("fallback"))
            replaced.insert(replacement(name, at: path, how: .fallback, by: shown), at: position)
            return shown
        }
        let shown = defaultAction(kind, value, at: path)
        // One entry says what the default is; how it was found (a sequence's own actions) is detail.
        replaced.removeSubrange(position...)
        replaced.append(replacement(name, at: path, how: shown == nil ? .dropped : .defaultFallback, by: shown))
        return shown
    }

    /// What a kind newer than the client stands for by default: `back` → `dismiss`; `share` with a
    /// `url` → `openURL` to it; `sequence` → the last of its actions the client can perform;
    /// anything else (`reload`, `copy`, `share` of text only) → nothing.
    mutating func defaultAction(_ kind: ActionKind, _ value: JSONValue, at path: JSONPath) -> JSONValue? {
        switch kind.name {
        case "back":
            return .object([("type", .string("dismiss"))])
        case "share":
            return value["url"].map { .object([("type", .string("openURL")), ("url", $0)]) }
        case "sequence":
            let actions = value["actions"]?.arrayValue ?? []
            for (index, action) in actions.enumerated().reversed() {
                if let shown = resolveAction(action, at: path.appending("actions").appending(index)) { return shown }
            }
            return nil
        default:
            return nil
        }
    }

    /// A kind the client knows: its members as written, less `fallback`, a sequence's actions resolved.
    private mutating func kept(_ value: JSONValue, _ kind: ActionKind, at path: JSONPath) -> JSONValue? {
        guard let members = value.objectValue else { return value }
        var kept: [JSONMember] = []
        for member in members where member.key != "fallback" {
            guard case .actions = kind.fields[member.key], let actions = member.value.arrayValue else {
                kept.append(member)
                continue
            }
            let actionsPath = path.appending(member.key)
            let shown = actions.enumerated().compactMap { resolveAction($1, at: actionsPath.appending($0)) }
            if shown.isEmpty {
                replaced.append(replacement(kind.name, at: path, how: .dropped, by: nil))
                return nil
            }
            kept.append(JSONMember(key: member.key, keyLocation: member.keyLocation, value: JSONValue(.array(shown), at: member.value.location)))
        }
        return JSONValue(.object(kept), at: value.location)
    }

    private func replacement(_ kind: String, at path: JSONPath, how: ResolvedScreen.Replacement.How, by shown: JSONValue?) -> ResolvedScreen.Replacement {
        ResolvedScreen.Replacement(id: nil, path: path, type: kind, how: how, replacement: shown?["type"]?.stringValue, subject: .action)
    }
}
