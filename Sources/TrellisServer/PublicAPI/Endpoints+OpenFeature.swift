import TrellisAnswers
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisStrings
import TrellisTargeting

/// OpenFeature's remote evaluation protocol, OFREP 0.3 (docs/openfeature.md): any OpenFeature SDK
/// with an OFREP provider reads Trellis's rollouts and experiments as flags, decided for the user
/// its context describes exactly as a screen request with the same context is (the same reader
/// of the context, the same evaluator).
extension Endpoints {
    func registerOpenFeature(in router: inout EndpointRouter) {
        router.add(.post, "/ofrep/v1/evaluate/flags/{key}") { request, parameters, context throws(Problem) in
            evaluateFlag(request, key: parameters["key"] ?? "", context)
        }
        router.add(.post, "/ofrep/v1/evaluate/flags") { request, _, context throws(Problem) in
            evaluateFlags(request, context)
        }
    }

    /// `POST /ofrep/v1/evaluate/flags/{key}` — one flag: 200 `{key, reason, variant, value,
    /// metadata}`, 404 `FLAG_NOT_FOUND`, 400 with OFREP's error codes.
    func evaluateFlag(_ request: HTTPRequest, key: String, _ context: HTTPRequestContext) -> HTTPResponse {
        let snapshot = state.published.snapshot
        do throws(OpenFeatureFailure) {
            let (user, identified) = try userContext(of: request, context)
            guard let flag = FlagEvaluation.evaluate(key, for: user, with: snapshot.evaluator) else {
                let known = FlagEvaluation.keys(of: snapshot.targeting)
                throw OpenFeatureFailure(
                    status: .notFound, code: .flagNotFound,
                    details: "no rollout or experiment \"\(key)\"; flags: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
            }
            if flag.needsUserID && !identified { throw Self.targetingKeyMissing(flag) }
            recordExposures(of: CollectionOfOne(key), for: user, in: snapshot)
            guard flag.isLocalized else {
                return Self.json(JSONWriter.encode(flag.jsonValue(targetingRevision: snapshot.targetingRevision)), cacheControl: "no-store")
            }
            let strings = snapshot.strings.resolve(user.locale)
            var response = Self.json(
                JSONWriter.encode(flag.written(in: strings).jsonValue(targetingRevision: snapshot.targetingRevision)), cacheControl: "no-store")
            response.headers.add(name: "Content-Language", value: strings.tag)
            return response
        } catch {
            return error.response(key: key)
        }
    }

    /// `POST /ofrep/v1/evaluate/flags` — every flag for one user, with an ETag (304 on
    /// `If-None-Match`) and the change stream in `eventStreams`. `flagConfigEtag` and
    /// `flagConfigLastModified` (sent after a `refetchEvaluation` event) are accepted and need no
    /// use: every answer is made from the snapshot in force.
    func evaluateFlags(_ request: HTTPRequest, _ context: HTTPRequestContext) -> HTTPResponse {
        let snapshot = state.published.snapshot
        do throws(OpenFeatureFailure) {
            let (user, identified) = try userContext(of: request, context)
            if !(snapshot.serverExposedExperiments.isEmpty && snapshot.guardedRollouts.isEmpty) {
                recordExposures(of: snapshot.serverExposedExperiments.union(snapshot.guardedRollouts), for: user, in: snapshot)
            }
            // Resolved only when a flag's value is a string of the tables.
            var strings: LocalizedStrings?
            let flags: [JSONValue] = FlagEvaluation.keys(of: snapshot.targeting).compactMap { key in
                guard let flag = FlagEvaluation.evaluate(key, for: user, with: snapshot.evaluator) else { return nil }
                // OFREP's partial success: a flag that needs the missing key is a failure item.
                if flag.needsUserID && !identified { return Self.targetingKeyMissing(flag).jsonValue(key: key) }
                guard flag.isLocalized else { return flag.jsonValue(targetingRevision: snapshot.targetingRevision) }
                strings = strings ?? snapshot.strings.resolve(user.locale)
                return flag.written(in: strings!).jsonValue(targetingRevision: snapshot.targetingRevision)
            }
            let body = JSONWriter.encode(.object([
                ("flags", .array(flags)),
                ("metadata", .object([("targetingRevision", .string(snapshot.targetingRevision))])),
                ("eventStreams", Self.openFeatureEventStreams),
            ]))
            return Self.cached(
                EncodedBody(bytes: body, compressionLevel: 1), request, cacheControl: "private, no-cache", vary: state.screenVary,
                language: strings?.tag)
        } catch {
            return error.response(key: nil)
        }
    }

    /// The change stream in OpenFeature's rendition, at this server's origin (`endpoint` without
    /// `origin`: the provider uses the base URL it was configured with).
    static let openFeatureEventStreams: JSONValue = .array([
        .object([
            ("type", .string("sse")), ("endpoint", .object([("requestUri", .string("/v1/changes?format=ofrep"))])),
            ("inactivityDelaySec", .number(120)),
        ])
    ])

    /// A flag that only a user id could decide, asked for without saying who is asking.
    static func targetingKeyMissing(_ flag: FlagEvaluation) -> OpenFeatureFailure {
        OpenFeatureFailure(
            status: .badRequest, code: .targetingKeyMissing,
            details: "$.context.targetingKey: missing, and \(flag.kind.rawValue) \"\(flag.key)\" buckets users by it; give the user's stable id (\"\" for an anonymous user)")
    }

    /// Who is asking: the key checked, the body's context read as the query would be, then merged
    /// with the headers and a signed `X-Trellis-Context` by the reader screen requests use.
    /// `identified`: the request says who is asking — a `targetingKey` (an empty one for an
    /// anonymous user), a user id from a header, or a signed context.
    private func userContext(
        of request: HTTPRequest, _ context: HTTPRequestContext
    ) throws(OpenFeatureFailure) -> (user: UserContext, identified: Bool) {
        try state.openFeature.check(request, remoteAddress: ClientAddress.of(request, context, trusting: state.trustedProxies))
        let evaluation = try EvaluationRequest(body: request.body)
        let user: UserContext
        do {
            user = try state.contextReader.context(of: request, queryItems: evaluation.parameters, now: state.clock())
        } catch {
            // The body's own mistakes, each at its path and line; else the headers' or the signature's.
            if case .failure(let invalid) = Result(catching: { () throws(UserContextError) in try UserContext.parse(evaluation.parameters) }) {
                throw evaluation.invalidContext(invalid)
            }
            throw OpenFeatureFailure(
                status: error.status == .unauthorized ? .unauthorized : .badRequest,
                code: error.status == .unauthorized ? .general : .invalidContext, details: error.detail)
        }
        return (user, user.userID != nil || evaluation.hasTargetingKey || request.headers["X-Trellis-Context"] != nil)
    }
}
