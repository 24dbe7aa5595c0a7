import Synchronization

/// Long-lived answers that the server writes to as things happen (server-sent events, WHATWG HTML
/// §9.2), served by the event loops that own their connections: no thread and no timer per
/// stream. An application publishes each event once; every loop with streams of the channel gets
/// one message and writes the event's bytes to each of its streams.
///
/// Events are ordered by a position the application chooses (increasing with each event). The
/// channel keeps the last ``Limits/history`` of them so that a stream opened after position `P`
/// (a client resuming with `Last-Event-ID`) first gets every event after `P`; when some of those
/// are no longer held, or `P` is not a position this channel knows, it gets the latest reset frame
/// instead ("refetch everything").
///
/// A stream is written in one of several *renditions* (the same event for different clients:
/// Trellis's events, OpenFeature's); an event has bytes for each, and empty bytes write nothing.
///
/// A stream ends when the client closes it, when the server drains (the body ends cleanly:
/// a last empty chunk, then the connection closes), or when more than
/// ``Limits/maxPendingBytes`` wait unsent for it (a slow reader): it then gets the reset frame
/// and is closed, and the other streams never wait for it.
///
/// The one lock is taken to publish an event, to open a stream and when a loop first serves a
/// stream of the channel; never by other requests.
public final class HTTPEventChannel: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Most streams open at once, over every loop; ``open(_:rendition:resumingAfter:client:)`` refuses beyond it.
        public var maxStreams: Int
        /// Most streams one client (an address) may hold open: one client never takes every stream.
        public var maxStreamsPerClient: Int
        /// Most bytes that may wait unsent for one stream before it is dropped with a reset.
        public var maxPendingBytes: Int
        /// Events kept for streams that resume.
        public var history: Int
        /// How often each loop writes the heartbeat to its streams (keeps proxies from closing them).
        public var heartbeat: Duration

        public init(maxStreams: Int, maxPendingBytes: Int, history: Int, heartbeat: Duration, maxStreamsPerClient: Int = 8) {
            self.maxStreams = maxStreams
            self.maxStreamsPerClient = maxStreamsPerClient
            self.maxPendingBytes = maxPendingBytes
            self.history = history
            self.heartbeat = heartbeat
        }
    }

    /// One published event.
    public struct Event: Sendable {
        /// Greater than every earlier event's.
        public var position: UInt64
        /// The event's bytes in each rendition (framed as the stream's format wants them; the
        /// channel adds only HTTP's chunking). Empty: streams of that rendition skip it.
        public var renditions: [[UInt8]]
        /// What a stream that missed this event and cannot be given it gets, in each rendition:
        /// from now on the channel's reset frame.
        public var resets: [[UInt8]]

        public init(position: UInt64, renditions: [[UInt8]], resets: [[UInt8]]) {
            self.position = position
            self.renditions = renditions
            self.resets = resets
        }
    }

    public let limits: Limits
    /// Written to every stream each ``Limits/heartbeat`` (an SSE comment, `:\n\n`).
    public let heartbeatFrame: [UInt8]

    private struct State {
        var loops: [EventLoop] = []
        var held: [Event] = []
        /// Streams may resume from here on: every event after it is held.
        var floor: UInt64
        var latest: UInt64
        var resets: [[UInt8]]
    }

    private let state: Mutex<State>
    private let openCount = Atomic<Int>(0)
    /// Streams open by client; taken to open and close a stream only.
    private let openByClient = Mutex<[String: Int]>([:])
    private let droppedCount = Atomic<Int>(0)

    /// - Parameters:
    ///   - position: where the channel starts; a stream resuming from here misses nothing.
    ///   - resets: the reset frame of each rendition until the first event.
    public init(limits: Limits, position: UInt64, resets: [[UInt8]], heartbeatFrame: [UInt8] = Array(":\n\n".utf8)) {
        self.limits = limits
        self.heartbeatFrame = heartbeatFrame
        state = Mutex(State(floor: position, latest: position, resets: resets))
    }

    /// Streams open now.
    public var openStreams: Int { openCount.load(ordering: .relaxed) }
    /// Streams dropped so far because their client read too slowly.
    public var droppedStreams: Int { droppedCount.load(ordering: .relaxed) }
    /// The newest event's position (where the channel started, before any).
    public var latestPosition: UInt64 { state.withLock { $0.latest } }

    /// Hands `event` to every loop serving streams of this channel; they write it in order.
    /// - Precondition: `event.position` is greater than every earlier event's (else it is ignored).
    public func publish(_ event: Event) {
        let loops = state.withLock { s -> [EventLoop] in
            guard event.position > s.latest else { return [] }
            s.latest = event.position
            s.resets = event.resets
            s.held.append(event)
            if s.held.count > limits.history {
                s.floor = s.held.removeFirst().position
            }
            return s.loops
        }
        for loop in loops { loop.post(.event(self, event)) }
    }

    /// Why a stream was not opened.
    public enum Refusal: Error, Sendable, Equatable {
        /// ``Limits/maxStreams`` are open: try later (503).
        case full
        /// This client holds ``Limits/maxStreamsPerClient`` already (429).
        case clientAtLimit
    }

    /// A stream reply for a request, or why none is opened.
    /// - Parameters:
    ///   - head: the status and header fields (`Content-Type: text/event-stream`, …); its body, if
    ///     any, is the stream's first bytes (a comment saying it is connected, a `retry:` field).
    ///   - rendition: which of each event's renditions this stream is written in.
    ///   - resumingAfter: the position of the last event the client has (from `Last-Event-ID`).
    ///   - client: who asks (its address without the port): at most ``Limits/maxStreamsPerClient`` each.
    public func open(_ head: HTTPResponse, rendition: Int, resumingAfter: UInt64?, client: String) -> Result<HTTPReply, Refusal> {
        let admitted = openByClient.withLock { open in
            guard open[client, default: 0] < limits.maxStreamsPerClient else { return false }
            open[client, default: 0] += 1
            return true
        }
        guard admitted else { return .failure(.clientAtLimit) }
        let (_, now) = openCount.add(1, ordering: .relaxed)
        guard now <= limits.maxStreams else {
            openCount.subtract(1, ordering: .relaxed)
            release(client)
            return .failure(.full)
        }
        return .success(.stream(HTTPStream(channel: self, head: head, rendition: rendition, resumingAfter: resumingAfter, client: client)))
    }

    private func release(_ client: String) {
        openByClient.withLock { open in
            let left = open[client, default: 1] - 1
            open[client] = left > 0 ? left : nil
        }
    }

    /// Registers `loop` as serving streams of this channel (once per loop), then says where a new
    /// stream starts and what it must be sent first. Registering first means no event can fall
    /// between the two: one published before is in the history read here, one after reaches the loop.
    func join(
        _ loop: EventLoop, registering: Bool, rendition: Int, after: UInt64?
    ) -> (position: UInt64, catchUp: [UInt8], resets: [[UInt8]]) {
        state.withLock { s in
            if registering { s.loops.append(loop) }
            guard let after, after != s.latest else { return (s.latest, [], s.resets) }
            guard after >= s.floor, after < s.latest else { return (s.latest, s.resets[rendition], s.resets) }
            var bytes: [UInt8] = []
            for event in s.held where event.position > after { bytes += event.renditions[rendition] }
            return (s.latest, bytes, s.resets)
        }
    }

    func streamClosed(dropped: Bool, client: String) {
        openCount.subtract(1, ordering: .relaxed)
        release(client)
        if dropped { droppedCount.add(1, ordering: .relaxed) }
    }
}

/// A streamed reply: its head, its channel and where it starts (``HTTPEventChannel/open(_:rendition:resumingAfter:)``).
public struct HTTPStream: Sendable {
    let channel: HTTPEventChannel
    /// The status and fields, and the stream's first bytes (a responder sets `route`).
    public var head: HTTPResponse
    let rendition: Int
    let resumingAfter: UInt64?
    /// Who holds it, counted against ``HTTPEventChannel/Limits/maxStreamsPerClient``.
    let client: String
}

/// What a connection serving a stream keeps: the channel, the rendition and the position of the
/// last event written, so an event delivered twice (through the history and its message) goes
/// out once.
struct StreamState {
    let channel: HTTPEventChannel
    let client: String
    let rendition: Int
    var position: UInt64
    /// HTTP/1.1 bodies are chunked, so a clean end (the last chunk) differs from a cut connection;
    /// an HTTP/1.0 body ends when the connection closes.
    let chunked: Bool
}

/// What one loop knows of a channel it serves streams of: which of its connections they are
/// (by descriptor), when they next get the heartbeat, and the channel's latest reset frames.
struct LoopStreams {
    let channel: HTTPEventChannel
    var descriptors: Set<Int32> = []
    var nextHeartbeat: LoopClock.Instant
    var resets: [[UInt8]] = []
}

extension Array where Element == UInt8 {
    /// Appends `bytes` as one chunk (RFC 9112 §7.1) when `chunked`, else as they are.
    mutating func appendFramed(_ bytes: [UInt8], chunked: Bool) {
        guard !bytes.isEmpty else { return }
        guard chunked else { return append(contentsOf: bytes) }
        append(utf8: String(bytes.count, radix: 16))
        append(literal: "\r\n")
        append(contentsOf: bytes)
        append(literal: "\r\n")
    }
}
