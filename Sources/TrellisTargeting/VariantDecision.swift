import TrellisJSON

/// Which variant of an experiment one user gets, and why: what ``Evaluator/variant(of:for:)``
/// decides, with the facts that decided it, for `GET /admin/explain` and for people.
public struct VariantDecision: Sendable, Equatable {
    /// What decided, checked in this order.
    public enum Reason: Sendable, Equatable {
        /// The user's id is in the experiment's overrides (whatever its status).
        case override
        /// The experiment is paused: everyone gets the default variant.
        case paused
        /// The experiment is concluded: everyone gets the winner.
        case concluded
        /// The request has no user id: the default variant.
        case noUserID
        /// The user's variant target, `murmur3("{key}:{userId}", 86028157) % totalWeight + 1`,
        /// falls in the variant's range of cumulative weight.
        case bucket(target: Int, totalWeight: Int)
        /// The weights sum to 0 (a checked configuration never has this): the default variant.
        case noWeights

        /// `override`, `paused`, `concluded`, `noUserID`, `bucket` or `noWeights`.
        public var name: String {
            switch self {
            case .override: "override"
            case .paused: "paused"
            case .concluded: "concluded"
            case .noUserID: "noUserID"
            case .bucket: "bucket"
            case .noWeights: "noWeights"
            }
        }
    }

    /// The variant the user gets.
    public var variant: String
    public var reason: Reason
    /// With ``Reason-swift.enum/bucket(target:totalWeight:)``, the targets that give ``variant``:
    /// from its cumulative weight before it plus 1 to its cumulative weight. Otherwise nil.
    public var targetRange: ClosedRange<Int>?

    public init(variant: String, reason: Reason, targetRange: ClosedRange<Int>? = nil) {
        self.variant = variant
        self.reason = reason
        self.targetRange = targetRange
    }

    /// One sentence: *target 73 of 100 falls in "big" (51–100)*.
    public var summary: String {
        let quoted = JSONWriter.quoted(variant)
        switch reason {
        case .override: return "the user's id is overridden into \(quoted)"
        case .paused: return "the experiment is paused: everyone gets the default variant \(quoted)"
        case .concluded: return "the experiment is concluded: everyone gets the winner \(quoted)"
        case .noUserID: return "the request has no user id: the default variant \(quoted)"
        case .bucket(let target, let totalWeight):
            let range = targetRange.map { " (\($0.lowerBound)–\($0.upperBound))" } ?? ""
            return "target \(target) of \(totalWeight) falls in \(quoted)\(range)"
        case .noWeights: return "the weights sum to 0: the default variant \(quoted)"
        }
    }

    /// `variant`, `reason`, `why` (``summary``), and with reason `bucket` also `target`,
    /// `totalWeight` and `range` (`[first, last]` target of the variant).
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("variant", .string(variant)), ("reason", .string(reason.name)), ("why", .string(summary))]
        if case .bucket(let target, let totalWeight) = reason {
            members += [("target", .number(target)), ("totalWeight", .number(totalWeight))]
            if let targetRange { members.append(("range", .array([.number(targetRange.lowerBound), .number(targetRange.upperBound)]))) }
        }
        return .object(members)
    }
}
