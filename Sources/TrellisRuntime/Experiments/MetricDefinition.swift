import TrellisJSON
import TrellisStore
import TrellisTargeting

/// What an experiment measures, made from apps' tracked events (`POST /v1/events`): a runtime
/// document (`/admin/metrics/{name}`), audited and versioned as tokens and webhooks are.
///
/// Every figure is per exposed user, counted from the user's first exposure to the experiment:
/// - `proportion`: did the user send `event` (1 or 0) — a conversion rate;
/// - `mean`: the sum of the user's `event` values (`"value": "sum"`, an event without a value
///   counting 1) or their number (`"count"`) — revenue per user, sessions per user;
/// - `ratio`: the numerator's total over the denominator's, both summed over users — revenue per
///   order (delta method).
package struct MetricDefinition: Sendable, Equatable {
    package static let kind = "metric"

    package enum MetricType: String, Sendable, CaseIterable {
        case proportion, mean, ratio
    }

    /// One event summed per user.
    package struct Measure: Sendable, Equatable {
        package enum Aggregate: String, Sendable, CaseIterable {
            /// The events' values added up (an event without a value counts 1).
            case sum
            /// How many events.
            case count
        }
        package var event: String
        package var aggregate: Aggregate
    }

    package var name: String
    package var type: MetricType
    /// proportion and mean: what is measured. ratio: the numerator.
    package var measure: Measure
    /// ratio only.
    package var denominator: Measure?
    /// Events count up to this long after first exposure; nil: until the results are read.
    package var windowHours: Double?
    /// Whether a rise is good (conversion, revenue) or bad (errors, latency). The default is true.
    package var higherIsBetter: Bool
    /// CUPED: the same measure over this many hours before first exposure, as a covariate that
    /// takes out variance users brought with them; nil: no adjustment.
    package var cupedLookbackHours: Double?
    package var description: String?

    /// GrowthBook's default lookback for regression adjustment: 14 days.
    package static let defaultLookbackHours = 336.0
    /// A year: the longest window or lookback (events are not kept that long by default anyway).
    package static let maximumHours = 8_760.0
    package static let maximumEventNameBytes = 128

    package init(
        name: String, type: MetricType, measure: Measure, denominator: Measure? = nil, windowHours: Double? = nil,
        higherIsBetter: Bool = true, cupedLookbackHours: Double? = nil, description: String? = nil
    ) {
        self.name = name
        self.type = type
        self.measure = measure
        self.denominator = denominator
        self.windowHours = windowHours
        self.higherIsBetter = higherIsBetter
        self.cupedLookbackHours = cupedLookbackHours
        self.description = description
    }

    /// What the store sums per user for it.
    package var storeMeasure: MetricQuery.Measure {
        func simple(_ measure: Measure) -> MetricQuery.Measure {
            measure.aggregate == .sum ? .sum(event: measure.event) : .count(event: measure.event)
        }
        switch type {
        case .proportion: return .proportion(event: measure.event)
        case .mean: return simple(measure)
        case .ratio: return .ratio(numerator: simple(measure), denominator: simple(denominator ?? measure))
        }
    }

    /// The events it reads.
    package var events: [String] {
        [measure.event] + (denominator.map { [$0.event] } ?? [])
    }
}

// MARK: - JSON

extension MetricDefinition {
    static let keys: Set<String> = [
        "type", "event", "value", "numerator", "denominator", "windowHours", "higherIsBetter", "cuped", "description",
    ]

    /// The document as the admin API shows it and the store keeps it (without its name, the key).
    package var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("type", .string(type.rawValue))]
        switch type {
        case .proportion: members.append(("event", .string(measure.event)))
        case .mean: members += [("event", .string(measure.event)), ("value", .string(measure.aggregate.rawValue))]
        case .ratio:
            members.append(("numerator", Self.json(measure)))
            if let denominator { members.append(("denominator", Self.json(denominator))) }
        }
        if let windowHours { members.append(("windowHours", .number(windowHours))) }
        members.append(("higherIsBetter", .bool(higherIsBetter)))
        if let cupedLookbackHours { members.append(("cuped", .object([("lookbackHours", .number(cupedLookbackHours))]))) }
        if let description { members.append(("description", .string(description))) }
        return .object(members)
    }

    private static func json(_ measure: Measure) -> JSONValue {
        .object([("event", .string(measure.event)), ("value", .string(measure.aggregate.rawValue))])
    }

    package var body: [UInt8] { JSONWriter.encode(jsonValue) }

    /// The definition `value` holds for metric `name`; nil after reporting every mistake.
    package static func decode(_ value: JSONValue, name: String, at path: JSONPath, _ collector: DiagnosticsCollector) -> MetricDefinition? {
        guard let object = collector.object(value, at: path, allowedKeys: keys) else { return nil }
        let before = collector.diagnostics.count
        var type: MetricType?
        if let raw = object.string("type", required: true) {
            type = MetricType(rawValue: raw)
            if type == nil { object.report("unknown type \"\(raw)\"; expected proportion, mean or ratio", atMember: "type") }
        }
        var measure: Measure?
        var denominator: Measure?
        switch type {
        case .proportion?, .mean?:
            for key in ["numerator", "denominator"] where object.contains(key) {
                object.report("\"\(key)\" is for a ratio; a \(type!.rawValue) metric names its \"event\"", atMember: key)
            }
            if type == .proportion, object.contains("value") {
                object.report("a proportion counts users who sent the event; \"value\" is for a mean", atMember: "value")
            }
            let event = object.string("event", required: true).flatMap { eventName($0, at: path.appending("event"), object.value("event")!, collector) }
            let aggregate = aggregate(object, key: "value", default: .sum)
            if let event, let aggregate { measure = Measure(event: event, aggregate: aggregate) }
        case .ratio?:
            for key in ["event", "value"] where object.contains(key) {
                object.report("a ratio names a \"numerator\" and a \"denominator\", each {\"event\", \"value\"}", atMember: key)
            }
            measure = object.value("numerator", required: true).flatMap { decodeMeasure($0, default: .sum, at: path.appending("numerator"), collector) }
            denominator = object.value("denominator", required: true).flatMap {
                decodeMeasure($0, default: .count, at: path.appending("denominator"), collector)
            }
        case nil: break
        }
        let window = hours(object, "windowHours")
        let higherIsBetter = object.contains("higherIsBetter") ? object.bool("higherIsBetter") : true
        let lookback = cuped(object, at: path.appending("cuped"), collector)
        if type == .ratio, let lookback, lookback != nil {
            object.report("CUPED adjusts proportions and means; a ratio is analysed unadjusted, as GrowthBook does", atMember: "cuped")
        }
        let description = object.string("description")
        guard collector.diagnostics.count == before, let type, let measure, let higherIsBetter else { return nil }
        return MetricDefinition(
            name: name, type: type, measure: measure, denominator: denominator, windowHours: window ?? nil, higherIsBetter: higherIsBetter,
            cupedLookbackHours: lookback ?? nil, description: description)
    }

    private static func decodeMeasure(
        _ value: JSONValue, default fallback: Measure.Aggregate, at path: JSONPath, _ collector: DiagnosticsCollector
    ) -> Measure? {
        guard let object = collector.object(value, at: path, allowedKeys: ["event", "value"]) else { return nil }
        let event = object.string("event", required: true).flatMap { eventName($0, at: path.appending("event"), object.value("event")!, collector) }
        guard let event, let aggregate = aggregate(object, key: "value", default: fallback) else { return nil }
        return Measure(event: event, aggregate: aggregate)
    }

    private static func aggregate(_ object: JSONObjectReader, key: String, default fallback: Measure.Aggregate) -> Measure.Aggregate? {
        guard object.contains(key) else { return fallback }
        guard let raw = object.string(key) else { return nil }
        guard let aggregate = Measure.Aggregate(rawValue: raw) else {
            object.report("unknown value \"\(raw)\"; expected sum (of the events' values) or count (of events)", atMember: key)
            return nil
        }
        return aggregate
    }

    /// `.some(nil)` when absent; nil after a report.
    private static func hours(_ object: JSONObjectReader, _ key: String) -> Double?? {
        guard object.contains(key) else { return .some(nil) }
        guard let n = object.number(key) else { return nil }
        guard n > 0, n <= maximumHours else {
            object.report("expected hours above 0 and at most \(Int(maximumHours)), found \(JSONWriter.string(.number(n)))", atMember: key)
            return nil
        }
        return .some(n)
    }

    /// `true` (14 days), `false`, or `{"lookbackHours": h}`; `.some(nil)` when off.
    private static func cuped(_ object: JSONObjectReader, at path: JSONPath, _ collector: DiagnosticsCollector) -> Double?? {
        guard let value = object.value("cuped") else { return .some(nil) }
        if let on = value.boolValue { return .some(on ? defaultLookbackHours : nil) }
        guard let settings = collector.object(value, at: path, allowedKeys: ["lookbackHours"]) else { return nil }
        return hours(settings, "lookbackHours").map { $0 ?? defaultLookbackHours }
    }

    /// An event name: 1 to 128 bytes without control characters.
    static func eventName(_ name: String, at path: JSONPath, _ value: JSONValue, _ collector: DiagnosticsCollector) -> String? {
        if let problem = TrackedEventName.problem(name) {
            collector.report(problem, at: path, value)
            return nil
        }
        return name
    }

    /// The metric a stored document holds; nil for a deleted one or one this version cannot read.
    package init?(_ document: StoredDocument) {
        guard document.body != RuntimeState.resetBody, let value = try? JSONParser.parse(document.body) else { return nil }
        let collector = DiagnosticsCollector()
        guard let metric = Self.decode(value, name: document.key, at: .root, collector) else { return nil }
        self = metric
    }
}

/// What an event name may be, wherever one is read (a metric, an app's event).
package enum TrackedEventName {
    /// - Parameter fromApp: an app's tracked event, which may not take a name the server makes
    ///   (with `:`, as ``RenderFailure/eventName(screen:)``); a metric may name those.
    package static func problem(_ name: String, fromApp: Bool = false) -> String? {
        let limit = MetricDefinition.maximumEventNameBytes
        if name.isEmpty { return "an event name must not be empty" }
        if name.utf8.count > limit { return "an event name is at most \(limit) bytes, this one has \(name.utf8.count)" }
        if name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "an event name must not contain control characters" }
        if fromApp, name.contains(":") { return "an app's event name has no ':' (names with one are the server's, as render_failure:SCREEN); send a render beacon as \"render\"" }
        return nil
    }
}
