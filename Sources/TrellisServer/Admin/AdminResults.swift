import Dispatch
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisStore
import TrellisTargeting

/// What experiments did: `GET /admin/experiments/{key}/results`, `POST /admin/analysis` (statistics
/// from a warehouse), and `GET /admin/events/export` (the raw events, NDJSON, for a warehouse).
extension AdminEndpoints {
    /// Most events one export page holds.
    static let maximumExportLimit = 100_000

    func registerResults(in routes: inout AuthorizingRouter, tracking: Tracking) {
        let queue = tracking.queries
        routes.add(.get, "/admin/experiments/{key}/results", query: ["dimension", "asOf"], replying: { request, parameters, context, _ throws(Problem) in
            let key = parameters["key"] ?? ""
            let query = try QueryParameters(request.query, allowed: ["dimension", "asOf"])
            let dimension = try Self.dimension(query["dimension"])
            let asOf = try Self.asOf(query["asOf"], now: state.clock())
            let snapshot = state.published.snapshot
            guard snapshot.targeting.experiments[key] != nil else { throw Self.notFound("experiment", key, known: snapshot.targeting.experiments.keys) }
            return .deferred(on: queue, for: request, context) { () throws(Problem) in
                do throws(Refusal) {
                    let results = try ExperimentResults.compute(key, in: snapshot, store: tracking.store, asOf: asOf, dimension: dimension)
                    return Self.resource(results)
                } catch {
                    throw Problem(error)
                }
            }
        })
        routes.add(.get, "/admin/screens/{id}/revisions/{revision}/health", replying: { request, parameters, context, _ throws(Problem) in
            let id = parameters["id"] ?? ""
            guard let revision = Int(parameters["revision"] ?? ""), revision > 0 else {
                throw Problem(.badRequest, "a revision is a positive integer, not \"\((parameters["revision"] ?? "").prefix(40))\"")
            }
            let snapshot = state.published.snapshot
            let now = state.clock()
            return .deferred(on: queue, for: request, context) { () throws(Problem) in
                do throws(Refusal) {
                    return Self.resource(try ScreenHealth.compute(screen: id, revision: revision, in: snapshot, store: tracking.store, now: now))
                } catch {
                    throw Problem(error)
                }
            }
        })
        routes.add(.post, "/admin/analysis", role: .read) { request, _, _, _ throws(Problem) in
            try Self.checkMediaType(request)
            do throws(Refusal) {
                return Self.resource(try AnalysisRequest(body: request.body).result)
            } catch {
                throw Problem(error)
            }
        }
        routes.add(.get, "/admin/events/export", query: ["after", "limit"], replying: { request, _, context, _ throws(Problem) in
            let query = try QueryParameters(request.query, allowed: ["after", "limit"])
            let cursor = try query["after"].map(Self.cursor)
            let pageSize = try Self.pageSize(query["limit"])
            return .deferred(on: queue, for: request, context) { () throws(Problem) in
                let events: [TrackedEvent]
                do throws(StoreError) { events = try tracking.store.events(after: cursor, limit: pageSize) } catch {
                    throw Problem(.serviceUnavailable, "the event store could not be read: \(error)", headers: ["Retry-After": "5"])
                }
                return Self.export(events, limit: pageSize)
            }
        })
        routes.add(.get, "/admin/experiments/{key}/exposures", query: ["after", "limit"], replying: { request, parameters, context, _ throws(Problem) in
            let key = parameters["key"] ?? ""
            let query = try QueryParameters(request.query, allowed: ["after", "limit"])
            let cursor = try query["after"].map(Self.exposureCursor)
            let pageSize = try Self.pageSize(query["limit"])
            let snapshot = state.published.snapshot
            guard snapshot.targeting.experiments[key] != nil else { throw Self.notFound("experiment", key, known: snapshot.targeting.experiments.keys) }
            return .deferred(on: queue, for: request, context) { () throws(Problem) in
                let exposures: [Exposure]
                do throws(StoreError) { exposures = try tracking.store.exposures(of: .experiment(key), after: cursor, limit: pageSize) } catch {
                    throw Problem(.serviceUnavailable, "the event store could not be read: \(error)", headers: ["Retry-After": "5"])
                }
                return Self.exportExposures(exposures, limit: pageSize)
            }
        })
    }

    /// One subject's exposures as NDJSON, in (user, variant) order; `Next-After` on a full page.
    private static func exportExposures(_ exposures: [Exposure], limit: Int) -> HTTPResponse {
        let lines = exposures.map { exposure in
            let dimensions = exposure.dimensions
            var members: [(String, JSONValue)] = [
                ("user", .string(exposure.user)), ("variant", .string(exposure.variant)),
                ("firstExposure", .string(RFC3339.string(fromSeconds: exposure.at))), ("source", .string(exposure.source.rawValue)),
            ]
            for (name, value) in [("platform", dimensions.platform), ("appVersion", dimensions.appVersion), ("country", dimensions.country)] {
                if let value { members.append((name, .string(value))) }
            }
            return JSONValue.object(members)
        }
        let next = exposures.count == limit ? exposures.last.map { "\($0.variant)~\($0.user)" } : nil
        return page(lines, next: next)
    }

    /// NDJSON, one value a line; `Next-After: next` when more may follow.
    private static func page(_ lines: [JSONValue], next: String?) -> HTTPResponse {
        var body: [UInt8] = []
        for line in lines {
            body += JSONWriter.encode(line)
            body.append(0x0A)
        }
        var headers: HTTPHeaders = ["Content-Type": "application/x-ndjson", "Cache-Control": "no-store"]
        if let next { headers.add(name: "Next-After", value: next) }
        return HTTPResponse(headers: headers, body: body)
    }

    /// `<variant>~<user>`: a variant is an identifier, so the first `~` splits them.
    private static func exposureCursor(_ text: String) throws(Problem) -> ExposureCursor {
        guard let split = text.firstIndex(of: "~") else {
            throw Problem(.badRequest, "after: expected the Next-After of the previous page, found \"\(text.prefix(80))\"")
        }
        return ExposureCursor(user: String(text[text.index(after: split)...]), variant: String(text[..<split]))
    }

    /// `limit`: 1 to ``maximumExportLimit``, 10,000 when absent.
    private static func pageSize(_ text: String?) throws(Problem) -> Int {
        guard let text else { return 10_000 }
        guard let n = Int(text), (1...Self.maximumExportLimit).contains(n) else {
            throw Problem(.badRequest, "limit: expected an integer from 1 to \(Self.maximumExportLimit), found \"\(text.prefix(80))\"")
        }
        return n
    }

    /// NDJSON, one event a line; `Next-After` names where the next page starts when this one is full.
    private static func export(_ events: [TrackedEvent], limit: Int) -> HTTPResponse {
        let lines = events.map { event in
            var members: [(String, JSONValue)] = [
                ("id", .string(event.id)), ("user", .string(event.user)), ("name", .string(event.name)),
                ("timestamp", .string(RFC3339.string(fromSeconds: event.at))), ("received", .string(RFC3339.string(fromSeconds: event.receivedAt))),
            ]
            if let value = event.value { members.insert(("value", .number(value)), at: 3) }
            return JSONValue.object(members)
        }
        let next = events.count == limit ? events.last.map { cursorText(EventCursor(receivedAt: $0.receivedAt, id: $0.id)) } : nil
        return page(lines, next: next)
    }

    /// `<receivedAt seconds>~<id>`, percent-free (ids have no control characters; `~` splits at its first).
    static func cursorText(_ cursor: EventCursor) -> String { "\(cursor.receivedAt)~\(cursor.id)" }

    private static func cursor(_ text: String) throws(Problem) -> EventCursor {
        guard let split = text.firstIndex(of: "~"), let at = Double(text[..<split]), at.isFinite else {
            throw Problem(.badRequest, "after: expected the Next-After of the previous page, found \"\(text.prefix(80))\"")
        }
        return EventCursor(receivedAt: at, id: String(text[text.index(after: split)...]))
    }

    private static func dimension(_ text: String?) throws(Problem) -> MetricQuery.Dimension? {
        guard let text else { return nil }
        guard let dimension = MetricQuery.Dimension(rawValue: text) else {
            throw Problem(.badRequest, "dimension: expected platform, appVersion or country, found \"\(text.prefix(80))\"")
        }
        return dimension
    }

    private static func asOf(_ text: String?, now: Double) throws(Problem) -> Double {
        guard let text else { return now }
        guard let at = RFC3339.seconds(from: text) else {
            throw Problem(.badRequest, "asOf: expected a time such as 2026-12-02T15:00:00Z (RFC 3339), found \"\(text.prefix(80))\"")
        }
        return min(at, now)
    }
}
