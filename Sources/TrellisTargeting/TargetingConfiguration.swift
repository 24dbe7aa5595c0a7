import TrellisJSON

/// Everything rules refer to by name: named rules, staged rollouts and experiments. One immutable
/// value per snapshot; decode it with ``decode(_:source:)``, which refuses unknown keys, bad values,
/// unknown references and cycles between rules.
public struct TargetingConfiguration: Sendable {
    /// Named rules (`{"rule": "is_gold_member"}`), already checked: every reference they make is
    /// known and no rule refers to itself, directly or through others.
    public let rules: [String: RuleExpression]
    public let rollouts: [String: Rollout]
    public let experiments: [String: Experiment]

    /// A staged rollout: admits `percentage` of users, bucketed on `groupID`.
    public struct Rollout: Sendable, Equatable {
        /// 0…100 with at most two decimals; see ``RolloutPercentage``.
        public var percentage: RolloutPercentage
        /// The bucketing key; rollouts with the same `groupID` admit the same users at the same
        /// percentage. The default is the rollout's key.
        public var groupID: String
        /// The kill switch: a disabled rollout admits nobody. The default is `true`.
        public var enabled: Bool
        /// For people; Trellis does not read it.
        public var description: String?

        public init(percentage: RolloutPercentage, groupID: String, enabled: Bool = true, description: String? = nil) {
            self.percentage = percentage
            self.groupID = groupID
            self.enabled = enabled
            self.description = description
        }
    }

    /// An A/B experiment: variants with integer weights.
    public struct Experiment: Sendable, Equatable {
        public struct Variant: Sendable, Equatable {
            public var name: String
            /// A non-negative integer; a variant's share is its weight over the sum of weights.
            public var weight: Int
            public init(name: String, weight: Int) {
                self.name = name
                self.weight = weight
            }
        }

        /// In the order they are written; the order decides which bucket range each one gets.
        public var variants: [Variant]
        /// A disabled experiment gives everyone ``defaultVariant``. The default is `true`.
        public var enabled: Bool
        /// What users without an id, and everyone while the experiment is disabled, get. The
        /// default is the first variant.
        public var defaultVariant: String
        /// For people; Trellis does not read it.
        public var description: String?

        public init(variants: [Variant], enabled: Bool = true, defaultVariant: String, description: String? = nil) {
            self.variants = variants
            self.enabled = enabled
            self.defaultVariant = defaultVariant
            self.description = description
        }
    }

    /// An empty configuration: no rules, rollouts or experiments.
    public static let empty = TargetingConfiguration(uncheckedRules: [:], rollouts: [:], experiments: [:])

    /// A configuration built in code, checked as if decoded.
    /// - Throws: the same diagnostics decoding reports (paths as in `Config/targeting.json`).
    public init(
        rules: [String: RuleExpression] = [:], rollouts: [String: Rollout] = [:], experiments: [String: Experiment] = [:]
    ) throws(DiagnosticsError) {
        let candidate = TargetingConfiguration(uncheckedRules: rules, rollouts: rollouts, experiments: experiments)
        let collector = DiagnosticsCollector()
        candidate.checkRuleReferences(source: nil, collector)
        candidate.checkValues(collector)
        guard collector.isEmpty else { throw DiagnosticsError(source: "configuration", diagnostics: collector.diagnostics) }
        self = candidate
    }

    init(uncheckedRules rules: [String: RuleExpression], rollouts: [String: Rollout], experiments: [String: Experiment]) {
        self.rules = rules
        self.rollouts = rollouts
        self.experiments = experiments
    }
}
