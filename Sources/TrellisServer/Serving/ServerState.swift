import Atomics
import CoreMetrics
import Prometheus
import TrellisAnswers
import TrellisRuntime

#if canImport(Glibc)
import Glibc
#endif

/// What handlers share for the life of the process: the published snapshot, settings fixed at
/// start, the clock, the metrics registry, and whether the server is draining.
public final class ServerState: Sendable {
    public let published: PublishedSnapshot
    /// How many requests may be laid out at once (the HTTP server's event loops): a layout plan
    /// keeps that many node trees for reuse (`LayoutPlan`).
    public let concurrentLayouts: Int
    /// The `Cache-Control` value of screen answers.
    public let screenCacheControl: String
    /// Reads who is asking from the query, the headers and a signed context.
    public let contextReader: ContextReader
    /// The `Vary` of screen answers: the encoding, the format, and every header the user context is read from.
    public let screenVary: String
    public let metrics: PrometheusCollectorRegistry
    /// Makes every metric of the application in `metrics`, the registry `/metrics` serves, and not
    /// in whatever `MetricsSystem` was bootstrapped with.
    public let metricsFactory: any MetricsFactory
    /// Seconds since 1970 (UTC): the `now` that date rules compare with. Tests set their own.
    public let clock: @Sendable () -> Double
    private let answerCacheHits: CoreMetrics.Counter
    private let answerCacheMisses: CoreMetrics.Counter
    /// What the published snapshot's answer cache holds, set when `/metrics` is read: each shard's
    /// table carries what its entries were charged when a miss published it, so a hit writes
    /// nothing for these and reading them takes no lock.
    private let answerCacheBytes: CoreMetrics.Gauge
    private let answerCacheEntries: CoreMetrics.Gauge
    private let draining = ManagedAtomic(false)
    /// The runtime store as this process sees it, for `/readyz` and `/metrics`.
    public let storeHealth: StoreHealth
    /// `/readyz` turns 503 once the replica's view of a shared store is older than this (seconds).
    let maxStalenessSeconds: Double?
    private let storeStaleness: CoreMetrics.Gauge
    private let storeReachable: CoreMetrics.Gauge
    private let clockAhead: CoreMetrics.Gauge
    /// The change stream's hub: the control plane tells it of each published snapshot.
    public let changes: ChangeHub
    /// Who may evaluate flags through OFREP (`ofrep.keys`).
    let openFeature: OpenFeatureAccess
    /// Prepares each published snapshot's screens for serving at rest, after it is published.
    let preparation: ScreenPreparation
    /// Whose `X-Forwarded-For` names the client what counts per client counts (``ClientAddress``).
    let trustedProxies: [AddressRange]

    public init(
        published: PublishedSnapshot, configuration: ServerConfiguration, metrics: PrometheusCollectorRegistry,
        concurrentLayouts: Int = 1, clock: @escaping @Sendable () -> Double = ServerState.wallClock, changeSequence: Int64 = 0
    ) {
        self.published = published
        self.concurrentLayouts = concurrentLayouts
        self.metrics = metrics
        let metricsFactory = PrometheusMetricsFactory(registry: metrics)
        self.metricsFactory = metricsFactory
        answerCacheHits = CoreMetrics.Counter(label: "trellis_answer_cache_hits_total", factory: metricsFactory)
        answerCacheMisses = CoreMetrics.Counter(label: "trellis_answer_cache_misses_total", factory: metricsFactory)
        answerCacheBytes = CoreMetrics.Gauge(label: "trellis_answer_cache_bytes", factory: metricsFactory)
        answerCacheEntries = CoreMetrics.Gauge(label: "trellis_answer_cache_entries", factory: metricsFactory)
        self.clock = clock
        storeHealth = StoreHealth(kind: configuration.storage.url == nil ? "sqlite" : "postgres", clock: clock)
        maxStalenessSeconds = configuration.storage.maxStalenessSeconds.map(Double.init)
        storeStaleness = CoreMetrics.Gauge(label: "trellis_store_staleness_seconds", factory: metricsFactory)
        storeReachable = CoreMetrics.Gauge(label: "trellis_store_reachable", factory: metricsFactory)
        clockAhead = CoreMetrics.Gauge(label: "trellis_clock_ahead_of_database_seconds", factory: metricsFactory)
        contextReader = ContextReader(configuration: configuration.context)
        changes = ChangeHub(
            snapshot: published.snapshot, sequence: changeSequence, limits: configuration.changes, metricsFactory: metricsFactory)
        openFeature = OpenFeatureAccess(keys: configuration.ofrep.keys)
        preparation = ScreenPreparation(metricsFactory: metricsFactory)
        trustedProxies = configuration.trustedProxies
        preparation.prepare(published.snapshot, screens: nil)
        screenVary = (["Accept-Encoding", "Accept"] + ContextReader.varyHeaders).joined(separator: ", ")
        // Screens are personalised (private); with max-age 0 clients revalidate each time, so a
        // killed rollout disappears on the next request while unchanged screens cost a 304.
        let maxAge = configuration.screenMaxAgeSeconds
        screenCacheControl = maxAge == 0 ? "private, no-cache" : "private, max-age=\(maxAge)"
    }

    /// Publishes `snapshot` to every request from now on, tells the change stream, and has its
    /// screens prepared. `screens`: those the change touched; nil when any may have (a reload,
    /// a store loaded whole).
    package func publish(_ snapshot: Snapshot, sequence: Int64, screens touched: Set<String>? = nil) {
        published.publish(snapshot)
        changes.published(snapshot, sequence: sequence, screens: touched)
        preparation.prepare(snapshot, screens: touched)
    }

    /// `clock_gettime(CLOCK_REALTIME)`: no Foundation `Date` in the request path.
    public static let wallClock: @Sendable () -> Double = {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Counts an answer served from the answer cache (`hit`) or resolved and encoded anew.
    func recordAnswer(hit: Bool) { (hit ? answerCacheHits : answerCacheMisses).increment() }

    /// Sets the answer cache's gauges from the published snapshot's cache: called by `/metrics`
    /// before it writes the registry.
    func recordAnswerCacheSize() {
        let answers = published.snapshot.answers
        answerCacheBytes.record(answers.held)
        answerCacheEntries.record(answers.count)
    }

    /// Sets the store's gauges: called by `/metrics` before it writes the registry.
    func recordStoreHealth() {
        storeStaleness.record(storeHealth.stalenessSeconds)
        let current = storeHealth.current
        storeReachable.record(current.reachable ? 1 : 0)
        if let ahead = current.clockAheadSeconds { clockAhead.record(ahead) }
    }

    /// From now on `/readyz` answers 503, so load balancers stop sending new work.
    public func beginDraining() { draining.store(true, ordering: .relaxed) }
    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Returns once every screen of the snapshots published so far is prepared (its plan made, its
    /// document deflated): what `trellis bench spread` waits for before it times anything.
    public func waitUntilPrepared() { preparation.wait() }
}

extension ServerState: RuntimeHost {}
