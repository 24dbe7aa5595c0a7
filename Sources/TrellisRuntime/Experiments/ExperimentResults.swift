import Foundation
import TrellisJSON
import TrellisStats
import TrellisStore
import TrellisTargeting

/// An experiment's results: for each of its metrics and each variant against control, GrowthBook's
/// figures (TrellisStats) from the sufficient statistics the event store sums by SQL — so every
/// replica, reading one database, answers the same. The statistics are in the answer, for another
/// engine to recompute.
package enum ExperimentResults {
    /// How results are computed: GrowthBook's defaults.
    package struct Settings: Sendable, Equatable {
        package var alpha = 0.05
        package var sequentialTuning = 5_000.0
        package var prior = Prior()
        package init() {}

        package var jsonValue: JSONValue {
            .object([
                ("alpha", .number(alpha)), ("sequentialTuning", .number(sequentialTuning)),
                ("prior", .object([("mean", .number(prior.mean)), ("stddev", .number(prior.stddev)), ("proper", .bool(prior.proper))])),
            ])
        }
    }

    /// Below this, the split of users is not what the weights say and nothing else can be trusted.
    package static let srmThreshold = 0.001

    /// The results of experiment `key` as of `asOf`, optionally broken down by `dimension`.
    package static func compute(
        _ key: String, in snapshot: Snapshot, store: any EventStore, asOf: Double, dimension: MetricQuery.Dimension?, settings: Settings = Settings()
    ) throws(Refusal) -> JSONValue {
        guard let experiment = snapshot.targeting.experiments[key] else {
            throw Runtime.notFound("experiment", key, known: snapshot.targeting.experiments.keys)
        }
        let arms = Arms(experiment)
        let roles = experiment.goals.map { ($0, "goal") } + experiment.guardrails.map { ($0, "guardrail") }
        var metricRows: [(name: String, role: String, metric: MetricDefinition?, statistics: MetricStatistics?)] = []
        var multipleExposures = 0
        do throws(StoreError) {
            // Every metric's statistics in one scan of the experiment's users.
            let defined = roles.compactMap { name, _ in snapshot.runtime.operations.metrics[name] }
            let answers = defined.isEmpty ? [] : try store.statistics(defined.map { metric in
                MetricQuery(
                    subject: .experiment(key), measure: metric.storeMeasure, window: metric.windowHours.map { $0 * 3600 },
                    covariateLookback: metric.cupedLookbackHours.map { $0 * 3600 }, dimension: dimension, asOf: asOf)
            })
            var next = answers.makeIterator()
            for (name, role) in roles {
                guard let metric = snapshot.runtime.operations.metrics[name] else {
                    metricRows.append((name, role, nil, nil))
                    continue
                }
                let statistics = next.next()
                multipleExposures = statistics?.multipleExposures ?? multipleExposures
                metricRows.append((name, role, metric, statistics))
            }
            let days = try store.exposuresPerDay(.experiment(key), asOf: asOf)
            let overall = usersPerVariant(days, arms: arms, rows: metricRows.first { $0.statistics != nil }?.statistics?.rows)
            var members: [(String, JSONValue)] = [
                ("experiment", .string(key)), ("asOf", .string(RFC3339.string(fromSeconds: asOf))), ("control", .string(arms.control)),
                ("variants", .array(arms.names.indices.map { i in
                    .object([("name", .string(arms.names[i])), ("weight", .number(arms.weights[i])), ("users", .number(overall[i]))])
                })),
                ("multipleExposures", .number(multipleExposures)),
                ("srm", srm(overall, arms: arms)),
                ("settings", settings.jsonValue),
            ]
            members.append(("metrics", .array(metricRows.map { row in
                metricResult(name: row.name, role: row.role, metric: row.metric, rows: row.statistics?.rows ?? [], arms: arms, settings: settings)
            })))
            if let dimension {
                let values = Set(metricRows.flatMap { $0.statistics?.rows.map(\.dimension) ?? [] }).sorted { ($0 ?? "") < ($1 ?? "") }
                members.append(("dimension", .object([
                    ("name", .string(dimension.rawValue)),
                    ("values", .array(values.map { value in
                        let firstMeasured = metricRows.first { $0.statistics != nil }?.statistics
                        let users = usersPerVariant([], arms: arms, rows: firstMeasured?.rows.filter { $0.dimension == value })
                        return .object([
                            ("value", value.map(JSONValue.string) ?? .null),
                            ("variants", .array(arms.names.indices.map { .object([("name", .string(arms.names[$0])), ("users", .number(users[$0]))]) })),
                            ("srm", srm(users, arms: arms)),
                            ("metrics", .array(metricRows.map { row in
                                metricResult(name: row.name, role: row.role, metric: row.metric, rows: row.statistics?.rows.filter { $0.dimension == value } ?? [], arms: arms, settings: settings)
                            })),
                        ])
                    })),
                ])))
            }
            members.append(("usersOverTime", usersOverTime(days, arms: arms)))
            return .object(members)
        } catch {
            throw Refusal(readingEvents: error)
        }
    }

    /// The variants in written order, the control (the default variant) first among them where it is.
    package struct Arms: Sendable {
        package var names: [String]
        package var weights: [Int]
        package var control: String
        package var controlIndex: Int

        package init(_ experiment: TargetingConfiguration.Experiment) {
            names = experiment.variants.map(\.name)
            weights = experiment.variants.map(\.weight)
            control = experiment.defaultVariant
            controlIndex = names.firstIndex(of: control) ?? 0
        }

        package init(names: [String], weights: [Int], controlIndex: Int = 0) {
            self.names = names
            self.weights = weights
            self.controlIndex = controlIndex
            control = names[controlIndex]
        }
    }

    /// Users per variant, in the arms' order: from a metric's rows when there is one (the users
    /// analysed, without those exposed to several variants), else from the exposures per day.
    private static func usersPerVariant(_ days: [ExposureDay], arms: Arms, rows: [VariantStatistics]?) -> [Int] {
        var users = [Int](repeating: 0, count: arms.names.count)
        if let rows {
            for row in rows { if let i = arms.names.firstIndex(of: row.variant) { users[i] += row.users } }
        } else {
            for day in days { if let i = arms.names.firstIndex(of: day.variant) { users[i] += day.users } }
        }
        return users
    }

    /// The sample-ratio-mismatch check: the chi-square p-value of the users against the weights.
    package static func srm(_ users: [Int], arms: Arms) -> JSONValue {
        let p = sampleRatioMismatch(users: users, weights: arms.weights.map(Double.init))
        let warning: JSONValue = p < srmThreshold
            ? .string("the users are not split as the weights say (p = \(format(p)), below 0.001): something assigns or records them unevenly, and these results cannot be trusted")
            : .null
        return .object([("pValue", .number(p)), ("warning", warning)])
    }

    /// Two significant digits, in scientific form when small: `0.00042`, `1.6e-06`.
    private static func format(_ p: Double) -> String {
        String(format: p < 1e-4 ? "%.1e" : "%.2g", p)
    }

    /// One metric: each variant's statistics and, against control, GrowthBook's figures.
    package static func metricResult(
        name: String, role: String, metric: MetricDefinition?, rows: [VariantStatistics], arms: Arms, settings: Settings
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [("metric", .string(name)), ("role", .string(role))]
        guard let metric else {
            members.append(("error", .string("no metric \"\(name)\" is defined (PUT /admin/metrics/\(name))")))
            return .object(members)
        }
        members += [
            ("type", .string(metric.type.rawValue)), ("higherIsBetter", .bool(metric.higherIsBetter)),
            ("cuped", .bool(metric.cupedLookbackHours != nil)),
        ]
        let statistics = arms.names.map { variant in
            rows.filter { $0.variant == variant }.reduce(into: SufficientStatistics(users: 0, sum: 0, sumSquares: 0)) { total, row in
                total.add(row)
            }
        }
        members.append(("variants", .array(comparisons(type: metric.type.statsType, higherIsBetter: metric.higherIsBetter, statistics: statistics, arms: arms, settings: settings))))
        return .object(members)
    }

    /// Each variant's figures; the treatments' against the control's.
    package static func comparisons(
        type: MetricType, higherIsBetter: Bool, statistics: [SufficientStatistics], arms: Arms, settings: Settings
    ) -> [JSONValue] {
        var analysis = AnalysisSettings()
        analysis.alpha = settings.alpha
        analysis.sequentialTuning = settings.sequentialTuning
        analysis.prior = settings.prior
        analysis.higherIsBetter = higherIsBetter
        let control = statistics[arms.controlIndex]
        let compared = statistics.indices.map { i in
            i == arms.controlIndex ? nil : compare(type, control: control, treatment: statistics[i], settings: analysis)
        }
        // Every comparison summarises the control alike; there are at least two variants.
        let controlSummary = compared.lazy.compactMap { $0?.control }.first
        return arms.names.indices.map { i in
            var members: [(String, JSONValue)] = [("variant", .string(arms.names[i])), ("users", .number(statistics[i].users))]
            members.append(("statistics", json(statistics[i])))
            guard let comparison = compared[i] else {
                if let summary = controlSummary { members += [("mean", .number(summary.unadjustedMean)), ("stddev", .number(summary.stddev))] }
                return .object(members)
            }
            members += [
                ("mean", .number(comparison.treatment.unadjustedMean)), ("stddev", .number(comparison.treatment.stddev)),
                ("absolute", json(comparison.absolute)), ("relative", json(comparison.relative)),
                ("sequential", json(comparison.sequential)), ("bayesian", json(comparison.bayesian)),
                ("cupedTheta", comparison.cupedTheta.map(JSONValue.number) ?? .null),
            ]
            return .object(members)
        }
    }

    static func json(_ result: FrequentistResult) -> JSONValue {
        .object([
            ("lift", .number(result.expected)), ("ci", .array([.number(result.ci.lower), .number(result.ci.upper)])),
            ("pValue", .number(result.pValue)), ("error", result.error.map(JSONValue.string) ?? .null),
        ])
    }

    static func json(_ result: BayesianResult) -> JSONValue {
        .object([
            ("chanceToWin", .number(result.chanceToWin)), ("lift", .number(result.expected)),
            ("ci", .array([.number(result.ci.lower), .number(result.ci.upper)])),
            ("risk", .object([("control", .number(result.risk.control)), ("treatment", .number(result.risk.treatment))])),
            ("error", result.error.map(JSONValue.string) ?? .null),
        ])
    }

    /// The sufficient statistics as the answer carries them (and `POST /admin/analysis` reads them).
    package static func json(_ statistics: SufficientStatistics) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("users", .number(statistics.users)), ("sum", .number(statistics.sum)), ("sumSquares", .number(statistics.sumSquares)),
        ]
        if let d = statistics.denominator { members.append(("denominator", json(d))) }
        if let c = statistics.covariate { members.append(("covariate", json(c))) }
        return .object(members)
    }

    static func json(_ moments: TrellisStats.Moments) -> JSONValue {
        .object([("sum", .number(moments.sum)), ("sumSquares", .number(moments.sumSquares)), ("sumProducts", .number(moments.sumProducts))])
    }

    private static func usersOverTime(_ days: [ExposureDay], arms: Arms) -> JSONValue {
        let byDay = Dictionary(grouping: days, by: \.day)
        return .array(byDay.keys.sorted().map { day in
            .object([
                ("day", .string(String(RFC3339.string(fromSeconds: Double(day) * 86_400).prefix(10)))),
                ("users", .object(arms.names.map { name in (name, .number(byDay[day]!.filter { $0.variant == name }.reduce(0) { $0 + $1.users })) })),
            ])
        })
    }
}

extension SufficientStatistics {
    /// Adds a row's sums (the rows of one variant across dimension values add up to its total).
    mutating func add(_ row: VariantStatistics) {
        users += row.users
        sum += row.sum
        sumSquares += row.sumSquares
        if let d = row.denominator {
            let mine = denominator ?? TrellisStats.Moments(sum: 0, sumSquares: 0, sumProducts: 0)
            denominator = TrellisStats.Moments(sum: mine.sum + d.sum, sumSquares: mine.sumSquares + d.sumSquares, sumProducts: mine.sumProducts + d.sumProducts)
        }
        if let c = row.covariate {
            let mine = covariate ?? TrellisStats.Moments(sum: 0, sumSquares: 0, sumProducts: 0)
            covariate = TrellisStats.Moments(sum: mine.sum + c.sum, sumSquares: mine.sumSquares + c.sumSquares, sumProducts: mine.sumProducts + c.sumProducts)
        }
    }
}

extension MetricDefinition.MetricType {
    /// The engine's name for it.
    package var statsType: TrellisStats.MetricType {
        switch self {
        case .proportion: .proportion
        case .mean: .mean
        case .ratio: .ratio
        }
    }
}
