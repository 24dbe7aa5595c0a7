import Dispatch

/// Work started on another thread the moment it is made, and waited for where its result is
/// needed: a start does what does not depend on the screens while they are read and checked.
package final class BackgroundResult<Success: Sendable, Failure: Error>: @unchecked Sendable {
    // Written once, before `done` is left; read only after waiting for it, which orders the two.
    private var result: Result<Success, Failure>?
    private let done = DispatchGroup()

    package init(_ work: @escaping @Sendable () throws(Failure) -> Success) {
        done.enter()
        DispatchQueue.global().async { [self] in
            result = Result(catching: work)
            done.leave()
        }
    }

    /// Waits for the work to end, whatever it came to: a start that is refused waits too, so the
    /// process never exits (running OpenSSL's exit handlers, say) while the work still runs.
    package func wait() { done.wait() }

    /// Waits for the work to end and returns what it returned, or throws what it threw.
    package func get() throws(Failure) -> Success {
        done.wait()
        return try result!.get()
    }
}
