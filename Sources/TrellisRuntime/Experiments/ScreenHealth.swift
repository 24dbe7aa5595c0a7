import TrellisJSON
import TrellisStats
import TrellisStore
import TrellisTargeting

/// How a screen revision fares with the apps it reached: how many users it was served to, and
/// how many of them sent a render beacon for the screen (`POST /v1/events`, `"render"`) — beside
/// the revision it is compared with: the current one for a staged revision, the staged one for the
/// current. Users are those the server recorded (a screen with a staged revision) or apps sent as
/// exposures; a user served both revisions is counted in neither.
package enum ScreenHealth {
    package static func compute(screen id: String, revision: Int, in snapshot: Snapshot, store: any EventStore, now: Double) throws(Refusal) -> JSONValue {
        guard let current = snapshot.screens[id], let newest = snapshot.newestRevision(of: id) else {
            throw Runtime.notFound("screen", id, known: snapshot.screens.keys)
        }
        let staged = snapshot.staged[id]
        guard (1...newest).contains(revision) else { throw .notFound("screen \"\(id)\" has no revision \(revision); its newest is \(newest)") }
        let statistics: MetricStatistics
        do {
            statistics = try store.statistics(
                MetricQuery(
                    subject: .screen(id), measure: .proportion(event: RenderFailure.eventName(screen: id)), window: nil, covariateLookback: nil,
                    dimension: nil, asOf: now))
        } catch {
            throw Refusal(readingEvents: error)
        }
        let counts = { (revision: Int) -> (users: Int, failing: Int) in
            let row = statistics.rows.first { $0.variant == String(revision) }
            return (row?.users ?? 0, Int(row?.sum ?? 0))
        }
        var members: [(String, JSONValue)] = [("screen", .string(id))]
        members += figures(revision, counts(revision), role: role(revision, current: current.revision, staged: staged))
        let other = revision == staged?.entry.revision ? current.revision : staged?.entry.revision
        if let other, other != revision {
            members.append(("against", .object(figures(other, counts(other), role: role(other, current: current.revision, staged: staged)))))
        }
        members.append(("multipleExposures", .number(statistics.multipleExposures)))
        members.append(("asOf", .string(RFC3339.string(fromSeconds: now))))
        return .object(members)
    }

    private static func figures(_ revision: Int, _ counts: (users: Int, failing: Int), role: String) -> [(String, JSONValue)] {
        [
            ("revision", .number(revision)), ("served", .string(role)), ("users", .number(counts.users)),
            ("usersWithRenderFailures", .number(counts.failing)),
            ("renderFailureRate", counts.users == 0 ? .null : .number(Double(counts.failing) / Double(counts.users))),
        ]
    }

    /// `current`, `staged` (to a share of users) or `earlier`.
    private static func role(_ revision: Int, current: Int, staged: StagedScreen?) -> String {
        if revision == current { return "current" }
        if revision == staged?.entry.revision { return "staged" }
        return "earlier"
    }
}
