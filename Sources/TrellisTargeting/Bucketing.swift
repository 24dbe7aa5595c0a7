/// Deterministic bucketing of users, compatible with Unleash's gradual rollout and variants.
///
/// - A rollout at `P` percent admits a user when
///   `murmur3("{groupId}:{userId}", seed 0) % 100 + 1 <= P` (Unleash `normalizedHash`, the
///   `flexibleRollout` strategy). A user's bucket never changes, so raising `P` only adds users.
/// - An experiment chooses a variant from `murmur3("{experimentKey}:{userId}", seed 86028157) % W + 1`,
///   where `W` is the sum of the weights: the first variant whose cumulative weight reaches that number
///   (Unleash's `VARIANT_HASH_SEED` and selection rule). The different seed makes a rollout and an
///   experiment on the same key independent.
public enum Bucketing {
    /// Seed of the rollout hash (Unleash: 0).
    public static let rolloutSeed: UInt32 = 0
    /// Seed of the variant hash (Unleash's `VARIANT_HASH_SEED`).
    public static let variantSeed: UInt32 = 86_028_157

    /// `murmur3("{groupID}:{userID}", seed) % modulus + 1`: a number from 1 to `modulus`.
    /// - Precondition: `modulus > 0`.
    public static func normalizedHash(groupID: String, userID: String, modulus: UInt32, seed: UInt32) -> Int {
        precondition(modulus > 0, "modulus must be positive")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(groupID.utf8.count + 1 + userID.utf8.count)
        bytes.append(contentsOf: groupID.utf8)
        bytes.append(0x3A)  // ":"
        bytes.append(contentsOf: userID.utf8)
        return Int(Murmur3.hash32(bytes, seed: seed) % modulus) + 1
    }

    /// The user's rollout bucket for `groupID`, 1…100.
    public static func rolloutBucket(groupID: String, userID: String) -> Int {
        normalizedHash(groupID: groupID, userID: userID, modulus: 100, seed: rolloutSeed)
    }

    /// Whether a rollout of `percentage` (0…100) on `groupID` admits `userID`.
    public static func isInRollout(percentage: Int, groupID: String, userID: String) -> Bool {
        percentage > 0 && rolloutBucket(groupID: groupID, userID: userID) <= percentage
    }

    /// The index of the variant `userID` gets among `weights` (non-negative, summing to more than 0),
    /// for the experiment `key`; nil when the weights sum to 0.
    public static func variantIndex(key: String, userID: String, weights: [Int]) -> Int? {
        let total = weights.reduce(0, +)
        guard total > 0, total <= Int(UInt32.max) else { return nil }
        let target = normalizedHash(groupID: key, userID: userID, modulus: UInt32(total), seed: variantSeed)
        var cumulative = 0
        for (index, weight) in weights.enumerated() {
            cumulative += weight
            if cumulative >= target { return index }
        }
        return nil
    }
}
