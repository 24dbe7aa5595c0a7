/// What an admin token may do. `write` includes everything `read` may.
public enum AdminRole: String, Sendable, CaseIterable, Comparable {
    /// Look at rollouts, experiments, screens, revisions and the audit log.
    case read
    /// Also change them: publish, roll back, set percentages, kill switches.
    case write

    /// Whether a token with this role may do what needs `required`.
    public func allows(_ required: AdminRole) -> Bool { self >= required }

    public static func < (a: AdminRole, b: AdminRole) -> Bool { a.rank < b.rank }

    private var rank: Int {
        switch self {
        case .read: 0
        case .write: 1
        }
    }
}
