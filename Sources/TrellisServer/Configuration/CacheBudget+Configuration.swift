import TrellisAnswers
import TrellisRuntime

extension CacheBudget {
    /// `cache.maxBytes` when it is set, else ``default(forMemory:)`` of the memory this process
    /// may use (``MachineMemory/usableBytes()``, read here).
    public init(_ cache: ServerConfiguration.Cache) {
        self = cache.maxBytes.map(CacheBudget.init(maxBytes:)) ?? .default(forMemory: MachineMemory.usableBytes())
    }
}
