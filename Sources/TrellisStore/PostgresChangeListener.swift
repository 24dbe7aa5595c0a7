#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization

/// What a ``PostgresChangeListener`` reports, in order, on its own thread.
public enum ListenerEvent: Sendable, Equatable {
    /// Connected and listening (after the first connection and after each reconnection).
    /// Notifications sent while not listening are lost: read everything newer than what was
    /// applied (``RuntimeStore/changes(after:)``) now.
    case listening
    /// A change with this sequence was committed (by any replica, this one included).
    case notified(Int64)
    /// Not listening any more (the connection is gone, or the first one could not be made); the
    /// listener reconnects by itself. Reported once per outage, not for every failed attempt.
    case lost(String)
}

/// Learns of every change committed to a ``PostgresStore``'s database — by any replica — through
/// `LISTEN trellis_changes`, on its own connection and its own thread.
///
/// Why the consumer reads after ``ListenerEvent/listening`` and not before: a change committed
/// between a read and the LISTEN would be neither in what was read nor notified. With the LISTEN
/// first, every commit after it is notified, and the read that follows `.listening` covers every
/// commit before it; a change in both is applied twice, which is harmless (the rows are the same).
///
/// The thread waits on the connection's socket with `poll()` for at most a quarter second, so
/// ``stop()`` returns promptly; a lost connection is reconnected with exponential backoff and full
/// jitter (a random wait up to 0.1 s, then up to 0.2, 0.4 … 5 s), so replicas do not all reconnect
/// at once after an outage.
public final class PostgresChangeListener: Sendable {
    /// `application_name` of the listener's connection, unless the URL names one.
    public static let applicationName = "trellis-listener"
    /// The longest the thread waits on the socket before looking whether it should stop, in milliseconds.
    static let pollIntervalMilliseconds: Int32 = 250
    /// The longest wait between two connection attempts, in seconds, and the first one's.
    static let backoffCeiling = 5.0
    static let backoffBase = 0.1

    private let settings: PostgresSettings
    private let handler: @Sendable (ListenerEvent) -> Void
    private let running = Mutex<ListenLoop?>(nil)

    /// - Parameters:
    ///   - url: the database, as for ``PostgresStore/init(url:)``.
    ///   - handler: called on the listener's thread with each event, in order; it should return
    ///     quickly (hand the work to a queue), since no notification is read while it runs.
    /// - Throws: ``StoreError/failure(_:)`` for a malformed URL (nothing connects before ``start()``).
    public init(url: String, handler: @escaping @Sendable (ListenerEvent) -> Void) throws(StoreError) {
        // A connection that only waits would otherwise never notice a server that vanished without
        // closing it (a partition, a host gone): keepalives probe it after 5 s of silence, and
        // the probes (or a LISTEN) left unacknowledged for 10 s end it — within about 11 s, the
        // store's own bound (``PostgresStore/connectionBounds``). A URL's own values win.
        settings = try PostgresSettings(
            url: url, applicationName: Self.applicationName,
            extra: [
                ("keepalives", "1"), ("keepalives_idle", "5"), ("keepalives_interval", "2"), ("keepalives_count", "3"),
                ("tcp_user_timeout", "10000"),
            ])
        self.handler = handler
    }

    deinit { stop() }

    /// Starts the thread (connecting, listening, and reporting); does nothing if it runs already.
    public func start() {
        running.withLock { loop in
            guard loop == nil else { return }
            let started = ListenLoop(settings: settings, handler: handler)
            loop = started
            let thread = Thread { started.run() }
            thread.name = "trellis-listener"
            thread.start()
        }
    }

    /// Ends a backoff wait now, so that the next connection attempt is made at once: for a caller
    /// that learnt the server is back (another connection got through) — otherwise the listener
    /// could wait out up to ``backoffCeiling`` seconds, missing nothing but noticing it late.
    public func reconnectNow() {
        running.withLock { $0 }?.cutBackoffShort()
    }

    /// Ends the thread and closes its connection; returns once the thread has ended (at most a
    /// poll interval, or a connection attempt's timeout when it was connecting). No event is
    /// reported after it returns. Not to be called from the handler, which runs on that thread.
    public func stop() {
        let loop = running.withLock { loop in
            defer { loop = nil }
            return loop
        }
        loop?.stop()
    }
}

/// One run of the listener's thread, from ``PostgresChangeListener/start()`` to its `stop()`.
private final class ListenLoop: Sendable {
    private let settings: PostgresSettings
    private let handler: @Sendable (ListenerEvent) -> Void
    private let stopping = Atomic<Bool>(false)
    /// Signalled by `stop()` to cut a backoff wait short.
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled by the thread as it ends.
    private let ended = DispatchSemaphore(value: 0)

    init(settings: PostgresSettings, handler: @escaping @Sendable (ListenerEvent) -> Void) {
        self.settings = settings
        self.handler = handler
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    func cutBackoffShort() { wake.signal() }

    func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
        ended.wait()
    }

    func run() {
        defer { ended.signal() }
        var failedAttempts = 0
        var reportedLost = false
        while !isStopping {
            let reason: String
            do {
                let connection = try settings.connect()
                try connection.execute("LISTEN \(PostgresStore.notificationChannel)")
                failedAttempts = 0
                reportedLost = false
                report(.listening)
                reason = listen(on: connection)
            } catch {
                reason = error.description
            }
            if isStopping { break }
            if !reportedLost {
                reportedLost = true
                report(.lost(reason))
            }
            backOff(after: failedAttempts)
            failedAttempts += 1
        }
    }

    /// Reports the notifications `connection` receives until it is gone (returning why) or the
    /// listener stops (returning "").
    private func listen(on connection: PostgresConnection) -> String {
        while !isStopping {
            var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, PostgresChangeListener.pollIntervalMilliseconds)
            if ready < 0 && errno != EINTR { return "poll: \(String(cString: strerror(errno)))" }
            if ready <= 0 { continue }
            guard connection.consumeInput() else { return connection.errorMessage }
            for notification in connection.notifications() where notification.channel == PostgresStore.notificationChannel {
                // The payload is the committed sequence; anything else on the channel is not ours.
                if let sequence = Int64(notification.payload), !isStopping { report(.notified(sequence)) }
            }
        }
        return ""
    }

    /// Waits a random time up to min(ceiling, base · 2^attempt) — "full jitter" — or until `stop()`.
    private func backOff(after attempt: Int) {
        let cap = min(PostgresChangeListener.backoffCeiling, PostgresChangeListener.backoffBase * pow(2, Double(min(attempt, 16))))
        _ = wake.wait(timeout: .now() + Double.random(in: 0...cap))
    }

    private func report(_ event: ListenerEvent) {
        if !isStopping { handler(event) }
    }
}
