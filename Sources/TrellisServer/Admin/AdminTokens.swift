import TrellisCrypto
import TrellisHTTP
import TrellisJSON
import TrellisStore
import TrellisTargeting

/// `/admin/tokens`: make, list and delete admin tokens at run time (role `admin` only). A token
/// made here is a store document holding only its SHA-256 and role, so it works on the next
/// request, on every replica, and fails there as soon as it is deleted. The tokens in
/// `server.json` are the bootstrap set: listed, never deleted here.
extension AdminEndpoints {
    func registerTokens(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/tokens", role: .admin) { _, _, _, _ throws(Problem) in
            let runtime = state.published.snapshot.runtime
            return Self.resource(.object([("tokens", .array(tokenList(runtime)))]))
        }
        routes.add(.post, "/admin/tokens", role: .admin, replying: { request, _, context, actor throws(Problem) in
            let (name, role) = try Self.tokenRequest(request)
            let token: String
            do { token = try AdminTokenFormat.newToken() } catch {
                throw Problem(.serviceUnavailable, "no token was made: the system has no secure random bytes (\(error)); nothing changed")
            }
            return write(request, context, actor) { snapshot, actor throws(Problem) in
                try planNewToken(name: name, role: role, sha256: SHA256.hash(token.utf8), in: snapshot, actor: actor) { published in
                    // The token itself, this once: only its hash is kept.
                    var response = Self.resource(tokenValue(name, in: published.runtime, adding: [("token", .string(token))]), status: .created)
                    response.headers.add(name: "Location", value: "/admin/tokens/\(name)")
                    return response
                }
            }
        })
        routes.add(.delete, "/admin/tokens/{name}", role: .admin, replying: { request, parameters, context, actor throws(Problem) in
            let name = parameters["name"] ?? ""
            return write(request, context, actor) { snapshot, actor throws(Problem) in try planTokenDeletion(name, in: snapshot, actor: actor) }
        })
    }

    /// `{"name": …, "role": …}`: both required, the name as `trellis token new --name` takes it.
    private static func tokenRequest(_ request: HTTPRequest) throws(Problem) -> (String, AdminRole) {
        var decoded: (name: String, role: AdminRole)?
        try payload(request, allowed: ["name", "role"]) { object, collector in
            let name = object.string("name", required: true).flatMap { name -> String? in
                guard ServerConfiguration.isValidName(name) else {
                    object.report("invalid token name \"\(name.prefix(80))\": \(ServerConfiguration.nameRule)", atMember: "name")
                    return nil
                }
                return name
            }
            let role = object.string("role", required: true).flatMap { text -> AdminRole? in
                guard let role = AdminRole(rawValue: text) else {
                    let roles = AdminRole.allCases.map(\.rawValue).joined(separator: ", ")
                    object.report("unknown role \"\(text.prefix(40))\"; expected one of: \(roles)", atMember: "role")
                    return nil
                }
                return role
            }
            if let name, let role { decoded = (name, role) }
        }
        guard let decoded else { throw Problem(.unprocessableContent, "the body is not a valid token request; nothing changed") }
        return decoded
    }

    private func planNewToken(
        name: String, role: AdminRole, sha256: [UInt8], in snapshot: Snapshot, actor: String,
        answer: @escaping @Sendable (Snapshot) -> HTTPResponse
    ) throws(Problem) -> Plan {
        if access.configured.contains(where: { $0.name == name }) {
            throw Problem(.conflict, "token \"\(name)\" is configured in server.json (admin.tokens); choose another name")
        }
        if snapshot.runtime.operations.tokens[name] != nil {
            throw Problem(.conflict, "token \"\(name)\" exists; delete it first to replace it, or choose another name")
        }
        let now = state.clock()
        let token = RuntimeToken(name: name, sha256: sha256, role: role, createdAt: now, createdBy: actor)
        let described = JSONValue.object([("name", .string(name)), ("role", .string(role.rawValue))])
        return planOperational(
            kind: RuntimeToken.kind, key: name, body: token.body, in: snapshot, now: now, actor: actor, action: "token.create",
            before: nil, after: described, answer: answer)
    }

    private func planTokenDeletion(_ name: String, in snapshot: Snapshot, actor: String) throws(Problem) -> Plan {
        if access.configured.contains(where: { $0.name == name }) {
            throw Problem(
                .conflict,
                "token \"\(name)\" is configured in server.json (admin.tokens), the bootstrap set: remove it there and restart; it cannot be deleted through the API")
        }
        guard let token = snapshot.runtime.operations.tokens[name] else {
            throw Self.notFound("token", name, known: access.tokens(of: snapshot.runtime).map(\.name))
        }
        let described = JSONValue.object([("name", .string(name)), ("role", .string(token.role.rawValue))])
        return planOperational(
            kind: RuntimeToken.kind, key: name, body: RuntimeState.resetBody, in: snapshot, now: state.clock(), actor: actor,
            action: "token.delete", before: described, after: nil
        ) { _ in HTTPResponse(status: .noContent, headers: ["Cache-Control": "no-store"], body: []) }
    }

    /// Every token: name, role, where it comes from, who made it and when, and when it last
    /// authenticated a request on this replica. Never a hash.
    private func tokenList(_ runtime: RuntimeState) -> [JSONValue] {
        access.tokens(of: runtime).map { tokenValue($0.name, in: runtime) }
    }

    private func tokenValue(_ name: String, in runtime: RuntimeState, adding extra: [(String, JSONValue)] = []) -> JSONValue {
        let configured = access.configured.first { $0.name == name }
        let made = configured == nil ? runtime.operations.tokens[name] : nil
        let role = configured?.role ?? made?.role ?? .read
        return .object([
            ("name", .string(name)), ("role", .string(role.rawValue)), ("source", .string(configured == nil ? "runtime" : "config")),
            ("createdAt", made.map { .string(RFC3339.string(fromSeconds: $0.createdAt)) } ?? .null),
            ("createdBy", made.map { .string($0.createdBy) } ?? .null),
            ("lastUsedAt", access.usage.lastUsed(name).map { .string(RFC3339.string(fromSeconds: $0)) } ?? .null),
        ] + extra)
    }

    // MARK: - Token and webhook documents

    /// The change that writes `body` as the next revision of the `kind` document `key` (the reset
    /// body deletes), audited as `action` on `kind`s/`key` with `before` and `after` — which
    /// never hold a secret or a hash.
    func planOperational(
        kind: String, key: String, body: [UInt8], in snapshot: Snapshot, now: Double, actor: String, action: String,
        before: JSONValue?, after: JSONValue?, answer: @escaping @Sendable (Snapshot) -> HTTPResponse
    ) -> Plan {
        let revision = (snapshot.runtime.document(kind: kind, key: key)?.revision ?? 0) + 1
        let document = StoredDocument(kind: kind, key: key, body: body, revision: revision, updatedAt: now, updatedBy: actor)
        let audit = AuditDraft(
            at: now, actor: actor, action: action, resource: "\(kind)s/\(key)", before: before.map { JSONWriter.encode($0) },
            after: after.map { JSONWriter.encode($0) })
        return Plan(change: StoreChange(documents: [document], audit: [audit]), answer: answer)
    }
}
