/// Where one user stands in one rollout group, from `h = murmur3("{groupId}:{userId}", seed 0)`:
///
/// - ``bucket``: `h % 100 + 1`, 1…100, Unleash's `normalizedHash`;
/// - ``position``: `(h % 100) * 100 + (h / 100) % 100`, 0…9999 hundredths of a percent — the
///   bucket's 100 slots subdivided by the next two decimal digits of the hash.
///
/// A ``RolloutPercentage`` admits the user when `position < basisPoints`. For a whole percentage
/// `P` (basis points `100 P`) that is `h % 100 < P`, which is `bucket <= P`: Unleash's rule exactly.
/// The position depends only on the group and the user, so the users a percentage admits are
/// always a subset of those any higher percentage admits.
public struct RolloutPlacement: Sendable, Hashable {
    /// `murmur3("{groupId}:{userId}", seed 0)` over the UTF-8 bytes.
    public let hash: UInt32

    /// The placement of a user whose rollout hash is `hash`.
    public init(hash: UInt32) { self.hash = hash }

    /// 1…100: `hash % 100 + 1`. A whole percentage `P` admits the user when `bucket <= P`.
    public var bucket: Int { Int(hash % 100) + 1 }

    /// 0…9999, in hundredths of a percent: `(hash % 100) * 100 + (hash / 100) % 100`. Within
    /// bucket `b` the position is from `(b - 1) * 100` to `b * 100 - 1`.
    public var position: Int { Int(hash % 100) * 100 + Int((hash / 100) % 100) }

    /// The position as a percentage with two decimals, `36.42` for 3642; the form explain and
    /// `trellis bucket` print.
    public var positionText: String { RolloutPercentage.decimalText(basisPoints: position) }

    /// The smallest percentage that admits the user: one hundredth above ``position`` (`36.43` for
    /// position `36.42`). Every percentage from it up admits the user; every one below does not.
    public var smallestAdmittingPercentage: RolloutPercentage { RolloutPercentage(uncheckedBasisPoints: position + 1) }

    /// Whether a rollout at `percentage` admits the user: `position < percentage.basisPoints`.
    @inline(__always) public func isAdmitted(by percentage: RolloutPercentage) -> Bool {
        position < percentage.basisPoints
    }
}
