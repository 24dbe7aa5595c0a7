import TrellisHTTP
import TrellisJSON
import TrellisRoutes
import TrellisRuntime
import TrellisScreens
import TrellisStore
import TrellisTargeting

/// `GET /admin/targeting/stale?days=N`: what is ready to be cleaned up — rollouts that have
/// admitted everybody or nobody for longer than N days (30 by default), experiments concluded,
/// and rules, rollouts and experiments that no screen, route or rule refers to.
extension AdminEndpoints {
    /// The age the report uses when the request names none.
    static let defaultStaleDays = 30

    func staleReport(_ request: HTTPRequest, _ context: HTTPRequestContext) throws(Problem) -> HTTPReply {
        let query = try QueryParameters(request.query, allowed: ["days"])
        var days = Self.defaultStaleDays
        if let text = query["days"] {
            guard let n = Int(text), (0...36_500).contains(n) else { throw Problem(.badRequest, "days \"\(text)\": expected a whole number of days from 0 to 36500") }
            days = n
        }
        let window = days
        let snapshot = state.published.snapshot
        let store = control.store
        let now = state.clock()
        let horizon = now - Double(days) * 86_400
        // When the configuration's values were last recorded is in the targeting history, in the store.
        return .deferred(on: control.readQueue, for: request, context) { () throws(Problem) in
            let history: [DocumentRevisionSummary]
            do { history = try store.revisions(of: .targeting) } catch {
                throw Problem(.serviceUnavailable, "cannot read the targeting history: \(error)")
            }
            let configSince = history.last { $0.origin == .config }?.createdAt ?? history.first?.createdAt ?? now
            let report = Self.stale(in: snapshot, horizon: horizon, configSince: configSince)
            return Self.resource(.object([("days", .number(window))] + report))
        }
    }

    /// The report's members, for a snapshot: `rollouts`, `experiments`, `unreferenced`.
    static func stale(in snapshot: Snapshot, horizon: Double, configSince: Double) -> [(String, JSONValue)] {
        let targeting = snapshot.targeting
        func since(_ document: StoredDocument?) -> Double {
            guard let document, document.body != RuntimeState.resetBody else { return configSince }
            return document.updatedAt
        }
        var rollouts: [JSONValue] = []
        for (key, rollout) in targeting.rollouts.sorted(by: { $0.key < $1.key }) {
            let reason: String? =
                !rollout.enabled ? "killed" : rollout.percentage == .all ? "at 100 %" : rollout.percentage == .none ? "at 0 %" : nil
            let changed = since(snapshot.runtime.rollouts[key]?.document)
            guard let reason, changed <= horizon, ResourceView.schedule(key, snapshot).isEmpty else { continue }
            rollouts.append(.object([
                ("key", .string(key)), ("reason", .string(reason)), ("since", .string(RFC3339.string(fromSeconds: changed))),
            ]))
        }
        var experiments: [JSONValue] = []
        for (key, experiment) in targeting.experiments.sorted(by: { $0.key < $1.key }) {
            guard case .concluded(let winner) = experiment.status else { continue }
            let changed = since(snapshot.runtime.experiments[key]?.document)
            experiments.append(.object([
                ("key", .string(key)), ("winner", .string(winner)), ("since", .string(RFC3339.string(fromSeconds: changed))),
            ]))
        }
        let used = referenced(in: snapshot)
        func unused(_ keys: some Sequence<String>, _ kind: (String) -> TargetingReference) -> JSONValue {
            .array(keys.sorted().filter { !used.contains(kind($0)) }.map(JSONValue.string))
        }
        return [
            ("rollouts", .array(rollouts)), ("experiments", .array(experiments)),
            ("unreferenced", .object([
                ("rules", unused(targeting.rules.keys) { .rule($0) }), ("rollouts", unused(targeting.rollouts.keys) { .rollout($0) }),
                ("experiments", unused(targeting.experiments.keys) { .experiment($0, variant: nil) }),
            ])),
        ]
    }

    /// Every name a served screen (current or staged), the route table or a rule refers to;
    /// experiments without their variant.
    static func referenced(in snapshot: Snapshot) -> Set<TargetingReference> {
        var found = Set<TargetingReference>()
        func add(_ references: [(reference: TargetingReference, path: JSONPath)]) {
            for (reference, _) in references {
                if case .experiment(let key, _) = reference { found.insert(.experiment(key, variant: nil)) } else { found.insert(reference) }
            }
        }
        for (_, entry) in snapshot.screens { add(entry.decisions.targetingReferences()) }
        for (_, staged) in snapshot.staged { add(staged.entry.decisions.targetingReferences()) }
        if let routes = snapshot.routes { add(routes.table.targetingReferences()) }
        for (name, rule) in snapshot.targeting.rules { add(rule.references(at: JSONPath.root.appending("rules").appending(name))) }
        return found
    }
}
