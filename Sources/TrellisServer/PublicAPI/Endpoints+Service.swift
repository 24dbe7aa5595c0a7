import Prometheus
import TrellisHTTP
import TrellisJSON
import TrellisRuntime

/// What the server says about itself: the index, liveness, readiness and metrics.
extension Endpoints {
    func registerService(in router: inout EndpointRouter) {
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
    }

    /// `GET /` — what this server offers, for people exploring with curl.
    static let index: [UInt8] = JSONWriter.encode(
        .object([
            ("name", .string("trellis")),
            (
                "endpoints",
                .object([
                    ("screens", .string("GET /v1/screens")),
                    ("screen", .string("GET /v1/screens/{id}?user=&platform=&appVersion=&schemaVersion=&attr.NAME=&pretty=1")),
                    ("layout", .string("GET /v1/screens/{id}/layout?width=390&height=844&scale=3&fontScale=1&safeTop=47&safeBottom=34&direction=ltr&web=0&user=…")),
                    ("routes", .string("GET /v1/routes")),
                    ("route", .string("GET /v1/routes/resolve?url=app://product/42&user=…&include=screen|layout")),
                    ("preview", .string("GET /preview/{id}?width=390&height=844&… (HTML), GET /preview/{id}/preview.svg?… (SVG), GET /preview?url=app://… (follows a link)")),
                    ("fonts", .string("GET /fonts/{file} (the font files the previews draw text in)")),
                    ("health", .string("GET /healthz")),
                    ("readiness", .string("GET /readyz")),
                    ("metrics", .string("GET /metrics")),
                    ("changes", .string("GET /v1/changes (text/event-stream; ?format=ofrep for OpenFeature providers)")),
                    ("openfeature", .string("POST /ofrep/v1/evaluate/flags/{key}, POST /ofrep/v1/evaluate/flags (OFREP 0.3; docs/openfeature.md)")),
                    ("admin", .string("/admin/rollouts, /admin/experiments, /admin/screens, /admin/routes, /admin/audit, /admin/explain (bearer token; docs/operations.md)")),
                ])
            ),
        ]), style: .pretty)

    /// `GET /readyz` — 200 while serving a loaded snapshot; 503 once draining for shutdown, or
    /// when the replica's view of a shared store is older than `storage.maxStalenessSeconds`.
    func readiness(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        _ = try QueryParameters(request.query, allowed: [])
        let snapshot = state.published.snapshot
        let draining = state.isDraining
        let store = state.storeHealth.current
        let staleness = state.storeHealth.stalenessSeconds
        let stale = state.maxStalenessSeconds.map { staleness > $0 } ?? false
        var storeMembers: [(String, JSONValue)] = [
            ("kind", .string(store.kind)), ("reachable", .bool(store.reachable)), ("sequence", .number(Double(store.appliedSequence))),
            ("stalenessSeconds", .number((staleness * 1000).rounded() / 1000)), ("startedFrom", .string(store.origin.rawValue)),
        ]
        // Schedules go by the database's clock; how far this one is from it, for whoever wonders why a log's times are off.
        if let ahead = store.clockAheadSeconds { storeMembers.append(("clockAheadSeconds", .number((ahead * 1000).rounded() / 1000))) }
        // Anyone may ask: what is wrong, never the database's address or its driver's words (the
        // server log has them).
        if store.problem != nil {
            let problem = store.reachable
                ? "a store change does not apply to this replica; the server log says which and why"
                : "the runtime store is unreachable; the server log says why"
            storeMembers.append(("problem", .string(problem)))
        }
        let body = JSONWriter.encode(
            .object([
                ("status", .string(draining ? "draining" : stale ? "stale" : "ready")), ("generation", .number(snapshot.generation)),
                ("screens", .number(snapshot.screens.count)), ("store", .object(storeMembers)),
            ]))
        var response = Self.json(body, cacheControl: "no-store")
        if draining || stale { response.status = .serviceUnavailable }
        return response
    }

    /// `GET /metrics` — Prometheus text exposition format 0.0.4.
    func metrics(_ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        _ = try QueryParameters(request.query, allowed: [])
        state.recordAnswerCacheSize()
        state.recordStoreHealth()
        state.changes.recordMetrics()
        return HTTPResponse(
            headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store"],
            body: state.metrics.emitToBuffer())
    }
}
