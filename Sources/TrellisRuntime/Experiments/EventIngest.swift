import Dispatch
import Logging
import Metrics
import Synchronization
import TrellisStore

/// Writes apps' event batches to the event store with group commit: while one transaction is
/// being written and synced, the batches that arrive wait together, and the next transaction takes
/// them all — many requests, one fsync. A batch's completion is called once its transaction is
/// durable (or failed): that, and only that, is when a request may be acknowledged.
///
/// No timer and no batching delay: an idle ingest writes a lone batch at once; under load the
/// transactions grow by themselves, as long as the last one took.
package final class EventIngest: Sendable {
    package typealias Completion = @Sendable (Result<Int, IngestFailure>) -> Void

    /// Why a batch was not taken; nothing of it was written.
    package enum IngestFailure: Error, Sendable, Equatable {
        /// More events are waiting for the store than ``maxPendingEvents``: try again shortly.
        case overloaded(pending: Int)
        /// The store failed or cannot be reached; the batch may be sent again (ids make it idempotent).
        case store(StoreError)
    }

    private struct Waiting {
        var batch: EventBatch
        var completion: Completion
    }

    private struct Queue {
        var waiting: [Waiting] = []
        var pendingEvents = 0
        var writing = false
    }

    private let store: any EventStore
    private let queue = Mutex(Queue())
    private let writer = DispatchQueue(label: "trellis.events.writer", qos: .userInitiated)
    /// Events accepted but not yet written, beyond which new batches are refused (503): memory
    /// stays bounded when the store is slower than the apps.
    package let maxPendingEvents: Int
    private let logger: Logger
    private let written: Counter
    private let transactionCounter: Counter
    private let transactionTotal = Atomic<Int>(0)
    private let refused: Counter

    package init(store: any EventStore, maxPendingEvents: Int = 200_000, logger: Logger, metricsFactory: any MetricsFactory = MetricsSystem.factory) {
        self.store = store
        self.maxPendingEvents = maxPendingEvents
        self.logger = logger
        written = Counter(label: "trellis_events_written_total", factory: metricsFactory)
        transactionCounter = Counter(label: "trellis_events_transactions_total", factory: metricsFactory)
        refused = Counter(label: "trellis_events_refused_total", factory: metricsFactory)
    }

    /// Transactions written since start: fewer than batches when group commit gathers them.
    package var transactions: Int { transactionTotal.load(ordering: .relaxed) }

    /// Events and exposures accepted and not yet written.
    package var pendingEvents: Int { queue.withLock { $0.pendingEvents } }

    /// Queues `batch`; `completion` gets the number of items taken once they are durable, or why not.
    package func submit(_ batch: EventBatch, completion: @escaping Completion) {
        let size = batch.events.count + batch.exposures.count
        let start: Bool
        do {
            start = try queue.withLock { (queue: inout Queue) throws(IngestFailure) -> Bool in
                guard queue.pendingEvents + size <= maxPendingEvents || queue.pendingEvents == 0 else {
                    throw .overloaded(pending: queue.pendingEvents)
                }
                queue.waiting.append(Waiting(batch: batch, completion: completion))
                queue.pendingEvents += size
                defer { queue.writing = true }
                return !queue.writing
            }
        } catch {
            refused.increment()
            return completion(.failure(error))
        }
        if start { writer.async { self.drain() } }
    }

    /// Submits `batch` and waits for it (tests, the command line, server exposures' flush).
    package func write(_ batch: EventBatch) -> Result<Int, IngestFailure> {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Int, IngestFailure>?>(nil)
        submit(batch) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    /// Writes everything waiting, one transaction at a time, until nothing is.
    private func drain() {
        while true {
            let taken = queue.withLock { (queue: inout Queue) -> [Waiting] in
                let taken = queue.waiting
                queue.waiting = []
                if taken.isEmpty { queue.writing = false }
                return taken
            }
            guard !taken.isEmpty else { return }
            // The store folds what repeats across batches (an event id, an exposure's earliest time).
            var merged = EventBatch()
            for waiting in taken {
                merged.events += waiting.batch.events
                merged.exposures += waiting.batch.exposures
            }
            let outcome: Result<Void, StoreError>
            do throws(StoreError) {
                try store.append(merged)
                outcome = .success(())
                transactionCounter.increment()
                transactionTotal.add(1, ordering: .relaxed)
                written.increment(by: Int64(merged.events.count + merged.exposures.count))
            } catch {
                outcome = .failure(error)
                logger.warning("events not stored: \(error)", metadata: ["batches": .stringConvertible(taken.count)])
            }
            queue.withLock { $0.pendingEvents -= merged.events.count + merged.exposures.count }
            for waiting in taken {
                switch outcome {
                case .success: waiting.completion(.success(waiting.batch.events.count + waiting.batch.exposures.count))
                case .failure(let error): waiting.completion(.failure(.store(error)))
                }
            }
        }
    }
}
