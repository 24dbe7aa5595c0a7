import CoreMetrics
import TrellisStore

/// What the runtime needs of the process it runs in: the cell snapshots are published in, the
/// clock, where its metrics go, what it knows of the store's health, and who is told of each
/// published snapshot (the server: its change stream and the screens' preparation).
package protocol RuntimeHost: Sendable {
    var published: PublishedSnapshot { get }
    /// Seconds since 1970 (UTC); tests give their own.
    var clock: @Sendable () -> Double { get }
    var metricsFactory: any MetricsFactory { get }
    var storeHealth: StoreHealth { get }
    /// Publishes `snapshot` (committed as `sequence`) to every request from now on. `touched`: the
    /// screens the change touched; nil when any may have.
    func publish(_ snapshot: Snapshot, sequence: Int64, screens touched: Set<String>?)
}

/// Why a start was refused.
public enum StartError: Error, CustomStringConvertible {
    case config(ConfigLoadError)
    case store(StoreError)
    case dataDirectory(String)

    public var description: String {
        switch self {
        case .config(let error): error.description
        case .store(let error): "runtime store: \(error)"
        case .dataDirectory(let detail): detail
        }
    }
}
