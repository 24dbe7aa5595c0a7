/// One HTTP/2 connection (RFC 9113) from the server's side, with no I/O: bytes in → requests
/// (the `HTTPRequest` the HTTP/1.1 side produces) as events, and frames out; responses in →
/// HEADERS, then DATA as the flow-control windows allow.
///
/// The caller (the event loop's connection) feeds what it read to ``receive(_:)``, answers each
/// `.request` with ``respond(to:with:endStream:)`` (now or later), sends ``output`` and reports
/// it sent with ``outputDrained()``. Timers stay with the caller: ``isBlockedOnFlowControl`` says
/// when a client that never opens its window should be timed out.
///
/// Files: this one keeps the state and reads frames; `+Streams` the frames of requests (HEADERS,
/// CONTINUATION, DATA, RST_STREAM); `+Sending` responses and flow control on the way out.
struct HTTP2Connection: Sendable {
    enum Event: Sendable {
        /// A complete request on `stream`: answer it with ``respond(to:with:endStream:)``.
        case request(stream: UInt32, HTTPRequest)
        /// A request refused before any responder sees it (400, 413, 431): answer `status`.
        case refused(stream: UInt32, status: HTTPStatus, reason: String)
        /// The client reset `stream` (it cancelled): a reply still being worked on will be dropped,
        /// and a stream of events must leave its channel.
        case streamReset(stream: UInt32, code: HTTP2ErrorCode)
        /// The server reset a stream for the client's mistake (RST_STREAM is in ``output``).
        case streamError(HTTP2Error)
        /// The connection failed: GOAWAY is in ``output``; send it, then close.
        case connectionError(HTTP2Error)
    }

    enum Phase: Sendable, Equatable {
        /// Waiting for the client's 24 octets (§3.4).
        case awaitingPreface
        /// Its first frame must be SETTINGS (§3.4).
        case awaitingSettings
        case open
        /// GOAWAY sent to drain: the streams up to its last one are answered, no new one is.
        case goingAway
        /// GOAWAY sent for an error: nothing more is read or answered.
        case failed
    }

    let limits: HTTP2Limits
    private(set) var phase = Phase.awaitingPreface
    var parser: HTTP2FrameParser
    var decoder: HPACKDecoder
    var encoder: HPACKEncoder
    var streams: [UInt32: HTTP2Stream] = [:]
    /// The highest stream the client has opened (§5.1.1), GOAWAY's last stream.
    private(set) var lastClientStream: UInt32 = 0
    /// The last stream GOAWAY promised to answer; later ones are ignored.
    var goAwayLastStream = UInt32(Int32.max)
    /// The client sent GOAWAY: it opens nothing more.
    private(set) var peerWentAway = false
    /// A HEADERS frame without END_HEADERS and its CONTINUATIONs so far.
    var fieldBlock: FieldBlock?
    /// Streams the server reset lately: frames the client sent before it knew are ignored (§5.1).
    var recentlyReset = RecentStreams()
    /// Octets of response DATA the client allows on the connection (§6.9.1).
    var connectionSendWindow = HTTP2Bounds.defaultWindowSize
    /// Octets of request DATA the client may still send on the connection.
    var connectionReceiveWindow: Int
    /// Received octets given back to the connection window and not yet announced.
    var unannouncedReceive = 0
    /// Request body octets buffered in streams, over all of them.
    var bufferedBodyBytes = 0
    /// SETTINGS_INITIAL_WINDOW_SIZE and SETTINGS_MAX_FRAME_SIZE as the client set them.
    var peerInitialWindow = HTTP2Bounds.defaultWindowSize
    private(set) var peerMaxFrameSize = HTTP2Bounds.minMaxFrameSize
    /// Streams with response octets waiting, in the order they take turns.
    var sendOrder: [UInt32] = []
    /// Streams reset by the client before their answer was written, less answers completed.
    var netResets = 0
    /// SETTINGS and PING acknowledgements in ``output`` since it was last drained.
    var unsentAcknowledgements = 0
    /// Frames in a row that carried nothing to act on.
    var idleFrames = 0
    /// Frames to send, in order; the caller takes them (``takeOutput()``).
    var output: [UInt8] = []
    var events: [Event] = []

    /// Starts the connection with the server's preface (§3.4): its SETTINGS, and a WINDOW_UPDATE
    /// raising the connection's window from 65535 to `limits.connectionWindow`.
    init(limits: HTTP2Limits) {
        self.limits = limits
        parser = HTTP2FrameParser(maxFrameSize: limits.maxFrameSize)
        decoder = HPACKDecoder(allowedTableSize: limits.headerTableSize, maxHeaderListSize: limits.maxHeaderListSize)
        encoder = HPACKEncoder(maxTableSize: limits.responseHeaderTableSize)
        connectionReceiveWindow = limits.connectionWindow
        HTTP2FrameWriter.appendSettings(Self.settings(limits), ack: false, to: &output)
        if limits.connectionWindow > HTTP2Bounds.defaultWindowSize {
            HTTP2FrameWriter.appendWindowUpdate(UInt32(limits.connectionWindow - HTTP2Bounds.defaultWindowSize), stream: 0, to: &output)
        }
    }

    private static func settings(_ limits: HTTP2Limits) -> [HTTP2Setting] {
        var settings = [
            HTTP2Setting(HTTP2Setting.maxConcurrentStreams, UInt32(limits.maxConcurrentStreams)),
            HTTP2Setting(HTTP2Setting.initialWindowSize, UInt32(limits.streamWindow)),
            HTTP2Setting(HTTP2Setting.maxHeaderListSize, UInt32(clamping: limits.maxHeaderListSize)),
            // A server never pushes; saying so is allowed (§6.5.2) and makes clients' logs plain.
            HTTP2Setting(HTTP2Setting.enablePush, 0),
        ]
        if limits.maxFrameSize != HTTP2Bounds.minMaxFrameSize {
            settings.append(HTTP2Setting(HTTP2Setting.maxFrameSize, UInt32(limits.maxFrameSize)))
        }
        if limits.headerTableSize != 4096 { settings.append(HTTP2Setting(HTTP2Setting.headerTableSize, UInt32(limits.headerTableSize))) }
        return settings
    }

    // MARK: - The caller's view

    /// Streams open: counted against SETTINGS_MAX_CONCURRENT_STREAMS, including those whose reply
    /// is still being worked on after the client reset them.
    var openStreams: Int { streams.count }

    /// Every stream is answered after a GOAWAY either way (or the connection failed): send the
    /// output, then close.
    var isFinished: Bool {
        phase == .failed || ((phase == .goingAway || peerWentAway) && streams.isEmpty && fieldBlock == nil)
    }

    /// Response octets wait and the client's windows let none of them go: the caller times this
    /// out as a blocked write (a client that never opens its window is closed).
    var isBlockedOnFlowControl: Bool {
        guard !sendOrder.isEmpty else { return false }
        return connectionSendWindow <= 0 || sendOrder.allSatisfy { (streams[$0]?.sendWindow ?? 0) <= 0 }
    }

    /// Takes the frames to send, leaving none.
    mutating func takeOutput() -> [UInt8] {
        defer { output = [] }
        return output
    }

    /// Everything given so far reached the socket: acknowledgements are no longer owed.
    mutating func outputDrained() { unsentAcknowledgements = 0 }

    // MARK: - Reading

    /// Reads every complete frame of `bytes` (the octets not yet consumed).
    /// - Returns: how many octets were consumed (the rest waits for more), and what happened.
    mutating func receive(_ bytes: UnsafeBufferPointer<UInt8>) -> (consumed: Int, events: [Event]) {
        var offset = 0
        if phase == .awaitingPreface { offset = readPreface(bytes) }
        while offset < bytes.count && phase != .failed && phase != .awaitingPreface {
            let (event, consumed) = parser.next(UnsafeBufferPointer(rebasing: bytes[offset...]))
            offset += consumed
            switch event {
            case .needMoreData:
                return (offset, takeEvents())
            case .frame(let frame):
                do throws(HTTP2Error) { try handle(frame) } catch { fail(error) }
            case .error(let error):
                fail(error)
            }
        }
        return (phase == .failed ? bytes.count : offset, takeEvents())
    }

    mutating func receive(_ bytes: [UInt8]) -> (consumed: Int, events: [Event]) {
        bytes.withUnsafeBufferPointer { receive($0) }
    }

    private mutating func takeEvents() -> [Event] {
        defer { events = [] }
        return events
    }

    /// Consumes the client's preface when all 24 octets are here; a wrong octet fails at once.
    private mutating func readPreface(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let preface = HTTP2Bounds.clientPreface
        let n = min(bytes.count, preface.count)
        guard bytes[..<n].elementsEqual(preface[..<n]) else {
            fail(.connection(.protocolError, "not the HTTP/2 connection preface"))
            return bytes.count
        }
        guard n == preface.count else { return 0 }
        phase = .awaitingSettings
        return n
    }

    private mutating func handle(_ frame: HTTP2Frame) throws(HTTP2Error) {
        if phase == .awaitingSettings {
            guard case .settings(ack: false, _) = frame.payload else { throw .connection(.protocolError, "the first frame is not SETTINGS") }
            phase = .open
        }
        if let block = fieldBlock {
            guard case .continuation = frame.payload, frame.stream == block.stream else {
                throw .connection(.protocolError, "a field block on stream \(block.stream) was interrupted")
            }
        }
        switch frame.payload {
        case .data(let bytes, let endStream, let flowControlled):
            try receiveData(bytes, stream: frame.stream, endStream: endStream, flowControlled: flowControlled)
        case .headers(let fragment, let endStream, let endHeaders, let priority):
            try receiveHeaders(fragment, stream: frame.stream, endStream: endStream, endHeaders: endHeaders, priority: priority)
        case .continuation(let fragment, let endHeaders):
            try receiveContinuation(fragment, stream: frame.stream, endHeaders: endHeaders)
        case .priority(let priority):
            guard priority.dependency != frame.stream else { throw .stream(frame.stream, .protocolError, "stream depends on itself") }
            try countIdleFrame()
        case .rstStream(let code):
            try receiveReset(code, stream: frame.stream)
        case .settings(let ack, let settings):
            try receiveSettings(settings, ack: ack)
        case .ping(let ack, let opaque):
            guard !ack else { return try countIdleFrame() }
            HTTP2FrameWriter.append(HTTP2Frame(stream: 0, .ping(ack: true, opaque: opaque)), to: &output)
            try countAcknowledgement()
        case .goAway:
            peerWentAway = true
        case .windowUpdate(let increment):
            try receiveWindowUpdate(increment, stream: frame.stream)
        case .pushPromise:
            throw .connection(.protocolError, "PUSH_PROMISE from a client")
        case .unknown:
            try countIdleFrame()
        }
    }

    // MARK: - Connection frames

    private mutating func receiveSettings(_ settings: [HTTP2Setting], ack: Bool) throws(HTTP2Error) {
        guard !ack else { return try countIdleFrame() }  // our settings need nothing done on their acknowledgement
        for setting in settings {
            switch setting.identifier {
            case HTTP2Setting.headerTableSize:
                encoder.peerAllowsTableSize(Int(setting.value))
            case HTTP2Setting.initialWindowSize:
                try changeInitialSendWindow(to: Int(setting.value))
            case HTTP2Setting.maxFrameSize:
                peerMaxFrameSize = Int(setting.value)
            default:
                continue  // the concurrency limit is for streams we would open; unknown ones are ignored
            }
        }
        HTTP2FrameWriter.appendSettings([], ack: true, to: &output)
        try countAcknowledgement()
        pumpData()
    }

    /// §6.9.2: every open stream's window moves by the change, and may go negative.
    private mutating func changeInitialSendWindow(to value: Int) throws(HTTP2Error) {
        let delta = value - peerInitialWindow
        peerInitialWindow = value
        for id in streams.keys {
            streams[id]!.sendWindow += delta
            guard streams[id]!.sendWindow <= HTTP2Bounds.maxWindowSize else {
                throw .connection(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE takes stream \(id)'s window past 2^31-1")
            }
        }
    }

    private mutating func receiveWindowUpdate(_ increment: UInt32, stream id: UInt32) throws(HTTP2Error) {
        if id == 0 {
            connectionSendWindow += Int(increment)
            guard connectionSendWindow <= HTTP2Bounds.maxWindowSize else {
                throw .connection(.flowControlError, "WINDOW_UPDATE takes the connection's window past 2^31-1")
            }
        } else if streams[id] != nil {
            streams[id]!.sendWindow += Int(increment)
            guard streams[id]!.sendWindow <= HTTP2Bounds.maxWindowSize else {
                throw .stream(id, .flowControlError, "WINDOW_UPDATE takes the stream's window past 2^31-1")
            }
        } else {
            guard id <= lastClientStream else { throw .connection(.protocolError, "WINDOW_UPDATE on idle stream \(id)") }
        }
        if sendOrder.isEmpty { try countIdleFrame() }
        pumpData()
    }

    mutating func countIdleFrame() throws(HTTP2Error) {
        idleFrames += 1
        guard idleFrames <= limits.maxIdleFrames else {
            throw HTTP2Error.connection(.enhanceYourCalm, "\(idleFrames) frames in a row with nothing to act on").reaching("idle_frames")
        }
    }

    private mutating func countAcknowledgement() throws(HTTP2Error) {
        unsentAcknowledgements += 1
        guard unsentAcknowledgements <= limits.maxUnsentAcknowledgements else {
            throw HTTP2Error.connection(.enhanceYourCalm, "\(unsentAcknowledgements) SETTINGS and PING acknowledgements not read")
                .reaching("unsent_acknowledgements")
        }
    }

    /// A new stream was opened by the client (§5.1.1: identifiers only grow).
    mutating func opened(_ id: UInt32) { lastClientStream = id }

    // MARK: - Ending

    /// Begins a graceful shutdown (§6.8): GOAWAY naming the last stream that will be answered;
    /// the connection is finished (``isFinished``) once those are.
    mutating func goAway() {
        guard phase == .open || phase == .awaitingSettings || phase == .awaitingPreface else { return }
        goAwayLastStream = lastClientStream
        HTTP2FrameWriter.appendGoAway(lastStream: lastClientStream, code: .noError, debug: [], to: &output)
        phase = .goingAway
    }

    /// A connection error: GOAWAY with its code and reason, then nothing more (§5.4.1). A stream
    /// error resets that stream alone (§5.4.2).
    mutating func fail(_ error: HTTP2Error) {
        guard case .connection = error.scope else { return resetStream(error) }
        guard phase != .failed else { return }
        HTTP2FrameWriter.appendGoAway(lastStream: lastClientStream, code: error.code, debug: Array(error.reason.utf8), to: &output)
        phase = .failed
        sendOrder = []
        events.append(.connectionError(error))
    }

    /// Sends RST_STREAM for a stream error and forgets the stream — unless its reply is still
    /// being worked on, which keeps it counted until the reply arrives and is dropped.
    mutating func resetStream(_ error: HTTP2Error) {
        guard case .stream(let id) = error.scope else { return }
        HTTP2FrameWriter.appendRstStream(error.code, stream: id, to: &output)
        abandon(id)
        events.append(.streamError(error))
    }

    /// Forgets a stream that will send nothing more, releasing what it buffered.
    mutating func abandon(_ id: UInt32) {
        recentlyReset.insert(id)
        sendOrder.removeAll { $0 == id }
        guard var stream = streams[id] else { return }
        releaseBuffered(stream.body.count)
        if stream.dispatched && !stream.responseStarted {
            stream.resetByPeer = true
            stream.body = []
            streams[id] = stream
        } else {
            streams[id] = nil
        }
    }
}

/// The last streams the server reset, so their late frames are ignored; a fixed number of them.
struct RecentStreams: Sendable {
    private var ids = [UInt32](repeating: 0, count: 64)
    private var next = 0

    mutating func insert(_ id: UInt32) {
        ids[next] = id
        next = (next + 1) % ids.count
    }

    func contains(_ id: UInt32) -> Bool { id != 0 && ids.contains(id) }
}

/// A field block in progress: HEADERS without END_HEADERS, then CONTINUATIONs (§4.3, §6.10).
struct FieldBlock: Sendable {
    enum Purpose: Sendable {
        /// A new request's head.
        case request
        /// Trailers of a request whose head has come (§8.1): checked, then discarded.
        case trailers
        /// Decoded only to keep HPACK in step, then dropped: a stream after GOAWAY, or one reset.
        case ignored
        /// Decoded to keep HPACK in step, then the stream is reset with this error: past the
        /// concurrency limit (REFUSED_STREAM), after the request ended (STREAM_CLOSED).
        case reset(HTTP2Error)
    }

    var stream: UInt32
    var purpose: Purpose
    var endStream: Bool
    var fragments: [UInt8]
    var frames = 1
    /// The HEADERS frame made the stream depend on itself (§5.3.1).
    var selfDependent: Bool
}
