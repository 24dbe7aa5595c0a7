import Logging

/// HTTP/2 on a connection (RFC 9113): the protocol machine (`HTTP2Connection`) between the
/// socket and the responder, on the same loop, with the same responder, access log and metrics as
/// HTTP/1.1. A connection becomes HTTP/2 when its first octets are the client preface and
/// `Configuration.http2` is on: on TLS after ALPN chose `h2`, on a plain listener with prior
/// knowledge (h2c, §3.3).
///
/// Timers: once HTTP/2, the connection's `ConnectionStateMachine` is in its streaming phase, which
/// keeps only the blocked-write and drain deadlines; `tickHTTP2` adds what HTTP/2 needs — an idle
/// connection (no stream open) closes after `keepAliveTimeout` with GOAWAY, and one whose client
/// keeps its window shut while answers wait closes after `sendTimeout`.
extension Connection {
    /// What an HTTP/2 connection keeps beside the machine: per stream, what writing, logging and
    /// timing its answer need while a deferred reply is worked on.
    struct HTTP2State {
        var machine: HTTP2Connection
        var inFlight: [UInt32: RequestInFlight] = [:]
        /// The streams that are streams of events (Connection+HTTP2Events.swift), by stream.
        var eventStreams: [UInt32: StreamState] = [:]
        /// Since when no stream is open (the idle timer), or answers wait on a shut window.
        var idleSince: LoopClock.Instant?
        var blockedSince: LoopClock.Instant?
    }

    /// Whether `bytes`, the first a connection received (decrypted, on TLS), open HTTP/2: the
    /// preface's request line, which no HTTP/1.1 request can begin with. On TLS the client sends it
    /// after ALPN chose `h2`; on a plain listener it is prior knowledge.
    /// Four octets ("PRI ") already tell it from every method a server answers (POST, PUT, PATCH
    /// share "P"); the rest of the preface is the machine's to check, so a first read cut short
    /// does not make an HTTP/2 client an HTTP/1.1 one.
    func opensHTTP2(_ bytes: UnsafeBufferPointer<UInt8>, _ loop: EventLoop) -> Bool {
        guard isSilent, inbound.isEmpty, bytes.count >= 4, loop.core.configuration.http2 else { return false }
        let line = HTTP2Bounds.clientPreface.prefix(16)  // "PRI * HTTP/2.0\r\n"
        let n = min(bytes.count, line.count)
        return bytes.prefix(n).elementsEqual(line.prefix(n))
    }

    /// Turns this connection into an HTTP/2 one: the server's preface goes out at once.
    func startHTTP2(_ loop: EventLoop) {
        loop.unlinkIdle(self)
        machine.bytesReceived(now: loop.now)
        machine.streamStarted()  // no head or keep-alive timer: `tickHTTP2` keeps HTTP/2's
        http2 = HTTP2State(machine: HTTP2Connection(limits: loop.core.configuration.http2Limits), idleSince: loop.now)
    }

    /// Feeds what was read to the machine and acts on what it reports.
    func receiveHTTP2(_ fresh: UnsafeBufferPointer<UInt8>, _ loop: EventLoop) {
        if machine.phase == .lingering { return }
        inbound.append(contentsOf: fresh)
        let (consumed, events) = inbound.withUnsafeBufferPointer { http2!.machine.receive($0) }
        if consumed == inbound.count { inbound = [] } else { inbound.removeFirst(consumed) }
        for event in events { handle(event, loop) }
        sendHTTP2Output(loop)
    }

    private func handle(_ event: HTTP2Connection.Event, _ loop: EventLoop) {
        switch event {
        case .request(let stream, let request):
            answer(request, on: stream, loop)
        case .refused(let stream, let status, let reason):
            loop.core.logger.debug("refused HTTP/2 request: \(reason)", metadata: ["remote": .string(remote)])
            if status == .requestHeaderFieldsTooLarge { loop.metrics.recordHTTP2Limit("header_list") }
            if status == .contentTooLarge { loop.metrics.recordHTTP2Limit("body") }
            let body = Array("\(status.code) \(status.reasonPhrase)\n".utf8)
            let inFlight = RequestInFlight(http2Request: nil, requestID: loop.requestIDs.next(), started: loop.now, logsAgent: false)
            send(HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: body),
                 on: stream, answering: inFlight, loop)
        case .streamReset(let stream, _):
            http2?.inFlight[stream] = nil  // a reply still worked on finds no stream and is dropped
            leaveHTTP2EventStream(stream, dropped: false, loop)
        case .streamError(let error), .connectionError(let error):
            loop.core.logger.debug("HTTP/2 \(error)", metadata: ["remote": .string(remote)])
            loop.metrics.recordHTTP2(error)
        }
    }

    /// Runs the responder for one stream's request, as `respond` does for HTTP/1.1.
    private func answer(_ request: HTTPRequest, on stream: UInt32, _ loop: EventLoop) {
        requests += 1
        let core = loop.core!
        let requestID = request.headers["x-request-id"].flatMap {
            RequestIDGenerator.isSane($0, maxLength: core.configuration.maxRequestIDLength) ? $0 : nil
        } ?? loop.requestIDs.next()
        let inFlight = RequestInFlight(http2Request: request, requestID: requestID, started: loop.now, logsAgent: loop.accessLog?.format.needsAgent == true)
        let context = HTTPRequestContext(requestID: requestID, remoteAddress: remote, logger: core.logger)
        let ticket = ReplyTicket(fd: fd, serial: serial, requestID: requestID, stream: stream)
        switch core.responder.respond(to: request, context: context) {
        case .response(let response):
            send(response, on: stream, answering: inFlight, loop)
        case .deferred(let queue, let work):
            http2!.inFlight[stream] = inFlight
            loop.runDeferred(work, on: queue, replyTo: ticket)
        case .pending(let start):
            http2!.inFlight[stream] = inFlight
            loop.startPending(start, replyTo: ticket)
        case .stream(let events):
            guard !inFlight.facts.isHead && !core.isDraining else {
                // The head and first bytes alone, as over HTTP/1.1.
                events.channel.streamClosed(dropped: false, client: events.client)
                return send(events.head, on: stream, answering: inFlight, loop)
            }
            startHTTP2EventStream(events, on: stream, answering: inFlight, loop)
        }
    }

    /// A deferred reply for `stream`, handed over by the loop.
    func replyArrived(_ response: HTTPResponse, stream: UInt32, _ loop: EventLoop) {
        guard !isClosed, let inFlight = http2?.inFlight.removeValue(forKey: stream) else {
            http2?.machine.dropReply(to: stream)
            return
        }
        send(response, on: stream, answering: inFlight, loop)
        sendHTTP2Output(loop)
    }

    private func send(_ response: HTTPResponse, on stream: UInt32, answering request: RequestInFlight, _ loop: EventLoop) {
        let head = HTTP2ResponseHead(
            response, request: request.facts, requestID: request.requestID, date: loop.date.value, options: loop.core.writerOptions)
        http2!.machine.respond(to: stream, with: head)
        finish(head.outcome, record(of: request, head.outcome, route: response.route), started: request.started, loop)
    }

    /// Moves the machine's frames to the socket's queue and sends them; once every stream a
    /// GOAWAY named is answered (or the connection failed), the connection closes after them.
    func sendHTTP2Output(_ loop: EventLoop) {
        guard http2 != nil else { return }
        let frames = http2!.machine.takeOutput()
        if !frames.isEmpty {
            takeOutputBuffer(loop)
            outbound.append(frames)
        }
        if http2!.machine.isFinished && machine.phase != .lingering {
            _ = machine.startLingering(now: loop.now)
            shutWriteAfterFlush = true
        }
        flush(loop)
    }

    /// HTTP/2's timers, checked with the others every tick.
    func tickHTTP2(_ loop: EventLoop) {
        guard var state = http2, machine.phase != .lingering else { return }
        let timeouts = loop.core.timeouts
        state.idleSince = state.machine.openStreams == 0 ? (state.idleSince ?? loop.now) : nil
        state.blockedSince = state.machine.isBlockedOnFlowControl ? (state.blockedSince ?? loop.now) : nil
        http2 = state
        if let since = state.blockedSince, loop.now - since >= timeouts.send {
            loop.metrics.recordHTTP2Limit("window_stall")
            return close(loop)  // a client that never opens its window
        }
        if let since = state.idleSince, loop.now - since >= timeouts.keepAlive {
            http2!.machine.goAway()
            sendHTTP2Output(loop)
        }
    }

    /// A graceful shutdown: streams of events end, GOAWAY goes out, and the streams it names are answered.
    func beginHTTP2Drain(_ loop: EventLoop) {
        endHTTP2EventStreams(loop)
        http2?.machine.goAway()
        sendHTTP2Output(loop)
    }
}

extension RequestInFlight {
    /// What an HTTP/2 request's answer needs (nil: a request refused before it was read whole).
    init(http2Request request: HTTPRequest?, requestID: String, started: LoopClock.Instant, logsAgent: Bool) {
        self.request = request
        version = .http2
        keepAliveRequested = true
        facts = RequestFacts(
            isHead: request?.method == .head,
            acceptEncoding: request?.headers["accept-encoding"].map(AcceptEncoding.parse) ?? .absent)
        self.requestID = requestID
        self.started = started
        self.logsAgent = logsAgent
    }
}
