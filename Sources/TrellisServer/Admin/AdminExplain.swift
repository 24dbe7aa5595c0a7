import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisScreens
import TrellisTargeting

extension AdminEndpoints {
    /// `GET /admin/explain?screen=home&user=…&platform=…` (any screen context, query or headers,
    /// taken as given even when apps must sign theirs):
    /// why this user sees what they see — which revision, every decision point of that revision
    /// with its value and the reason, every rollout with the user's bucket.
    func explain(_ request: HTTPRequest, _ context: HTTPRequestContext) throws(Problem) -> HTTPResponse {
        guard let id = request.query["screen"] else {
            throw Problem(.badRequest, "query parameter \"screen\" is required: the screen to explain, such as screen=home")
        }
        guard request.headers[SignedContext.headerName] == nil else {
            throw Problem(.badRequest, "explain takes the user as given (user=…, attr.NAME=…, or X- headers); it does not read \(SignedContext.headerName)")
        }
        let resolving = try ScreenRequest(request, id: id, state: state, parameters: ["screen"], reader: Self.explainReader)
        let snapshot = resolving.snapshot
        let evaluator = snapshot.evaluator
        let user = resolving.context
        let decisions = resolving.entry.decisions
        let reached = decisions.reachability(of: resolving.outcomes)
        let points: [JSONValue] = decisions.points.enumerated().map { index, point in
            var members: [(String, JSONValue)] = [("path", .string(point.path.description))]
            if let id = point.id { members.append(("id", .string(id))) }
            members.append(("reached", .bool(reached[index])))
            switch point.kind {
            case .rule(let expression):
                members.insert(("kind", .string("rule")), at: 0)
                let explanation = evaluator.explain(expression, for: user)
                members += [("value", explanation.value.map(JSONValue.bool) ?? .null), ("explanation", explanation.jsonValue)]
            case .experiment(let key, let variants):
                members.insert(("kind", .string("experiment")), at: 0)
                members.append(("experiment", .string(key)))
                let outcome = resolving.outcomes.bytes[index]
                let shown = outcome == Outcomes.none || Int(outcome) >= variants.count ? JSONValue.null : .string(variants[Int(outcome)])
                members += [("decision", evaluator.variantDecision(of: key, for: user)?.jsonValue ?? .null), ("shows", shown)]
            }
            return .object(members)
        }
        let rollouts: [JSONValue] = decisions.rollouts.map { key in
            .object([("key", .string(key)), ("decision", evaluator.rolloutDecision(key, for: user).jsonValue)])
        }
        return Self.resource(
            .object([
                ("screen", .string(id)), ("revision", .number(resolving.entry.revision)),
                ("staged", stagedExplanation(id, snapshot, user)), ("outcomes", .string(resolving.outcomes.description)),
                ("decisions", .array(points)), ("rollouts", .array(rollouts)),
            ]))
    }

    /// An admin token vouches for the question, so explain takes the user as given in the query and
    /// headers even where apps must sign it: ops ask about user X without the gateway's key.
    static let explainReader = ContextReader(configuration: .init())

    /// Whether the user gets the staged revision, and their place in the staging group.
    private func stagedExplanation(_ id: String, _ snapshot: Snapshot, _ user: UserContext) -> JSONValue {
        guard let staged = snapshot.staged[id] else { return .null }
        var members: [(String, JSONValue)] = [
            ("revision", .number(staged.entry.revision)), ("percentage", staged.percentage.jsonValue),
            ("groupId", .string(StagedScreen.groupID(screen: id))), ("admitted", .bool(staged.admits(user))),
        ]
        if let userID = user.userID {
            let placement = Bucketing.rolloutPlacement(groupID: StagedScreen.groupID(screen: id), userID: userID)
            members += [("bucket", .number(placement.bucket)), ("position", .number(Double(placement.position) / 100))]
        } else {
            members.append(("reason", .string("no user id: everyone without one gets the current revision")))
        }
        return .object(members)
    }
}
