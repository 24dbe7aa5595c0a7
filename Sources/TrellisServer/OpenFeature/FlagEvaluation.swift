import TrellisJSON
import TrellisRuntime
import TrellisScreens
import TrellisStrings
import TrellisTargeting

/// One flag evaluated for one user, as OFREP 0.3 answers it (open-feature/protocol,
/// `service/openapi.yaml`, `evaluationSuccess`): Trellis's rollouts are boolean flags (variant
/// `on` or `off`), its experiments flags whose value is the variant's typed `value`, or its name.
///
/// The decision is the evaluator's own (``Evaluator/rolloutDecision(_:for:)``,
/// ``Evaluator/variantDecision(of:for:)``), the functions screen resolution reads its outcomes
/// from: a flag and a screen never disagree about a user. Only the reason is OFREP's:
///
/// | Trellis decided | reason |
/// |---|---|
/// | the user's bucket against a percentage or the weights | `SPLIT` |
/// | an experiment's override for the user | `TARGETING_MATCH` |
/// | a disabled rollout (kill switch), a paused experiment | `DISABLED` |
/// | a rollout at 0 or 100 %, a concluded experiment (the winner) | `STATIC` |
/// | no user id (an empty `targetingKey`): the rollout's off, the experiment's default variant | `DEFAULT` |
///
/// A request that does not say who is asking (no `targetingKey` at all) gets these answers only
/// for flags that need no user (``needsUserID``); the others are `TARGETING_KEY_MISSING`.
struct FlagEvaluation: Sendable, Equatable {
    enum Kind: String, Sendable { case rollout, experiment }
    enum Reason: String, Sendable { case split = "SPLIT", targetingMatch = "TARGETING_MATCH", disabled = "DISABLED", staticValue = "STATIC", defaultValue = "DEFAULT" }

    var key: String
    var kind: Kind
    var reason: Reason
    var variant: String
    var value: JSONValue
    /// Only a user id could have decided: the user had none, and the flag buckets users.
    var needsUserID = false

    /// Every flag key, sorted: the rollouts' and the experiments'. A key both name is the rollout.
    static func keys(of targeting: TargetingConfiguration) -> [String] {
        Set(targeting.rollouts.keys).union(targeting.experiments.keys).sorted()
    }

    /// The flag `key` for `context`, or nil when no rollout or experiment has that key.
    static func evaluate(_ key: String, for context: UserContext, with evaluator: Evaluator) -> FlagEvaluation? {
        if let rollout = evaluator.configuration.rollouts[key] {
            return rolloutFlag(key, rollout, evaluator.rolloutDecision(key, for: context))
        }
        guard let experiment = evaluator.configuration.experiments[key], let decision = evaluator.variantDecision(of: key, for: context) else {
            return nil
        }
        return experimentFlag(key, experiment, decision)
    }

    private static func rolloutFlag(_ key: String, _ rollout: TargetingConfiguration.Rollout, _ decision: RolloutDecision) -> FlagEvaluation {
        let reason: Reason
        switch decision.reason {
        case .disabled, .unknown: reason = .disabled
        case .noUserID: reason = .defaultValue
        case .bucket: reason = rollout.percentage == RolloutPercentage.none || rollout.percentage == RolloutPercentage.all ? .staticValue : .split
        }
        return FlagEvaluation(
            key: key, kind: .rollout, reason: reason, variant: decision.admitted ? "on" : "off", value: .bool(decision.admitted),
            needsUserID: decision.reason == .noUserID)
    }

    private static func experimentFlag(
        _ key: String, _ experiment: TargetingConfiguration.Experiment, _ decision: VariantDecision
    ) -> FlagEvaluation {
        let reason: Reason
        switch decision.reason {
        case .override: reason = .targetingMatch
        case .paused: reason = .disabled
        case .concluded: reason = .staticValue
        case .noUserID, .noWeights: reason = .defaultValue
        case .bucket: reason = .split
        }
        let value = experiment.variants.first { $0.name == decision.variant }?.value ?? .string(decision.variant)
        return FlagEvaluation(
            key: key, kind: .experiment, reason: reason, variant: decision.variant, value: value, needsUserID: decision.reason == .noUserID)
    }

    /// The flag with a value written as a string of the tables (`{"$string": key, "args": {…}}`)
    /// written in `strings`' locale; itself for any other value. Publishing checked the key and
    /// its arguments.
    func written(in strings: LocalizedStrings) -> FlagEvaluation {
        guard let use = StringCheck.use(of: value), let uses = strings.arguments(of: use.key) else { return self }
        var arguments: [String: MessageArgument] = [:]
        for (name, argument) in use.arguments {
            switch argument {
            case .number(let number): arguments[name] = .number(number)
            case .text(let text): arguments[name] = uses[name] == .number ? Double(text).map(MessageArgument.number) ?? .string(text) : .string(text)
            case .parameter: break
            }
        }
        var flag = self
        flag.value = .string(strings.string(use.key, arguments) ?? use.key)
        return flag
    }

    /// Whether the flag's value is a string of the tables, written per locale.
    var isLocalized: Bool { StringCheck.use(of: value) != nil }

    /// `{key, reason, variant, value, metadata}`; `metadata` says the kind of flag and the
    /// revision of the targeting that decided (``Snapshot/targetingRevision``).
    func jsonValue(targetingRevision: String) -> JSONValue {
        .object([
            ("key", .string(key)), ("reason", .string(reason.rawValue)), ("variant", .string(variant)), ("value", value),
            ("metadata", .object([("kind", .string(kind.rawValue)), ("targetingRevision", .string(targetingRevision))])),
        ])
    }
}
