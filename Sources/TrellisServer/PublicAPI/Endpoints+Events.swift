import Metrics
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisStore
import TrellisTargeting

/// `POST /v1/events`: apps' exposures and tracked events (docs/experiments.md). Answered `202`
/// only once the whole batch is durable — written in a transaction with whatever other batches
/// arrived meanwhile, one fsync for all — and refused whole, with every mistake by index and
/// path, otherwise. Keys as for OFREP (`ofrep.keys`); the user as for screens.
extension Endpoints {
    func registerEvents(in router: inout EndpointRouter) {
        guard let tracking else { return }
        router.add(.post, "/v1/events", replying: { request, _, context throws(Problem) in
            try acceptEvents(request, context, tracking)
        })
    }

    private func acceptEvents(_ request: HTTPRequest, _ context: HTTPRequestContext, _ tracking: Tracking) throws(Problem) -> HTTPReply {
        do throws(OpenFeatureFailure) {
            try state.openFeature.check(request, remoteAddress: ClientAddress.of(request, context, trusting: state.trustedProxies))
        } catch {
            throw Problem(error.status, error.details, headers: error.headers)
        }
        _ = try QueryParameters(request.query, allowed: [])
        let format = try Self.eventsFormat(request)
        let now = state.clock()
        let identity = try eventIdentity(request, now: now)
        let batch: EventBatch
        switch tracking.reader.read(request.body, format: format, identity: identity, now: now, snapshot: state.published.snapshot) {
        case .success(let read):
            batch = read.batch
            countRenderFailures(read.renderFailures)
        case .failure(.malformed(let diagnostic)):
            throw .invalid("the body is not \(format == .ndjson ? "one JSON event a line" : "JSON"); nothing was stored", [diagnostic], status: .badRequest)
        case .failure(.tooMany(let count)):
            throw Problem(
                .contentTooLarge,
                "a batch holds at most \(tracking.reader.limits.maxEvents) events (events.maxBatchEvents), this one \(count); send it in parts")
        case .failure(.invalid(let diagnostics)):
            throw Self.invalidEvents(diagnostics)
        }
        guard !(batch.events.isEmpty && batch.exposures.isEmpty) else { return .response(Self.accepted(0)) }
        return .pending { complete in
            tracking.ingest.submit(batch) { outcome in
                switch outcome {
                case .success(let count): complete(Self.accepted(count))
                case .failure(let failure): complete(Self.notTaken(failure).response(instance: request.path, requestID: context.requestID, route: nil))
                }
            }
        }
    }

    /// `application/json` (an array) or `application/x-ndjson` (one event a line; also `application/jsonl`).
    private static func eventsFormat(_ request: HTTPRequest) throws(Problem) -> EventBatchReader.Format {
        guard let type = request.headers["Content-Type"] else { return .jsonArray }
        switch AdminEndpoints.mediaTypeEssence(type) {
        case "application/json": return .jsonArray
        case "application/x-ndjson", "application/jsonl", "application/json-seq": return .ndjson
        default: throw Problem(.unsupportedMediaType, "send events as application/json (an array) or application/x-ndjson (one a line), not \(type)")
        }
    }

    /// With signing keys the user is the signed context's, for every event of the batch; without,
    /// each event names its own.
    private func eventIdentity(_ request: HTTPRequest, now: Double) throws(Problem) -> EventBatchReader.Identity {
        guard !state.contextReader.configuration.signingKeys.isEmpty else {
            if request.headers["X-Trellis-Context"] != nil {
                throw Problem(.badRequest, "X-Trellis-Context is refused: this server has no context.signingKeys to verify it with")
            }
            return .perEvent
        }
        let user = try state.contextReader.context(of: request, queryItems: [], now: now)
        guard let id = user.userID else {
            throw Problem(
                .badRequest,
                "this server takes identity only from a signed X-Trellis-Context (context.signingKeys): send the one your gateway signed for this user")
        }
        return .signed(user: id, country: user.country)
    }

    /// `trellis_render_failures_total{reason}`: what apps could not render, counted as it arrives
    /// (a screen's rate per revision is its health: `GET /admin/screens/{id}/revisions/{n}/health`).
    private func countRenderFailures(_ failures: [RenderFailure]) {
        for failure in failures {
            Counter(label: "trellis_render_failures_total", dimensions: [("reason", failure.reason.rawValue)], factory: state.metricsFactory).increment()
        }
    }

    /// Records the variants the screen assigned its user of experiments whose exposures the server
    /// records, and the revision served of a screen with a staged one: nothing to do, and no cost
    /// but two checks, while no experiment asks for it and nothing is staged.
    func recordExposures(_ resolving: ScreenRequest) {
        guard let tracking else { return }
        if !resolving.snapshot.serverExposedExperiments.isEmpty {
            tracking.recordAssignments(of: resolving.entry.experimentKeys, for: resolving.context, in: resolving.snapshot, now: state.clock())
        }
        if !resolving.snapshot.staged.isEmpty, resolving.snapshot.staged[resolving.id] != nil {
            tracking.recordRevision(resolving.entry, for: resolving.context, now: state.clock())
        }
        if !resolving.snapshot.guardedRollouts.isEmpty {
            tracking.recordRollouts(resolving.entry.rolloutKeys, for: resolving.context, in: resolving.snapshot, now: state.clock())
        }
    }

    /// The same for flags an OFREP answer evaluated.
    func recordExposures(of keys: some Sequence<String>, for user: UserContext, in snapshot: Snapshot) {
        guard let tracking else { return }
        if !snapshot.serverExposedExperiments.isEmpty { tracking.recordAssignments(of: keys, for: user, in: snapshot, now: state.clock()) }
        if !snapshot.guardedRollouts.isEmpty { tracking.recordRollouts(keys, for: user, in: snapshot, now: state.clock()) }
    }

    private static func accepted(_ count: Int) -> HTTPResponse {
        HTTPResponse(
            status: .accepted, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
            body: JSONWriter.encode(.object([("accepted", .number(count))])))
    }

    /// 422 with one entry per mistake: the event's index, its path and line, and why.
    private static func invalidEvents(_ diagnostics: [Diagnostic]) -> Problem {
        let errors: [JSONValue] = diagnostics.map { diagnostic in
            var members: [(String, JSONValue)] = []
            if case .index(let index)? = diagnostic.path.components.first { members.append(("index", .number(index))) }
            members.append(("path", .string(diagnostic.path.description)))
            if diagnostic.location != .unknown { members.append(("line", .number(diagnostic.location.line))) }
            members.append(("message", .string(diagnostic.message)))
            return .object(members)
        }
        let events = Set(diagnostics.compactMap { d -> Int? in if case .index(let i)? = d.path.components.first { i } else { nil } })
        return Problem(
            .unprocessableContent, "\(events.count) event\(events.count == 1 ? "" : "s") of the batch \(events.count == 1 ? "is" : "are") not valid; nothing was stored",
            extensions: [("errors", .array(errors))])
    }

    /// 503: not stored, so not acknowledged; the same batch may be sent again (ids make it safe).
    private static func notTaken(_ failure: EventIngest.IngestFailure) -> Problem {
        switch failure {
        case .overloaded(let pending):
            Problem(.serviceUnavailable, "\(pending) events are waiting to be stored; send this batch again shortly", headers: ["Retry-After": "1"])
        case .store(.unknownOutcome(let detail)):
            Problem(
                .serviceUnavailable,
                "the store's answer was lost (\(detail)): the events may or may not be stored; send the batch again — event ids keep a repeat from counting twice",
                extensions: [("outcome", .string("unknown"))], headers: ["Retry-After": "5"])
        case .store(let error):
            Problem(
                .serviceUnavailable, "the events were not stored (\(error)); send the batch again — event ids keep a repeat from counting twice",
                extensions: [("outcome", .string("not-made"))], headers: ["Retry-After": "5"])
        }
    }
}
