import TrellisJSON

/// Everything bucketing says about one user in one group, as `trellis bucket` prints it: for ops
/// asking where a user stands, and for cross-checks with other implementations of the hashes.
public struct BucketingReport: Sendable, Equatable {
    /// The rollout group id, or the experiment key for ``variantTarget``.
    public var groupID: String
    public var userID: String
    /// The user's rollout placement in `groupID`.
    public var placement: RolloutPlacement
    /// The percentage asked about, if any.
    public var percentage: RolloutPercentage?
    /// The total weight asked about, if any, and the user's variant target for it:
    /// `murmur3("{groupID}:{userID}", 86028157) % totalWeight + 1`.
    public var totalWeight: Int?
    public var variantTarget: Int?

    /// Computes the report.
    /// - Precondition: `totalWeight`, when given, is from 1 to `UInt32.max`.
    public init(groupID: String, userID: String, percentage: RolloutPercentage? = nil, totalWeight: Int? = nil) {
        self.groupID = groupID
        self.userID = userID
        self.placement = Bucketing.rolloutPlacement(groupID: groupID, userID: userID)
        self.percentage = percentage
        self.totalWeight = totalWeight
        self.variantTarget = totalWeight.map { Bucketing.variantTarget(key: groupID, userID: userID, totalWeight: $0) }
    }

    /// Whether ``percentage`` admits the user; nil without a percentage.
    public var admitted: Bool? { percentage.map { placement.isAdmitted(by: $0) } }

    /// `group`, `user`, `hash` (the rollout hash, seed 0), `bucket` (1…100), `position` (two
    /// decimals) and `admittedFrom` (the smallest admitting percentage); with a percentage also
    /// `percentage` and `admitted`; with a total weight also `variantHash` (seed 86028157),
    /// `totalWeight` and `target` (1…total).
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [
            ("group", .string(groupID)), ("user", .string(userID)), ("hash", .number(Double(placement.hash))),
            ("bucket", .number(placement.bucket)), ("position", .number(Double(placement.position) / 100)),
            ("admittedFrom", placement.smallestAdmittingPercentage.jsonValue),
        ]
        if let percentage, let admitted { members += [("percentage", percentage.jsonValue), ("admitted", .bool(admitted))] }
        if let totalWeight, let variantTarget {
            let variantHash = Bucketing.hash(groupID: groupID, userID: userID, seed: Bucketing.variantSeed)
            members += [("variantHash", .number(Double(variantHash))), ("totalWeight", .number(totalWeight)), ("target", .number(variantTarget))]
        }
        return .object(members)
    }
}
