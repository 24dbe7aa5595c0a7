import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisStore
import TrellisTargeting

/// `/admin/webhooks`: list, make and delete the receivers of audit events, and read how their
/// deliveries went (role `admin` only). Secrets go in and never come back out. Those in
/// `server.json` (`admin.webhooks`) are listed, never deleted here.
extension AdminEndpoints {
    /// Most attempts one `GET /admin/webhooks/deliveries` returns.
    static let maximumDeliveryLimit = 1000

    func registerWebhooks(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/webhooks", role: .admin) { _, _, _, _ throws(Problem) in
            let list = webhooks(in: state.published.snapshot.runtime).map(webhookValue)
            return Self.resource(.object([("webhooks", .array(list))]))
        }
        routes.add(.get, "/admin/webhooks/deliveries", query: nil, role: .admin, replying: { request, _, context, _ throws(Problem) in
            try deliveries(request, context)
        })
        routes.add(.post, "/admin/webhooks", role: .admin, replying: { request, _, context, actor throws(Problem) in
            let requested = try Self.webhookRequest(request)
            return execute(.webhook(.create(requested)), request, context, actor) { outcome in
                let made = outcome.snapshot.runtime.operations.webhooks[requested.name] ?? requested
                var response = Self.resource(webhookValue(made), status: .created)
                response.headers.add(name: "Location", value: "/admin/webhooks")
                return response
            }
        })
        routes.add(.delete, "/admin/webhooks/{name}", role: .admin, replying: { request, parameters, context, actor throws(Problem) in
            let name = parameters["name"] ?? ""
            return execute(.webhook(.delete(name: name)), request, context, actor)
        })
    }

    func webhooks(in runtime: RuntimeState) -> [WebhookSubscription] { runtime.operations.webhooks(configured: access.webhooks) }

    /// `{"name", "url", "secret", "events"}`: the name, URL and secret required; `events` defaults to `["*"]`.
    private static func webhookRequest(_ request: HTTPRequest) throws(Problem) -> WebhookSubscription {
        var decoded: WebhookSubscription?
        try payload(request, allowed: ["name", "url", "secret", "events"]) { object, collector in
            let name = object.string("name", required: true).flatMap { name -> String? in
                guard ServerConfiguration.isValidName(name), name != "deliveries" else {
                    let why = name == "deliveries" ? "it names /admin/webhooks/deliveries" : ServerConfiguration.nameRule
                    object.report("invalid webhook name \"\(name.prefix(80))\": \(why)", atMember: "name")
                    return nil
                }
                return name
            }
            let webhook = WebhookSubscription.decode(name: name ?? "", object, secretEnvironment: nil)
            if name != nil { decoded = webhook }
        }
        guard let decoded else { throw Problem(.unprocessableContent, "the body is not a valid webhook; nothing changed") }
        return decoded
    }

    /// A webhook as ops see it: never its secret.
    private func webhookValue(_ webhook: WebhookSubscription) -> JSONValue {
        .object([
            ("name", .string(webhook.name)), ("url", .string(webhook.url.text)), ("events", .array(webhook.events.map(JSONValue.string))),
            ("source", .string(webhook.createdAt == nil ? "config" : "runtime")),
            ("createdAt", webhook.createdAt.map { .string(RFC3339.string(fromSeconds: $0)) } ?? .null),
            ("createdBy", webhook.createdBy.map(JSONValue.string) ?? .null),
        ])
    }

    /// `GET /admin/webhooks/deliveries?webhook=&failed=true&limit=`: the newest attempts first.
    private func deliveries(_ request: HTTPRequest, _ context: HTTPRequestContext) throws(Problem) -> HTTPReply {
        let query = try QueryParameters(request.query, allowed: ["webhook", "failed", "limit"])
        var deliveries = DeliveryQuery()
        if let text = query["limit"] {
            guard let limit = Int(text), (1...Self.maximumDeliveryLimit).contains(limit) else {
                throw Problem(.badRequest, "query parameter \"limit\" must be an integer from 1 to \(Self.maximumDeliveryLimit), not \"\(text.prefix(40))\"")
            }
            deliveries.limit = limit
        }
        if let text = query["failed"] {
            guard text == "true" || text == "false" else {
                throw Problem(.badRequest, "query parameter \"failed\" must be true (only attempts that did not deliver) or false, not \"\(text.prefix(40))\"")
            }
            deliveries.failuresOnly = text == "true"
        }
        if let webhook = query["webhook"] {
            guard ServerConfiguration.isValidName(webhook) else {
                throw Problem(.badRequest, "query parameter \"webhook\" must be a webhook name: \(ServerConfiguration.nameRule)")
            }
            deliveries.webhook = webhook
        }
        let store = control.store
        let frozen = deliveries
        return .deferred(on: control.readQueue, for: request, context) { () throws(Problem) in
            let attempts: [DeliveryAttempt]
            do { attempts = try store.deliveries(frozen) } catch { throw Problem(.serviceUnavailable, "cannot read the delivery log: \(error)") }
            return Self.resource(.object([("deliveries", .array(attempts.map(Self.deliveryValue)))]))
        }
    }

    static func deliveryValue(_ attempt: DeliveryAttempt) -> JSONValue {
        .object([
            ("id", .number(Double(attempt.id))), ("webhook", .string(attempt.webhook)),
            ("delivery", .string("\(attempt.auditID).\(attempt.webhook)")), ("auditId", .number(Double(attempt.auditID))),
            ("event", .string(attempt.event)), ("at", .string(RFC3339.string(fromSeconds: attempt.at))),
            ("attempt", .number(attempt.attempt)), ("outcome", .string(attempt.outcome.rawValue)),
            ("statusCode", attempt.statusCode.map { .number($0) } ?? .null), ("error", attempt.error.map(JSONValue.string) ?? .null),
            ("durationMs", .number((attempt.durationSeconds * 1000).rounded())),
        ])
    }
}
