import Dispatch
import Logging

/// What the server knows about a request beyond its bytes.
public struct HTTPRequestContext: Sendable {
    /// `X-Request-Id` from the client when it sent a sane one, else a generated id.
    public var requestID: String
    /// The peer address, e.g. `127.0.0.1:53122` or `[::1]:53122`.
    public var remoteAddress: String
    private let serverLogger: Logger

    /// A logger carrying `request-id` metadata. Made when asked, not for every request: a log
    /// handler may format all its metadata whenever one key is set (swift-log's StreamLogHandler does).
    public var logger: Logger {
        var logger = serverLogger
        logger[metadataKey: "request-id"] = .string(requestID)
        return logger
    }

    /// - Parameter logger: the server's logger; ``logger`` adds the request's id to it.
    public init(requestID: String, remoteAddress: String, logger: Logger) {
        self.requestID = requestID
        self.remoteAddress = remoteAddress
        self.serverLogger = logger
    }
}

/// What a responder gives back for one request.
public enum HTTPReply: Sendable {
    /// The response, sent at once from the connection's event loop.
    case response(HTTPResponse)
    /// The server runs `work` on `queue` and sends what it returns; meanwhile the connection reads and
    /// answers no further request (pipelined responses stay in order) and its loop keeps serving every other connection.
    ///
    /// For work that must not hold up an event loop (a SQLite write). The response is written by
    /// the connection's own loop, through the same path as an immediate one (HEAD, gzip, 304,
    /// keep-alive, access log, metrics; the duration includes `work`). While it runs the
    /// connection has no head or keep-alive timer; a graceful shutdown waits for it up to
    /// `drainTimeout`. When the connection is gone by the time `work` returns (the client reset
    /// it, the drain deadline closed it, the server stopped), the response is dropped.
    case deferred(on: DispatchQueue, work: @Sendable () -> HTTPResponse)
    /// As ``deferred(on:work:)``, but nothing waits on a thread for the answer: `start` is called
    /// at once and hands ``HTTPReplyCompletion`` to whoever answers later (a group commit that
    /// acknowledges many requests with one fsync). Calling it more than once sends only the first.
    case pending(start: @Sendable (HTTPReplyCompletion) -> Void)
    /// A long-lived answer the server writes events to as they are published
    /// (``HTTPEventChannel/open(_:rendition:resumingAfter:)`` makes it): the head at once, then the
    /// stream's first bytes, then every event, on the connection's own loop, until the client
    /// closes, the server drains or the client reads too slowly. The connection answers no further
    /// request. A `HEAD` gets the head alone.
    case stream(HTTPStream)
}

/// How a ``HTTPReply/pending(start:)`` reply is given: once, from any thread.
public struct HTTPReplyCompletion: Sendable {
    private let deliver: @Sendable (HTTPResponse) -> Void

    /// A completion that hands the response to `deliver` (the server's posts it to the connection's loop).
    public init(_ deliver: @escaping @Sendable (HTTPResponse) -> Void) { self.deliver = deliver }

    /// Sends `response` to the request, as if the responder had returned it.
    public func callAsFunction(_ response: HTTPResponse) { deliver(response) }

    /// The completion that sends `transform(response)`, for a layer that adds to every response.
    public func map(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HTTPReplyCompletion {
        let deliver = self.deliver
        return HTTPReplyCompletion { deliver(transform($0)) }
    }
}

/// The one protocol between the HTTP server and an application: a request in, a reply out.
///
/// `respond` runs synchronously on the connection's event-loop thread (see DESIGN.md: no hop into
/// other executors in the hot path), so it must not block for long — slow work returns
/// `.deferred` instead; it must never trap on any input.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest, context: HTTPRequestContext) -> HTTPReply
}
