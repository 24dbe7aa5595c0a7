/// Responses on the way out (RFC 9113 §5.2, §6.9, §8.1): HEADERS at once, the body as DATA frames
/// no larger than the client's frame size and windows allow, streams taking turns.
extension HTTP2Connection {
    /// Answers the request on stream `id`: the head as HEADERS (and CONTINUATIONs) now, the body
    /// as DATA as the windows allow.
    /// - Parameter endStream: false for a stream of events, whose DATA follows through ``send(_:on:endStream:)``.
    /// - Returns: false when the stream is gone (the client reset it, the connection failed): the
    ///   answer is dropped.
    @discardableResult
    mutating func respond(to id: UInt32, with head: HTTP2ResponseHead, endStream: Bool = true) -> Bool {
        guard phase != .failed, let stream = streams[id], !stream.responseStarted else { return false }
        guard !stream.resetByPeer else {
            streams[id] = nil  // the work it waited for is done: it no longer counts
            return false
        }
        var block: [UInt8] = []
        encoder.encode(head.fields, into: &block)
        let headersOnly = endStream && head.body.count == 0
        HTTP2FrameWriter.appendFieldBlock(block, stream: id, endStream: headersOnly, maxFrameSize: peerMaxFrameSize, to: &output)
        streams[id]!.responseStarted = true
        if headersOnly {
            responseEnded(id)
        } else {
            enqueue(head.body, on: id, endStream: endStream)
        }
        return true
    }

    /// More of a response that is still open (a stream of events): `bytes` as DATA, then
    /// END_STREAM when `endStream`.
    /// - Returns: false when the stream is gone.
    @discardableResult
    mutating func send(_ bytes: [UInt8], on id: UInt32, endStream: Bool) -> Bool {
        guard phase != .failed, let stream = streams[id], stream.responseStarted, !stream.endAfterPending else { return false }
        enqueue(.bytes(bytes), on: id, endStream: endStream)
        return true
    }

    /// A reply worked on for a stream the client has since reset has arrived: dropped, and the
    /// stream no longer counts against the concurrency limit.
    mutating func dropReply(to id: UInt32) {
        if streams[id]?.resetByPeer == true { streams[id] = nil }
    }

    /// Response octets on stream `id` still waiting for the client's windows: a stream of events
    /// is ended when they pass its bound (a slow reader).
    func pendingBytes(on id: UInt32) -> Int { streams[id]?.pendingBytes ?? 0 }

    private mutating func enqueue(_ content: HTTPResponse.Content, on id: UInt32, endStream: Bool) {
        if content.count > 0 {
            streams[id]!.pending.append(content)
            streams[id]!.pendingBytes += content.count
        }
        if endStream { streams[id]!.endAfterPending = true }
        if !sendOrder.contains(id) { sendOrder.append(id) }
        pumpData()
    }

    /// Writes DATA while the windows allow: each stream with octets waiting sends one frame in
    /// turn, so one large body does not hold up the others' (no priorities: RFC 9113 §5.3.2).
    mutating func pumpData() {
        var progressed = true
        while progressed && !sendOrder.isEmpty && phase != .failed {
            progressed = false
            var index = 0
            while index < sendOrder.count {
                switch sendFrame(on: sendOrder[index]) {
                case .sent:
                    progressed = true
                    index += 1
                case .done:
                    progressed = true
                    sendOrder.remove(at: index)
                case .blocked:
                    index += 1
                }
            }
        }
    }

    private enum FrameOutcome { case sent, done, blocked }

    /// One DATA frame of the stream's waiting octets, as large as the client's frame size and
    /// both windows allow.
    private mutating func sendFrame(on id: UInt32) -> FrameOutcome {
        guard let stream = streams[id] else { return .done }
        guard let chunk = stream.pending.first else {
            // Only END_STREAM waits: an empty DATA frame, which no window holds back.
            if stream.endAfterPending {
                HTTP2FrameWriter.appendData(EmptyCollection<UInt8>(), stream: id, endStream: true, to: &output)
                responseEnded(id)
            }
            return .done
        }
        let allowed = min(peerMaxFrameSize, stream.sendWindow, connectionSendWindow)
        guard allowed > 0 else { return .blocked }
        let start = stream.pendingOffset
        let count = min(allowed, chunk.count - start)
        let endStream = stream.endAfterPending && stream.pending.count == 1 && start + count == chunk.count
        chunk.withBytes { bytes in
            HTTP2FrameWriter.appendData(UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]), stream: id, endStream: endStream, to: &output)
        }
        connectionSendWindow -= count
        streams[id]!.sendWindow -= count
        streams[id]!.pendingBytes -= count
        streams[id]!.pendingOffset += count
        if start + count == chunk.count {
            streams[id]!.pending.removeFirst()
            streams[id]!.pendingOffset = 0
        }
        if endStream {
            responseEnded(id)
            return .done
        }
        return streams[id]!.pending.isEmpty && !streams[id]!.endAfterPending ? .done : .sent
    }

    /// The response's END_STREAM went out. A stream whose request is complete is closed; one whose
    /// client is still sending is told to stop (RST_STREAM NO_ERROR, §8.1). A complete answer
    /// earns back one reset of the rapid-reset allowance.
    private mutating func responseEnded(_ id: UInt32) {
        netResets = max(0, netResets - 1)
        guard let stream = streams[id] else { return }
        if !stream.requestComplete {
            HTTP2FrameWriter.appendRstStream(.noError, stream: id, to: &output)
            recentlyReset.insert(id)
            releaseBuffered(stream.body.count)
        }
        streams[id] = nil
    }
}
