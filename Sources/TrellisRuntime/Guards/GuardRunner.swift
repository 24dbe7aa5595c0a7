import Dispatch
import Logging
import Synchronization
import TrellisJSON
import TrellisStats
import TrellisStore

/// Looks at every guard every ``interval`` and halts what regressed (and lets a guarded ramp's
/// next step go only after a look that found no regression, ``GuardVerdicts``): on one replica at a time (the
/// `guards` lease in the runtime store, as webhook delivery holds its own), each halt a command
/// made as `guard` against the version of what it guards when it looked — so a person's change in
/// between, or another replica's halt, refuses it instead of applying it twice.
package final class GuardRunner: Sendable {
    package static let leaseName = "guards"

    private let runtime: Runtime
    private let events: any EventStore
    /// Who this process is in the lease (host and data directory, like the webhook deliverer's).
    private let holder: String
    package let interval: Double
    private let logger: Logger
    private let queue = DispatchQueue(label: "trellis.guards", qos: .utility)
    private let stopped = Atomic(false)

    package init(runtime: Runtime, events: any EventStore, holder: String, interval: Double = 10, logger: Logger) {
        self.runtime = runtime
        self.events = events
        self.holder = holder
        self.interval = interval
        self.logger = logger
    }

    package func start() { schedule() }

    package func stop() {
        stopped.store(true, ordering: .relaxed)
        queue.async { [runtime, holder] in try? runtime.control.store.releaseLease(Self.leaseName, holder: holder) }
    }

    private func schedule() {
        queue.asyncAfter(deadline: .now() + interval) { [self] in
            guard !stopped.load(ordering: .relaxed) else { return }
            runOnce()
            schedule()
        }
    }

    package func lastEvaluation(of subject: Guard.Subject) -> GuardEvaluation? { runtime.guardVerdicts.last(of: subject) }

    /// One look at every guard, if this replica holds the lease; the halts it made.
    @discardableResult
    package func runOnce() -> [Guard.Subject] {
        let now = runtime.state.clock()
        do {
            guard try runtime.control.store.claimLease(Self.leaseName, holder: holder, now: now, expiresAt: now + 3 * interval) else { return [] }
        } catch {
            logger.warning("guards: the lease could not be claimed", metadata: ["error": "\(error)"])
            return []
        }
        let snapshot = runtime.state.published.snapshot
        var halted: [Guard.Subject] = []
        for guarded in snapshot.runtime.operations.guards.values.sorted(by: { $0.subject.resource < $1.subject.resource }) {
            let evaluation: GuardEvaluation?
            do { evaluation = try GuardEvaluation.evaluate(guarded, in: snapshot, store: events, now: now) } catch {
                logger.warning("guards: \(guarded.subject) could not be evaluated", metadata: ["error": "\(error)"])
                continue
            }
            runtime.guardVerdicts.record(evaluation, of: guarded.subject, validUntil: now + 3 * interval)
            guard let evaluation, evaluation.verdict == .regression, guarded.action == .halt else { continue }
            let version = ResourceView.version(of: guarded.subject.target, in: snapshot)
            switch runtime.execute(.guardrail(.halt(guarded.subject, evidence: evaluation.jsonValue)), as: .guardian, ifMatch: .version(version)) {
            case .success:
                halted.append(guarded.subject)
                logger.notice("guard halted \(guarded.subject)", metadata: ["evidence": "\(JSONWriter.string(evaluation.jsonValue))"])
            case .failure(let refusal):
                logger.info("guard did not halt \(guarded.subject): \(refusal.summary)")
            }
        }
        return halted
    }
}
