import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisStore
import TrellisTargeting

extension AdminEndpoints {
    /// Most entries one `GET /admin/audit` returns.
    static let maximumAuditLimit = 1000

    /// `GET /admin/audit?limit=&after=&resource=`: who changed what, when, from what to what.
    /// Without `after`, the newest `limit` entries; with it, the entries after that id (poll with
    /// the `next` of the previous answer). Oldest first either way.
    func audit(_ request: HTTPRequest, _ context: HTTPRequestContext, _ actor: String) throws(Problem) -> HTTPReply {
        let query = try QueryParameters(request.query, allowed: ["limit", "after", "resource"])
        var audit = AuditQuery()
        if let text = query["limit"] {
            guard let limit = Int(text), (1...Self.maximumAuditLimit).contains(limit) else {
                throw Problem(.badRequest, "query parameter \"limit\" must be an integer from 1 to \(Self.maximumAuditLimit), not \"\(text)\"")
            }
            audit.limit = limit
        }
        if let text = query["after"] {
            guard let after = Int64(text), after >= 0 else {
                throw Problem(.badRequest, "query parameter \"after\" must be an entry id (0, 1, …), not \"\(text)\"")
            }
            audit.after = after
        }
        if let resource = query["resource"] {
            guard !resource.isEmpty, resource.utf8.count <= 256 else {
                throw Problem(.badRequest, "query parameter \"resource\" must be 1 to 256 bytes, such as rollouts/new-cards or screens")
            }
            audit.resource = resource
        }
        let store = control.store
        let frozen = audit
        // Webhook URLs are often secrets themselves (a path that is the credential): only a token
        // that may manage webhooks reads them whole.
        let showsWebhookURLs = access.role(of: actor).map { $0 >= .admin } ?? false
        return .deferred(on: control.readQueue, for: request, context) { () throws(Problem) in
            let entries: [AuditEntry]
            do { entries = try store.audit(frozen) } catch { throw Problem(.serviceUnavailable, "cannot read the audit log: \(error)") }
            let next = entries.last?.id ?? frozen.after ?? 0
            return Self.resource(.object([("entries", .array(entries.map { showsWebhookURLs ? $0.jsonValue : Self.withoutWebhookURLs($0) })), ("next", .number(Double(next)))]))
        }
    }

    /// An entry as a token below `admin` reads it: a webhook's URL cut to its origin.
    static func withoutWebhookURLs(_ entry: AuditEntry) -> JSONValue {
        guard entry.draft.resource.hasPrefix("webhooks/"), let members = entry.jsonValue.objectValue else { return entry.jsonValue }
        func cut(_ value: JSONValue) -> JSONValue {
            guard let fields = value.objectValue else { return value }
            return .object(fields.map { field in
                guard field.key == "url", let url = field.value.stringValue else { return (field.key, field.value) }
                let origin = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).prefix(3).joined(separator: "/")
                return (field.key, .string(origin + "/…"))
            })
        }
        return .object(members.map { member in
            member.key == "before" || member.key == "after" ? (member.key, cut(member.value)) : (member.key, member.value)
        })
    }
}
