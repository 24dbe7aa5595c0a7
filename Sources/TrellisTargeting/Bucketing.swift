/// Deterministic bucketing of users, compatible with Unleash's gradual rollout and variants.
///
/// - A rollout admits a user by their ``RolloutPlacement`` in `murmur3("{groupId}:{userId}", seed 0)`:
///   at a whole percentage `P` when `hash % 100 + 1 <= P` (Unleash `normalizedHash`, the
///   `flexibleRollout` strategy), and at any percentage with up to two decimals when the user's
///   position (0…9999) is below its basis points. A user's placement never changes, so raising the
///   percentage only adds users.
/// - An experiment chooses a variant from `murmur3("{experimentKey}:{userId}", seed 86028157) % W + 1`,
///   where `W` is the sum of the weights: the first variant whose cumulative weight reaches that number
///   (Unleash's `VARIANT_HASH_SEED` and selection rule). The different seed makes a rollout and an
///   experiment on the same key independent.
public enum Bucketing {
    /// Seed of the rollout hash (Unleash: 0).
    public static let rolloutSeed: UInt32 = 0
    /// Seed of the variant hash (Unleash's `VARIANT_HASH_SEED`).
    public static let variantSeed: UInt32 = 86_028_157

    /// `murmur3("{groupID}:{userID}", seed)` over the UTF-8 bytes, without building the joined string.
    public static func hash(groupID: String, userID: String, seed: UInt32) -> UInt32 {
        var state = Murmur3.State(seed: seed)
        state.combine(groupID.utf8)
        state.combine(0x3A)  // ":"
        state.combine(userID.utf8)
        return state.finalize()
    }

    /// `murmur3("{groupID}:{userID}", seed) % modulus + 1`: a number from 1 to `modulus`.
    /// - Precondition: `modulus > 0`.
    public static func normalizedHash(groupID: String, userID: String, modulus: UInt32, seed: UInt32) -> Int {
        precondition(modulus > 0, "modulus must be positive")
        return Int(hash(groupID: groupID, userID: userID, seed: seed) % modulus) + 1
    }

    /// Where `userID` stands in the rollout group `groupID`: its bucket and position.
    public static func rolloutPlacement(groupID: String, userID: String) -> RolloutPlacement {
        RolloutPlacement(hash: hash(groupID: groupID, userID: userID, seed: rolloutSeed))
    }

    /// The user's rollout bucket for `groupID`, 1…100.
    public static func rolloutBucket(groupID: String, userID: String) -> Int {
        rolloutPlacement(groupID: groupID, userID: userID).bucket
    }

    /// Whether a rollout of `percentage` on `groupID` admits `userID`.
    public static func isInRollout(percentage: RolloutPercentage, groupID: String, userID: String) -> Bool {
        percentage.basisPoints > 0 && rolloutPlacement(groupID: groupID, userID: userID).isAdmitted(by: percentage)
    }

    /// The variant target of `userID` in the experiment `key` whose weights sum to `totalWeight`:
    /// `murmur3("{key}:{userID}", 86028157) % totalWeight + 1`, from 1 to `totalWeight`.
    /// - Precondition: `totalWeight` is from 1 to `UInt32.max`.
    public static func variantTarget(key: String, userID: String, totalWeight: Int) -> Int {
        precondition(totalWeight > 0 && totalWeight <= Int(UInt32.max), "the total weight must be from 1 to 2^32 - 1")
        return normalizedHash(groupID: key, userID: userID, modulus: UInt32(totalWeight), seed: variantSeed)
    }

    /// The index of the variant `userID` gets among `weights` (non-negative, summing to more than 0),
    /// for the experiment `key`; nil when the weights sum to 0.
    public static func variantIndex(key: String, userID: String, weights: [Int]) -> Int? {
        let total = weights.reduce(0, +)
        guard total > 0, total <= Int(UInt32.max) else { return nil }
        return variantIndex(target: variantTarget(key: key, userID: userID, totalWeight: total), weights: weights)
    }

    /// The index of the first weight whose running sum reaches `target`; nil when none does.
    static func variantIndex(target: Int, weights: some Sequence<Int>) -> Int? {
        var cumulative = 0
        for (index, weight) in weights.enumerated() {
            cumulative += weight
            if cumulative >= target { return index }
        }
        return nil
    }
}
