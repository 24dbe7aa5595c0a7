import Dispatch

/// Work over many independent items (screens to decode and check at start or reload) spread over
/// the machine's cores.
package enum ParallelMap {
    /// `transform` of each item, in order. Items are handed out in chunks, so a slow item holds up
    /// its chunk only and the cores stay busy to the end.
    /// - Parameter chunk: items a core takes at a time: many for cheap items, one for a few slow ones.
    package static func map<Item: Sendable, Result: Sendable>(
        _ items: [Item], chunk: Int = 16, _ transform: @Sendable (Item) -> Result
    ) -> [Result] {
        guard items.count > 1 else { return items.map(transform) }
        let chunks = (items.count + chunk - 1) / chunk
        var results = [Result?](repeating: nil, count: items.count)
        results.withUnsafeMutableBufferPointer { slots in
            // Each iteration writes its own slots only, so the writes never overlap.
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: chunks) { index in
                for item in index * chunk..<min(items.count, (index + 1) * chunk) { slots[item] = transform(items[item]) }
            }
        }
        return results.map { $0! }
    }
}
