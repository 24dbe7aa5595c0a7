#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Logging
import CTrellisLinux

/// One client connection. It belongs to one `EventLoop` and is used only on that loop's thread.
///
/// Reads feed the parser; each complete request is answered synchronously by the responder and
/// its response appended to `outbound`; everything answered by one read goes out in one `sendmsg`
/// (pipelined responses in order, RFC 9112 §9.3.2). A partial write waits for EPOLLOUT and stops
/// reading until the output drains (backpressure). A deferred reply parks the connection: no
/// further request is parsed and nothing is read until the loop hands it the response
/// (`replyArrived`); requests already received wait in `inbound` and are answered after it.
/// A connection whose first octets are the HTTP/2 preface speaks HTTP/2 from then on
/// (Connection+HTTP2.swift).
final class Connection {
    let fd: Int32
    /// Tells this connection apart from earlier and later ones on the same descriptor number: a
    /// deferred reply carries both, so one that outlives its connection never reaches a newcomer.
    let serial: UInt64
    let remote: String
    // Only the loop's thread touches a connection, so Swift's dynamic exclusivity checks on its
    // stored properties (about 4.6 K instructions of a cached answer's 52 K) guard nothing.
    @exclusivity(unchecked) private var parser: HTTPParser
    @exclusivity(unchecked) var machine: ConnectionStateMachine<LoopClock>
    @exclusivity(unchecked) var inbound: [UInt8] = []
    @exclusivity(unchecked) var outbound = OutboundQueue()
    @exclusivity(unchecked) private var head: HTTPRequestHead?
    @exclusivity(unchecked) private var body: [UInt8] = []
    @exclusivity(unchecked) var requests = 0
    @exclusivity(unchecked) private var headStarted: LoopClock.Instant
    @exclusivity(unchecked) var shutWriteAfterFlush = false
    /// The epoll events the descriptor is registered for (see `updateInterest`).
    @exclusivity(unchecked) private var interest = TRELLIS_EPOLLIN
    /// The request whose reply is being worked on on another queue, while one is.
    @exclusivity(unchecked) private var awaiting: RequestInFlight?
    /// The stream this connection serves, while it serves one (HTTPEventChannel.swift).
    @exclusivity(unchecked) private var stream: StreamState?
    /// Who holds the stream this connection serves; nil when it serves none.
    var streamClient: String? { stream?.client ?? http2?.eventStreams.values.first?.client }
    /// Pause parsing pipelined requests while this much output waits.
    private static let outputHighWater = 256 * 1024
    /// Links in the loop's lists of idle connections (see `EventLoop.reclaimIdleConnection`).
    @exclusivity(unchecked) var idle = IdleLink()
    /// The TLS session of a connection accepted on a TLS listener (Connection+TLS.swift); nil for
    /// plain HTTP, which never looks further than this test.
    @exclusivity(unchecked) var tls: TLSSession?
    /// The HTTP/2 side of a connection that speaks it (Connection+HTTP2.swift); nil for HTTP/1.1.
    @exclusivity(unchecked) var http2: HTTP2State?
    /// OpenSSL must write before it can go on (a handshake flight met a full socket buffer).
    @exclusivity(unchecked) var tlsWaitsForWritable = false

    var hasPendingOutput: Bool { !outbound.isEmpty || tlsWaitsForWritable }
    @exclusivity(unchecked) private(set) var isClosed = false

    init(fd: Int32, serial: UInt64, remote: String, tls: TLSSession?, loop: EventLoop) {
        self.fd = fd
        self.serial = serial
        self.remote = remote
        self.tls = tls
        parser = HTTPParser(limits: loop.core.parserLimits)
        machine = ConnectionStateMachine(now: loop.now, timeouts: loop.core.timeouts)
        headStarted = loop.now
    }

    // MARK: - Reading

    func onReadable(_ loop: EventLoop) {
        let n: Int
        if tls == nil {
            n = read(fd, loop.scratch.baseAddress, loop.scratch.count)
            if n < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
                return close(loop)
            }
            if n == 0 { return close(loop) }  // peer closed; anything complete was answered already
        } else {
            n = readDecrypted(loop)
            if n <= 0 { return }  // handshaking, waiting, answered or closed
        }
        let fresh = UnsafeBufferPointer(start: loop.scratch.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n)
        if http2 != nil { return receiveHTTP2(fresh, loop) }
        if opensHTTP2(fresh, loop) {
            startHTTP2(loop)
            return receiveHTTP2(fresh, loop)
        }
        // Discarding input: until EOF while lingering; a stream's client has nothing more to say.
        if machine.phase == .lingering || machine.phase == .streaming { return }
        if case .idle = machine.phase {
            machine.bytesReceived(now: loop.now)
            headStarted = loop.now
            loop.unlinkIdle(self)  // busy now: never reclaimed in the middle of a request
        }
        if inbound.isEmpty {
            let consumed = process(fresh, loop)
            if consumed < n { inbound.append(contentsOf: fresh[consumed...]) }
        } else {
            inbound.append(contentsOf: fresh)
            processInbound(loop)
        }
        flush(loop)
        pump(loop)
    }

    /// Answers requests still buffered (held back by backpressure) while the output keeps draining.
    private func pump(_ loop: EventLoop) {
        while !hasPendingOutput && !inbound.isEmpty && !isClosed && machine.acceptsRequests {
            let before = inbound.count
            processInbound(loop)
            flush(loop)
            if inbound.count == before { return }
        }
    }

    private func processInbound(_ loop: EventLoop) {
        let data = inbound
        let consumed = data.withUnsafeBufferPointer { process($0, loop) }
        // Released when empty: an idle connection holds no input buffer.
        if consumed == inbound.count { inbound = [] } else { inbound.removeFirst(consumed) }
    }

    /// Runs the parser over `bytes`, answering every complete request.
    /// - Returns: how many bytes were consumed; the rest waits for more input or for the output to drain.
    private func process(_ bytes: UnsafeBufferPointer<UInt8>, _ loop: EventLoop) -> Int {
        var offset = 0
        while machine.acceptsRequests && !isClosed && outbound.pending < Self.outputHighWater {
            let (event, consumed) = parser.next(UnsafeBufferPointer(rebasing: bytes[offset...]))
            offset += consumed
            switch event {
            case .needMoreData:
                if offset < bytes.count, case .idle = machine.phase { machine.bytesReceived(now: loop.now); headStarted = loop.now }
                return offset
            case .head(let h):
                if case .idle = machine.phase { headStarted = loop.now }  // a pipelined head
                machine.headReceived(now: loop.now, expectsBody: h.framing != .none)
                head = h
                body = []
                // RFC 9110 §10.1.1: send 100 only when the body is wanted and not already here.
                if h.expectsContinue && offset == bytes.count {
                    takeOutputBuffer(loop)
                    outbound.append(ResponseWriter.continueLine)
                }
            case .body(let piece):
                body.append(contentsOf: piece)
            case .end:
                machine.bodyReceived()
                respond(loop)
            case .error(let error):
                answerError(error.status, reason: error.reason, loop)
                return bytes.count
            }
        }
        return machine.phase == .lingering ? bytes.count : offset
    }

    // MARK: - Responding

    private func respond(_ loop: EventLoop) {
        guard let head = head.take() else { return }
        requests += 1
        let core = loop.core!
        let request = HTTPRequest(
            method: head.method, target: head.target, path: head.path, query: head.query,
            version: head.version, headers: head.headers, body: body)
        body = []
        let inFlight = RequestInFlight(
            request, keepAliveRequested: head.keepAlive, requestID: requestID(for: request, loop), started: headStarted,
            logsAgent: loop.accessLog?.format.needsAgent == true)
        let context = HTTPRequestContext(requestID: inFlight.requestID, remoteAddress: remote, logger: core.logger)
        switch core.responder.respond(to: request, context: context) {
        case .response(let response):
            enqueue(response, answering: inFlight, loop)
        case .deferred(let queue, let work):
            awaiting = inFlight
            machine.replyDeferred()
            loop.runDeferred(work, on: queue, replyTo: ReplyTicket(fd: fd, serial: serial, requestID: inFlight.requestID))
        case .pending(let start):
            awaiting = inFlight
            machine.replyDeferred()
            loop.startPending(start, replyTo: ReplyTicket(fd: fd, serial: serial, requestID: inFlight.requestID))
        case .stream(let stream):
            startStream(stream, answering: inFlight, loop)
        }
    }

    private func requestID(for request: HTTPRequest, _ loop: EventLoop) -> String {
        request.headers["X-Request-Id"].flatMap {
            RequestIDGenerator.isSane($0, maxLength: loop.core.configuration.maxRequestIDLength) ? $0 : nil
        } ?? loop.requestIDs.next()
    }

    /// The deferred reply to the request in `awaiting`, handed over by the loop: it goes out as if
    /// the responder had returned it, then the pipelined requests that waited behind it are answered.
    func replyArrived(_ response: HTTPResponse, _ loop: EventLoop) {
        guard let inFlight = awaiting, !isClosed else { return }
        awaiting = nil
        enqueue(response, answering: inFlight, loop)
        flush(loop)
        pump(loop)
    }

    /// Appends the response to `outbound`, logs and counts it, and moves the machine on: the one
    /// path for immediate and deferred responses alike.
    private func enqueue(_ response: HTTPResponse, answering request: RequestInFlight, _ loop: EventLoop) {
        let core = loop.core!
        // Decided now rather than when the request arrived, so a drain that began while a
        // deferred reply was worked on closes the connection too.
        let keepAlive = request.keepAliveRequested && !core.isDraining
            && requests < (core.configuration.maxRequestsPerConnection ?? .max)
        takeOutputBuffer(loop)
        let outcome = ResponseWriter.write(
            response, facts: request.facts, keepAlive: keepAlive, requestID: request.requestID,
            date: loop.date.line, options: core.writerOptions, into: &outbound)
        finish(outcome, record(of: request, outcome, route: response.route), started: request.started, loop)
        if machine.responseQueued(now: .now, keepAlive: outcome.keepAlive) == .lingerClose {
            shutWriteAfterFlush = true
        }
    }

    func record(of inFlight: RequestInFlight, _ outcome: ResponseWriter.Outcome, route: String?) -> RequestRecord {
        let request = inFlight.request
        let headers = inFlight.logsAgent ? request?.headers : nil
        return RequestRecord(
            method: request?.method.rawValue ?? "-", target: request?.target ?? "-", path: request?.path ?? "-",
            version: inFlight.version, status: outcome.status, bodyBytes: outcome.bodyBytes, durationNanos: 0,
            requestID: inFlight.requestID, remote: remote, route: route,
            referer: headers?["Referer"], userAgent: headers?["User-Agent"])
    }

    // MARK: - Streams

    /// Writes a stream's head and first bytes (and the events a resuming client missed), and
    /// joins the loop's streams of its channel. The access log and metrics count the request
    /// now, with the time to its head. A `HEAD`, or a stream asked for while the server drains,
    /// gets the head and its first bytes as an ordinary answer.
    private func startStream(_ stream: HTTPStream, answering request: RequestInFlight, _ loop: EventLoop) {
        if request.facts.isHead || loop.core.isDraining {
            stream.channel.streamClosed(dropped: false, client: stream.client)
            return enqueue(stream.head, answering: request, loop)
        }
        let chunked = !request.facts.isHTTP10
        takeOutputBuffer(loop)
        let outcome = ResponseWriter.writeStreamHead(
            stream.head, chunked: chunked, requestID: request.requestID, date: loop.date.line, into: &outbound.buffer)
        finish(outcome, record(of: request, outcome, route: stream.head.route), started: request.started, loop)
        machine.streamStarted()
        let joined = loop.joinStream(fd, stream)
        self.stream = StreamState(
            channel: stream.channel, client: stream.client, rendition: stream.rendition, position: joined.position, chunked: chunked)
        outbound.buffer.appendFramed(stream.head.body, chunked: chunked)
        outbound.buffer.appendFramed(joined.catchUp, chunked: chunked)
    }

    /// An event for the stream: written unless the stream has it already (through the history);
    /// the event's reset frame is what the stream gets instead if it reads too slowly.
    func deliver(_ event: HTTPEventChannel.Event, of channel: HTTPEventChannel, _ loop: EventLoop) {
        if http2 != nil { return deliverHTTP2(event, of: channel, loop) }
        guard let current = stream, event.position > current.position else { return }
        stream!.position = event.position
        write(toStream: event.renditions[current.rendition], resets: event.resets, loop)
    }

    /// The heartbeat comment, on the same terms as an event.
    func heartbeat(_ frame: [UInt8], resets: [[UInt8]], of channel: HTTPEventChannel, _ loop: EventLoop) {
        if http2 != nil { return heartbeatHTTP2(frame, resets: resets, of: channel, loop) }
        write(toStream: frame, resets: resets, loop)
    }

    /// Appends `bytes` and sends what the socket takes; a stream whose unsent bytes would pass
    /// the channel's bound is ended with its reset frame instead, so one slow reader holds up
    /// nobody and costs a bounded buffer.
    private func write(toStream bytes: [UInt8], resets: [[UInt8]], _ loop: EventLoop) {
        guard let current = stream, !bytes.isEmpty else { return }
        if outbound.pending + bytes.count > current.channel.limits.maxPendingBytes {
            return endStream(loop, reset: resets[current.rendition])
        }
        takeOutputBuffer(loop)
        outbound.buffer.appendFramed(bytes, chunked: current.chunked)
        flush(loop)
    }

    /// Ends the stream cleanly — the reset frame when it is dropped, the last chunk — then closes
    /// the connection once that is sent (lingering, as after any last response).
    func endStream(_ loop: EventLoop, reset: [UInt8]? = nil) {
        guard let current = leaveStream(loop, dropped: reset != nil) else { return }
        takeOutputBuffer(loop)
        if let reset { outbound.buffer.appendFramed(reset, chunked: current.chunked) }
        if current.chunked { outbound.buffer.append(literal: "0\r\n\r\n") }
        _ = machine.startLingering(now: loop.now)
        shutWriteAfterFlush = true
        flush(loop)
    }

    /// Stops serving the stream, if one is served: the loop forgets it and the channel counts it closed.
    @discardableResult
    private func leaveStream(_ loop: EventLoop, dropped: Bool) -> StreamState? {
        guard let current = stream else { return nil }
        stream = nil
        loop.leaveStream(fd, current.channel)
        current.channel.streamClosed(dropped: dropped, client: current.client)
        return current
    }

    /// Answers a request the server refuses itself (parse error, timeout), then closes.
    func answerError(_ status: HTTPStatus, reason: String, _ loop: EventLoop) {
        let requestID = loop.requestIDs.next()
        takeOutputBuffer(loop)
        let outcome = ResponseWriter.writeError(status, requestID: requestID, date: loop.date.line, into: &outbound.buffer)
        loop.core.logger.debug("refused request: \(reason)", metadata: ["remote": .string(remote), "status": .stringConvertible(status.code)])
        finish(outcome, RequestRecord(
            method: head?.method.rawValue, target: head?.target, path: head?.path, version: head?.version,
            status: outcome.status, bodyBytes: outcome.bodyBytes, durationNanos: 0, requestID: requestID,
            remote: remote, route: nil), started: headStarted, loop)
        _ = machine.startLingering(now: loop.now)
        shutWriteAfterFlush = true
    }

    /// Counts the request and hands its line to the loop's access log; `record` gets its duration here.
    func finish(
        _ outcome: ResponseWriter.Outcome, _ record: consuming RequestRecord, started: LoopClock.Instant, _ loop: EventLoop
    ) {
        let nanos = LoopClock.Instant.now.nanoseconds - started.nanoseconds
        loop.metrics.record(route: record.route, status: outcome.status, durationNanos: nanos)
        if let log = loop.accessLog {
            record.durationNanos = nanos
            log.append(record, epochSeconds: loop.epochSeconds, now: loop.now)
        }
    }

    /// Borrows one of the loop's output buffers when this connection has none: an idle connection
    /// holds no buffer (see `flush`), as nginx frees a keep-alive connection's buffers.
    func takeOutputBuffer(_ loop: EventLoop) {
        if outbound.buffer.capacity == 0 { outbound.buffer = loop.takeOutputBuffer() }
    }

    // MARK: - Writing

    func onWritable(_ loop: EventLoop) {
        if tlsWaitsForWritable {
            tlsWaitsForWritable = false
            onReadable(loop)  // the handshake (or read) that waited goes on
            if isClosed { return }
        }
        flush(loop)
        // Output drained: answer pipelined requests that waited for it.
        pump(loop)
    }

    /// Writes as much pending output as the socket takes (EAGAIN and partial writes survive).
    func flush(_ loop: EventLoop) {
        let sent = tls == nil ? outbound.send(to: fd) : outbound.send(through: &tls!, staging: loop.tlsStaging)
        switch sent {
        case .done: break
        case .wouldBlock(let progressed):
            machine.writePending(now: loop.now, progressed: progressed)
            updateInterest(loop)
            return
        case .failed: return close(loop)
        }
        loop.recycleOutputBuffer(&outbound.buffer)
        http2?.machine.outputDrained()
        machine.writeCompleted()
        updateInterest(loop)
        if shutWriteAfterFlush {
            shutWriteAfterFlush = false
            tls?.sendCloseNotify()
            shutdown(fd, Int32(SHUT_WR))  // lingering close: the client sees EOF after the response
            inbound = []
        }
        if isIdleBetweenRequests { loop.markIdle(self, .keepAlive) }
    }

    /// Registers for what the connection can act on: writability while output waits (and no
    /// reading: the client must take its responses first); nothing while a deferred reply is
    /// pending (no request could be answered before it, and unread input stays in the kernel's
    /// buffer instead of ours; epoll reports errors and hang-ups regardless); else readability.
    func updateInterest(_ loop: EventLoop) {
        let wanted: UInt32 = hasPendingOutput ? TRELLIS_EPOLLOUT : awaiting != nil ? 0 : TRELLIS_EPOLLIN
        guard wanted != interest else { return }
        interest = wanted
        loop.modify(fd, events: wanted)
    }

    // MARK: - Timers and lifecycle

    func tick(_ loop: EventLoop) {
        if http2 != nil { tickHTTP2(loop) }
        if isClosed { return }
        switch machine.tick(now: loop.now) {
        case .none, .lingerClose: break
        case .close: close(loop)
        case .timeout:
            answerError(.requestTimeout, reason: "timed out receiving the request", loop)
            flush(loop)
        }
    }

    func beginDrain(_ loop: EventLoop) {
        if stream != nil { return endStream(loop) }
        if http2 != nil {
            _ = machine.beginDrain(now: loop.now)  // the drain deadline holds for HTTP/2 too
            return beginHTTP2Drain(loop)
        }
        if machine.beginDrain(now: loop.now) == .close { close(loop) }
    }

    /// A new connection that has sent nothing yet.
    var isSilent: Bool { machine.phase == .idle(fresh: true) && !hasPendingOutput }

    /// A kept-alive connection between two requests: nothing received, nothing to send, nothing
    /// pending. An HTTP/2 connection is one while no stream is open.
    var isIdleBetweenRequests: Bool {
        if let openStreams = http2?.machine.openStreams {
            return openStreams == 0 && machine.phase != .lingering && !hasPendingOutput && !isClosed
        }
        return machine.phase == .idle(fresh: false) && !hasPendingOutput && inbound.isEmpty && awaiting == nil && !isClosed
    }

    /// Closes the socket and leaves the loop; safe to call more than once.
    /// - Parameter releasingSlot: false when a newcomer takes this connection's place under `maxConnections`.
    func close(_ loop: EventLoop, releasingSlot: Bool = true) {
        guard !isClosed else { return }
        isClosed = true
        awaiting = nil  // a reply still being worked on finds no connection and is dropped
        leaveStream(loop, dropped: false)
        leaveHTTP2EventStreams(loop)
        if tls != nil { closeTLS() }
        _ = machine.close()
        loop.remove(self, releasingSlot: releasingSlot)
    }
}

/// Where a connection stands in its loop's lists of idle connections: descriptors of its
/// neighbours (-1 at an end), which list, and since when. Intrusive, so the lists allocate nothing.
struct IdleLink {
    enum List: UInt8 { case none, silent, keepAlive }
    var previous: Int32 = -1
    var next: Int32 = -1
    var list = List.none
    var since = LoopClock.Instant.now
}

/// A request between the call to its responder and its response being queued: what writing,
/// logging and timing the response need, kept while a deferred reply is worked on.
struct RequestInFlight {
    /// The request itself (its method, target and path are logged); nil for an HTTP/2 request
    /// refused before it was read whole.
    var request: HTTPRequest?
    var version: HTTPVersion
    /// What the request asked for (RFC 9112 §9.3); the server may still close.
    var keepAliveRequested: Bool
    var facts: RequestFacts
    var requestID: String
    /// When the head began to arrive: durations include the responder and any deferred work.
    var started: LoopClock.Instant
    /// The access log's format writes `Referer` and `User-Agent` (`combined`, `json`), so they
    /// are looked up; `text` does not.
    var logsAgent: Bool

    init(_ request: HTTPRequest, keepAliveRequested: Bool, requestID: String, started: LoopClock.Instant, logsAgent: Bool) {
        self.request = request
        version = request.version
        self.keepAliveRequested = keepAliveRequested
        facts = RequestFacts(
            isHead: request.method == .head,
            acceptEncoding: request.headers["Accept-Encoding"].map(AcceptEncoding.parse) ?? .absent,
            isHTTP10: request.version.minor == 0)
        self.requestID = requestID
        self.started = started
        self.logsAgent = logsAgent
    }
}
