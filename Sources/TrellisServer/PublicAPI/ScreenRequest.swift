import TrellisAnswers
import TrellisHTTP
import TrellisJSON
import TrellisRendering
import TrellisRuntime
import TrellisScreens
import TrellisStrings
import TrellisTargeting

/// The part every per-user screen answer shares (the screen, its layout, its previews): the user
/// context from the query, the snapshot, the outcomes, the screen's parameters, and the answer cache.
///
/// A class, immutable: a request's handlers pass it along and capture it in closures, and each copy
/// of a struct this size retained and released every member (a fifth of a cached answer's
/// instructions went to copying it).
final class ScreenRequest: Sendable {
    let query: QueryParameters
    let context: UserContext
    let snapshot: Snapshot
    let entry: ScreenEntry
    let id: String
    /// The client's schema version capped at the screen's (and at its format's, ``limited(toSchemaVersion:)``).
    let schemaVersion: Int
    let outcomes: Outcomes
    /// Values for the screen's `$param`s: `param.NAME` from the query, or the route's parameters.
    let screenParameters: [String: JSONValue]
    /// The string tables of the user's locale, for a screen that shows strings; nil for any other.
    let strings: LocalizedStrings?
    /// The locale the answer's strings are written in (`Content-Language`); nil without strings.
    var language: String? { strings?.tag }
    let state: ServerState
    /// The headers of the request the answer is sent in reply to; nil for an answer that goes
    /// into another. A miss for a client that takes gzip, and does not have the answer already,
    /// makes the answer's gzip form before it is stored (``cached(format:pretty:viewport:linkQuery:make:)``).
    let replyingTo: HTTPHeaders?

    /// Query parameters with this prefix give the screen's parameters (`?param.id=42`).
    static let parameterPrefix = "param."

    /// Reads the context (and checks that `parameters` are the only others given), finds the
    /// screen and decides its outcomes for this user.
    /// - Parameter reader: how the context is read; the server's unless a caller trusts more (explain).
    convenience init(
        _ request: HTTPRequest, id: String, state: ServerState, parameters: Set<String>, reader: ContextReader? = nil
    ) throws(Problem) {
        let query = try QueryParameters(
            request.query, allowed: parameters, takesContext: true, allowedPrefixes: [Self.parameterPrefix])
        let context = try (reader ?? state.contextReader).context(of: request, queryItems: query.contextItems, now: state.clock())
        var given: [String: JSONValue] = [:]
        for item in query.items where item.name.hasPrefix(Self.parameterPrefix) {
            given[String(item.name.dropFirst(Self.parameterPrefix.count))] = .string(item.value)
        }
        try self.init(
            query: query, context: context, snapshot: state.published.snapshot, id: id, state: state, screenParameters: given,
            replyingTo: request.headers)
    }

    /// The screen `id` for a user already known (a route resolved for them, with its parameters).
    convenience init(
        query: QueryParameters, context: UserContext, snapshot: Snapshot, id: String, state: ServerState,
        screenParameters: [String: JSONValue], replyingTo: HTTPHeaders?
    ) throws(Problem) {
        guard let entry = snapshot.entry(id, for: context) else {
            let known = snapshot.screens.keys.sorted().joined(separator: ", ")
            throw Problem(.notFound, "no screen \"\(id)\"; screens: \(known.isEmpty ? "none" : known)")
        }
        self.init(
            query: query, context: context, snapshot: snapshot, entry: entry, state: state, screenParameters: screenParameters,
            replyingTo: replyingTo)
    }

    private convenience init(
        query: QueryParameters, context: UserContext, snapshot: Snapshot, entry: ScreenEntry, state: ServerState,
        screenParameters: [String: JSONValue], replyingTo: HTTPHeaders?
    ) {
        // A client without a schema version is a person exploring: show the screen as written.
        self.init(
            query: query, context: context, snapshot: snapshot, entry: entry, state: state, screenParameters: screenParameters,
            strings: entry.checked.usesStrings ? snapshot.strings.resolve(context.locale) : nil, replyingTo: replyingTo,
            schemaVersion: min(context.schemaVersion ?? entry.schemaVersion, entry.schemaVersion),
            outcomes: entry.outcomes(for: context, in: snapshot))
    }

    private init(
        query: QueryParameters, context: UserContext, snapshot: Snapshot, entry: ScreenEntry, state: ServerState,
        screenParameters: [String: JSONValue], strings: LocalizedStrings?, replyingTo: HTTPHeaders?, schemaVersion: Int, outcomes: Outcomes
    ) {
        self.query = query
        self.context = context
        self.snapshot = snapshot
        self.entry = entry
        self.id = entry.id
        self.state = state
        self.screenParameters = screenParameters
        self.strings = strings
        self.replyingTo = replyingTo
        self.schemaVersion = schemaVersion
        self.outcomes = outcomes
    }

    /// This request with another schema version or reply: the rest as it is.
    private func with(schemaVersion: Int? = nil, replyingTo: HTTPHeaders?) -> ScreenRequest {
        ScreenRequest(
            query: query, context: context, snapshot: snapshot, entry: entry, state: state, screenParameters: screenParameters,
            strings: strings, replyingTo: replyingTo, schemaVersion: schemaVersion ?? self.schemaVersion, outcomes: outcomes)
    }

    /// The same request for a client that renders at most `limit` (nil: no limit).
    func limited(toSchemaVersion limit: Int?) -> ScreenRequest {
        guard let limit, limit < schemaVersion else { return self }
        return with(schemaVersion: limit, replyingTo: replyingTo)
    }

    /// The same request for another revision of the screen.
    func with(_ entry: ScreenEntry) -> ScreenRequest {
        ScreenRequest(
            query: query, context: context, snapshot: snapshot, entry: entry, state: state, screenParameters: screenParameters,
            replyingTo: replyingTo)
    }

    /// The same request for an answer that goes into another (a route's resolution with the
    /// screen in it), whose own gzip form nobody sends.
    var composedIntoAnother: ScreenRequest { with(replyingTo: nil) }

    /// The screen resolved for this user, parameters substituted, without the answer cache.
    func resolve() throws(Problem) -> ResolvedScreen {
        let model: Screen
        do { model = try snapshot.screen(of: entry) } catch { throw Problem(.internalServerError, error.description) }
        let resolved = snapshot.resolver.resolve(model, decisions: entry.decisions, outcomes: outcomes, clientSchemaVersion: schemaVersion)
        guard resolved.needsSubstitution else { return resolved }
        do {
            return try resolved.substituting(screenParameters, strings: strings)
        } catch {
            throw parameterProblem(error)
        }
    }

    private func parameterProblem(_ error: ParameterError) -> Problem {
        Problem(
            .badRequest,
            "screen \(id): \(error); give its parameters as ?\(Self.parameterPrefix)NAME=value, or open it through a route (GET /v1/routes/resolve?url=…)")
    }

    /// The screen's own answer, compact or pretty, by the encoder ``ScreenAnswerEncoder`` picks: the
    /// entry's encoding plan when the screen has one for this schema version (bytes copied and
    /// branches picked, nothing resolved), else the resolver's own encoding of ``resolve()``.
    func encodedScreen(pretty: Bool) throws(Problem) -> EncodedBody {
        try ScreenAnswerEncoder.answer(
            pretty: pretty, plan: { entry.encodingPlan(for: schemaVersion, in: snapshot) }, outcomes: outcomes, revision: entry.revision,
            parameters: screenParameters, strings: strings, compression: EncodedBody.cachedCompression, resolved: { () throws(Problem) in try resolve() },
            parameterFailure: parameterProblem)
    }

    /// What this request puts into the screen, canonically: part of the answer's cache key. The
    /// locale its strings are written in (when it shows any), then the values of the parameters
    /// it uses, each as JSON (`-` when not given; no JSON text is), joined by `&`, in the order of
    /// the screen's sorted names — which the key's screen and revision fix, so naming them again
    /// told nothing. A few short values then fit in the `String` itself: with the names, a
    /// templated screen's key had a buffer of its own, a line from memory that a hit compared
    /// and waited for.
    var inputKey: String {
        var key = strings.map { $0.tag + "|" } ?? ""
        for (index, name) in entry.parameterNames.enumerated() {
            if index > 0 { key += "&" }
            key += screenParameters[name].map { JSONWriter.string($0) } ?? "-"
        }
        return key
    }

    /// The cached answer in `format` (without a viewport) for this outcome, or `encode`'s, stored.
    func answer(format: AnswerFormat, pretty: Bool = false, encode: (ResolvedScreen) -> [UInt8]) throws(Problem) -> EncodedBody {
        try cached(format: format, pretty: pretty) { () throws(Problem) in EncodedBody(bytes: encode(try resolve())) }
    }

    /// ``resolve()`` through the snapshot's cache of resolved screens: many viewports of one
    /// outcome (a layout or preview miss each) resolve the screen once.
    func resolvedForViewports() throws(Problem) -> ResolvedScreen {
        let key = AnswerKey(
            screen: id, revision: entry.revision, schemaVersion: schemaVersion, outcomes: outcomes, pretty: false,
            inputs: inputKey)
        return try snapshot.resolvedScreens.answer(for: key) { () throws(Problem) in try resolve() }.body
    }

    /// The layout plan of this outcome for `viewport`'s kind (all of it but its size), through the
    /// snapshot's cache of plans: a client sweeping sizes plans each outcome once.
    func layoutPlan(for viewport: LayoutViewport) throws(Problem) -> LayoutPlan {
        let key = AnswerKey(
            screen: id, revision: entry.revision, schemaVersion: schemaVersion, outcomes: outcomes, pretty: false,
            format: .layout, viewport: LayoutPlan.kind(of: viewport), inputs: inputKey)
        return try snapshot.layoutPlans.answer(for: key) { () throws(Problem) in
            ScreenLayout(viewport: viewport, fonts: snapshot.fonts).plan(
                try resolvedForViewports(), revision: entry.revision, concurrentLayouts: state.concurrentLayouts)
        }.body
    }

    /// The cached answer in `format` for this outcome (and viewport), or `make`'s, stored.
    func cached(
        format: AnswerFormat, pretty: Bool = false, viewport: LayoutViewport? = nil, linkQuery: String = "",
        make: () throws(Problem) -> EncodedBody
    ) throws(Problem) -> EncodedBody {
        let key = AnswerKey(
            screen: id, revision: entry.revision, schemaVersion: schemaVersion, outcomes: outcomes, pretty: pretty,
            format: format, viewport: viewport, inputs: inputKey, linkQuery: linkQuery)
        let (body, hit) = try snapshot.answers.answer(for: key) { () throws(Problem) in
            let made = try make()
            // The response would make the form next; made before the answer is stored, it is
            // charged what it holds, not its bound (``EncodedBody/cacheBytes``), and no later miss
            // has to come back to the answer, a line from memory, to charge it again.
            if let headers = replyingTo, headers.acceptsGzip, !headers.ifNoneMatchMatches(made.etag) { _ = made.gzip }
            return made
        }
        state.recordAnswer(hit: hit)
        return body
    }
}
