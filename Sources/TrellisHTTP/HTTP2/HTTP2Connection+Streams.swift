/// The frames that carry requests (RFC 9113 §5.1, §6.1, §6.2, §6.4, §6.10, §8.1): streams opened
/// by HEADERS, field blocks finished by CONTINUATION and decoded, bodies gathered from DATA under
/// flow control, resets from the client.
extension HTTP2Connection {
    mutating func receiveHeaders(
        _ fragment: [UInt8], stream id: UInt32, endStream: Bool, endHeaders: Bool, priority: HTTP2Priority?
    ) throws(HTTP2Error) {
        let purpose = try purposeOfHeaders(on: id)
        fieldBlock = FieldBlock(
            stream: id, purpose: purpose, endStream: endStream, fragments: fragment, selfDependent: priority?.dependency == id)
        try checkFieldBlockSize()
        if endHeaders { try finishFieldBlock() }
    }

    /// What a HEADERS frame on stream `id` is: a new request, trailers, or a block only decoded.
    private mutating func purposeOfHeaders(on id: UInt32) throws(HTTP2Error) -> FieldBlock.Purpose {
        guard id % 2 == 1 else { throw .connection(.protocolError, "HEADERS on stream \(id), which a client cannot open") }
        if let stream = streams[id] {
            guard !stream.requestComplete else { return .reset(.stream(id, .streamClosed, "HEADERS after END_STREAM")) }
            return stream.dispatched ? .ignored : .trailers
        }
        if id <= lastClientStream {
            guard recentlyReset.contains(id) else { throw .connection(.streamClosed, "HEADERS on closed stream \(id)") }
            return .ignored
        }
        opened(id)
        if id > goAwayLastStream || peerWentAway { return .ignored }
        if streams.count >= limits.maxConcurrentStreams {
            return .reset(.stream(id, .refusedStream, "more than \(limits.maxConcurrentStreams) concurrent streams").reaching("concurrent_streams"))
        }
        streams[id] = HTTP2Stream(receiveWindow: limits.streamWindow, sendWindow: peerInitialWindow)
        idleFrames = 0
        return .request
    }

    mutating func receiveContinuation(_ fragment: [UInt8], stream id: UInt32, endHeaders: Bool) throws(HTTP2Error) {
        guard fieldBlock != nil else { throw .connection(.protocolError, "CONTINUATION on stream \(id) without HEADERS") }
        fieldBlock!.fragments += fragment
        fieldBlock!.frames += 1
        guard fieldBlock!.frames <= 1 + limits.maxContinuationFrames else {
            throw HTTP2Error.connection(.enhanceYourCalm, "a field block of more than \(limits.maxContinuationFrames) CONTINUATION frames")
                .reaching("continuation_frames")
        }
        try checkFieldBlockSize()
        if endHeaders { try finishFieldBlock() }
    }

    /// A field block no larger than the header list it may decode to: more is a flood (CVE-2024-27316).
    private func checkFieldBlockSize() throws(HTTP2Error) {
        guard let block = fieldBlock, block.fragments.count > limits.maxHeaderListSize else { return }
        throw HTTP2Error.connection(.enhanceYourCalm, "a field block of more than \(limits.maxHeaderListSize) octets").reaching("field_block_octets")
    }

    /// Decodes the finished block — always, so HPACK stays in step (§4.3) — and acts on it.
    private mutating func finishFieldBlock() throws(HTTP2Error) {
        guard let block = fieldBlock else { return }
        fieldBlock = nil
        var fields: [HPACKField] = []
        var tooLarge = false
        do {
            fields = try decoder.decode(block.fragments)
        } catch .headerListTooLarge {
            tooLarge = true
        } catch {
            throw .connection(.compressionError, "field block of stream \(block.stream): \(error)")
        }
        switch block.purpose {
        case .ignored: return
        case .reset(let error): throw error
        case .request: try startRequest(block, fields, tooLarge: tooLarge)
        case .trailers: try finishTrailers(block, fields, tooLarge: tooLarge)
        }
    }

    private mutating func startRequest(_ block: FieldBlock, _ fields: [HPACKField], tooLarge: Bool) throws(HTTP2Error) {
        let id = block.stream
        if block.selfDependent { throw .stream(id, .protocolError, "stream depends on itself") }
        if tooLarge { return refuse(id, .requestHeaderFieldsTooLarge, "header list over \(limits.maxHeaderListSize) octets") }
        switch HTTP2RequestHead.read(fields, limits: limits) {
        case .malformed(let reason): throw .stream(id, .protocolError, reason)
        case .refused(let status, let reason): return refuse(id, status, reason)
        case .head(let head): streams[id]!.head = head
        }
        if block.endStream { try requestEnded(id) }
    }

    /// Trailers end the request (§8.1): they must carry END_STREAM and no pseudo-header field;
    /// like HTTP/1.1's, they are then discarded.
    private mutating func finishTrailers(_ block: FieldBlock, _ fields: [HPACKField], tooLarge: Bool) throws(HTTP2Error) {
        let id = block.stream
        guard block.endStream else { throw .stream(id, .protocolError, "trailers without END_STREAM") }
        guard !fields.contains(where: { $0.name.utf8.first == UInt8(ascii: ":") }) else {
            throw .stream(id, .protocolError, "pseudo-header field in trailers")
        }
        if tooLarge { return refuse(id, .requestHeaderFieldsTooLarge, "trailers over \(limits.maxHeaderListSize) octets") }
        try requestEnded(id)
    }

    // MARK: - DATA

    mutating func receiveData(_ bytes: [UInt8], stream id: UInt32, endStream: Bool, flowControlled: Int) throws(HTTP2Error) {
        // Every DATA frame counts against the connection's window, even one then discarded (§6.1).
        guard flowControlled <= connectionReceiveWindow else {
            throw .connection(.flowControlError, "DATA of \(flowControlled) octets past the connection's window of \(connectionReceiveWindow)")
        }
        connectionReceiveWindow -= flowControlled
        giveBackConnectionWindow(flowControlled)
        guard let stream = streams[id] else {
            if id > lastClientStream { throw .connection(.protocolError, "DATA on idle stream \(id)") }
            if recentlyReset.contains(id) { return }
            throw .stream(id, .streamClosed, "DATA on closed stream \(id)")
        }
        guard !stream.requestComplete else { throw .stream(id, .streamClosed, "DATA after END_STREAM") }
        guard flowControlled <= stream.receiveWindow else {
            throw .stream(id, .flowControlError, "DATA of \(flowControlled) octets past the stream's window of \(stream.receiveWindow)")
        }
        streams[id]!.receiveWindow -= flowControlled
        if bytes.isEmpty && !endStream { try countIdleFrame() }
        try buffer(bytes, stream: id)
        guard streams[id] != nil else { return }  // refused for its size
        if endStream { return try requestEnded(id) }
        giveBackStreamWindow(id)
    }

    /// Keeps body octets until the request ends; a body past `maxBodyBytes` is refused (413), and
    /// one that would take the connection's buffered bodies past its window is refused for the
    /// client to retry (REFUSED_STREAM): memory per connection stays bounded.
    private mutating func buffer(_ bytes: [UInt8], stream id: UInt32) throws(HTTP2Error) {
        guard !streams[id]!.dispatched, !bytes.isEmpty else { return }
        let stream = streams[id]!
        if stream.body.count + bytes.count > limits.maxBodyBytes {
            return refuse(id, .contentTooLarge, "request body over \(limits.maxBodyBytes) octets")
        }
        if let length = stream.head?.contentLength, stream.body.count + bytes.count > length {
            throw .stream(id, .protocolError, "DATA past content-length \(length)")
        }
        guard bufferedBodyBytes + bytes.count <= limits.connectionWindow else {
            throw HTTP2Error.stream(id, .refusedStream, "request bodies on this connection over \(limits.connectionWindow) octets")
                .reaching("buffered_bodies")
        }
        streams[id]!.body += bytes
        bufferedBodyBytes += bytes.count
    }

    /// The client's END_STREAM: the request is complete and goes to the responder.
    private mutating func requestEnded(_ id: UInt32) throws(HTTP2Error) {
        streams[id]!.requestComplete = true
        let stream = streams[id]!
        if stream.dispatched { return }  // refused already; its answer closes it
        guard let head = stream.head else { return }
        if let length = head.contentLength, length != stream.body.count {
            throw .stream(id, .protocolError, "body of \(stream.body.count) octets, content-length \(length)")
        }
        releaseBuffered(stream.body.count)
        streams[id]!.body = []
        streams[id]!.dispatched = true
        idleFrames = 0
        events.append(.request(stream: id, head.request(body: stream.body)))
    }

    /// Refuses a request with an answer before any responder sees it; the caller answers it.
    private mutating func refuse(_ id: UInt32, _ status: HTTPStatus, _ reason: String) {
        releaseBuffered(streams[id]?.body.count ?? 0)
        streams[id]?.body = []
        streams[id]?.dispatched = true
        events.append(.refused(stream: id, status: status, reason: reason))
    }

    mutating func releaseBuffered(_ count: Int) { bufferedBodyBytes -= count }

    // MARK: - Windows on the way in

    /// The connection's window is given back as DATA arrives (what it costs is bounded by
    /// `buffer`), announced once half of it is used, so WINDOW_UPDATEs stay few.
    private mutating func giveBackConnectionWindow(_ count: Int) {
        unannouncedReceive += count
        guard unannouncedReceive >= limits.connectionWindow / 2 else { return }
        HTTP2FrameWriter.appendWindowUpdate(UInt32(unannouncedReceive), stream: 0, to: &output)
        connectionReceiveWindow += unannouncedReceive
        unannouncedReceive = 0
    }

    /// A stream's window, once half used, is opened again while its request goes on.
    private mutating func giveBackStreamWindow(_ id: UInt32) {
        let window = streams[id]!.receiveWindow
        guard window < limits.streamWindow / 2, !streams[id]!.dispatched else { return }
        HTTP2FrameWriter.appendWindowUpdate(UInt32(limits.streamWindow - window), stream: id, to: &output)
        streams[id]!.receiveWindow = limits.streamWindow
    }

    // MARK: - RST_STREAM

    /// The client cancelled a stream (§6.4). Its answer, if being worked on, is dropped when it
    /// comes; resets of unanswered streams past `maxNetResets` end the connection (rapid reset).
    mutating func receiveReset(_ code: HTTP2ErrorCode, stream id: UInt32) throws(HTTP2Error) {
        guard id <= lastClientStream else { throw .connection(.protocolError, "RST_STREAM on idle stream \(id)") }
        guard streams[id] != nil else { return try countIdleFrame() }
        // In `streams`, so its answer has not ended.
        netResets += 1
        guard netResets <= limits.maxNetResets else {
            throw HTTP2Error.connection(.enhanceYourCalm, "more than \(limits.maxNetResets) streams reset before their answer")
                .reaching("rapid_reset")
        }
        abandon(id)
        events.append(.streamReset(stream: id, code: code))
    }
}
