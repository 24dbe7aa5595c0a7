import TrellisJSON

/// Why the runtime did not make a command: a domain answer, for whichever writer asked (a person
/// through the admin API, the scheduler, an approval, a guard). Nothing changed when a command is
/// refused. The admin API maps each case to its status (docs/architecture.md).
package enum Refusal: Error, Sendable {
    /// What the command names does not exist.
    case notFound(String)
    /// The command cannot apply to the state in force (exists already, nothing staged, …).
    case conflict(String)
    /// The writer named a version of its target that is not the current one (`current`, nil when
    /// the target does not exist).
    case versionMismatch(current: String?)
    /// The command must name the version of its target it was made against (the server requires
    /// it of every write, or the command is a review); why.
    case versionRequired(String)
    /// The command's own values are not valid: every problem, with where it is.
    case invalid(String, [Diagnostic], source: String?)
    /// The command's body is not even well-formed (not JSON): where it breaks.
    case malformed(String, [Diagnostic], source: String?)
    /// The state the command leads to does not validate; every problem of every file it touches.
    case rejected(ConfigLoadError)
    /// The command retires what screens, routes or rules still use; where each use is.
    case stillInUse(ConfigLoadError)
    /// The writer may not make it (only a request's author edits it; never its author approves it).
    case forbidden(String)
    /// Another change was committed first (another replica); read again and retry.
    case lostRace(String)
    /// The store did not take the change; nothing was written.
    case notStored(String)
    /// The store is unreachable; the change was not made.
    case storeUnreachable(String)
    /// The store's answer to the commit was lost: the change may or may not have been made. Read
    /// before retrying; a retry with the same If-Match cannot make it twice.
    case outcomeUnknown(String)
    /// The store could not be read to plan the change.
    case storeUnreadable(String)

    /// One line for logs and change requests' outcomes.
    package var summary: String {
        switch self {
        case .notFound(let detail), .conflict(let detail), .forbidden(let detail), .lostRace(let detail), .notStored(let detail),
            .storeUnreachable(let detail), .outcomeUnknown(let detail), .storeUnreadable(let detail):
            detail
        case .versionMismatch(let current): "its target is at another version (\(current ?? "none"))"
        case .versionRequired(let reason): reason
        case .invalid(let detail, _, _), .malformed(let detail, _, _): detail
        case .rejected(let error), .stillInUse(let error): error.errors.first?.description ?? "the change does not validate"
        }
    }
}
