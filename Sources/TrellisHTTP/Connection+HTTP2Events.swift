/// Streams of events (``HTTPReply/stream(_:)``) as HTTP/2 streams: many on one connection, each
/// a stream whose DATA carries the events and never ends until the client resets it, the server
/// drains, or the stream reads too slowly. The loop knows the connection once per channel (its
/// descriptor in `LoopStreams`); the connection fans an event out to its streams of that channel.
extension Connection {
    /// Answers `request` on `id` with the stream's head and first bytes, and joins the channel.
    func startHTTP2EventStream(_ events: HTTPStream, on id: UInt32, answering request: RequestInFlight, _ loop: EventLoop) {
        let head = HTTP2ResponseHead(streamHead: events.head, requestID: request.requestID, date: loop.date.value)
        guard http2!.machine.respond(to: id, with: head, endStream: false) else {
            return events.channel.streamClosed(dropped: false, client: events.client)
        }
        finish(head.outcome, record(of: request, head.outcome, route: events.head.route), started: request.started, loop)
        let joined = loop.joinStream(fd, events)
        http2!.eventStreams[id] = StreamState(
            channel: events.channel, client: events.client, rendition: events.rendition, position: joined.position, chunked: false)
        if !joined.catchUp.isEmpty { http2!.machine.send(joined.catchUp, on: id, endStream: false) }
    }

    /// An event for this connection's streams of `channel`, each written unless it has it already.
    func deliverHTTP2(_ event: HTTPEventChannel.Event, of channel: HTTPEventChannel, _ loop: EventLoop) {
        for (id, current) in http2!.eventStreams where current.channel === channel && event.position > current.position {
            http2!.eventStreams[id]!.position = event.position
            write(event.renditions[current.rendition], resets: event.resets, toEventStream: id, loop)
        }
        sendHTTP2Output(loop)
    }

    func heartbeatHTTP2(_ frame: [UInt8], resets: [[UInt8]], of channel: HTTPEventChannel, _ loop: EventLoop) {
        for (id, current) in http2!.eventStreams where current.channel === channel {
            write(frame, resets: resets, toEventStream: id, loop)
        }
        sendHTTP2Output(loop)
    }

    /// Queues `bytes` as DATA on stream `id`; one whose unsent octets — its own waiting for the
    /// client's window, and the connection's waiting for the socket — would pass the channel's
    /// bound gets its reset frame and ends, so a slow reader costs a bounded buffer.
    private func write(_ bytes: [UInt8], resets: [[UInt8]], toEventStream id: UInt32, _ loop: EventLoop) {
        guard let current = http2!.eventStreams[id], !bytes.isEmpty else { return }
        if http2!.machine.pendingBytes(on: id) + outbound.pending + bytes.count > current.channel.limits.maxPendingBytes {
            return endHTTP2EventStream(id, reset: resets[current.rendition], loop)
        }
        http2!.machine.send(bytes, on: id, endStream: false)
    }

    /// Ends one stream of events cleanly (END_STREAM, after its reset frame when it is dropped).
    func endHTTP2EventStream(_ id: UInt32, reset: [UInt8]? = nil, _ loop: EventLoop) {
        guard leaveHTTP2EventStream(id, dropped: reset != nil, loop) else { return }
        http2!.machine.send(reset ?? [], on: id, endStream: true)
    }

    /// Forgets stream `id` as a stream of events (the client reset it, or it ends); the loop
    /// forgets the connection for the channel once none of its streams are of it.
    /// - Returns: whether `id` was one.
    @discardableResult
    func leaveHTTP2EventStream(_ id: UInt32, dropped: Bool, _ loop: EventLoop) -> Bool {
        guard let current = http2?.eventStreams.removeValue(forKey: id) else { return false }
        if !http2!.eventStreams.values.contains(where: { $0.channel === current.channel }) { loop.leaveStream(fd, current.channel) }
        current.channel.streamClosed(dropped: dropped, client: current.client)
        return true
    }

    /// Ends every stream of events, on drain: each gets END_STREAM before the GOAWAY.
    func endHTTP2EventStreams(_ loop: EventLoop) {
        for id in http2?.eventStreams.keys.sorted() ?? [] { endHTTP2EventStream(id, loop) }
    }

    /// The connection closes: its streams of events are gone.
    func leaveHTTP2EventStreams(_ loop: EventLoop) {
        for id in http2?.eventStreams.keys.sorted() ?? [] { leaveHTTP2EventStream(id, dropped: false, loop) }
    }
}
