import TrellisHTTP
import TrellisJSON
import TrellisRuntime

/// `/admin/guards`, `/admin/rollouts/{key}/guard`, `/admin/screens/{id}/guard`: what stops a
/// rollout or a staged revision on evidence, and what each guard saw last (its writes are
/// commands: ``AdminWrites``).
extension AdminEndpoints {
    func registerGuards(in routes: inout AuthorizingRouter) {
        routes.add(.get, "/admin/guards") { _, _, _, _ throws(Problem) in
            let guards = state.published.snapshot.runtime.operations.guards.values.sorted { $0.subject.resource < $1.subject.resource }
            return Self.resource(.object([("guards", .array(guards.map { Self.guardView($0, seen: guardRunner?.lastEvaluation(of: $0.subject)) }))]))
        }
        for (pattern, name) in [("/admin/rollouts/{key}/guard", "key"), ("/admin/screens/{id}/guard", "id")] {
            routes.add(.get, pattern) { _, parameters, _, _ throws(Problem) in
                let snapshot = state.published.snapshot
                let key = parameters[name] ?? ""
                let subject: Guard.Subject = name == "key" ? .rollout(key) : .screen(key)
                guard let guarded = snapshot.runtime.operations.guards[subject] else {
                    throw Problem(.notFound, "\(subject.resource) has no guard; PUT one here")
                }
                return Self.resource(
                    Self.guardView(guarded, seen: guardRunner?.lastEvaluation(of: subject)), etag: ResourceView.version(of: .guardrail(subject), in: snapshot))
            }
        }
    }

    /// A guard as ops see it: what it guards, its checks, and what it saw when this replica's
    /// runner last looked (null before it has, or on a replica that does not hold the lease).
    static func guardView(_ guarded: Guard, seen: GuardEvaluation? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("guards", .string(guarded.subject.resource))]
        members += guarded.jsonValue.objectValue?.map { ($0.key, $0.value) } ?? []
        members.append(("lastEvaluation", seen?.jsonValue ?? .null))
        return .object(members)
    }
}
