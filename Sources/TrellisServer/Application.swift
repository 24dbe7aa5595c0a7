import Dispatch
import Foundation
import Logging
import Prometheus
import TrellisHTTP
import TrellisJSON

/// A running Trellis: the snapshot loaded from a configuration directory, served over HTTP,
/// reloaded on demand, and drained on shutdown.
public final class Application: Sendable {
    public let configuration: ServerConfiguration
    public let loader: ConfigLoader
    public let state: ServerState
    private let server: HTTPServer
    private let logger: Logger
    /// Serialises reloads so two SIGHUPs never build snapshots from the same predecessor.
    private let reloadQueue = DispatchQueue(label: "trellis.reload")

    /// Loads the configuration directory; nothing is served unless every file is valid.
    /// - Throws: `ConfigLoadError` listing every problem of every file.
    public init(
        configDirectory: URL, configuration: ServerConfiguration, logger: Logger,
        metrics: PrometheusCollectorRegistry
    ) throws(ConfigLoadError) {
        self.configuration = configuration
        self.logger = logger
        loader = ConfigLoader(directory: configDirectory)
        let snapshot = try loader.load(previous: nil).get()
        state = ServerState(store: SnapshotStore(snapshot), configuration: configuration, metrics: metrics)
        server = HTTPServer(
            configuration: Self.httpConfiguration(configuration), responder: TrellisResponder(state: state), logger: logger)
    }

    /// Makes sure the data directory exists and is writable, then starts serving.
    public func start() throws {
        try Self.prepareDataDirectory(configuration.dataDirectory)
        try server.start()
        let screens = state.store.snapshot.screens.count
        logger.info("serving", metadata: ["host": "\(configuration.host)", "port": "\(server.port)", "screens": "\(screens)"])
    }

    /// The bound port (useful when the configuration asked for port 0).
    public var port: Int { server.port }

    /// Builds a new snapshot from the configuration directory and publishes it only if every file
    /// is valid; otherwise logs every error and keeps serving the current one.
    @discardableResult
    public func reload() -> Result<Snapshot, ConfigLoadError> {
        reloadQueue.sync {
            let result = loader.load(previous: state.store.snapshot)
            switch result {
            case .success(let snapshot):
                state.store.publish(snapshot)
                logger.info("reloaded", metadata: ["generation": "\(snapshot.generation)", "screens": "\(snapshot.screens.count)"])
            case .failure(let error):
                for line in error.description.split(separator: "\n") {
                    logger.error("reload refused; still serving the previous configuration", metadata: ["problem": "\(line)"])
                }
            }
            return result
        }
    }

    /// Stops accepting, reports not-ready, lets in-flight requests finish within the drain time.
    public func shutdown() {
        state.beginDraining()
        logger.info("draining", metadata: ["drainTimeoutSeconds": "\(configuration.limits.drainTimeoutSeconds)"])
        server.shutdown()
    }

    public func waitUntilStopped() { server.waitUntilStopped() }

    /// The HTTP server's settings from ours; the rest keep TrellisHTTP's defaults.
    static func httpConfiguration(_ c: ServerConfiguration) -> HTTPServer.Configuration {
        func duration(_ seconds: Double) -> Duration { .milliseconds(Int64((seconds * 1000).rounded())) }
        var http = HTTPServer.Configuration()
        http.host = c.host
        http.port = c.port
        http.accessLog = c.accessLog
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
        return http
    }

    static func prepareDataDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard FileManager.default.isWritableFile(atPath: path) else {
            throw DataDirectoryError(path: path)
        }
    }

    public struct DataDirectoryError: Error, CustomStringConvertible {
        public var path: String
        public var description: String { "data directory \(path) is not writable" }
    }
}
