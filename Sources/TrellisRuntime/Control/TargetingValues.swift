import TrellisJSON
import TrellisTargeting

/// What the runtime document of one targeting entry says: settings over the configuration's entry
/// of the same key, a whole definition of it (created at run time, or redefined by a write of the
/// whole targeting document), or that it is retired. A document that hands the entry back to the
/// configuration holds ``RuntimeState/resetBody`` and has no value.
///
/// The forms are stored as:
/// - settings: the settings object itself (`{"percentage": 40, "enabled": true}`), as before there
///   were other forms, so documents written by earlier versions read unchanged;
/// - defined: `{"defined": <the entry as targeting.json writes it>}`;
/// - retired: `{"retired": true}`.
package enum TargetingEntryForm<Settings: Sendable & Equatable, Definition: Sendable & Equatable>: Sendable, Equatable {
    case settings(Settings)
    case defined(Definition)
    case retired

    /// The entry in force, given the configuration's (`base`) and how settings apply to it; nil
    /// when the entry is not in force (retired, or settings for a key the configuration dropped).
    package func entry(over base: Definition?, applying: (Settings, Definition) -> Definition) -> Definition? {
        switch self {
        case .settings(let settings): base.map { applying(settings, $0) }
        case .defined(let definition): definition
        case .retired: nil
        }
    }

    package var isRetired: Bool { self == .retired }

    package static var retiredMember: (String, JSONValue) { ("retired", .bool(true)) }
}

/// A rollout's runtime value: its form and the steps of its schedule still to come.
package struct RolloutValue: Sendable, Equatable {
    package var form: TargetingEntryForm<RolloutSettings, TargetingConfiguration.Rollout>
    /// Percentages the scheduler sets at their times, oldest first; each applied step leaves it.
    package var schedule: [ScheduledStep] = []

    package static let kind = RolloutSettings.kind

    package var jsonValue: JSONValue {
        var members: [(String, JSONValue)]
        switch form {
        case .settings(let settings): members = (settings.jsonValue.objectValue ?? []).map { ($0.key, $0.value) }
        case .defined(let rollout): members = [("defined", rollout.jsonValue)]
        case .retired: members = [TargetingEntryForm<RolloutSettings, TargetingConfiguration.Rollout>.retiredMember]
        }
        if !schedule.isEmpty { members.append(("schedule", .array(schedule.map(\.jsonValue)))) }
        return .object(members)
    }

    package static func decode(_ bytes: [UInt8], source: String) -> Result<RolloutValue, DiagnosticsError> {
        DiagnosticsCollector.decode(bytes, source: source) { document, collector in
            var members = document.objectValue ?? []
            var schedule: [ScheduledStep] = []
            if let index = members.firstIndex(where: { $0.key == "schedule" }) {
                guard let steps = ScheduledStep.decodeList(members[index].value, at: .root.appending("schedule"), collector) else { return nil }
                schedule = steps
                members.remove(at: index)
            }
            let rest = JSONValue(.object(members), at: document.location)
            if members.count == 1, members[0].key == "defined" {
                let definition = members[0].value
                // Written with its group id always, so the key the decoder defaults it to never shows.
                if definition.objectValue?.contains(where: { $0.key == "groupId" }) == false {
                    collector.report("a defined rollout names its groupId", at: .root.appending("defined"), definition)
                    return nil
                }
                return TargetingConfiguration.decodeRollout("-", definition, at: .root.appending("defined"), collector).map {
                    RolloutValue(form: .defined($0), schedule: schedule)
                }
            }
            if isRetired(rest) { return RolloutValue(form: .retired, schedule: schedule) }
            return RolloutSettings.decode(rest, collector).map { RolloutValue(form: .settings($0), schedule: schedule) }
        }
    }
}

/// An experiment's runtime value.
package struct ExperimentValue: Sendable, Equatable {
    package var form: TargetingEntryForm<ExperimentSettings, TargetingConfiguration.Experiment>

    package static let kind = ExperimentSettings.kind

    package var jsonValue: JSONValue {
        switch form {
        case .settings(let settings): settings.jsonValue
        case .defined(let experiment): .object([("defined", experiment.jsonValue)])
        case .retired: .object([TargetingEntryForm<ExperimentSettings, TargetingConfiguration.Experiment>.retiredMember])
        }
    }

    package static func decode(_ bytes: [UInt8], source: String) -> Result<ExperimentValue, DiagnosticsError> {
        DiagnosticsCollector.decode(bytes, source: source) { document, collector in
            let members = document.objectValue ?? []
            if members.count == 1, members[0].key == "defined" {
                return TargetingConfiguration.decodeExperiment(members[0].value, at: .root.appending("defined"), collector).map {
                    ExperimentValue(form: .defined($0))
                }
            }
            if isRetired(document) { return ExperimentValue(form: .retired) }
            return ExperimentSettings.decode(document, collector).map { ExperimentValue(form: .settings($0)) }
        }
    }
}

/// A named rule's runtime value: its expression, or retired. Rules have no settings form: a rule
/// is its expression.
package struct RuleValue: Sendable, Equatable {
    package var form: TargetingEntryForm<RuleExpression, RuleExpression>

    package static let kind = "rule"

    package var jsonValue: JSONValue {
        switch form {
        case .settings(let expression), .defined(let expression): .object([("defined", expression.jsonValue)])
        case .retired: .object([TargetingEntryForm<RuleExpression, RuleExpression>.retiredMember])
        }
    }

    package static func decode(_ bytes: [UInt8], source: String) -> Result<RuleValue, DiagnosticsError> {
        DiagnosticsCollector.decode(bytes, source: source) { document, collector in
            if isRetired(document) { return RuleValue(form: .retired) }
            guard let object = collector.object(document, at: .root, allowedKeys: ["defined"]),
                let expression = object.value("defined", required: true)
            else { return nil }
            return RuleExpression.decode(expression, at: .root.appending("defined"), collector).map { RuleValue(form: .defined($0)) }
        }
    }
}

/// Whether a document is the retired form, `{"retired": true}`.
private func isRetired(_ document: JSONValue) -> Bool {
    guard let members = document.objectValue, members.count == 1, members[0].key == "retired" else { return false }
    return members[0].value.boolValue == true
}

/// One step of a rollout's schedule: at `at` (seconds since 1970, UTC), the percentage becomes `percentage`.
package struct ScheduledStep: Sendable, Equatable {
    package var at: Double
    package var percentage: RolloutPercentage

    /// Most steps one schedule holds.
    package static let maximumSteps = 100

    package init(at: Double, percentage: RolloutPercentage) {
        self.at = at
        self.percentage = percentage
    }

    package var jsonValue: JSONValue {
        .object([("at", .string(RFC3339.string(fromSeconds: at))), ("percentage", percentage.jsonValue)])
    }

    /// A list of steps (`[{"at": "2026-12-01T09:00:00Z", "percentage": 50}, …]`), in strictly
    /// increasing time; nil after reporting every mistake.
    package static func decodeList(_ value: JSONValue, at path: JSONPath, _ collector: DiagnosticsCollector) -> [ScheduledStep]? {
        guard let items = value.arrayValue else {
            collector.report("expected an array of {\"at\": time, \"percentage\": number}, found \(value.typeName)", at: path, value)
            return nil
        }
        guard items.count <= maximumSteps else {
            collector.report("a schedule has at most \(maximumSteps) steps, found \(items.count)", at: path, value)
            return nil
        }
        var steps: [ScheduledStep] = []
        var complete = true
        for (i, item) in items.enumerated() {
            let itemPath = path.appending(i)
            guard let object = collector.object(item, at: itemPath, allowedKeys: ["at", "percentage"]),
                let text = object.string("at", required: true),
                let raw = object.value("percentage", required: true)
            else {
                complete = false
                continue
            }
            guard let at = RFC3339.seconds(from: text) else {
                object.report("expected a time such as 2026-12-01T09:00:00Z (RFC 3339), found \"\(text)\"", atMember: "at")
                complete = false
                continue
            }
            guard let percentage = RolloutPercentage.decode(raw, at: itemPath.appending("percentage"), collector) else {
                complete = false
                continue
            }
            if let last = steps.last, at <= last.at {
                object.report("steps must be in strictly increasing time; this one is not after the step before", atMember: "at")
                complete = false
            }
            steps.append(ScheduledStep(at: at, percentage: percentage))
        }
        return complete ? steps : nil
    }
}
