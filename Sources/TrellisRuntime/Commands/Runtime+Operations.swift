import TrellisJSON
import TrellisStore

/// Token and webhook commands: store documents every replica reads on its next snapshot. A token
/// is kept only as its SHA-256 and role; a webhook's secret never reaches the audit log. Those of
/// the configuration are the bootstrap set: never made or deleted here.
extension Runtime {
    package func planToken(_ command: TokenCommand, in snapshot: Snapshot, actor: String) throws(Refusal) -> PlannedChange {
        let name = command.name
        switch command {
        case .create(_, let role, let sha256):
            if Actor.reservedNames.contains(name) {
                throw .invalid(
                    "token name \"\(name)\" is reserved: the audit log names the runtime's own writers so",
                    [Diagnostic(path: JSONPath.root.appending("name"), location: .unknown, message: "\"\(name)\" is reserved")], source: "body")
            }
            if settings.configuredTokens.contains(name) {
                throw .conflict("token \"\(name)\" is configured in server.json (admin.tokens); choose another name")
            }
            if snapshot.runtime.operations.tokens[name] != nil {
                throw .conflict("token \"\(name)\" exists; delete it first to replace it, or choose another name")
            }
            let now = state.clock()
            let token = RuntimeToken(name: name, sha256: sha256, role: role, createdAt: now, createdBy: actor)
            let described = JSONValue.object([("name", .string(name)), ("role", .string(role.rawValue))])
            var plan = planOperational(
                kind: RuntimeToken.kind, key: name, body: token.body, in: snapshot, now: now, actor: actor, action: "token.create",
                before: nil, after: described)
            plan.effect = .created
            return plan
        case .delete:
            // A token made here before server.json took its name is shadowed, not gone: it can
            // still be deleted, so that it does not come back when the configured one goes.
            if settings.configuredTokens.contains(name), snapshot.runtime.operations.tokens[name] == nil {
                throw .conflict(
                    "token \"\(name)\" is configured in server.json (admin.tokens), the bootstrap set: remove it there and restart; it cannot be deleted through the API")
            }
            guard let token = snapshot.runtime.operations.tokens[name] else {
                let known = settings.configuredTokens.union(snapshot.runtime.operations.tokens.keys)
                throw Self.notFound("token", name, known: known)
            }
            let described = JSONValue.object([("name", .string(name)), ("role", .string(token.role.rawValue))])
            var plan = planOperational(
                kind: RuntimeToken.kind, key: name, body: RuntimeState.resetBody, in: snapshot, now: state.clock(), actor: actor,
                action: "token.delete", before: described, after: nil)
            plan.effect = .removed
            return plan
        }
    }

    package func planWebhook(_ command: WebhookCommand, in snapshot: Snapshot, actor: String) throws(Refusal) -> PlannedChange {
        let name = command.name
        let configured = settings.configuredWebhooks.contains { $0.name == name }
        switch command {
        case .create(let requested):
            if configured { throw .conflict("webhook \"\(name)\" is configured in server.json (admin.webhooks); choose another name") }
            if snapshot.runtime.operations.webhooks[name] != nil {
                throw .conflict("webhook \"\(name)\" exists; delete it first to replace it, or choose another name")
            }
            if !settings.webhookAllowPrivate, let reason = InternalAddress.reason(literal: requested.url.host) {
                throw .invalid(
                    "the webhook's address is \(reason); webhooks reach only the public internet unless admin.webhookAllowPrivate is true",
                    [Diagnostic(path: JSONPath.root.appending("url"), location: .unknown, message: "\(requested.url.host) is \(reason)")], source: "body")
            }
            let now = state.clock()
            var webhook = requested
            webhook.createdAt = now
            webhook.createdBy = actor
            var plan = planOperational(
                kind: WebhookSubscription.kind, key: name, body: webhook.body, in: snapshot, now: now, actor: actor, action: "webhook.create",
                before: nil, after: Self.auditValue(webhook))
            plan.effect = .created
            return plan
        case .delete:
            if configured {
                throw .conflict(
                    "webhook \"\(name)\" is configured in server.json (admin.webhooks): remove it there and restart; it cannot be deleted through the API")
            }
            guard let webhook = snapshot.runtime.operations.webhooks[name] else {
                throw Self.notFound("webhook", name, known: snapshot.runtime.operations.webhooks(configured: settings.configuredWebhooks).map(\.name))
            }
            var plan = planOperational(
                kind: WebhookSubscription.kind, key: name, body: RuntimeState.resetBody, in: snapshot, now: state.clock(), actor: actor,
                action: "webhook.delete", before: Self.auditValue(webhook), after: nil)
            plan.effect = .removed
            return plan
        }
    }

    /// A webhook as the audit log records it: no secret.
    private static func auditValue(_ webhook: WebhookSubscription) -> JSONValue {
        .object([("name", .string(webhook.name)), ("url", .string(webhook.url.text)), ("events", .array(webhook.events.map(JSONValue.string)))])
    }

    /// The change that writes `body` as the next revision of the `kind` document `key` (the reset
    /// body deletes), audited as `action` on `kind`s/`key` with `before` and `after` — which
    /// never hold a secret or a hash.
    func planOperational(
        kind: String, key: String, body: [UInt8], in snapshot: Snapshot, now: Double, actor: String, action: String,
        before: JSONValue?, after: JSONValue?
    ) -> PlannedChange {
        let revision = (snapshot.runtime.document(kind: kind, key: key)?.revision ?? 0) + 1
        let document = StoredDocument(kind: kind, key: key, body: body, revision: revision, updatedAt: now, updatedBy: actor)
        let audit = AuditDraft(
            at: now, actor: actor, action: action, resource: "\(kind)s/\(key)", before: before.map { JSONWriter.encode($0) },
            after: after.map { JSONWriter.encode($0) })
        return PlannedChange(change: StoreChange(documents: [document], audit: [audit]))
    }
}
