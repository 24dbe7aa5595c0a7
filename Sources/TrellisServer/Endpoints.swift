import Prometheus
import TrellisHTTP
import TrellisJSON

/// The HTTP surface: one method per endpoint, wired into a route table once.
struct Endpoints: Sendable {
    let state: ServerState

    /// `GET /` — what this server offers, for people exploring with curl.
    static let index: [UInt8] = JSONWriter.encode(
        .object([
            ("name", .string("trellis")),
            (
                "endpoints",
                .object([
                    ("screens", .string("GET /v1/screens")),
                    ("screen", .string("GET /v1/screens/{id}?pretty=1")),
                    ("health", .string("GET /healthz")),
                    ("readiness", .string("GET /readyz")),
                    ("metrics", .string("GET /metrics")),
                ])
            ),
        ]), style: .pretty)

    func router() -> Router {
        var router = Router()
        router.add(.get, "/") { request, _, _ throws(Problem) in
            _ = try QueryParameters(request.query, allowed: [])
            return Self.json(Self.index, cacheControl: "no-cache")
        }
        router.add(.get, "/healthz") { request, _, _ throws(Problem) in
            _ = try QueryParameters(request.query, allowed: [])
            return Self.json(Array(#"{"status":"ok"}"#.utf8), cacheControl: "no-store")
        }
        router.add(.get, "/readyz") { request, _, _ throws(Problem) in try readiness(request) }
        router.add(.get, "/metrics") { request, _, _ throws(Problem) in try metrics(request) }
        router.add(.get, "/v1/screens") { request, _, _ throws(Problem) in try screenList(request) }
        router.add(.get, "/v1/screens/{id}") { request, parameters, _ throws(Problem) in
            try screen(request, id: parameters["id"] ?? "")
        }
        return router
    }

    /// `GET /v1/screens/{id}` — the screen, pre-encoded; 304 when the client has it already.
    func screen(_ request: HTTPRequest, id: String) throws(Problem) -> HTTPResponse {
        let pretty = try QueryParameters(request.query, allowed: ["pretty"]).flag("pretty")
        let snapshot = state.store.snapshot
        guard let entry = snapshot.screens[id] else {
            let known = snapshot.screens.keys.sorted().joined(separator: ", ")
            throw Problem(.notFound, "no screen \"\(id)\"; screens: \(known.isEmpty ? "none" : known)")
        }
        return Self.cached(pretty ? entry.pretty : entry.compact, request, cacheControl: state.screenCacheControl)
    }

    /// `GET /v1/screens` — ids, revisions and ETags of every screen.
    func screenList(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        let pretty = try QueryParameters(request.query, allowed: ["pretty"]).flag("pretty")
        let list = state.store.snapshot.screenList
        return Self.cached(pretty ? list.pretty : list.compact, request, cacheControl: "no-cache")
    }

    /// `GET /readyz` — 200 while serving a loaded snapshot, 503 once draining for shutdown.
    func readiness(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        _ = try QueryParameters(request.query, allowed: [])
        let snapshot = state.store.snapshot
        let draining = state.isDraining
        let body = JSONWriter.encode(
            .object([
                ("status", .string(draining ? "draining" : "ready")), ("generation", .number(snapshot.generation)),
                ("screens", .number(snapshot.screens.count)),
            ]))
        var response = Self.json(body, cacheControl: "no-store")
        if draining { response.status = .serviceUnavailable }
        return response
    }

    /// `GET /metrics` — Prometheus text exposition format 0.0.4.
    func metrics(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        _ = try QueryParameters(request.query, allowed: [])
        return HTTPResponse(
            headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store"],
            body: state.metrics.emitToBuffer())
    }

    static func json(_ body: [UInt8], cacheControl: String) -> HTTPResponse {
        HTTPResponse(headers: ["Content-Type": "application/json", "Cache-Control": cacheControl], body: body)
    }

    /// A cacheable answer: 304 when `If-None-Match` names the current ETag, else the bytes with
    /// their precomputed gzip form.
    static func cached(_ body: EncodedBody, _ request: HTTPRequest, cacheControl: String) -> HTTPResponse {
        var headers: HTTPHeaders = ["ETag": body.etag, "Cache-Control": cacheControl, "Vary": "Accept-Encoding"]
        if EntityTag.noneMatchFails(request.headers, current: body.etag) {
            return HTTPResponse(status: .notModified, headers: headers)
        }
        headers.add(name: "Content-Type", value: "application/json")
        return HTTPResponse(headers: headers, body: body.bytes, gzipBody: body.gzip)
    }
}
