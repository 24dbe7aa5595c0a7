import TrellisAnswers
import TrellisJSON
import TrellisStrings
import TrellisRoutes
import TrellisStore
import TrellisTargeting

/// Resources of the runtime state as ops see them (JSON), and their versions: a version is what a
/// writer names to make a command against what it read (the admin API's ETag), so it is defined
/// here, beside what it is the version of.
package enum ResourceView {
    /// The version of `target` in `snapshot`; nil when it does not exist or has no version of its
    /// own (tokens, webhooks, the change requests as a whole).
    package static func version(of target: Target, in snapshot: Snapshot) -> String? {
        switch target {
        case .rollout(let key): snapshot.targeting.rollouts[key] == nil ? nil : version(of: rollout(key, in: snapshot))
        case .experiment(let key): snapshot.targeting.experiments[key] == nil ? nil : version(of: experiment(key, in: snapshot))
        case .rule(let name): snapshot.targeting.rules[name] == nil ? nil : version(of: rule(name, in: snapshot))
        case .targeting: version(of: snapshot.targeting.jsonValue)
        case .screen(let id): snapshot.runtime.screens[id].map { Revisioned.screen(id).version($0.head) }
        case .routeTable: snapshot.runtime.routes.map { Revisioned.routeTable.version($0.head) }
        case .strings(let locale): snapshot.runtime.strings[locale].map { Revisioned.strings(locale).version($0.head) }
        case .changeRequest(let id):
            snapshot.runtime.changeRequests[ChangeRequest.key(id)].map { "\"change-\(id)-v\($0.document.revision)\"" }
        case .metric(let name): snapshot.runtime.operations.metrics[name].map { version(of: metric($0, in: snapshot)) }
        case .guardrail(let subject): snapshot.runtime.operations.guards[subject].map { version(of: $0.jsonValue) }
        case .token, .webhook, .changeRequests: nil
        }
    }

    /// The version of a resource whose JSON form is `value`: a strong fingerprint of it.
    package static func version(of value: JSONValue) -> String {
        "\"" + EncodedBody.fingerprint(JSONWriter.encode(value)) + "\""
    }

    /// A rollout as ops see it: the values in force, its schedule, where they come from, and the
    /// configuration's values when a runtime value overrides them.
    package static func rollout(_ key: String, in snapshot: Snapshot) -> JSONValue {
        guard let rollout = snapshot.targeting.rollouts[key] else { return .null }
        var members: [(String, JSONValue)] = [
            ("key", .string(key)), ("percentage", rollout.percentage.jsonValue), ("enabled", .bool(rollout.enabled)),
            ("groupId", .string(rollout.groupID)), ("description", rollout.description.map(JSONValue.string) ?? .null),
            ("schedule", .array(schedule(key, snapshot).map(\.jsonValue))),
        ]
        members += provenance(snapshot.runtime.rollouts[key]?.document)
        if snapshot.runtime.hasOverride(kind: RolloutValue.kind, key: key), let baseline = snapshot.baselineTargeting.rollouts[key] {
            members.append(("config", RolloutSettings(baseline).jsonValue))
        }
        return .object(members)
    }

    /// The steps still to come of rollout `key`'s schedule.
    package static func schedule(_ key: String, _ snapshot: Snapshot) -> [ScheduledStep] {
        snapshot.runtime.rollouts[key]?.settings?.schedule ?? []
    }

    /// An experiment as ops see it: variants and weights, status, overrides, the metrics it names and
    /// who records exposures (always, defaults too), and where they come from.
    package static func experiment(_ key: String, in snapshot: Snapshot) -> JSONValue {
        guard let experiment = snapshot.targeting.experiments[key] else { return .null }
        var members: [(String, JSONValue)] = [
            ("key", .string(key)),
            ("variants", .array(experiment.variants.map { .object([("name", .string($0.name)), ("weight", .number($0.weight))]) })),
            ("defaultVariant", .string(experiment.defaultVariant)), ("status", .string(experiment.status.description)),
        ]
        if case .concluded(let winner) = experiment.status { members.append(("winner", .string(winner))) }
        members.append(
            ("overrides", .object(experiment.overrides.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        members.append(("description", experiment.description.map(JSONValue.string) ?? .null))
        members.append(("goals", .array(experiment.goals.map(JSONValue.string))))
        members.append(("guardrails", .array(experiment.guardrails.map(JSONValue.string))))
        members.append(("exposures", .string(experiment.exposures.rawValue)))
        members += provenance(snapshot.runtime.experiments[key]?.document)
        if snapshot.runtime.hasOverride(kind: ExperimentValue.kind, key: key), let baseline = snapshot.baselineTargeting.experiments[key] {
            members.append(("config", ExperimentSettings(baseline).jsonValue))
        }
        return .object(members)
    }

    /// A metric as ops see it: its definition, who last changed it, and the experiments that read it.
    package static func metric(_ metric: MetricDefinition, in snapshot: Snapshot) -> JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(metric.name))]
        members += metric.jsonValue.objectValue?.map { ($0.key, $0.value) } ?? []
        let readers = snapshot.targeting.experiments.filter { $0.value.metricNames.contains(metric.name) }.keys.sorted()
        members.append(("experiments", .array(readers.map(JSONValue.string))))
        members += provenance(snapshot.runtime.operations.document(kind: MetricDefinition.kind, key: metric.name))
        return .object(members)
    }

    /// A rule as ops see it: its expression and where it comes from.
    package static func rule(_ name: String, in snapshot: Snapshot) -> JSONValue {
        guard let rule = snapshot.targeting.rules[name] else { return .null }
        var members: [(String, JSONValue)] = [("name", .string(name)), ("rule", rule.jsonValue)]
        members += provenance(snapshot.runtime.rules[name]?.document)
        if snapshot.runtime.hasOverride(kind: RuleValue.kind, key: name), let configured = snapshot.baselineTargeting.rules[name] {
            members.append(("config", configured.jsonValue))
        }
        return .object(members)
    }

    /// `source`, `revision`, `updatedAt`, `updatedBy` of a value that may have a runtime document
    /// (a reset one says `config`, with who reset it and when).
    package static func provenance(_ document: StoredDocument?) -> [(String, JSONValue)] {
        guard let document else {
            return [("source", .string("config")), ("revision", .number(0)), ("updatedAt", .null), ("updatedBy", .null)]
        }
        return [
            ("source", .string(document.body == RuntimeState.resetBody ? "config" : "runtime")), ("revision", .number(document.revision)),
            ("updatedAt", .string(RFC3339.string(fromSeconds: document.updatedAt))), ("updatedBy", .string(document.updatedBy)),
        ]
    }

    /// A rollout as the audit log records it: as targeting.json writes it, and its schedule.
    package static func auditForm(_ rollout: TargetingConfiguration.Rollout, _ schedule: [ScheduledStep]) -> JSONValue {
        var members = (rollout.jsonValue.objectValue ?? []).map { ($0.key, $0.value) }
        if !schedule.isEmpty { members.append(("schedule", .array(schedule.map(\.jsonValue)))) }
        return .object(members)
    }

    /// The targeting history's head as ops see it.
    package static func targetingHeadMembers(in snapshot: Snapshot) -> [(String, JSONValue)] {
        guard let stored = snapshot.runtime.targetingHistory else {
            return [("revision", .number(0)), ("latestRevision", .number(0)), ("updatedAt", .null), ("updatedBy", .null)]
        }
        return [
            ("revision", .number(stored.head.current)), ("origin", .string(stored.current.origin.rawValue)),
            ("latestRevision", .number(stored.latestRevision)), ("updatedAt", .string(RFC3339.string(fromSeconds: stored.head.updatedAt))),
            ("updatedBy", .string(stored.head.updatedBy)),
        ]
    }

    /// A screen's head as ops see it: the revision served, a staged one, who changed it and when.
    package static func screenHeadMembers(_ id: String, in snapshot: Snapshot) -> [(String, JSONValue)]? {
        guard let stored = snapshot.runtime.screens[id] else { return nil }
        let head = stored.head
        var staged: JSONValue = .null
        if let number = head.staged, let basisPoints = head.stagedBasisPoints {
            staged = .object([
                ("revision", .number(number)), ("percentage", .number(Double(basisPoints) / 100)),
                ("origin", .string(stored.staged?.origin.rawValue ?? "publish")),
            ])
        }
        return [
            ("id", .string(id)), ("revision", .number(head.current)),
            ("source", .string(stored.current.origin == .config ? "config" : "runtime")),
            ("origin", .string(stored.current.origin.rawValue)),
            ("served", .bool(snapshot.screens[id] != nil)), ("staged", staged), ("latestRevision", .number(stored.latestRevision)),
            ("updatedAt", .string(RFC3339.string(fromSeconds: head.updatedAt))), ("updatedBy", .string(head.updatedBy)),
        ]
    }

    /// The route table's head as ops see it: the revision served, where it came from, who changed it.
    package static func routeTableHeadMembers(in snapshot: Snapshot) -> [(String, JSONValue)]? {
        guard let stored = snapshot.runtime.routes else { return nil }
        let head = stored.head
        return [
            ("revision", .number(head.current)), ("source", .string(stored.current.origin == .config ? "config" : "runtime")),
            ("origin", .string(stored.current.origin.rawValue)), ("served", .bool(snapshot.routes?.revision == head.current)),
            ("routes", .number(snapshot.routes?.table.routes.count ?? 0)), ("latestRevision", .number(stored.latestRevision)),
            ("updatedAt", .string(RFC3339.string(fromSeconds: head.updatedAt))), ("updatedBy", .string(head.updatedBy)),
        ]
    }
}

extension ResourceView {
    /// A locale's string table as ops see it: the revision in force, where it came from, who changed
    /// it, and how much of the default locale's table it translates.
    package static func stringsHeadMembers(_ locale: String, in snapshot: Snapshot) -> [(String, JSONValue)]? {
        guard let stored = snapshot.runtime.strings[locale] else { return nil }
        let head = stored.head
        return [
            ("locale", .string(locale)), ("revision", .number(head.current)),
            ("source", .string(stored.current.origin == .config ? "config" : "runtime")), ("origin", .string(stored.current.origin.rawValue)),
            ("served", .bool(snapshot.strings.tables[locale] != nil)), ("default", .bool(snapshot.strings.defaultLocale == locale)),
            ("keys", .number(snapshot.strings.tables[locale]?.count ?? 0)), ("latestRevision", .number(stored.latestRevision)),
            ("updatedAt", .string(RFC3339.string(fromSeconds: head.updatedAt))), ("updatedBy", .string(head.updatedBy)),
        ]
    }

    /// Every locale's table with what it lacks of the default locale's (shown in the default's
    /// text) and has beyond it (never shown): the translators' to-do list.
    package static func stringCoverage(in snapshot: Snapshot) -> JSONValue {
        let catalog = snapshot.strings
        let coverage = Dictionary(uniqueKeysWithValues: catalog.coverage().map { ($0.locale, $0) })
        let locales: [JSONValue] = catalog.tables.keys.sorted().map { locale in
            var members: [(String, JSONValue)] = [
                ("locale", .string(locale)), ("default", .bool(locale == catalog.defaultLocale)),
                ("keys", .number(catalog.tables[locale]?.count ?? 0)),
            ]
            if let covered = coverage[locale] {
                members += [
                    ("translated", .number((covered.translated * 1000).rounded() / 1000)),
                    ("missing", .array(covered.missing.map(JSONValue.string))), ("unknown", .array(covered.unknown.map(JSONValue.string))),
                ]
            }
            if let stored = snapshot.runtime.strings[locale] {
                members += [("revision", .number(stored.head.current)), ("source", .string(stored.current.origin == .config ? "config" : "runtime"))]
            }
            return .object(members)
        }
        return .object([("defaultLocale", .string(catalog.defaultLocale)), ("locales", .array(locales))])
    }
}

/// A document ops publish in immutable revisions with a head naming the one served: a screen, the
/// route table, the targeting history. The store keeps them alike, by ``key``.
package struct Revisioned: Sendable {
    /// What the store keeps its revisions under.
    package let key: RevisionedKey
    /// Its name in the audit log: `screens/home`, `routes`.
    package let auditResource: String
    /// How messages name it: `screen home`, `the route table`.
    package let label: String
    /// What audit actions start with: `screen`, `routes`.
    package let actionPrefix: String
    /// What its versions start with: `screen-home`, `routes`.
    package let versionPrefix: String

    package static func screen(_ id: String) -> Revisioned {
        Revisioned(key: .screen(id), auditResource: "screens/\(id)", label: "screen \(id)", actionPrefix: "screen", versionPrefix: "screen-\(id)")
    }

    package static func strings(_ locale: String) -> Revisioned {
        Revisioned(
            key: .strings(locale), auditResource: "strings/\(locale)", label: "the string table of \(locale)", actionPrefix: "strings",
            versionPrefix: "strings-\(locale)")
    }

    package static let routeTable = Revisioned(
        key: .routeTable, auditResource: "routes", label: "the route table", actionPrefix: "routes", versionPrefix: "routes")

    package static let targeting = Revisioned(
        key: .targeting, auditResource: "targeting", label: "the targeting document", actionPrefix: "targeting",
        versionPrefix: "targeting")

    package func action(_ verb: String) -> String { actionPrefix + "." + verb }

    /// The head's version, for If-Match.
    package func version(_ head: DocumentHead) -> String { "\"\(versionPrefix)-v\(head.version)\"" }
}
