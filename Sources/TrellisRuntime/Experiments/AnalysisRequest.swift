import TrellisJSON
import TrellisStats

/// `POST /admin/analysis`: sufficient statistics from elsewhere (a warehouse query), analysed by
/// the engine that analyses Trellis's own — as GrowthBook takes a query's rows.
///
/// ```json
/// {"type": "proportion", "higherIsBetter": true,
///  "variants": [{"name": "control", "weight": 50, "users": 1000, "sum": 100, "sumSquares": 100}, …],
///  "alpha": 0.05, "sequentialTuning": 5000, "prior": {"mean": 0, "stddev": 0.1, "proper": false}}
/// ```
/// The first variant is the control; `denominator` (ratio) and `covariate` (CUPED) are
/// `{"sum", "sumSquares", "sumProducts"}`, as results show them.
package struct AnalysisRequest: Sendable {
    package var type: MetricType
    package var higherIsBetter: Bool
    package var arms: ExperimentResults.Arms
    package var statistics: [SufficientStatistics]
    package var settings: ExperimentResults.Settings

    package init(body bytes: [UInt8]) throws(Refusal) {
        var decoded: AnalysisRequest?
        try CommandBody.object(bytes, allowed: ["type", "higherIsBetter", "variants", "alpha", "sequentialTuning", "prior"]) { object, collector in
            decoded = Self.read(object, collector)
        }
        guard let decoded else { throw .invalid("the body is not an analysis request", [], source: "body") }
        self = decoded
    }

    private init(type: MetricType, higherIsBetter: Bool, arms: ExperimentResults.Arms, statistics: [SufficientStatistics], settings: ExperimentResults.Settings) {
        self.type = type
        self.higherIsBetter = higherIsBetter
        self.arms = arms
        self.statistics = statistics
        self.settings = settings
    }

    private static func read(_ object: JSONObjectReader, _ collector: DiagnosticsCollector) -> AnalysisRequest? {
        let before = collector.diagnostics.count
        var type: MetricType?
        if let raw = object.string("type", required: true) {
            type = MetricType(rawValue: raw)
            if type == nil { object.report("unknown type \"\(raw)\"; expected proportion, mean or ratio", atMember: "type") }
        }
        let higherIsBetter = object.contains("higherIsBetter") ? object.bool("higherIsBetter") : true
        var settings = ExperimentResults.Settings()
        if object.contains("alpha") {
            if let alpha = object.number("alpha") {
                if alpha > 0 && alpha < 1 { settings.alpha = alpha } else { object.report("expected a number between 0 and 1", atMember: "alpha") }
            }
        }
        if object.contains("sequentialTuning") {
            if let tuning = object.number("sequentialTuning") {
                if tuning > 0 && tuning.isFinite { settings.sequentialTuning = tuning } else { object.report("expected a positive number", atMember: "sequentialTuning") }
            }
        }
        if let prior = object.value("prior"), let reader = collector.object(prior, at: object.path.appending("prior"), allowedKeys: ["mean", "stddev", "proper"]) {
            if let mean = reader.number("mean") { settings.prior.mean = mean }
            if let stddev = reader.number("stddev") {
                if stddev > 0 { settings.prior.stddev = stddev } else { reader.report("expected a positive number", atMember: "stddev") }
            }
            if let proper = reader.bool("proper") { settings.prior.proper = proper }
        }
        var names: [String] = []
        var weights: [Int] = []
        var statistics: [SufficientStatistics] = []
        if let variants = object.array("variants", required: true) {
            let path = object.path.appending("variants")
            if !(2...100).contains(variants.count) {
                collector.report("expected 2 to 100 variants, the first the control, found \(variants.count)", at: path, object.value("variants")!)
            }
            for (index, value) in variants.enumerated() {
                guard let variant = readVariant(value, at: path.appending(index), type: type, collector) else { continue }
                if names.contains(variant.name) { collector.report("variant \"\(variant.name)\" is given twice", at: path.appending(index).appending("name"), value) }
                names.append(variant.name)
                weights.append(variant.weight)
                statistics.append(variant.statistics)
            }
        }
        guard collector.diagnostics.count == before, let type, let higherIsBetter, names.count >= 2 else { return nil }
        return AnalysisRequest(
            type: type, higherIsBetter: higherIsBetter, arms: ExperimentResults.Arms(names: names, weights: weights), statistics: statistics,
            settings: settings)
    }

    private static func readVariant(
        _ value: JSONValue, at path: JSONPath, type: MetricType?, _ collector: DiagnosticsCollector
    ) -> (name: String, weight: Int, statistics: SufficientStatistics)? {
        guard let object = collector.object(value, at: path, allowedKeys: ["name", "weight", "users", "sum", "sumSquares", "denominator", "covariate"]) else {
            return nil
        }
        let name = object.string("name", required: true)
        let weight = object.contains("weight") ? object.integer("weight", in: 0...1_000_000) : 1
        let users = object.integer("users", in: 0...Int(Int64.max >> 11), required: true)
        let sum = finite(object, "sum")
        let sumSquares = type == .proportion && !object.contains("sumSquares") ? sum : finite(object, "sumSquares")
        let denominator = object.value("denominator").flatMap { moments($0, at: path.appending("denominator"), collector) }
        let covariate = object.value("covariate").flatMap { moments($0, at: path.appending("covariate"), collector) }
        if type == .ratio, !object.contains("denominator") { object.report("a ratio needs its \"denominator\": {\"sum\", \"sumSquares\", \"sumProducts\"}", atMember: "denominator") }
        if type != .ratio, object.contains("denominator") { object.report("only a ratio has a denominator", atMember: "denominator") }
        guard let name, let weight, let users, let sum, let sumSquares else { return nil }
        return (name, weight, SufficientStatistics(users: users, sum: sum, sumSquares: sumSquares, denominator: denominator, covariate: covariate))
    }

    private static func finite(_ object: JSONObjectReader, _ key: String) -> Double? {
        guard let n = object.number(key, required: true) else { return nil }
        guard n.isFinite else {
            object.report("expected a finite number", atMember: key)
            return nil
        }
        return n
    }

    private static func moments(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> TrellisStats.Moments? {
        guard let object = collector.object(value, at: path, allowedKeys: ["sum", "sumSquares", "sumProducts"]) else { return nil }
        guard let sum = finite(object, "sum"), let sumSquares = finite(object, "sumSquares"), let sumProducts = finite(object, "sumProducts") else {
            return nil
        }
        return TrellisStats.Moments(sum: sum, sumSquares: sumSquares, sumProducts: sumProducts)
    }

    /// The analysis: each variant against the first, and the split's SRM check.
    package var result: JSONValue {
        .object([
            ("type", .string(type.rawValue)), ("higherIsBetter", .bool(higherIsBetter)),
            ("srm", ExperimentResults.srm(statistics.map(\.users), arms: arms)), ("settings", settings.jsonValue),
            ("variants", .array(ExperimentResults.comparisons(type: type, higherIsBetter: higherIsBetter, statistics: statistics, arms: arms, settings: settings))),
        ])
    }
}
