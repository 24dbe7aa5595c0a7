import CTrellisLinux
import Dispatch
import Foundation
import Logging
import Prometheus
import Synchronization
import TrellisAnswers
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisStore

/// Why a server cannot start (or `trellis validate` refuses): a configuration or runtime state
/// that does not validate, a store that cannot be opened, a data directory that cannot be written.
/// A running Trellis: the snapshot loaded from a configuration directory, served over HTTP,
/// reloaded on demand, and drained on shutdown.
public final class Application: Sendable {
    public let configuration: ServerConfiguration
    public let loader: ConfigLoader
    public let state: ServerState
    /// Runtime changes: the store, the admin writes, the reloads.
    public let control: ControlPlane
    private let server: HTTPServer
    /// The admin API's own listener when `admin.port` is set; nil when it shares the public port.
    private let adminServer: HTTPServer?
    /// Follows the shared store (LISTEN and a periodic check); nil with the embedded store.
    private let follower: StoreFollower?
    /// The one writer of the runtime state, whose scheduled work (rollout schedules, change
    /// requests due) a timer runs.
    let runtime: Runtime
    /// Runs the runtime's scheduled work every ``schedulerInterval``, from ``start()`` to ``shutdown()``.
    private let scheduler = Mutex<(any DispatchSourceTimer)?>(nil)
    /// Sends the audit log's events to webhooks, while this replica holds the delivery lease.
    private let deliverer: WebhookDeliverer
    /// Applies `storage.retention`; nil when it keeps everything (the default).
    private let retention: RetentionSweeper?
    /// Apps' events and the exposures the server records, on their way into the event store.
    let tracking: Tracking
    /// Halts what guards find regressed, while this replica holds the `guards` lease.
    let guardRunner: GuardRunner
    private let logger: Logger
    /// Every route this application answers, public and admin (the OpenAPI test compares them).
    public let routeTable: [(method: HTTPMethod, pattern: String)]

    /// Loads the configuration directory and the runtime store in the data directory; nothing is
    /// served unless both are valid together.
    /// - Throws: ``StartError`` listing every problem of every file.
    public init(
        configDirectory: URL, configuration: ServerConfiguration, logger: Logger, metrics: PrometheusCollectorRegistry,
        clock localClock: @escaping @Sendable () -> Double = ServerState.wallClock
    ) throws(StartError) {
        self.configuration = configuration
        // Replicas of a shared store decide what is due by the database's clock, not their own.
        let databaseClock = configuration.storage.url == nil ? nil : DatabaseClock(local: localClock)
        let clock: @Sendable () -> Double
        if let databaseClock { clock = { databaseClock.now() } } else { clock = localClock }
        self.logger = logger
        // OpenSSL reads the system's certificate authorities, tens of milliseconds a start would
        // otherwise wait for, while the runtime store is read on one core.
        let webhookCAFile = configuration.admin.webhookCAFile
        let webhookTLSContext = BackgroundResult { () throws(TLSError) in try TLSClientContext(extraAuthorities: webhookCAFile) }
        // A refused start must not exit while OpenSSL is still loading authorities on that thread.
        defer { webhookTLSContext.wait() }
        loader = ConfigLoader(
            directory: configDirectory, cacheBudget: CacheBudget(configuration.cache), defaultLocale: configuration.strings.defaultLocale)
        do { try Self.prepareDataDirectory(configuration.dataDirectory) } catch { throw .dataDirectory("\(error)") }
        let http = Self.httpConfiguration(configuration)
        if let url = configuration.storage.url {
            let store: PostgresStore
            let localCopy: SQLiteStore
            do {
                store = try PostgresStore(connectingLater: url)
                localCopy = try SQLiteStore(path: configuration.dataDirectory + "/" + Self.localCopyFileName)
            } catch {
                throw .store(error)
            }
            // The first reading of the database's clock; while it is down, the follower's polls take it.
            _ = try? databaseClock?.latestSequence(of: store)
            let started = try ControlPlane.startReplica(loader: loader, store: store, localCopy: localCopy, now: clock(), logger: logger)
            state = ServerState(
                published: PublishedSnapshot(started.snapshot), configuration: configuration, metrics: metrics,
                concurrentLayouts: http.eventLoopCount, clock: clock, changeSequence: started.sequence)
            state.storeHealth.update { report in
                report.origin = started.origin
                report.reachable = started.origin == .store
                report.clockAheadSeconds = databaseClock?.localAheadSeconds
                if started.origin != .store { report.upToDateAt = 0 }
            }
            control = ControlPlane(
                store: store, state: state, loader: loader, baseline: started.baseline, logger: logger, localCopy: localCopy,
                databaseClock: databaseClock, appliedSequence: started.sequence)
            do {
                follower = try StoreFollower(control: control, url: url, pollSeconds: configuration.storage.pollSeconds, logger: logger)
            } catch {
                throw .store(error)
            }
        } else {
            let store: SQLiteStore
            do {
                store = try SQLiteStore(path: configuration.dataDirectory + "/" + SQLiteStore.fileName)
            } catch {
                throw .store(error)
            }
            let started = try ControlPlane.start(loader: loader, store: store, now: clock())
            state = ServerState(
                published: PublishedSnapshot(started.snapshot), configuration: configuration, metrics: metrics,
                concurrentLayouts: http.eventLoopCount, clock: clock, changeSequence: started.sequence)
            control = ControlPlane(
                store: store, state: state, loader: loader, baseline: started.baseline, logger: logger, appliedSequence: started.sequence)
            follower = nil
        }
        let webhookTLS: TLSClientContext
        do { webhookTLS = try webhookTLSContext.get() } catch {
            throw .config(ConfigLoadError(errors: [DiagnosticsError(source: "settings", diagnostics: [
                Diagnostic(path: ServerConfiguration.path(of: "admin.webhookCAFile"), location: .unknown, message: error.description)
            ])]))
        }
        deliverer = WebhookDeliverer(
            store: control.store, published: state.published, webhooks: configuration.admin.webhooks,
            retrySeconds: configuration.admin.webhookRetrySeconds,
            holder: Self.holder(configuration),
            transport: WebhookHTTPClient(tls: webhookTLS, allowPrivate: configuration.admin.webhookAllowPrivate), clock: clock,
            metricsFactory: state.metricsFactory, logger: logger)
        let events: any EventStore
        do { events = try Self.openEventStore(configuration, connectingLater: true) } catch { throw .store(error) }
        tracking = Tracking(
            store: events, limits: configuration.events.readerLimits,
            exposureFlushInterval: .milliseconds(Int(configuration.events.exposureFlushSeconds * 1000)), logger: logger,
            metricsFactory: state.metricsFactory)
        retention = configuration.storage.retention.isEnabled ? RetentionSweeper(
            store: control.store, events: events, published: state.published, retention: configuration.storage.retention,
            configuredWebhooks: configuration.admin.webhooks, clock: clock,
            metricsFactory: state.metricsFactory, logger: logger) : nil
        var settings = Runtime.Settings(configuration.admin)
        settings.lintErrors = configuration.lint.errors
        let runtime = Runtime(control: control, settings: settings)
        self.runtime = runtime
        guardRunner = GuardRunner(
            runtime: runtime, events: events, holder: Self.holder(configuration), interval: configuration.events.guardIntervalSeconds, logger: logger)
        let admin = AdminEndpoints(
            state: state, runtime: runtime, access: AdminAccess(
                configuration: configuration.admin, published: state.published, clock: clock, trustedProxies: configuration.trustedProxies),
            tracking: tracking, guardRunner: guardRunner)
        let console = ConsoleAssets.bundled()
        // Configuration directories made before the console moved into the binary carry a copy of
        // it, which nothing reads any more: say so, or an edit to it would seem to do nothing.
        let oldConsole = configDirectory.appendingPathComponent("console", isDirectory: true).path
        if FileManager.default.fileExists(atPath: oldConsole) {
            logger.warning("ignored: the console is served from the binary; delete this copy", metadata: ["path": "\(oldConsole)"])
        }
        if let adminPort = configuration.admin.port {
            let publicResponder = TrellisResponder(state: state, control: control, readers: admin.access, tracking: tracking)
            let adminResponder = TrellisResponder(adminOnly: admin, console: console)
            server = HTTPServer(configuration: http, responder: publicResponder, logger: logger, metricsFactory: state.metricsFactory)
            var adminHTTP = http
            adminHTTP.port = adminPort
            adminHTTP.tls = configuration.tls.admin ? configuration.tls.pair.map {
                HTTPServer.Configuration.TLS(certificatePath: $0.certificate, privateKeyPath: $0.privateKey, port: nil)
            } : nil
            adminServer = HTTPServer(configuration: adminHTTP, responder: adminResponder, logger: logger, metricsFactory: state.metricsFactory)
            routeTable = publicResponder.router.table + adminResponder.router.table
        } else {
            let responder = TrellisResponder(state: state, control: control, admin: admin, console: console, tracking: tracking)
            server = HTTPServer(configuration: http, responder: responder, logger: logger, metricsFactory: state.metricsFactory)
            adminServer = nil
            routeTable = responder.router.table
        }
    }

    /// How often the scheduler looks for due work: a schedule step or a change request applies
    /// within this of its time.
    static let schedulerInterval = DispatchTimeInterval.seconds(1)

    /// Applies the rollout schedule steps and approved change requests whose time has come (the
    /// scheduler does every ``schedulerInterval``), and waits until they are published.
    public func runScheduledWork() {
        runtime.runScheduledWork()
    }


    /// One allocator arena per core, not glibc's eight: a start decodes on every core, prepares
    /// on every core again, and each thread's arena keeps its own pieces of what was freed, so
    /// fewer arenas hold less at rest for the same start and request times (`scripts/bench-memory`).
    /// The price, now and then: glibc hands arenas out as threads first allocate, and a decode
    /// worker may share the main thread's arena, a core idle while it decodes. For the serving
    /// process only (`trellis serve`); call before any thread allocates.
    public static func limitAllocatorArenas() {
        _ = mallopt(M_ARENA_MAX, Int32(max(2, ProcessInfo.processInfo.activeProcessorCount)))
    }

    /// Who this process is in the store's leases: the same for a restart of the same node (host
    /// and data directory), so that it takes its leases back at once.
    static func holder(_ configuration: ServerConfiguration) -> String {
        ProcessInfo.processInfo.hostName + ":" + URL(fileURLWithPath: configuration.dataDirectory).standardizedFileURL.path
    }

    /// Where apps' events are kept: `events.sqlite` in the data directory, or the tables of the
    /// shared PostgreSQL database (`storage.url`) every replica writes to.
    /// - Parameter connectingLater: a replica starts while PostgreSQL is down; events are refused
    ///   (503) until it is back.
    public static func openEventStore(_ configuration: ServerConfiguration, connectingLater: Bool = false) throws(StoreError) -> any EventStore {
        if let url = configuration.storage.url {
            return connectingLater ? try PostgresEventStore(connectingLater: url) : try PostgresEventStore(url: url)
        }
        return try SQLiteEventStore(path: configuration.dataDirectory + "/" + SQLiteEventStore.fileName)
    }

    /// The file a replica keeps its copy of the shared store's rows in, in the data directory.
    public static let localCopyFileName = "trellis-replica.sqlite"

    /// Starts serving (and the admin listener, when it has its own port).
    public func start() throws {
        try server.start()
        follower?.start()
        let runtime = self.runtime
        let queue = control.writeQueue
        scheduler.withLock { scheduler in
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + Self.schedulerInterval, repeating: Self.schedulerInterval, leeway: .milliseconds(100))
            timer.setEventHandler { runtime.runDueWork() }
            timer.activate()
            scheduler = timer
        }
        deliverer.start()
        retention?.start()
        tracking.serverExposures.start()
        guardRunner.start()
        ScreenPreparation.returnFreedMemory()
        do {
            try adminServer?.start()
        } catch {
            server.shutdown()
            throw error
        }
        let screens = state.published.snapshot.screens.count
        var metadata: Logger.Metadata = [
            "host": "\(configuration.host)", "port": "\(server.port)", "screens": "\(screens)",
            "cacheMaxBytes": "\(loader.cacheBudget.maxBytes)",
        ]
        if let tlsPort = server.tlsPort { metadata["tlsPort"] = "\(tlsPort)" }
        if let adminServer { metadata["adminPort"] = "\(adminServer.port)" }
        logger.info("serving", metadata: metadata)
    }

    /// The bound port (useful when the configuration asked for port 0).
    public var port: Int { server.port }
    /// The public API's TLS port (`tls.port`, as bound); nil without it.
    public var tlsPort: Int? { server.tlsPort }
    /// The admin API's bound port: its own when `admin.port` is set, else the public one.
    public var adminPort: Int { adminServer?.port ?? server.port }

    /// Builds a new snapshot from the configuration directory and the runtime state over it, and
    /// publishes it only if both are valid; otherwise logs every error and keeps serving the
    /// current one. Changed screen files become new revisions, recorded in the store and audited.
    @discardableResult
    public func reload() -> Result<Snapshot, ConfigLoadError> {
        reloadTLS()
        let result = control.reload()
        switch result {
        case .success(let snapshot):
            logger.info("reloaded", metadata: ["generation": "\(snapshot.generation)", "screens": "\(snapshot.screens.count)"])
            ScreenPreparation.returnFreedMemory()
        case .failure(let error):
            for line in error.description.split(separator: "\n") {
                logger.error("reload refused; still serving the previous configuration", metadata: ["problem": "\(line)"])
            }
        }
        return result
    }

    /// Reads the TLS certificate and key again for new handshakes (open connections keep theirs);
    /// a pair OpenSSL refuses is logged and the one in use keeps serving.
    public func reloadTLS() {
        for (name, server) in [("public", Optional(server)), ("admin", adminServer)] {
            guard let server, server.configuration.tls != nil else { continue }
            do {
                try server.reloadTLS()
            } catch {
                logger.error("TLS reload refused; still serving the previous certificate",
                             metadata: ["listener": "\(name)", "problem": "\(error)"])
            }
        }
    }

    /// Stops accepting, reports not-ready, lets in-flight requests finish within the drain time.
    public func shutdown() {
        state.beginDraining()
        follower?.stop()
        scheduler.withLock { $0?.cancel() }
        deliverer.stop()
        retention?.stop()
        guardRunner.stop()
        logger.info("draining", metadata: ["drainTimeoutSeconds": "\(configuration.limits.drainTimeoutSeconds)"])
        server.shutdown()
        adminServer?.shutdown()
    }

    /// Opens the access-log file anew (logrotate moved it; `SIGUSR1`), once every event loop has
    /// written the lines it held to the file open before. Standard output is left as is.
    public func reopenAccessLog() {
        let done = server.reopenAccessLog() && (adminServer?.reopenAccessLog() ?? true)
        if done {
            logger.info("access log reopened", metadata: ["path": "\(configuration.accessLogPath ?? "standard output")"])
        } else {
            logger.error("access log reopen did not finish within 5 s")
        }
    }

    public func waitUntilStopped() {
        server.waitUntilStopped()
        adminServer?.waitUntilStopped()
        // After the last request: the exposures gathered since the last flush are written.
        tracking.serverExposures.stop()
    }

    /// The HTTP server's settings from ours; the rest keep TrellisHTTP's defaults.
    static func httpConfiguration(_ c: ServerConfiguration) -> HTTPServer.Configuration {
        func duration(_ seconds: Double) -> Duration { .milliseconds(Int64((seconds * 1000).rounded())) }
        var http = HTTPServer.Configuration()
        http.host = c.host
        http.port = c.port
        http.accessLog = c.accessLog
        http.accessLogFormat = AccessLogFormat(rawValue: c.accessLogFormat) ?? .text
        http.accessLogPath = c.accessLogPath
        http.http2 = c.http2
        http.maxRequestLineBytes = c.limits.maxRequestLineBytes
        http.maxHeaderBytes = c.limits.maxHeaderBytes
        http.maxHeaderCount = c.limits.maxHeaderCount
        http.maxBodyBytes = c.limits.maxBodyBytes
        http.headTimeout = duration(c.limits.headerTimeoutSeconds)
        http.bodyTimeout = duration(c.limits.bodyTimeoutSeconds)
        http.sendTimeout = duration(c.limits.sendTimeoutSeconds)
        http.keepAliveTimeout = duration(c.limits.keepAliveTimeoutSeconds)
        http.maxConnections = c.limits.maxConnections
        http.maxRequestsPerConnection = c.limits.maxRequestsPerConnection
        http.drainTimeout = duration(c.limits.drainTimeoutSeconds)
        if let tlsPort = c.tls.port, let pair = c.tls.pair {
            http.tls = .init(certificatePath: pair.certificate, privateKeyPath: pair.privateKey, port: tlsPort)
        }
        return http
    }

    static func prepareDataDirectory(_ path: String) throws {
        // Made for its owner alone: the store in it holds token hashes and webhook secrets.
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard FileManager.default.isWritableFile(atPath: path) else {
            throw DataDirectoryError(path: path)
        }
    }

    public struct DataDirectoryError: Error, CustomStringConvertible {
        public var path: String
        public var description: String { "data directory \(path) is not writable" }
    }
}
