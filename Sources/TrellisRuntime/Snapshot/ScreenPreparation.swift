import CTrellisLinux
import Atomics
import CoreMetrics
import Dispatch

/// Prepares each published snapshot's screens for serving at rest, in the background, on every
/// core: makes their encoding plans and deflates their documents (``CheckedScreen/prepare(resolver:)``).
///
/// `/readyz` waits for every screen to be checked, and for nothing else: at 10,000 screens the
/// plans and the deflating would make a start half again as long. Until a screen is prepared its
/// document is held as it is, and an answer-cache miss makes the plan it needs itself
/// (``ScreenEntry/encodingPlan(for:in:)``); prepared here, the plans are there before most
/// screens' first request, so the first pass over a catalogue costs what the next ones do.
package final class ScreenPreparation: Sendable {
    /// One snapshot after the other: a burst of publishes queues, each preparing what it touched.
    private let queue = DispatchQueue(label: "trellis.preparation", qos: .utility)
    /// Screens waiting to be prepared, counted when a snapshot is published, so that the gauge
    /// (`trellis_screens_unprepared`) is 0 only once a start's or a reload's are: when the process
    /// has reached its size at rest.
    private let pending = ManagedAtomic(0)
    private let gauge: CoreMetrics.Gauge

    package init(metricsFactory: some MetricsFactory) {
        gauge = CoreMetrics.Gauge(label: "trellis_screens_unprepared", factory: metricsFactory)
    }

    /// Prepares the screens of `snapshot` that `touched` names (every screen when nil), their
    /// staged revisions too.
    package func prepare(_ snapshot: Snapshot, screens touched: Set<String>?) {
        let entries = Self.unprepared(snapshot, touched)
        guard !entries.isEmpty else { return }
        gauge.record(pending.wrappingIncrementThenLoad(by: entries.count, ordering: .relaxed))
        queue.async { [pending, gauge] in
            _ = ParallelMap.map(entries) { entry in entry.prepare(in: snapshot) }
            // The plain documents and the models decoded again, freed in every thread's arena,
            // given back before the gauge says the process is at its size at rest.
            if touched == nil { Self.returnFreedMemory() }
            gauge.record(pending.wrappingDecrementThenLoad(by: entries.count, ordering: .relaxed))
        }
    }

    /// Returns once every screen asked for so far is prepared.
    package func wait() { queue.sync {} }

    private static func unprepared(_ snapshot: Snapshot, _ touched: Set<String>?) -> [ScreenEntry] {
        var entries: [ScreenEntry] = []
        func note(_ id: String) {
            if let entry = snapshot.screens[id], !entry.checked.isPrepared { entries.append(entry) }
            if let entry = snapshot.staged[id]?.entry, !entry.checked.isPrepared { entries.append(entry) }
        }
        if let touched { touched.forEach(note) } else { snapshot.screens.keys.forEach(note) }
        return entries
    }

    /// Gives the memory a start or reload freed (the decoding's garbage, the old snapshot once its
    /// last request ends) back to the system: glibc keeps freed blocks in its arenas, one per
    /// thread that decoded, and without this a process that reloads keeps every reload's
    /// garbage (`scripts/bench-memory` reloads and measures).
    package static func returnFreedMemory() {
        _ = malloc_trim(0)
    }
}
