import TrellisCrypto
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
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
            let sha256 = SHA256.hash(token.utf8)
            return execute(.token(.create(name: name, role: role, sha256: sha256)), request, context, actor) { outcome in
                // The token itself, this once: only its hash is kept.
                var response = Self.resource(
                    tokenValue(name, in: outcome.snapshot.runtime, adding: [("token", .string(token))]), status: .created)
                response.headers.add(name: "Location", value: "/admin/tokens/\(name)")
                return response
            }
        })
        routes.add(.delete, "/admin/tokens/{name}", role: .admin, replying: { request, parameters, context, actor throws(Problem) in
            let name = parameters["name"] ?? ""
            return execute(.token(.delete(name: name)), request, context, actor)
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

    /// Every token: name, role, where it comes from, who made it and when, and when it last
    /// authenticated a request on this replica. Never a hash.
    private func tokenList(_ runtime: RuntimeState) -> [JSONValue] {
        let configured = Set(access.configured.map(\.name))
        // Made here before server.json took their names: not in force, listed so they can be deleted.
        let shadowed = runtime.operations.tokens.values.filter { configured.contains($0.name) }.sorted { $0.name < $1.name }.map { token in
            JSONValue.object([
                ("name", .string(token.name)), ("role", .string(token.role.rawValue)), ("source", .string("runtime")), ("shadowed", .bool(true)),
                ("createdAt", .string(RFC3339.string(fromSeconds: token.createdAt))), ("createdBy", .string(token.createdBy)), ("lastUsedAt", .null),
            ])
        }
        return access.tokens(of: runtime).map { tokenValue($0.name, in: runtime) } + shadowed
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
}
