import Atomics
import Dispatch
import Logging
import Synchronization
import TrellisStore

/// What makes a replica follow the shared store: a LISTEN connection that hears every commit's
/// sequence, and a periodic ask for the newest sequence (`storage.pollSeconds`) that bounds how
/// long a lost notification — or a listener reconnecting — goes unnoticed. Both only wake the
/// control plane's write queue; all reading and applying happens there
/// (``ControlPlane/follow()``), one at a time with admin writes.
package final class StoreFollower: Sendable {
    private let control: ControlPlane
    private let listener: PostgresChangeListener
    private let pollSeconds: Double
    private let stopped = Atomic<Bool>(false)
    /// Whether the listener has a connection (between its `.listening` and `.lost`).
    private let listening: ManagedAtomic<Bool>
    private let logger: Logger

    package init(control: ControlPlane, url: String, pollSeconds: Double, logger: Logger) throws(StoreError) {
        self.control = control
        self.logger = logger
        self.pollSeconds = pollSeconds
        let listening = ManagedAtomic<Bool>(false)
        self.listening = listening
        listener = try PostgresChangeListener(url: url) { [control, logger, listening] event in
            switch event {
            case .listening:
                listening.store(true, ordering: .relaxed)
                // Notifications sent while no connection listened are lost: read everything newer
                // than what is applied, now that every later commit will be heard.
                control.writeQueue.async { control.follow() }
            case .notified(let sequence):
                if sequence > control.state.storeHealth.current.appliedSequence { control.writeQueue.async { control.follow() } }
            case .lost(let reason):
                listening.store(false, ordering: .relaxed)
                logger.warning("store listener lost its connection; reconnecting", metadata: ["reason": "\(reason)"])
            }
        }
    }

    package func start() {
        listener.start()
        schedulePoll()
    }

    package func stop() {
        stopped.store(true, ordering: .relaxed)
        listener.stop()
    }

    private func schedulePoll() {
        // ±20 %: replicas started together (a deploy, the end of an outage) do not ask in step.
        control.readQueue.asyncAfter(deadline: .now() + pollSeconds * Double.random(in: 0.8...1.2)) { [self] in
            guard !stopped.load(ordering: .relaxed) else { return }
            control.writeQueue.async { [self] in
                control.checkStore()
                // The database answers again while the listener still backs off: have it connect
                // now, so that changes are heard within milliseconds again, not at the next poll.
                if !listening.load(ordering: .relaxed), control.state.storeHealth.current.reachable { listener.reconnectNow() }
                schedulePoll()
            }
        }
    }
}
