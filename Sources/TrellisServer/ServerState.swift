import Atomics
import Prometheus

/// What handlers share for the life of the process: the snapshot store, settings fixed at start,
/// the metrics registry, and whether the server is draining.
public final class ServerState: Sendable {
    public let store: SnapshotStore
    /// The `Cache-Control` value of screen answers.
    public let screenCacheControl: String
    public let metrics: PrometheusCollectorRegistry
    private let draining = ManagedAtomic(false)

    public init(store: SnapshotStore, configuration: ServerConfiguration, metrics: PrometheusCollectorRegistry) {
        self.store = store
        self.metrics = metrics
        // Screens are personalised (private); with max-age 0 clients revalidate each time, so a
        // killed rollout disappears on the next request while unchanged screens cost a 304.
        let maxAge = configuration.screenMaxAgeSeconds
        screenCacheControl = maxAge == 0 ? "private, no-cache" : "private, max-age=\(maxAge)"
    }

    /// From now on `/readyz` answers 503, so load balancers stop sending new work.
    public func beginDraining() { draining.store(true, ordering: .relaxed) }
    public var isDraining: Bool { draining.load(ordering: .relaxed) }
}
