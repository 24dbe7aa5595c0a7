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

    /// An A/B experiment: variants with integer weights, a status, and users forced into a variant.
    ///
    /// Who gets which variant, first rule that applies: an ``overrides`` entry for the user's id;
    /// while ``Status-swift.enum/paused``, ``defaultVariant``; once
    /// ``Status-swift.enum/concluded(winner:)``, the winner; a user without an id, ``defaultVariant``;
    /// otherwise the variant the user's hash falls in (``Bucketing``).
    public struct Experiment: Sendable, Equatable {
        public struct Variant: Sendable, Equatable {
            public var name: String
            /// A non-negative integer; a variant's share is its weight over the sum of weights.
            public var weight: Int
            /// What apps read as the variant's typed configuration (OFREP's `value`): any JSON,
            /// written as `{"weight": 50, "value": …}`. nil: the variant's name is its value.
            public var value: JSONValue?
            public init(name: String, weight: Int, value: JSONValue? = nil) {
                self.name = name
                self.weight = weight
                self.value = value
            }
        }

        /// Where an experiment is in its life.
        public enum Status: Sendable, Equatable, CustomStringConvertible {
            /// Users are bucketed by weight.
            case running
            /// Everyone gets the default variant (the old `"enabled": false`); resuming brings
            /// every user back to the variant they had.
            case paused
            /// Everyone gets `winner`, one of the variants.
            case concluded(winner: String)

            /// `running`, `paused` or `concluded`, as `"status"` is written in targeting.json.
            public var description: String {
                switch self {
                case .running: "running"
                case .paused: "paused"
                case .concluded: "concluded"
                }
            }
        }

        /// In the order they are written; the order decides which bucket range each one gets.
        public var variants: [Variant]
        /// The default is ``Status-swift.enum/running``.
        public var status: Status
        /// What users without an id, and everyone while the experiment is paused, get. The
        /// default is the first variant.
        public var defaultVariant: String
        /// User id → variant: users (QA, a support case) forced into a variant whatever the status.
        /// Ids compare byte for byte, as bucketing does. At most ``Limits/maximumOverrides``.
        public var overrides: [String: String]
        /// For people; Trellis does not read it.
        public var description: String?
        /// The metrics the experiment is run to move, by name. The default is none. At most
        /// ``Limits/maximumMetricNames``, none twice, none also a guardrail. Names are not checked
        /// against metrics here: metrics are runtime documents, and the runtime checks references.
        public var goals: [String]
        /// The metrics that must not get worse, by name; as ``goals``.
        public var guardrails: [String]
        /// Who records that a user was exposed to a variant. The default is ``ExposureRecording/client``.
        public var exposures: ExposureRecording

        /// Who records that a user saw a variant: the event a result counts users from.
        public enum ExposureRecording: String, Sendable, Equatable, CaseIterable {
            /// Apps send exposure events when they show a variant.
            case client
            /// The server records each user's first exposure when a screen, route or OFREP answer
            /// assigns them a variant.
            case server
        }

        public init(
            variants: [Variant], status: Status = .running, defaultVariant: String, overrides: [String: String] = [:],
            description: String? = nil, goals: [String] = [], guardrails: [String] = [], exposures: ExposureRecording = .client
        ) {
            self.variants = variants
            self.status = status
            self.defaultVariant = defaultVariant
            self.overrides = overrides
            self.description = description
            self.goals = goals
            self.guardrails = guardrails
            self.exposures = exposures
        }

        /// Every metric the experiment names: its goals, then its guardrails. The runtime refuses
        /// an experiment that names a metric it does not have, and the deletion of a metric one names.
        public var metricNames: [String] { goals + guardrails }

        /// The sum of the weights: `W` in the variant target `murmur3(…) % W + 1`.
        public var totalWeight: Int { variants.reduce(0) { $0 + $1.weight } }

        /// The variant forced on `userID` by ``overrides``, if any. Ids compare byte for byte:
        /// an override for `"Zoé"` (precomposed) is not one for `"Zoe\u{301}"`.
        public func overriddenVariant(for userID: String) -> String? {
            guard !overrides.isEmpty, let index = overrides.index(forKey: userID) else { return nil }
            let entry = overrides[index]
            return entry.key.utf8.elementsEqual(userID.utf8) ? entry.value : nil
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
