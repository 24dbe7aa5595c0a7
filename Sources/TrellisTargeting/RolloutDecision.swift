import TrellisJSON

/// Whether a rollout admits one user, and why: what ``Evaluator/isInRollout(_:for:)`` decides,
/// with the facts that decided it, for `GET /admin/explain` and for people.
public struct RolloutDecision: Sendable, Equatable {
    /// What decided, checked in this order.
    public enum Reason: String, Sendable, Equatable {
        /// The configuration defines no rollout of that key: nobody is admitted.
        case unknown
        /// The kill switch is off: nobody is admitted.
        case disabled
        /// The request has no user id: rollouts admit only users with one.
        case noUserID
        /// The user's position against the percentage: admitted when `position < basisPoints`.
        case bucket
    }

    /// Whether the rollout admits the user.
    public var admitted: Bool
    /// The rollout's kill switch; `false` for an unknown rollout.
    public var enabled: Bool
    /// The rollout's percentage; nil for an unknown rollout.
    public var percentage: RolloutPercentage?
    /// The rollout's bucketing key; nil for an unknown rollout.
    public var groupID: String?
    /// The user's place in the group; nil without a user id and for an unknown rollout. Present
    /// for a disabled rollout too, so explain can say where the user would stand.
    public var placement: RolloutPlacement?
    public var reason: Reason

    public init(
        admitted: Bool, enabled: Bool, percentage: RolloutPercentage?, groupID: String?, placement: RolloutPlacement?,
        reason: Reason
    ) {
        self.admitted = admitted
        self.enabled = enabled
        self.percentage = percentage
        self.groupID = groupID
        self.placement = placement
        self.reason = reason
    }

    /// The user's bucket, 1…100; nil without a user id.
    public var bucket: Int? { placement?.bucket }
    /// The user's position, 0…9999 hundredths of a percent; nil without a user id.
    public var position: Int? { placement?.position }

    /// One sentence: *position 36.42 is not below 25: the user is admitted from 36.43 (bucket 37)*.
    public var summary: String {
        switch reason {
        case .unknown: return "the rollout is not defined: nobody is admitted"
        case .disabled: return "the rollout is disabled (kill switch): nobody is admitted"
        case .noUserID: return "the request has no user id: rollouts admit only users with one"
        case .bucket:
            guard let placement, let percentage else { return admitted ? "admitted" : "not admitted" }
            let position = "position \(placement.positionText)"
            return admitted
                ? "\(position) is below \(percentage): admitted (bucket \(placement.bucket))"
                : "\(position) is not below \(percentage): the user is admitted from \(placement.smallestAdmittingPercentage) (bucket \(placement.bucket))"
        }
    }

    /// `admitted`, `reason`, `why` (``summary``), `enabled`, `percentage`, `groupId`, `bucket`,
    /// `position` (two decimals) and `admittedFrom` (the smallest percentage that admits the user);
    /// absent facts are `null`.
    public var jsonValue: JSONValue {
        .object([
            ("admitted", .bool(admitted)), ("reason", .string(reason.rawValue)), ("why", .string(summary)),
            ("enabled", .bool(enabled)), ("percentage", percentage?.jsonValue ?? .null),
            ("groupId", groupID.map { .string($0) } ?? .null), ("bucket", placement.map { .number($0.bucket) } ?? .null),
            ("position", placement.map { .number(Double($0.position) / 100) } ?? .null),
            ("admittedFrom", placement?.smallestAdmittingPercentage.jsonValue ?? .null),
        ])
    }
}
