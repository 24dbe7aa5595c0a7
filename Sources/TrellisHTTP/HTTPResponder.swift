import Logging

/// What the server knows about a request beyond its bytes.
public struct HTTPRequestContext: Sendable {
    /// `X-Request-Id` from the client when it sent a sane one, else a generated id.
    public var requestID: String
    /// The peer address, e.g. `127.0.0.1:53122` or `[::1]:53122`.
    public var remoteAddress: String
    /// A logger carrying `request-id` metadata.
    public var logger: Logger

    public init(requestID: String, remoteAddress: String, logger: Logger) {
        self.requestID = requestID
        self.remoteAddress = remoteAddress
        self.logger = logger
    }
}

/// The one protocol between the HTTP server and an application: a request in, a response out.
///
/// `respond` runs synchronously on the connection's own queue (see DESIGN.md: no hop into other
/// executors in the hot path), so it must not block for long; it must never trap on any input.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest, context: HTTPRequestContext) -> HTTPResponse
}
