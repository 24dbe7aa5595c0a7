import TrellisHTTP
import TrellisRuntime

/// The change stream: server-sent events on the HTTP server's event loops (ChangeHub).
extension Endpoints {
    func registerChanges(in router: inout EndpointRouter) {
        router.add(.get, "/v1/changes", replying: { request, _, context throws(Problem) in try changes(request, context) })
    }

    /// `GET /v1/changes` — `text/event-stream`: `targeting`, `screens` and `routes` events as they
    /// are published (`?format=ofrep`: OpenFeature's `refetchEvaluation`), a heartbeat comment
    /// every `changes.heartbeatSeconds`, the missed events (or one `reset`) for a `Last-Event-ID`.
    /// 503 with `Retry-After` while `changes.maxStreams` are open; 429 for an address that holds
    /// `changes.maxStreamsPerClient` already.
    func changes(_ request: HTTPRequest, _ context: HTTPRequestContext) throws(Problem) -> HTTPReply {
        let query = try QueryParameters(request.query, allowed: ["format"])
        let rendition: ChangeHub.Rendition
        switch query["format"] {
        case nil, "trellis": rendition = .trellis
        case "ofrep": rendition = .openFeature
        case let other?: throw Problem(.badRequest, "format=\(other) is not a change stream format; use trellis (the default) or ofrep")
        }
        let head = HTTPResponse(
            headers: [
                "Content-Type": "text/event-stream", "Cache-Control": "no-store",
                // nginx and similar proxies would otherwise hold events back in their buffers.
                "X-Accel-Buffering": "no",
            ],
            body: Self.streamPrelude)
        let after = ChangeHub.position(lastEventID: request.headers["Last-Event-ID"])
        let client = AuthenticationFailureLimiter.clientKey(of: ClientAddress.of(request, context, trusting: state.trustedProxies))
        switch state.changes.channel.open(head, rendition: rendition.rawValue, resumingAfter: after, client: client) {
        case .success(let reply): return reply
        case .failure(.full):
            state.changes.streamRefused()
            throw Problem(
                .serviceUnavailable, "this server has \(state.changes.channel.limits.maxStreams) change streams open, its limit; try again later",
                headers: ["Retry-After": "5"])
        case .failure(.clientAtLimit):
            state.changes.streamRefused()
            throw Problem(
                .tooManyRequests,
                "this address holds \(state.changes.channel.limits.maxStreamsPerClient) change streams already (changes.maxStreamsPerClient); close one first",
                headers: ["Retry-After": "5"])
        }
    }

    /// Sent first on every stream: a comment (so a client sees the stream is live) and how long
    /// an EventSource should wait before reconnecting.
    static let streamPrelude = Array(": trellis change stream\nretry: 2000\n\n".utf8)
}
