/// The life of one connection as timers see it, with no I/O: the connection reports what
/// happened, the machine keeps the deadlines and answers with what to do. Generic over the
/// clock so tests drive it with a manual one (after Hummingbird's
/// `HTTPConnectionStateHandler.StateMachine<C: Clock>`).
///
/// Phases: `idle` (waiting for the first byte of a request; a fresh connection or a kept-alive
/// one) → `head` (RFC 9112 §2.2, bounded by `headTimeout`) → `body` (bounded by `bodyTimeout`) →
/// `responding` (the responder runs; no timer) → optionally `awaitingReply` (the responder deferred
/// its answer to another queue; no timer, and no further request is parsed) → back to `idle`, or
/// `streaming` (a long-lived answer: no timer, no further request) or
/// `lingering` when the server closes (write side shut, input discarded until EOF or
/// `lingerTimeout`). A blocked write has its own deadline (`sendTimeout`); draining has one for
/// the whole connection (`drainTimeout`).
struct ConnectionStateMachine<C: Clock>: Sendable where C.Duration == Duration {
    struct Timeouts: Sendable {
        var head: Duration
        var body: Duration
        var keepAlive: Duration
        var send: Duration
        var linger: Duration
        var drain: Duration
    }

    enum Phase: Sendable, Equatable {
        case idle(fresh: Bool)
        case head
        case body
        case responding
        case awaitingReply
        case streaming
        case lingering
        case closed
    }

    enum Action: Sendable, Equatable {
        case none
        /// Close now, without a response.
        case close
        /// Answer 408 Request Timeout, then close (linger).
        case timeout
        /// Shut the write side once the output is flushed, then linger.
        case lingerClose
    }

    let timeouts: Timeouts
    private(set) var phase: Phase = .idle(fresh: true)
    private(set) var deadline: C.Instant?
    private(set) var writeDeadline: C.Instant?
    private(set) var drainDeadline: C.Instant?

    var isDraining: Bool { drainDeadline != nil }

    /// Whether the connection may parse and answer another request: not while a deferred reply is
    /// pending (pipelined responses go out in request order, RFC 9112 §9.3.2), nor once the server
    /// has decided to close.
    var acceptsRequests: Bool {
        switch phase {
        case .idle, .head, .body, .responding: return true
        case .awaitingReply, .streaming, .lingering, .closed: return false
        }
    }

    init(now: C.Instant, timeouts: Timeouts) {
        self.timeouts = timeouts
        deadline = now.advanced(by: timeouts.head)
    }

    /// Request bytes arrived: the first byte of a request starts the head timer.
    mutating func bytesReceived(now: C.Instant) {
        guard case .idle = phase else { return }
        phase = .head
        deadline = now.advanced(by: timeouts.head)
    }

    /// A complete head was parsed.
    mutating func headReceived(now: C.Instant, expectsBody: Bool) {
        phase = expectsBody ? .body : .responding
        deadline = expectsBody ? now.advanced(by: timeouts.body) : nil
    }

    /// The body is complete; the responder runs.
    mutating func bodyReceived() {
        phase = .responding
        deadline = nil
    }

    /// The responder deferred its answer: the connection waits for it with no timer of its own
    /// (the work may take as long as it takes; only `drainTimeout` and a blocked write still apply).
    mutating func replyDeferred() {
        guard phase == .responding else { return }
        phase = .awaitingReply
        deadline = nil
    }

    /// A stream's head was queued: events follow until the stream ends, with no timer but a
    /// blocked write's (`sendTimeout`) and the drain's.
    mutating func streamStarted() {
        phase = .streaming
        deadline = nil
    }

    /// A response was queued (at once, or when a deferred reply arrived). Keeps the connection
    /// when `keepAlive` and not draining.
    mutating func responseQueued(now: C.Instant, keepAlive: Bool) -> Action {
        if keepAlive && !isDraining {
            phase = .idle(fresh: false)
            deadline = now.advanced(by: timeouts.keepAlive)
            return .none
        }
        return startLingering(now: now)
    }

    /// The server answered an error (parse error, timeout) and will close.
    mutating func startLingering(now: C.Instant) -> Action {
        phase = .lingering
        deadline = now.advanced(by: timeouts.linger)
        return .lingerClose
    }

    /// A write could not complete (EAGAIN), or made progress but is still pending.
    mutating func writePending(now: C.Instant, progressed: Bool) {
        if writeDeadline == nil || progressed { writeDeadline = now.advanced(by: timeouts.send) }
    }

    /// All queued output was written.
    mutating func writeCompleted() { writeDeadline = nil }

    /// The server began a graceful shutdown: an idle connection closes at once; others finish
    /// the request in hand (then close) within `drainTimeout`.
    mutating func beginDrain(now: C.Instant) -> Action {
        if drainDeadline == nil { drainDeadline = now.advanced(by: timeouts.drain) }
        if case .idle = phase, writeDeadline == nil { return close() }
        return .none
    }

    /// The connection was closed (by either side).
    mutating func close() -> Action {
        phase = .closed
        deadline = nil
        writeDeadline = nil
        return .close
    }

    /// Checks every deadline against `now`.
    mutating func tick(now: C.Instant) -> Action {
        if phase == .closed { return .none }
        if let d = drainDeadline, now >= d { return close() }
        if let w = writeDeadline, now >= w { return close() }
        guard let d = deadline, now >= d else { return .none }
        switch phase {
        case .idle, .lingering, .closed:
            return close()
        case .head, .body:
            _ = startLingering(now: now)
            return .timeout
        case .responding, .awaitingReply, .streaming:
            return .none
        }
    }
}
