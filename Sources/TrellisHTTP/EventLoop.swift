#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Logging
import Synchronization
import CTrellisLinux
import Metrics

/// One thread, one epoll set, a share of the connections (see docs/http.md for why epoll and not
/// one DispatchSource per connection). Every connection lives and dies on its loop's thread:
/// read, parse, respond and write happen there synchronously, with no hop to another executor.
///
/// `@unchecked Sendable`: the server, the other loops and deferred work hold references to post
/// messages, but they only touch `inbox` (behind a `Mutex`, which also guards the write to
/// `wakeFD`). Every other stored property is read and written only by the loop's own thread,
/// inside `run()`; `core` is set once before that thread starts.
final class EventLoop: @unchecked Sendable {
    enum Message: Sendable {
        /// `tls`: accepted on a TLS listener.
        case adopt(fd: Int32, remote: String, tls: Bool)
        /// A connection accepted while every slot was taken: adopted if this loop can reclaim an
        /// idle connection for it, else passed on (`hopsLeft` more loops) or closed.
        case adoptReclaiming(fd: Int32, remote: String, hopsLeft: Int, tls: Bool)
        /// New TLS handshakes use this context (`HTTPServer.reloadTLS()`).
        case replaceTLSContext(TLSContext)
        /// Write the buffered access-log lines, open the log file anew, then leave `done`.
        case reopenAccessLog(DispatchGroup)
        case drain
        /// A deferred reply, back from its queue, for the connection the ticket names.
        case reply(ReplyTicket, HTTPResponse)
        /// An event for this loop's streams of the channel.
        case event(HTTPEventChannel, HTTPEventChannel.Event)
    }

    let index: Int
    let epollFD: Int32
    let wakeFD: Int32
    /// Messages from other threads; `closed` once the loop has exited, so nothing is posted to a
    /// loop that will never read it.
    let inbox = Mutex<(messages: [Message], closed: Bool)>(([], false))
    @exclusivity(unchecked) var core: ServerCore!

    // Loop-confined state: only this loop's thread touches it, so it goes without Swift's
    // dynamic exclusivity checks, as `Connection`'s does.
    @exclusivity(unchecked) private var connections: [Connection?] = []
    /// The serial of the last connection adopted (see `Connection.serial`).
    @exclusivity(unchecked) private var lastSerial: UInt64 = 0
    @exclusivity(unchecked) private(set) var liveConnections = 0
    @exclusivity(unchecked) private(set) var now = LoopClock.Instant.now
    /// `time(2)` when the loop last woke: the second the `Date` header and the access log show.
    @exclusivity(unchecked) private(set) var epochSeconds = 0
    @exclusivity(unchecked) var date = HTTPDateCache()
    /// This loop's access-log buffer and file; nil when the access log is off.
    let accessLog: AccessLogWriter?
    /// Idle connections by descriptor, oldest first: the ones that have sent nothing since they
    /// were accepted, and the kept-alive ones between requests (see `reclaimIdleConnection`).
    @exclusivity(unchecked) private var silent = IdleList()
    @exclusivity(unchecked) private var keptAlive = IdleList()
    /// Output buffers lent to connections while they write (`takeOutputBuffer`), so that an idle
    /// connection holds none and a busy one rarely allocates.
    @exclusivity(unchecked) private var spareOutputBuffers: [[UInt8]] = []
    /// The streams this loop serves, by channel.
    @exclusivity(unchecked) private var streams: [ObjectIdentifier: LoopStreams] = [:]
    private static let spareOutputBufferCount = 32
    private static let spareOutputBufferBytes = 256 * 1024
    let metrics: HTTPMetrics
    @exclusivity(unchecked) var requestIDs: RequestIDGenerator
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    /// Where a TLS connection's pending output is gathered into one piece for `SSL_write`
    /// (OpenSSL has no gathering write); a few records' worth.
    let tlsStaging = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    /// The certificate and policy new TLS connections start with; set before the loop runs,
    /// replaced through the inbox. nil without TLS.
    @exclusivity(unchecked) var tlsContext: TLSContext?
    @exclusivity(unchecked) private var listening = false
    @exclusivity(unchecked) private var draining = false
    @exclusivity(unchecked) private var acceptPausedUntil: LoopClock.Instant?
    private static let tick = Duration.milliseconds(50)
    /// Connections accepted per wake-up of a listener. A burst of new connections (10,000 clients
    /// reconnecting) must leave the listen queue faster than it fills, or the kernel drops SYNs
    /// and those clients wait for the retransmission (1 s, then 3 s) before their first request.
    private static let acceptsPerWakeup = 1024

    init(index: Int, metricsFactory: any MetricsFactory, accessLog: AccessLogWriter?) throws(HTTPServerError) {
        self.index = index
        self.accessLog = accessLog
        metrics = HTTPMetrics(factory: metricsFactory)
        requestIDs = RequestIDGenerator(loop: index)
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw HTTPServerError(operation: "epoll_create1", address: "", errno: errno) }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard wakeFD >= 0 else { throw HTTPServerError(operation: "eventfd", address: "", errno: errno) }
        register(wakeFD, events: TRELLIS_EPOLLIN)
    }

    deinit {
        scratch.deallocate()
        tlsStaging.deallocate()
    }

    /// Releases the descriptors of a loop that never ran (`start()` failed after creating it).
    func discard() {
        accessLog?.close()
        close(epollFD)
        close(wakeFD)
    }

    /// Hands `message` to the loop's thread, from any thread.
    /// - Returns: false when the loop has already exited; the caller keeps the message's work.
    @discardableResult
    func post(_ message: Message) -> Bool {
        inbox.withLock { box in
            guard !box.closed else { return false }
            box.messages.append(message)
            // Woken under the lock: the loop closes `wakeFD` only after marking the inbox closed
            // under it, so a late poster (deferred work finishing after the loop stopped) can never
            // write to a closed descriptor, or to whatever reused its number. One wake per batch:
            // the loop takes every queued message once it wakes.
            if box.messages.count == 1 {
                var one: UInt64 = 1
                _ = write(wakeFD, &one, 8)
            }
            return true
        }
    }

    /// The loop body; returns when the loop has drained.
    func run() {
        setListening(true)
        let capacity = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        var nextSweep = now.advanced(by: Self.tick)
        while !(draining && liveConnections == 0) {
            let n = epoll_wait(epollFD, events, Int32(capacity), Int32(Self.tick / .milliseconds(1)))
            now = .now
            epochSeconds = time(nil)
            date.update(epochSeconds: epochSeconds)
            if n > 0 {
                for i in 0..<n { dispatch(fd: trellis_event_fd(events, i), flags: trellis_event_flags(events, i)) }
            }
            accessLog?.flushIfDue(now: now)
            if now >= nextSweep {
                sweep()
                nextSweep = now.advanced(by: Self.tick)
            }
        }
        // A connection another loop accepted for this one just before it drained must not be lost.
        let leftovers = inbox.withLock { box in
            box.closed = true
            defer { box.messages.removeAll() }
            return box.messages
        }
        for message in leftovers {
            switch message {
            case .adopt(let fd, _, _):
                close(fd)
                core.connectionClosed()
            case .adoptReclaiming(let fd, _, _, _):
                close(fd)
                core.connectionRefused()
            case .replaceTLSContext:
                break
            case .reply(let ticket, _):
                core.replyDropped(ticket, because: "the event loop has stopped")
            case .reopenAccessLog(let done):
                done.leave()
            case .drain, .event:
                break
            }
        }
        accessLog?.close()  // every line of this loop is written before the server reports it stopped
        close(epollFD)
        close(wakeFD)
        core.loopStopped()
    }

    private func dispatch(fd: Int32, flags: UInt32) {
        if fd == wakeFD {
            drainInbox()
        } else if core.listeners.contains(fd) {
            acceptConnections(fd)
        } else if fd < connections.count, let connection = connections[Int(fd)] {
            if flags & (TRELLIS_EPOLLOUT | TRELLIS_EPOLLERR | TRELLIS_EPOLLHUP) != 0, connection.hasPendingOutput {
                connection.onWritable(self)
            }
            if flags & (TRELLIS_EPOLLIN | TRELLIS_EPOLLERR | TRELLIS_EPOLLHUP) != 0, !connection.isClosed {
                connection.onReadable(self)
            }
        }
    }

    // MARK: - Accepting

    private func acceptConnections(_ listener: Int32) {
        let tls = core.tlsListeners.contains(listener)
        for _ in 0..<Self.acceptsPerWakeup {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Socket.acceptNonBlocking(listener, $0, &length)
                }
            }
            if fd < 0 {
                switch errno {
                case EAGAIN, EWOULDBLOCK: return
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors: stop accepting for a moment instead of spinning.
                    core.logger.error("accept failed: \(String(cString: strerror(errno))); pausing accepts")
                    setListening(false)
                    acceptPausedUntil = now.advanced(by: .milliseconds(100))
                    return
                default:
                    return
                }
            }
            Socket.setNoDelay(fd)
            let remote = Socket.describe(storage)
            guard core.reserveConnection() else {
                adoptReclaiming(fd: fd, remote: remote, hopsLeft: core.loops.count - 1, tls: tls)
                continue
            }
            let target = core.nextLoop()
            if target === self || !target.post(.adopt(fd: fd, remote: remote, tls: tls)) {
                adopt(fd: fd, remote: remote, tls: tls)  // closes it at once if this loop is draining too
            }
        }
    }

    /// A newcomer while `maxConnections` are open: it takes the place of an idle connection of
    /// this loop, or of the next loop (`hopsLeft`), and is closed at once, with no response,
    /// only when no loop has one (existing connections are then unaffected).
    private func adoptReclaiming(fd: Int32, remote: String, hopsLeft: Int, tls: Bool) {
        if !draining && (core.reserveConnection() || reclaimIdleConnection()) {
            return adopt(fd: fd, remote: remote, tls: tls)
        }
        if !draining && hopsLeft > 0 {
            let next = core.loops[(index + 1) % core.loops.count]
            if next.post(.adoptReclaiming(fd: fd, remote: remote, hopsLeft: hopsLeft - 1, tls: tls)) { return }
        }
        core.connectionRefused()  // counted first: the client may look as soon as it is closed
        close(fd)
    }

    /// Closes one idle connection, whose slot under `maxConnections` passes to a newcomer: the one
    /// silent the longest if it has been silent for `silentConnectionGrace`, else the kept-alive
    /// one idle the longest (nginx drains its reusable connections the same way). A connection in
    /// the middle of a request is never chosen.
    /// - Returns: false when this loop has no idle connection to give up.
    private func reclaimIdleConnection() -> Bool {
        adoptPosted()
        while let oldest = first(of: silent) {
            guard oldest.isSilent else { unlinkIdle(oldest); continue }
            guard now - oldest.idle.since >= core.configuration.silentConnectionGrace else { break }
            core.connectionReclaimed(silent: true)
            oldest.close(self, releasingSlot: false)
            return true
        }
        while let oldest = first(of: keptAlive) {
            guard oldest.isIdleBetweenRequests else { unlinkIdle(oldest); continue }
            core.connectionReclaimed(silent: false)
            oldest.close(self, releasingSlot: false)
            return true
        }
        return reclaimStream()
    }

    /// Under pressure, with nothing idle: closes a stream of the client that holds the most on
    /// this loop, so a health check or a request always gets a connection. A stream is the one
    /// kind of busy connection a client gets back whole: it reconnects with `Last-Event-ID`.
    private func reclaimStream() -> Bool {
        var byClient: [String: [Int32]] = [:]
        for entry in streams.values {
            for fd in entry.descriptors {
                if let client = connections[Int(fd)]?.streamClient { byClient[client, default: []].append(fd) }
            }
        }
        guard let heaviest = byClient.max(by: { $0.value.count < $1.value.count }), let fd = heaviest.value.min(),
            let connection = connections[Int(fd)]
        else { return false }
        core.connectionReclaimed(silent: false)
        connection.close(self, releasingSlot: false)
        return true
    }

    /// Adopts the connections already accepted for this loop and waiting in its inbox, before a
    /// newcomer takes an idle connection's place: they came first, so a silent one past its grace
    /// goes before any kept-alive one, as when the loop has caught up with its inbox. (A loop busy
    /// or descheduled can find a newcomer on the listener before the message that brings them.)
    private func adoptPosted() {
        var posted: [(fd: Int32, remote: String, tls: Bool)] = []
        inbox.withLock { box in
            box.messages.removeAll { message in
                guard case .adopt(let fd, let remote, let tls) = message else { return false }
                posted.append((fd, remote, tls))
                return true
            }
        }
        for connection in posted { adopt(fd: connection.fd, remote: connection.remote, tls: connection.tls) }
    }

    private func adopt(fd: Int32, remote: String, tls: Bool) {
        // A TLS connection OpenSSL cannot allocate a session for is closed like one refused.
        let session = tls ? tlsContext.flatMap { TLSSession(context: $0, fd: fd) } : nil
        if draining || (tls && session == nil) {
            session?.free()
            close(fd)
            core.connectionClosed()
            return
        }
        lastSerial += 1
        let connection = Connection(fd: fd, serial: lastSerial, remote: remote, tls: session, loop: self)
        if Int(fd) >= connections.count {
            connections.append(contentsOf: repeatElement(nil, count: Int(fd) + 64 - connections.count))
        }
        connections[Int(fd)] = connection
        liveConnections += 1
        register(fd, events: TRELLIS_EPOLLIN)
        markIdle(connection, .silent)
    }

    /// Forgets and closes a connection (called by the connection itself).
    /// - Parameter releasingSlot: false when a newcomer takes its place under `maxConnections`.
    func remove(_ connection: Connection, releasingSlot: Bool = true) {
        unlinkIdle(connection)
        connections[Int(connection.fd)] = nil
        liveConnections -= 1
        close(connection.fd)  // also removes it from the epoll set
        if releasingSlot { core.connectionClosed() }
    }

    // MARK: - Idle connections

    /// Puts `connection` at the end of `list` (moving it from wherever it was), idle from now.
    func markIdle(_ connection: Connection, _ list: IdleLink.List) {
        unlinkIdle(connection)
        connection.idle = IdleLink(previous: -1, next: -1, list: list, since: now)
        switch list {
        case .silent: silent.append(connection, in: &connections)
        case .keepAlive: keptAlive.append(connection, in: &connections)
        case .none: break
        }
    }

    /// Takes `connection` out of its idle list, if it is in one.
    func unlinkIdle(_ connection: Connection) {
        switch connection.idle.list {
        case .silent: silent.remove(connection, in: &connections)
        case .keepAlive: keptAlive.remove(connection, in: &connections)
        case .none: return
        }
        connection.idle.list = .none
    }

    private func first(of list: IdleList) -> Connection? {
        list.head < 0 ? nil : connections[Int(list.head)]
    }

    // MARK: - Output buffers

    /// An empty buffer with room, from the spares when there is one.
    func takeOutputBuffer() -> [UInt8] {
        spareOutputBuffers.popLast() ?? []
    }

    /// Takes back a connection's written-out buffer (leaving it none); kept as a spare unless
    /// there are enough spares or it grew large.
    func recycleOutputBuffer(_ buffer: inout [UInt8]) {
        guard buffer.capacity > 0 else { return }
        var taken: [UInt8] = []
        swap(&taken, &buffer)
        guard spareOutputBuffers.count < Self.spareOutputBufferCount, taken.capacity <= Self.spareOutputBufferBytes else { return }
        taken.removeAll(keepingCapacity: true)
        spareOutputBuffers.append(taken)
    }

    // MARK: - Messages, timers, drain

    private func drainInbox() {
        var count: UInt64 = 0
        _ = read(wakeFD, &count, 8)
        let messages = inbox.withLock { box in
            defer { box.messages.removeAll() }
            return box.messages
        }
        for message in messages {
            switch message {
            case .adopt(let fd, let remote, let tls): adopt(fd: fd, remote: remote, tls: tls)
            case .adoptReclaiming(let fd, let remote, let hopsLeft, let tls):
                adoptReclaiming(fd: fd, remote: remote, hopsLeft: hopsLeft, tls: tls)
            case .replaceTLSContext(let context): tlsContext = context
            case .reopenAccessLog(let done):
                accessLog?.reopen()
                done.leave()
            case .drain: beginDrain()
            case .reply(let ticket, let response): deliver(response, to: ticket)
            case .event(let channel, let event): deliver(event, of: channel)
            }
        }
    }

    // MARK: - Deferred replies

    /// Runs `work` on `queue` and brings its response back through the inbox, so that only this
    /// loop's thread ever touches the connection and its socket. Called on the loop's thread.
    func runDeferred(_ work: @escaping @Sendable () -> HTTPResponse, on queue: DispatchQueue, replyTo ticket: ReplyTicket) {
        let core: ServerCore = core
        queue.async {
            let response = work()
            if !self.post(.reply(ticket, response)) { core.replyDropped(ticket, because: "the event loop has stopped") }
        }
    }

    /// Starts a pending reply: its completion posts the response back here, once; a second call
    /// finds the flag set and sends nothing.
    func startPending(_ start: @Sendable (HTTPReplyCompletion) -> Void, replyTo ticket: ReplyTicket) {
        let core: ServerCore = core
        let answered = OnceFlag()
        start(
            HTTPReplyCompletion { response in
                guard answered.take() else { return }
                if !self.post(.reply(ticket, response)) { core.replyDropped(ticket, because: "the event loop has stopped") }
            })
    }

    /// Hands a deferred reply to its connection, if that connection is still the one open on the
    /// ticket's descriptor.
    private func deliver(_ response: HTTPResponse, to ticket: ReplyTicket) {
        let slot = Int(ticket.fd)
        guard slot < connections.count, let connection = connections[slot], connection.serial == ticket.serial else {
            return core.replyDropped(ticket, because: "the connection has closed")
        }
        if ticket.stream != 0 {
            connection.replyArrived(response, stream: ticket.stream, self)
        } else {
            connection.replyArrived(response, self)
        }
    }

    // MARK: - Streams

    /// Adds the connection on `fd` to this loop's streams of the stream's channel (registering the
    /// loop with the channel the first time); returns where it starts and what it gets first.
    func joinStream(_ fd: Int32, _ stream: HTTPStream) -> (position: UInt64, catchUp: [UInt8]) {
        let key = ObjectIdentifier(stream.channel)
        let registering = streams[key] == nil
        let joined = stream.channel.join(self, registering: registering, rendition: stream.rendition, after: stream.resumingAfter)
        if registering {
            streams[key] = LoopStreams(
                channel: stream.channel, nextHeartbeat: now.advanced(by: stream.channel.limits.heartbeat), resets: joined.resets)
        }
        streams[key]!.descriptors.insert(fd)
        return (joined.position, joined.catchUp)
    }

    func leaveStream(_ fd: Int32, _ channel: HTTPEventChannel) {
        streams[ObjectIdentifier(channel)]?.descriptors.remove(fd)
    }

    /// Writes `event` to every stream of `channel` on this loop. A stream dropped meanwhile (a slow
    /// reader) leaves the set, so the loop walks a copy.
    private func deliver(_ event: HTTPEventChannel.Event, of channel: HTTPEventChannel) {
        let key = ObjectIdentifier(channel)
        guard streams[key] != nil else { return }
        streams[key]!.resets = event.resets
        for fd in streams[key]!.descriptors { connections[Int(fd)]?.deliver(event, of: channel, self) }
    }

    /// The heartbeat of every channel whose time has come, to each of its streams on this loop.
    private func sendHeartbeats() {
        for (key, entry) in streams where now >= entry.nextHeartbeat {
            streams[key]!.nextHeartbeat = now.advanced(by: entry.channel.limits.heartbeat)
            for fd in entry.descriptors {
                connections[Int(fd)]?.heartbeat(entry.channel.heartbeatFrame, resets: entry.resets, of: entry.channel, self)
            }
        }
    }

    private func beginDrain() {
        guard !draining else { return }
        draining = true
        setListening(false)
        acceptPausedUntil = nil
        core.listenerReleased()
        for case let connection? in connections { connection.beginDrain(self) }
    }

    private func sweep() {
        if let until = acceptPausedUntil, now >= until, !draining {
            acceptPausedUntil = nil
            setListening(true)
        }
        for case let connection? in connections { connection.tick(self) }
        sendHeartbeats()
    }

    private func setListening(_ on: Bool) {
        guard on != listening else { return }
        listening = on
        for fd in core.listeners {
            if on {
                register(fd, events: TRELLIS_EPOLLIN | TRELLIS_EPOLLEXCLUSIVE)
            } else {
                trellis_epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, 0)
            }
        }
    }

    // MARK: - epoll

    func register(_ fd: Int32, events: UInt32) {
        trellis_epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, events)
    }

    func modify(_ fd: Int32, events: UInt32) {
        trellis_epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, events)
    }
}

/// True for the first ``take()`` only, whichever thread asks.
private final class OnceFlag: Sendable {
    private let taken = Atomic<Bool>(false)
    func take() -> Bool { !taken.exchange(true, ordering: .acquiringAndReleasing) }
}

/// Names the connection a deferred reply belongs to. The descriptor alone is not enough: the
/// connection may close, and a new one get the same number, before the work finishes.
struct ReplyTicket: Sendable {
    var fd: Int32
    var serial: UInt64
    /// For the log line when the reply is dropped.
    var requestID: String
    /// The HTTP/2 stream the reply answers; 0 on HTTP/1.1.
    var stream: UInt32 = 0
}

/// A doubly linked list of connections threaded through their `IdleLink`s, by descriptor.
struct IdleList {
    private(set) var head: Int32 = -1
    private var tail: Int32 = -1

    mutating func append(_ connection: Connection, in connections: inout [Connection?]) {
        connection.idle.previous = tail
        connection.idle.next = -1
        if tail >= 0 { connections[Int(tail)]?.idle.next = connection.fd } else { head = connection.fd }
        tail = connection.fd
    }

    mutating func remove(_ connection: Connection, in connections: inout [Connection?]) {
        let (previous, next) = (connection.idle.previous, connection.idle.next)
        if previous >= 0 { connections[Int(previous)]?.idle.next = next } else { head = next }
        if next >= 0 { connections[Int(next)]?.idle.previous = previous } else { tail = previous }
        connection.idle.previous = -1
        connection.idle.next = -1
    }
}
