#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Logging
import Metrics
import Synchronization

/// An HTTP/1.1 server on POSIX sockets and epoll (RFC 9112). It calls one `HTTPResponder`
/// synchronously for each request, on the event loop thread that owns the connection; a
/// responder that answers later (`HTTPReply.deferred`) has its response written by that loop too.
///
/// ```swift
/// let server = HTTPServer(configuration: config, responder: app, logger: logger)
/// try server.start()
/// // … on SIGTERM: server.shutdown()
/// server.waitUntilStopped()
/// ```
public final class HTTPServer: Sendable {
    public let configuration: Configuration
    private let responder: any HTTPResponder
    let logger: Logger
    private let metricsFactory: any MetricsFactory
    let state = Mutex<State>(State())
    private let stopped = DispatchGroup()

    struct State {
        var core: ServerCore?
        var port = 0
        var connectionLimit = 0
        var shutdownRequested = false
        /// The bound TLS port: `tls.port`'s, or `port` when the main listener speaks TLS.
        var tlsPort: Int?
        /// The context new handshakes use (replaced by `reloadTLS()` and by ticket-key rotation).
        var tlsContext: TLSContext?
        var ticketKeyTimer: (any DispatchSourceTimer)?
    }

    /// - Parameters:
    ///   - configuration: addresses, limits and timeouts; validated by `start()`.
    ///   - responder: called synchronously for every request, on the connection's loop thread.
    ///   - logger: server events (the access log has its own destination, `accessLogPath`).
    public convenience init(configuration: Configuration, responder: some HTTPResponder, logger: Logger) {
        self.init(configuration: configuration, responder: responder, logger: logger, metricsFactory: MetricsSystem.factory)
    }

    /// Records metrics through `metricsFactory` instead of the bootstrapped system, so that an
    /// application (or a test) reports them in the registry it serves.
    public init(configuration: Configuration, responder: some HTTPResponder, logger: Logger, metricsFactory: any MetricsFactory) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.metricsFactory = metricsFactory
    }

    /// The port the server listens on; with `port: 0`, the one the kernel chose. 0 before `start()`.
    public var port: Int { state.withLock { $0.port } }

    /// The port TLS is served on: `tls.port` (as bound), or `port` when it speaks TLS only; nil
    /// without TLS or before `start()`.
    public var tlsPort: Int? { state.withLock { $0.tlsPort } }

    /// The most connections open at once: `maxConnections`, or what `start()` sized from the
    /// descriptor limit. 0 before `start()`.
    public var connectionLimit: Int { state.withLock { $0.connectionLimit } }

    /// Validates the configuration, raises the descriptor limit, opens the access log, binds every
    /// listener and starts the event loops.
    /// - Throws: `HTTPServer.ConfigurationError` for an invalid configuration, `HTTPServerError`
    ///   when a socket cannot be bound (for example "bind 127.0.0.1:8080: Address already in use")
    ///   or the access log cannot be opened ("open access log /var/log/trellis/access.log: …").
    public func start() throws {
        try configuration.validate()
        signal(SIGPIPE, SIG_IGN)  // writes use MSG_NOSIGNAL too; this covers any other path
        // A bad certificate or key stops the start before any socket is bound.
        let tlsContext = try configuration.tls.map { tls throws(TLSError) in
            try TLSContext(certificatePath: tls.certificatePath, privateKeyPath: tls.privateKeyPath, settings: tls, http2: configuration.http2)
        }
        let connectionLimit = sizeConnectionLimit()
        var loops: [EventLoop] = []
        do {
            for i in 0..<configuration.eventLoopCount {
                let accessLog = configuration.accessLog ? try AccessLogWriter(configuration: configuration, logger: logger) : nil
                loops.append(try EventLoop(index: i, metricsFactory: metricsFactory, accessLog: accessLog))
            }
        } catch {
            loops.forEach { $0.discard() }
            throw error
        }
        var listeners: [Int32], port: Int
        var tlsListeners: [Int32] = [], tlsPort: Int?
        do {
            (listeners, port) = try bindListeners(port: configuration.port)
            if let tls = configuration.tls {
                if let separate = tls.port {
                    do {
                        (tlsListeners, tlsPort) = try bindListeners(port: separate)
                    } catch {
                        listeners.forEach { close($0) }
                        throw error
                    }
                    listeners += tlsListeners
                } else {
                    (tlsListeners, tlsPort) = (listeners, port)
                }
            }
        } catch {
            loops.forEach { $0.discard() }
            throw error
        }
        let core = ServerCore(configuration: configuration, responder: responder, logger: logger, listeners: listeners,
                              tlsListeners: tlsListeners, loops: loops, maxConnections: connectionLimit, stopped: stopped,
                              metricsFactory: metricsFactory)
        let alreadyStarted = state.withLock { s -> Bool in
            if s.core != nil { return true }
            s.core = core
            s.port = port
            s.tlsPort = tlsPort
            s.tlsContext = tlsContext
            s.connectionLimit = connectionLimit
            return false
        }
        guard !alreadyStarted else {
            listeners.forEach { close($0) }
            throw HTTPServerError(operation: "start", address: "server already started", errno: EALREADY)
        }
        for loop in loops {
            loop.core = core
            loop.tlsContext = tlsContext
            stopped.enter()
            spawnThread { loop.run() }
        }
        var metadata: Logger.Metadata = [
            "host": .string(configuration.host), "port": .stringConvertible(port),
            "maxConnections": .stringConvertible(connectionLimit),
        ]
        if let tlsPort { metadata["tlsPort"] = .stringConvertible(tlsPort) }
        logger.info("HTTP server listening", metadata: metadata)
        if let tls = configuration.tls { startTicketKeyRotation(every: tls.ticketKeyLifetime) }
    }

    /// Raises the soft descriptor limit to the hard one and sizes the connection limit from it
    /// (unless `maxConnections` is set); logs what it did.
    private func sizeConnectionLimit() -> Int {
        let (before, after) = DescriptorLimit.raiseSoftToHard()
        let limit = configuration.connectionLimit(descriptorLimit: after)
        if after != before {
            logger.info("descriptor limit raised", metadata: ["from": .stringConvertible(before), "to": .stringConvertible(after)])
        }
        if limit > after - configuration.reservedDescriptors {
            logger.warning("maxConnections is above the descriptor limit; accepts will fail with EMFILE before it is reached",
                           metadata: ["maxConnections": .stringConvertible(limit), "descriptorLimit": .stringConvertible(after)])
        }
        return limit
    }

    /// Opens the access-log file anew in every event loop, each first writing the lines it holds to
    /// the file open before: call it after logrotate renamed the file (the application does on
    /// `SIGUSR1`). Returns when every loop has done so (or after 5 s); standard output is left as is.
    /// - Returns: false if some loop did not answer within 5 s.
    @discardableResult
    public func reopenAccessLog() -> Bool {
        guard let core = state.withLock({ $0.core }) else { return true }
        let done = DispatchGroup()
        for loop in core.loops {
            done.enter()
            if !loop.post(.reopenAccessLog(done)) { done.leave() }
        }
        return done.wait(timeout: .now() + 5) == .success
    }

    /// Graceful shutdown, callable from any thread and more than once: stop accepting, close idle
    /// connections, let in-flight requests finish (their responses carry `Connection: close`),
    /// and force-close whatever remains after `drainTimeout`. Returns at once; see `waitUntilStopped()`.
    public func shutdown() {
        let core = state.withLock { s -> ServerCore? in
            s.shutdownRequested = true
            s.ticketKeyTimer?.cancel()
            s.ticketKeyTimer = nil
            return s.core
        }
        core?.beginShutdown()
    }

    /// Blocks the caller until every event loop has stopped and every listener is closed.
    /// Returns at once if the server was never started.
    public func waitUntilStopped() {
        stopped.wait()
    }

    private func bindListeners(port requested: Int) throws -> ([Int32], Int) {
        guard let addresses = ListenAddress.parse(configuration.host) else { throw configurationError() }
        var fds: [Int32] = []
        var port = requested
        do {
            for address in addresses {
                do {
                    let fd = try Socket.listen(address, port: port, backlog: configuration.backlog)
                    fds.append(fd)
                    port = Socket.localPort(fd)
                } catch let error where addresses.count > 1 && address.family == AF_INET6
                    && (error.errno == EAFNOSUPPORT || error.errno == EADDRNOTAVAIL) {
                    logger.warning("IPv6 unavailable; listening on IPv4 only", metadata: ["error": "\(error)"])
                }
            }
        } catch {
            fds.forEach { close($0) }
            throw error
        }
        return (fds, port)
    }

    private func configurationError() -> ConfigurationError {
        ConfigurationError(problems: ["host '\(configuration.host)' is not an IP address, 'localhost', '*' or '::'"])
    }
}

/// What the event loops share: immutable settings plus a few atomics.
/// `Sendable` because every stored property is a `let` of a Sendable type or an `Atomic`.
final class ServerCore: Sendable {
    let configuration: HTTPServer.Configuration
    let responder: any HTTPResponder
    let logger: Logger
    /// Every listening socket, plain and TLS.
    let listeners: [Int32]
    /// The listeners whose connections speak TLS (a subset of `listeners`).
    let tlsListeners: [Int32]
    let loops: [EventLoop]
    let parserLimits: HTTPParserLimits
    let timeouts: ConnectionStateMachine<LoopClock>.Timeouts
    let writerOptions: ResponseWriter.Options
    private let stopped: DispatchGroup
    private let openConnections = Atomic<Int>(0)
    private let roundRobin = Atomic<Int>(0)
    private let draining = Atomic<Bool>(false)
    private let loopsHoldingListeners: Atomic<Int>
    /// The connection limit in force (`Configuration.connectionLimit(descriptorLimit:)`).
    let maxConnections: Int
    /// Counted up and down rather than set, so that every server of a process (an application
    /// with its admin listener) adds to one figure instead of overwriting it.
    private let openConnectionsMeter: Meter
    private let droppedReplies: Counter
    private let reclaimedSilent: Counter
    private let reclaimedKeptAlive: Counter
    private let refused: Counter

    init(configuration: HTTPServer.Configuration, responder: any HTTPResponder, logger: Logger, listeners: [Int32],
         tlsListeners: [Int32], loops: [EventLoop], maxConnections: Int, stopped: DispatchGroup, metricsFactory: any MetricsFactory) {
        openConnectionsMeter = Meter(label: "http_open_connections", factory: metricsFactory)
        droppedReplies = Counter(label: "http_deferred_replies_dropped_total", factory: metricsFactory)
        reclaimedSilent = Counter(label: "http_connections_reclaimed_total", dimensions: [("state", "silent")], factory: metricsFactory)
        reclaimedKeptAlive = Counter(label: "http_connections_reclaimed_total", dimensions: [("state", "keepalive")], factory: metricsFactory)
        refused = Counter(label: "http_connections_refused_total", factory: metricsFactory)
        self.maxConnections = maxConnections
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.listeners = listeners
        self.tlsListeners = tlsListeners
        self.loops = loops
        self.stopped = stopped
        loopsHoldingListeners = Atomic(loops.count)
        parserLimits = configuration.parserLimits
        timeouts = .init(
            head: configuration.headTimeout, body: configuration.bodyTimeout,
            keepAlive: configuration.keepAliveTimeout, send: configuration.sendTimeout,
            linger: configuration.lingerTimeout, drain: configuration.drainTimeout)
        writerOptions = .init(gzipMinimumBytes: configuration.gzipMinimumBytes, gzipLevel: configuration.gzipLevel)
    }

    var isDraining: Bool { draining.load(ordering: .relaxed) }

    func beginShutdown() {
        guard !draining.exchange(true, ordering: .acquiringAndReleasing) else { return }
        logger.info("HTTP server draining", metadata: ["drain_timeout": "\(configuration.drainTimeout)"])
        for loop in loops { loop.post(.drain) }
    }

    /// Counts a new connection; false when `maxConnections` are already open.
    func reserveConnection() -> Bool {
        let (_, now) = openConnections.add(1, ordering: .relaxed)
        if now > maxConnections {
            openConnections.subtract(1, ordering: .relaxed)
            return false
        }
        openConnectionsMeter.increment()
        return true
    }

    func connectionClosed() {
        openConnections.subtract(1, ordering: .relaxed)
        openConnectionsMeter.decrement()
    }

    /// An idle connection was closed so that a newcomer could have its slot.
    func connectionReclaimed(silent: Bool) {
        (silent ? reclaimedSilent : reclaimedKeptAlive).increment()
    }

    /// A newcomer was closed at once: every slot was taken and no connection was idle.
    func connectionRefused() {
        refused.increment()
    }

    /// A deferred reply had nowhere to go (its client left, the drain deadline closed the
    /// connection, or the loop stopped): nothing is sent; it is counted and logged at debug.
    /// Called from the loop's thread or from the work's queue.
    func replyDropped(_ ticket: ReplyTicket, because reason: String) {
        droppedReplies.increment()
        logger.debug("deferred reply dropped: \(reason)", metadata: ["request-id": .string(ticket.requestID)])
    }

    func nextLoop() -> EventLoop {
        let (_, n) = roundRobin.add(1, ordering: .relaxed)
        return loops[n % loops.count]
    }

    /// A draining loop stopped watching the listeners; the last one closes them, so no loop can
    /// ever call `accept` on a closed (and maybe reused) descriptor.
    func listenerReleased() {
        let (_, left) = loopsHoldingListeners.subtract(1, ordering: .acquiringAndReleasing)
        if left == 0 { listeners.forEach { close($0) } }
    }

    func loopStopped() {
        stopped.leave()
    }
}
