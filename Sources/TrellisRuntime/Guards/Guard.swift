import TrellisJSON
import TrellisStats
import TrellisStore
import TrellisTargeting

/// A guard: what makes a rollout or a staged screen revision stop itself when the apps that got
/// it fare worse than those that did not. A runtime document (`PUT /admin/rollouts/{key}/guard`,
/// `PUT /admin/screens/{id}/guard`), audited and versioned like metrics.
///
/// Treatment is who got it — a rollout's admitted users, a staged revision's — and control who was
/// eligible and did not: the rest of the rollout's bucket range, the users served the current
/// revision. Each check is a one-sided sequential test (``GuardrailTest``) of one metric.
package struct Guard: Sendable, Equatable {
    package static let kind = "guard"

    /// What a guard watches.
    package enum Subject: Hashable, Sendable, CustomStringConvertible {
        case rollout(String)
        case screen(String)

        /// The document's key and the audit log's resource: `rollouts/banner`, `screens/home`.
        package var resource: String {
            switch self {
            case .rollout(let key): "rollouts/" + key
            case .screen(let id): "screens/" + id
            }
        }

        package init?(resource: String) {
            if resource.hasPrefix("rollouts/") { self = .rollout(String(resource.dropFirst("rollouts/".count))) }
            else if resource.hasPrefix("screens/") { self = .screen(String(resource.dropFirst("screens/".count))) }
            else { return nil }
        }

        package var description: String { resource }

        /// Whose exposures the arms are, and the two arms' variants.
        package var exposures: (subject: ExposureSubject, treatment: String, control: String)? {
            switch self {
            case .rollout(let key): (.rollout(key), "on", "off")
            case .screen: nil  // the revisions are the snapshot's: ``arms(in:)``
            }
        }
    }

    /// One metric the guard tests.
    package struct Check: Sendable, Equatable {
        /// A metric's name, or ``Guard/renderFailures``.
        package var metric: String
        /// The relative change tolerated in the bad direction (0.10: ten percent worse).
        package var tolerance: Double
        /// Which way is bad; nil: the metric's (a fall when higher is better).
        package var bad: BadDirection?
    }

    /// What a regression does.
    package enum Action: String, Sendable, CaseIterable {
        /// Kill the rollout (its schedule with it), or abandon the staged revision.
        case halt
        /// Only keep a scheduled ramp from advancing.
        case hold
    }

    /// The built-in metric of a screen guard: the share of the revision's users who sent a render
    /// beacon for the screen.
    package static let renderFailures = "render-failures"

    package var subject: Subject
    package var checks: [Check]
    /// Fewer users than this in an arm decide nothing (and hold a ramp).
    package var minimumUsers: Int
    package var action: Action
    package var alpha: Double

    package static let defaultMinimumUsers = 1_000
    package static let maximumChecks = 10

    package init(subject: Subject, checks: [Check], minimumUsers: Int = defaultMinimumUsers, action: Action = .halt, alpha: Double = 0.05) {
        self.subject = subject
        self.checks = checks
        self.minimumUsers = minimumUsers
        self.action = action
        self.alpha = alpha
    }

    /// The metric a check reads: a defined one, or the render-failure rate of a guarded screen.
    package func definition(of check: Check, metrics: [String: MetricDefinition]) -> MetricDefinition? {
        if check.metric == Self.renderFailures, case .screen(let id) = subject {
            return MetricDefinition(
                name: Self.renderFailures, type: .proportion, measure: .init(event: RenderFailure.eventName(screen: id), aggregate: .count),
                higherIsBetter: false)
        }
        return metrics[check.metric]
    }
}

// MARK: - JSON

extension Guard {
    package var jsonValue: JSONValue {
        .object([
            ("checks", .array(checks.map { check in
                var members: [(String, JSONValue)] = [("metric", .string(check.metric)), ("tolerance", .number(check.tolerance))]
                if let bad = check.bad { members.append(("bad", .string(bad.rawValue))) }
                return .object(members)
            })),
            ("minimumUsers", .number(minimumUsers)), ("action", .string(action.rawValue)), ("alpha", .number(alpha)),
        ])
    }

    package var body: [UInt8] { JSONWriter.encode(jsonValue) }

    /// `{"checks": [{"metric", "tolerance", "bad"?}], "minimumUsers"?, "action"?, "alpha"?}`; nil after
    /// reporting every mistake.
    package static func decode(_ value: JSONValue, subject: Subject, at path: JSONPath, _ collector: DiagnosticsCollector) -> Guard? {
        guard let object = collector.object(value, at: path, allowedKeys: ["checks", "minimumUsers", "action", "alpha"]) else { return nil }
        let before = collector.diagnostics.count
        var checks: [Check] = []
        if let list = object.array("checks", required: true) {
            let listPath = path.appending("checks")
            if !(1...maximumChecks).contains(list.count) {
                collector.report("a guard has 1 to \(maximumChecks) checks, found \(list.count)", at: listPath, object.value("checks")!)
            }
            for (index, item) in list.enumerated() {
                if let check = decodeCheck(item, subject: subject, at: listPath.appending(index), collector) { checks.append(check) }
            }
        }
        let minimumUsers = object.contains("minimumUsers") ? object.integer("minimumUsers", in: 2...100_000_000) : defaultMinimumUsers
        var action: Action? = .halt
        if let raw = object.string("action") {
            action = Action(rawValue: raw)
            if action == nil { object.report("unknown action \"\(raw)\"; expected halt or hold", atMember: "action") }
        }
        var alpha: Double? = 0.05
        if object.contains("alpha") {
            alpha = object.number("alpha")
            if let a = alpha, !(a > 0 && a < 0.5) {
                object.report("expected a number above 0 and below 0.5", atMember: "alpha")
                alpha = nil
            }
        }
        guard collector.diagnostics.count == before, let minimumUsers, let action, let alpha else { return nil }
        return Guard(subject: subject, checks: checks, minimumUsers: minimumUsers, action: action, alpha: alpha)
    }

    private static func decodeCheck(_ value: JSONValue, subject: Subject, at path: JSONPath, _ collector: DiagnosticsCollector) -> Check? {
        guard let object = collector.object(value, at: path, allowedKeys: ["metric", "tolerance", "bad"]) else { return nil }
        let metric = object.string("metric", required: true)
        if metric == renderFailures, case .rollout = subject {
            object.report("render-failures is a screen's; a rollout's guard names a metric (PUT /admin/metrics/{name})", atMember: "metric")
            return nil
        }
        var tolerance: Double? = 0.10
        if object.contains("tolerance") {
            tolerance = object.number("tolerance")
            if let t = tolerance, !(t >= 0 && t <= 10) {
                object.report("expected a relative change from 0 to 10 (0.1 is ten percent)", atMember: "tolerance")
                tolerance = nil
            }
        }
        var bad: BadDirection?
        if let raw = object.string("bad") {
            bad = BadDirection(rawValue: raw)
            if bad == nil { object.report("unknown direction \"\(raw)\"; expected rise or fall", atMember: "bad") }
        }
        guard let metric, let tolerance, !object.contains("bad") || bad != nil else { return nil }
        return Check(metric: metric, tolerance: tolerance, bad: bad)
    }

    /// The guard a stored document holds; nil for a removed one or one this version cannot read.
    package init?(_ document: StoredDocument) {
        guard document.body != RuntimeState.resetBody, let subject = Subject(resource: document.key),
            let value = try? JSONParser.parse(document.body)
        else { return nil }
        let collector = DiagnosticsCollector()
        guard let decoded = Self.decode(value, subject: subject, at: .root, collector) else { return nil }
        self = decoded
    }
}
