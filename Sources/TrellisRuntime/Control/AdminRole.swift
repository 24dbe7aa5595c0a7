/// What an admin token may do. Each role includes everything the ones before it may.
public enum AdminRole: String, Sendable, CaseIterable, Comparable {
    /// Look at rollouts, experiments, screens, revisions and the audit log.
    case read
    /// Also change them: publish, roll back, set percentages, kill switches (or, where the server
    /// requires approval, propose those changes as change requests).
    case write
    /// Also approve or reject change requests other tokens made (never their own).
    case approve
    /// Also manage tokens and webhooks.
    case admin

    /// Whether a token with this role may do what needs `required`.
    public func allows(_ required: AdminRole) -> Bool { self >= required }

    public static func < (a: AdminRole, b: AdminRole) -> Bool { a.rank < b.rank }

    private var rank: Int {
        switch self {
        case .read: 0
        case .write: 1
        case .approve: 2
        case .admin: 3
        }
    }
}
