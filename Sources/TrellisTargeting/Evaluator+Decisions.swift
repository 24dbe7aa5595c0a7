/// The decisions behind ``Evaluator/isInRollout(_:for:)`` and ``Evaluator/variant(of:for:)``: both
/// read their answer from the functions here, so what explain reports is what the request path does.
extension Evaluator {
    /// Whether the rollout `key` admits the user, and why: unknown rollout, kill switch, no user
    /// id, or the user's position against the percentage. The user's placement is reported
    /// whenever the user has an id, even when the rollout is disabled.
    public func rolloutDecision(_ key: String, for context: UserContext) -> RolloutDecision {
        decideRollout(key, for: context, placingDisabled: true)
    }

    /// The rollout decision; `placingDisabled: false` skips hashing for a disabled rollout (the
    /// request path, which needs only ``RolloutDecision/admitted``).
    @inline(__always)
    func decideRollout(_ key: String, for context: UserContext, placingDisabled: Bool) -> RolloutDecision {
        guard let rollout = configuration.rollouts[key] else {
            return RolloutDecision(admitted: false, enabled: false, percentage: nil, groupID: nil, placement: nil, reason: .unknown)
        }
        let placement =
            rollout.enabled || placingDisabled
            ? context.userID.map { Bucketing.rolloutPlacement(groupID: rollout.groupID, userID: $0) } : nil
        let reason: RolloutDecision.Reason = !rollout.enabled ? .disabled : placement == nil ? .noUserID : .bucket
        let admitted = reason == .bucket && placement!.isAdmitted(by: rollout.percentage)
        return RolloutDecision(
            admitted: admitted, enabled: rollout.enabled, percentage: rollout.percentage, groupID: rollout.groupID,
            placement: placement, reason: reason)
    }

    /// The variant of experiment `key` the user gets, and why; nil for an unknown experiment.
    ///
    /// First rule that applies: the user's id is in ``TargetingConfiguration/Experiment/overrides``
    /// (`override`); the experiment is paused (`paused`: the default variant) or concluded
    /// (`concluded`: the winner); the user has no id (`noUserID`: the default variant); otherwise
    /// the user's target `murmur3("{key}:{userId}", 86028157) % W + 1` picks the first variant whose
    /// cumulative weight reaches it (`bucket`).
    public func variantDecision(of key: String, for context: UserContext) -> VariantDecision? {
        guard let experiment = configuration.experiments[key] else { return nil }
        if let userID = context.userID, let forced = experiment.overriddenVariant(for: userID) {
            return VariantDecision(variant: forced, reason: .override)
        }
        switch experiment.status {
        case .running: break
        case .paused: return VariantDecision(variant: experiment.defaultVariant, reason: .paused)
        case .concluded(let winner): return VariantDecision(variant: winner, reason: .concluded)
        }
        guard let userID = context.userID else { return VariantDecision(variant: experiment.defaultVariant, reason: .noUserID) }
        let totalWeight = experiment.totalWeight
        guard totalWeight > 0, totalWeight <= Int(UInt32.max) else {
            return VariantDecision(variant: experiment.defaultVariant, reason: .noWeights)
        }
        let target = Bucketing.variantTarget(key: key, userID: userID, totalWeight: totalWeight)
        var cumulative = 0
        for variant in experiment.variants {
            cumulative += variant.weight
            if cumulative >= target {
                return VariantDecision(
                    variant: variant.name, reason: .bucket(target: target, totalWeight: totalWeight),
                    targetRange: (cumulative - variant.weight + 1)...cumulative)
            }
        }
        return VariantDecision(variant: experiment.defaultVariant, reason: .noWeights)  // unreachable: target <= totalWeight
    }
}
